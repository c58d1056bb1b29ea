"""The one way the engine asks a policy for a move, and what it does when one misbehaves.

A policy is someone else's code. It gets a copy of the mask (editing it changes
nothing) and a generator of its own (which shares no state with the dice); its
answer is checked against the engine's mask. Raising, exiting, answering with
something that is not an action number, choosing an illegal action or, where
the caller sets a limit, taking too long, is a `PolicyFault`: the policy's seat
forfeits the duel and the reason is recorded. The env and the duel runner both
ask through `ask`, so the rule is written once.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from duelo.envs.core.policy import Policy

MAX_REASON = 200
"""Characters of a policy's error kept in a forfeit's reason (it is someone else's text)."""


class PolicyFault(Exception):
    """A policy broke the rules of play; the message says how, and its seat forfeits."""


def ask(
    policy: Policy,
    observation: Mapping[str, np.ndarray],
    mask: np.ndarray,
    rng: np.random.Generator,
    time_limit: float | None = None,
) -> int:
    """The legal action `policy` chooses, or a `PolicyFault`.

    `time_limit` is checked once the move returns (a move that never returns is stopped
    only where the policy runs in a process of its own: `agents/sandbox.py`).
    """
    started = time.perf_counter() if time_limit is not None else 0.0
    try:
        answer = policy.act(observation, mask.copy(), rng)
    except PolicyFault:
        raise
    except (Exception, SystemExit) as error:  # KeyboardInterrupt stays the user's
        raise PolicyFault(f"raised {type(error).__name__}: {summary(str(error))}") from None
    if time_limit is not None:
        elapsed = time.perf_counter() - started
        if elapsed > time_limit:
            raise PolicyFault(f"took {elapsed:.3f} s for a move (limit {time_limit} s)")
    if type(answer) is not int:  # the common answer first: a plain int
        if isinstance(answer, bool) or not isinstance(answer, np.integer):
            raise PolicyFault(f"returned {summary(repr(answer))}, not an action number")
        answer = int(answer)
    if not (0 <= answer < len(mask) and mask[answer]):
        raise PolicyFault(f"chose illegal action {answer}")
    return answer


def summary(text: str) -> str:
    """Someone else's text, on one line and at most `MAX_REASON` characters."""
    line = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 3] + "..."
