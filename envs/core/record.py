"""What every duel keeps, whatever its rules: the round, the narration and the result.

A ruleset's state extends `DuelRecord` with what its own rules track. The end
of a duel happens here only (`finish`), the round cap is applied here only
(`start_round`), and "over" means one thing: a result is set (STYLE #16).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple


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
    """How a duel ended. `winner` is a seat, or None for a draw; `stake` is what the win
    is worth (a rival who flees a Liminal fight loses half: digest §12)."""

    winner: int | None
    reason: str
    truncated: bool = False
    stake: float = 1.0

    def reward(self, seat: int) -> float:
        """+stake for a win, -stake for a loss, 0 for a draw or a truncated duel."""
        if self.winner is None:
            return 0.0
        return self.stake if self.winner == seat else -self.stake


MAX_ROUND_CAP = 998
"""The largest round cap a ruleset may take: observations show the round within [0, 999],
and the registered episode limit stays out of any legal duel's reach."""


@dataclass(kw_only=True)
class DuelRecord:
    """The part of a duel's state that the core owns.

    `round` counts the system's rounds (exchanges in a fencing duel); the round
    cap is checked against it by `start_round`.
    """

    round: int = 0
    log: list[Event] = field(default_factory=list)
    result: Outcome | None = None

    @property
    def over(self) -> bool:
        """The duel has ended: nobody acts any more."""
        return self.result is not None

    def say(self, seat: int | None, template: str, *values: Any) -> None:
        """Log one line of narration: a `str.format` template and its values (see `Event`)."""
        self.log.append(Event(self.round, seat, template, values))

    def finish(self, outcome: Outcome) -> None:
        """End the duel with `outcome` (the one place a duel ends)."""
        if self.result is not None:
            raise RuntimeError(f"the duel already ended ({self.result.reason})")
        self.result = outcome
        self.say(None, "Duel over: {}", outcome.reason)

    def start_round(self, cap: int) -> bool:
        """Count a new round; past `cap` rounds the duel ends as a truncated draw.

        Returns whether the duel goes on (the one place the round cap is applied).
        """
        self.round += 1
        if self.round > cap:
            self.finish(Outcome(None, f"round cap of {cap}", truncated=True))
            return False
        return True
