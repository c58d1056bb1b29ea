"""The contract between a combat system's rules and everything built on them.

A ruleset is pure game logic over a state object it creates: no Gymnasium, no
RL code, no rendering beyond the event log. The generic `DuelEnv`, the per-duel
runner and the CLI drive any ruleset through this interface alone, so a new
combat system is a new ruleset and nothing else.

The state has one owner that mutates it: `apply` changes the state in place
(STYLE #15: one clearly owned mutable state, copied with `copy.deepcopy` by
anyone who needs to search ahead).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import ObservationSpec

SEATS = (0, 1)
"""Every duel has two seats; seat 0 is side A, seat 1 side B."""


def seat_names(first: str, second: str) -> tuple[str, str]:
    """Names for the narration: "(A)" and "(B)" tell two fighters of one name apart."""
    if first == second:
        return f"{first} (A)", f"{second} (B)"
    return first, second


class Event(NamedTuple):
    """One line of the duel's narration: a roll, an effect, a decision.

    The line is kept as a `str.format` template and the values it names, taken
    when it happened, and is written out only when read: the duels nobody reads
    (training, tournaments) never pay for formatting their narration.
    """

    round: int
    seat: int | None
    template: str
    values: tuple[Any, ...] = ()

    @property
    def text(self) -> str:
        """The narrated line, capitalised (it may open with a name like "the outlaw")."""
        text = self.template.format(*self.values) if self.values else self.template
        return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Outcome:
    """How a duel ended. `winner` is a seat, or None for a draw."""

    winner: int | None
    reason: str
    truncated: bool = False

    def reward(self, seat: int) -> float:
        """+1 for a win, -1 for a loss, 0 for a draw or a truncated duel."""
        if self.winner is None:
            return 0.0
        return 1.0 if self.winner == seat else -1.0


StateT = TypeVar("StateT")


class Ruleset(Protocol, Generic[StateT]):
    """One combat system's rules (DESIGN.md layer 2)."""

    system: str
    """Short id, e.g. "infierno"."""
    version: int
    """Bumped whenever the rules' behaviour changes (it is the env id's -vN)."""
    actions: type[IntEnum]
    observation_spec: ObservationSpec
    round_cap: int
    """Rounds after which a duel is truncated as a draw."""

    def new_duel(self, dice: Dice) -> StateT:
        """Set up a duel, rolling whatever the rules roll before the first decision."""
        ...

    def to_act(self, state: StateT) -> int | None:
        """The seat that must decide now, or None when the duel is over."""
        ...

    def legal_actions(self, state: StateT, seat: int) -> np.ndarray:
        """Boolean mask over `actions`; never empty while `seat` is to act."""
        ...

    def apply(self, state: StateT, seat: int, action: int, dice: Dice) -> None:
        """Resolve one decision of `seat`, rolls included. The action must be legal."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """The result once the duel is over (a round cap included), else None."""
        ...

    def observe(self, state: StateT, seat: int) -> np.ndarray:
        """What `seat` may see now: one new float32 vector laid out by `observation_spec`
        (its `split` and `view` give the keyed Dict)."""
        ...

    def round(self, state: StateT) -> int:
        """The current round (the cap is checked against it)."""
        ...

    def events(self, state: StateT) -> list[Event]:
        """Every roll and effect so far, in order."""
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
        legal = ", ".join(ruleset.actions(i).name for i in np.flatnonzero(mask))
        raise IllegalActionError(
            f"{ruleset.system}: action {action} ({name}) is illegal for seat {seat} now; "
            f"legal actions: {legal}"
        )
