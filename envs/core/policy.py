"""The one interface every NPC brain serves: scripted, trained or remote.

It lives in the core because the env and the duel runner call it; `agents/`
implements it. A policy sees only what the rules let its seat see (the
observation) and the legal-action mask, never the hidden state.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Protocol, TypeGuard, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """Chooses one legal action for the seat it plays."""

    name: str
    description: str

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        """Return the index of a legal action (`action_mask[action]` is True).

        `observation` maps each key of the system's observation spec to its array
        (an `ObservationView`: arrays are made as they are read; its `flat` is the
        whole vector).
        """
        ...


BLIND: Mapping[str, np.ndarray] = MappingProxyType({})
"""What a seat whose policy reads no observation is handed (`reads_observation`)."""


def reads_observation(policy: Policy) -> bool:
    """Whether `policy` reads its observation: True unless the policy says otherwise
    (`reads_observation = False`, as the random baseline does). The engine builds no
    observation for a seat whose policy reads none: it would cost the step's largest
    share for nothing."""
    return bool(getattr(policy, "reads_observation", True))


UNIFORM_LEGAL = "uniform_legal"
"""A policy class's `draws`: it plays `legal[rng.integers(legal.size)]` from its
generator and nothing else, which the batched engine replays inside its kernels
instead of asking it (`plays_uniform_legal`)."""


def plays_uniform_legal(policy: Policy) -> bool:
    """Whether `policy`'s own class declares `draws = UNIFORM_LEGAL` (a subclass that
    does not declare it again is asked as any other policy: it may decide otherwise)."""
    return vars(type(policy)).get("draws") == UNIFORM_LEGAL


@runtime_checkable
class BatchPolicy(Policy, Protocol):
    """A policy that can also decide many duels in one call (`duelo tournament --engine
    fast`). One instance decides every duel of a batch, so it keeps no state and draws
    no randomness: `act_batch(o, m)[i]` is `act(o[i], m[i], rng)` for any `rng`."""

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The action for each row: flat observations (N, size), masks (N, actions)."""
        ...


@runtime_checkable
class ProcessPolicy(Policy, Protocol):
    """A policy served by a process of its own (`agents/sandbox.py`). Whoever plays a
    duel with one calls `new_duel` before it (a fresh process: nothing learned in one duel
    reaches the next) and `close` after it (nothing it started outlives the duel)."""

    def new_duel(self) -> None: ...

    def close(self) -> None: ...

    def fork(self) -> ProcessPolicy:
        """The same policy in a process of its own, for another seat of the same duel:
        two seats never share a process (`runner.line_up`)."""
        ...


def served_by_process(policy: Policy) -> TypeGuard[ProcessPolicy]:
    """Whether `policy` is a `ProcessPolicy`: its class serves the lifetime methods.
    Asked of every seat of every duel, so the answer is kept per class: a runtime
    protocol's `isinstance` walks the protocol's members at every call (15 us, four
    times a duel: a twentieth of a fencing duel's time)."""
    return _serves_process(type(policy))


@cache
def _serves_process(kind: type) -> bool:
    return all(callable(getattr(kind, method, None)) for method in ("new_duel", "close", "fork"))
