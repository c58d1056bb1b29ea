"""What every duel keeps, whatever its rules: the round, the narration and the result.

A ruleset's state extends `DuelState` with what its own rules track. The end
of a duel happens here only (`finish`), the round cap is applied here only
(`start_round`), and "over" means one thing: a result is set (STYLE #16).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import Any, ClassVar, NamedTuple, Self, TypeVar

from duelo.envs.core.config import shown

T = TypeVar("T")


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
    sealed_from: frozenset[int] = frozenset()
    """Seats that may not read the line before its round is over: what the rules hide
    from them (a declaration made after theirs, say); empty: everyone may."""

    def seen_by(self, seats: Collection[int], state: DuelState) -> bool:
        """Whether a person at `seats` may read the line now (`sealed_from`): once its
        round is over, or the fight, everyone may."""
        if not self.sealed_from or state.over or state.round > self.round:
            return True
        return any(seat not in self.sealed_from for seat in seats)

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


def check_round_cap(value: int, name: str = "round_cap") -> None:
    """The one check of a rules option that caps the rounds (every system's options)."""
    if not 1 <= value <= MAX_ROUND_CAP:
        raise ValueError(f"{name} {shown(value)} must lie in 1..{MAX_ROUND_CAP}")


@dataclass(kw_only=True)
class DuelState:
    """The part of a duel's state that the core owns.

    `round` counts the system's rounds (exchanges in a fencing duel); the round
    cap is checked against it by `start_round`.
    """

    round: int = 0
    log: list[Event] = field(default_factory=list)
    result: Outcome | None = None

    ROUND_RELATIVE: ClassVar[tuple[str, ...]] = ()
    """Fields holding a round number that the rules compare with `round` (e.g. "delayed
    this round"): `key` keeps only whether each equals the current round."""

    @property
    def over(self) -> bool:
        """The duel has ended: nobody acts any more."""
        return self.result is not None

    def say(self, seat: int | None, template: str, *values: Any) -> None:
        """Log one line of narration: a `str.format` template and its values (see `Event`)."""
        self.log.append(Event(self.round, seat, template, values))

    def say_sealed(
        self, sealed_from: Collection[int], seat: int | None, template: str, *values: Any
    ) -> None:
        """`say` a line that the seats of `sealed_from` may not read before the round is
        over (`Event.seen_by`): a person playing one of them is not told it yet."""
        self.log.append(Event(self.round, seat, template, values, frozenset(sealed_from)))

    def finish(self, outcome: Outcome) -> None:
        """End the duel with `outcome` (the one place a duel ends)."""
        if self.result is not None:
            raise RuntimeError(f"the duel already ended ({self.result.reason})")
        self.result = outcome
        self.say(None, "Duel over: {}", outcome.reason)

    def key(self, shared: frozenset[int] = frozenset()) -> Hashable:
        """What the rest of the duel depends on, less the round: two states with one key
        play on alike except for the round cap (the solver's merge of states).

        It is every field but the narration, the round and the result, lists and sets
        made tuples and frozensets, and each `ROUND_RELATIVE` field reduced to whether it
        equals the round. Frozen dataclasses stand for themselves (they compare by
        value), or by `id` when listed in `shared`: the scenario and stat blocks that
        every copy of a duel shares, kept alive by the caller.
        """
        relative = self.ROUND_RELATIVE
        return tuple(
            getattr(self, name) == self.round
            if name in relative
            else _key(getattr(self, name), shared)
            for name in _fields(type(self))
        )

    def clone(self) -> Self:
        """A deep copy for searching ahead, several times faster than `copy.deepcopy`: it
        shares only what cannot change (numbers, strings, enums, frozen dataclasses)."""
        return _clone(self)

    def aftermath(self) -> dict[str, Any]:
        """What a finished fight leaves besides its result, for `info` and never for the
        reward (a digest's post-fight rules: who is dying, which mob members were saved).
        Empty unless the system's state says more."""
        return {}

    def start_round(self, cap: int) -> bool:
        """Count a new round; past `cap` rounds the duel ends as a truncated draw.

        Returns whether the duel goes on (the one place the round cap is applied).
        """
        self.round += 1
        if self.round > cap:
            self.finish(Outcome(None, f"round cap of {cap}", truncated=True))
            return False
        return True


def _by_class(function: Callable[[type], T]) -> Callable[[type], T]:
    """`functools.cache` for a function of a class (typed so: mypy checks a class passed
    to the cache's wrapper against its instances' `__hash__`, which a dataclass drops)."""
    return cache(function)


@_by_class
def _fields(cls: type) -> tuple[str, ...]:
    """The fields a key holds: all of them, but a duel's narration, round and result."""
    left_out = _NOT_KEYED if issubclass(cls, DuelState) else frozenset()
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in left_out)


_NOT_KEYED = frozenset({"round", "log", "result"})
_ATOM, _LIST, _TUPLE, _SET, _DICT, _RECORD, _FROZEN, _OTHER = range(8)


@_by_class
def _kind(cls: type) -> int:
    """How `_key` and `_clone` treat a value of this type."""
    if issubclass(cls, int | float | str | Enum) or cls is type(None):
        return _ATOM
    kinds = {list: _LIST, tuple: _TUPLE, set: _SET, dict: _DICT}
    if cls in kinds:
        return kinds[cls]
    if dataclasses.is_dataclass(cls):
        # dataclasses keep `frozen` in params with no public, typed accessor
        return _FROZEN if cls.__dataclass_params__.frozen else _RECORD  # type: ignore[attr-defined]
    return _OTHER


def _key(value: Any, shared: frozenset[int]) -> Hashable:
    """`value` as a hashable key (see `DuelState.key`)."""
    kind = _kind(type(value))
    if kind == _ATOM or kind == _OTHER:
        return value
    if kind == _FROZEN:
        return id(value) if id(value) in shared else value
    if kind == _LIST or kind == _TUPLE:
        return tuple([_key(item, shared) for item in value])
    if kind == _SET:
        return frozenset(value)
    if kind == _DICT:
        return tuple(sorted((k, _key(v, shared)) for k, v in value.items()))
    return tuple([_key(getattr(value, name), shared) for name in _fields(type(value))])


def _clone(value: Any) -> Any:
    """A deep copy that shares what cannot change (see `DuelState.clone`)."""
    kind = _kind(type(value))
    if kind == _ATOM or kind == _FROZEN:
        return value
    if kind == _LIST:
        return [_clone(item) for item in value]
    if kind == _TUPLE:
        return tuple([_clone(item) for item in value])
    if kind == _SET:
        return set(value)
    if kind == _DICT:
        return {k: _clone(v) for k, v in value.items()}
    if kind == _RECORD:
        copied = object.__new__(type(value))
        copied.__dict__.update({name: _clone(item) for name, item in value.__dict__.items()})
        return copied
    return copy.deepcopy(value)
