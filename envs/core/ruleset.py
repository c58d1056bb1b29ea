"""The contract between a combat system's rules and everything built on them.

A ruleset is pure game logic over a state object it creates: no Gymnasium, no
RL code, no rendering beyond the event log. Its state extends the core's
`DuelState` (the round, the narration, the result), so the end of a duel and
the round cap are the core's, not each ruleset's. The generic `DuelEnv`, the
per-duel runner and the CLI drive any ruleset through this interface alone, so
a new combat system is a new ruleset and nothing else.

The state has one owner that mutates it: `apply` changes the state in place
(STYLE #15: one clearly owned mutable state, copied with `copy.deepcopy` by
anyone who needs to search ahead).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import ObservationSpec
from duelo.envs.core.state import DuelState

SEATS = (0, 1)
"""A duel's two seats; seat 0 is side A, seat 1 side B."""
DUEL_SIDES = (0, 1)
"""The `sides` of a duel: each seat is a side of its own."""


def seat_names(first: str, second: str) -> tuple[str, str]:
    """Names for the narration: "(A)" and "(B)" tell two fighters of one name apart."""
    if first == second:
        return f"{first} (A)", f"{second} (B)"
    return first, second


def fighter_names(names: list[str], sides: tuple[int, ...]) -> list[str]:
    """Names for a skirmish's narration: a name several fighters share gets each one's
    slot (A0, B1...)."""
    slots = [f"{'AB'[side]}{sides[:seat].count(side)}" for seat, side in enumerate(sides)]
    return [
        f"{name} ({slot})" if names.count(name) > 1 else name
        for name, slot in zip(names, slots, strict=True)
    ]


def slot_rows(seat: int, allies: list[int], enemies: list[int], max_side: int) -> list[int | None]:
    """The seat in each observation row of a skirmish fighter: itself, its allies, then
    its enemies, each side padded with None (an empty slot) to `max_side` rows."""
    mine: list[int | None] = [*allies, *[None] * (max_side - 1 - len(allies))]
    theirs: list[int | None] = [*enemies, *[None] * (max_side - len(enemies))]
    return [seat, *mine, *theirs]


StateT = TypeVar("StateT", bound=DuelState)


class Ruleset(Protocol, Generic[StateT]):
    """One combat system's rules (DESIGN.md layer 2)."""

    system: str
    """Short id, e.g. "infierno"."""
    version: int
    """Bumped whenever the rules' behaviour changes (it is the env id's -vN)."""
    sides: tuple[int, ...]
    """The side (0 for A, 1 for B) of each seat, one seat a fighter: `DUEL_SIDES` in a
    duel, several seats a side in a skirmish. An `Outcome`'s winner is a side."""
    observation_spec: ObservationSpec
    round_cap: int
    """Rounds after which a duel is truncated as a draw (`DuelState.start_round`)."""
    perfect_information: bool
    """Each seat sees all of the state that its future depends on, so the exact solver
    applies (`duelo.evaluation.solver`); False where cards, plans or declarations are
    hidden. Such a ruleset may say where with a `hides(state, seat) -> bool` method (the
    seat's observation hides part of the state now), which the exact best response
    reads (`duelo.evaluation.best_response`)."""

    @property
    def actions(self) -> type[IntEnum]:
        """The system's `Action` enum (read-only here, so a ruleset's own enum fits)."""
        ...

    @property
    def action_meanings(self) -> Mapping[int, str]:
        """Each action in words, for a person choosing it (`duelo play`, `duelo systems`)."""
        ...

    def new_duel(self, dice: Dice) -> StateT:
        """Set up a duel, rolling whatever the rules roll before the first decision."""
        ...

    def to_act(self, state: StateT) -> int | None:
        """The seat that must decide now, or None when the duel is over (`state.over`)."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> np.ndarray:
        """Boolean mask over `actions`; never empty while `seat` is to act."""
        ...

    def apply(self, state: StateT, seat: int, action: int, dice: Dice) -> None:
        """Resolve one decision of `seat`, rolls included. The action must be legal."""
        ...

    def observe(self, state: StateT, seat: int) -> np.ndarray:
        """What `seat` may see now: one new float32 vector laid out by `observation_spec`
        (its `split` and `view` give the keyed Dict)."""
        ...


class IllegalActionError(ValueError):
    """An action that the mask forbids was chosen."""


def check_legal(
    ruleset: Ruleset[Any], state: Any, seat: int, action: int, mask: np.ndarray | None = None
) -> None:
    """The one illegal-action rule: raise unless `action` is legal for `seat` now.

    `mask` is the seat's current mask when the caller has it already.
    """
    if mask is None:
        mask = ruleset.legal_actions(state, seat)
    if not (0 <= action < len(mask)) or not mask[action]:
        name = ruleset.actions(action).name if 0 <= action < len(mask) else str(action)
        legal = ", ".join(ruleset.actions(int(i)).name for i in np.flatnonzero(mask))
        raise IllegalActionError(
            f"{ruleset.system}: action {action} ({name}) is illegal for seat {seat} now; "
            f"legal actions: {legal}"
        )
