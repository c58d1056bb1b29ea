"""What a ruleset's tests share: scripted duels, the conformance checks and playthroughs.

A new combat system gets, from this module alone:

- `ScriptedDuel`: a ruleset driven one decision at a time with exactly the die
  faces each decision must roll (the seeds' worked examples are replayed this way);
- `check_ruleset(factory)`: the checks every ruleset must pass, over many seeded
  duels of random legal play (masks, observations within their declared bounds,
  one seat deciding at a time, no dice rolled by looking, the end and the round
  cap, zero-sum results, determinism, nothing seen of dice not yet rolled, and
  optionally of hidden cards);
- `playthrough(...)`: a seeded duel written out decision by decision (OpenSpiel's
  playthroughs): the rolls, the legal actions, every observation field of the
  deciding seat, the action and the narration, so a change of rules or of
  encoding shows in a diff.

It needs numpy only: no pytest, no Gymnasium. Failed checks raise
`AssertionError` with the system, seed and decision in the message.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from duelo.envs.core.dice import Dice, GeneratorDice, RecordingDice, ScriptedDice
from duelo.envs.core.policy import Policy
from duelo.envs.core.ruleset import Ruleset, check_legal
from duelo.envs.core.state import DuelState

MAX_DECISIONS = 5_000
"""Decisions after which a duel is taken to be stuck (no shipped duel comes near)."""


class ScriptedDuel:
    """A ruleset and one duel of it, each decision fed exactly the faces it must roll.

    `opening` is every face `new_duel` rolls; a decision that rolls fewer or
    more faces than scripted is an error, so a worked example replays exactly.
    """

    def __init__(self, ruleset: Ruleset[Any], opening: Iterable[int]) -> None:
        self.ruleset = ruleset
        dice = ScriptedDice(opening)
        self.state: Any = ruleset.new_duel(dice)
        if dice.remaining:
            raise AssertionError(f"the opening used {dice.used} of {len(dice.faces)} faces")

    def act(self, action: int, *faces: int) -> None:
        """The seat to act takes `action` (it must be legal), rolling exactly `faces`."""
        seat = self.seat
        if seat is None:
            raise AssertionError(f"the duel is over ({self.state.result.reason})")
        check_legal(self.ruleset, self.state, seat, int(action))
        dice = ScriptedDice(faces)
        self.ruleset.apply(self.state, seat, int(action), dice)
        if dice.remaining:
            name = self.ruleset.actions(action).name
            raise AssertionError(f"{name} used {dice.used} of the {len(faces)} faces scripted")

    @property
    def seat(self) -> int | None:
        """The seat to decide now, None once the duel is over."""
        return self.ruleset.to_act(self.state)

    def mask(self, seat: int | None = None) -> np.ndarray:
        """The legal actions of `seat` (default: the seat to decide)."""
        seat = self.seat if seat is None else seat
        if seat is None:
            raise AssertionError("the duel is over: nobody has legal actions")
        return self.ruleset.legal_actions(self.state, seat)

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """What `seat` sees now, by key."""
        spec = self.ruleset.observation_spec
        return spec.split(self.ruleset.observe(self.state, seat))

    def field(self, seat: int, key: str, field: str | None = None) -> float:
        """One observed entry of `seat`, by name (`ObservationSpec.index`)."""
        spec = self.ruleset.observation_spec
        return float(self.ruleset.observe(self.state, seat)[spec.index(key, field)])

    def log(self) -> str:
        """The narration so far."""
        return "\n".join(event.text for event in self.state.log)


class _Diverging:
    """The faces of `faces` first, then those of another stream: dice that agree with a
    recorded duel up to a point and differ after it."""

    def __init__(self, faces: Sequence[int], then: Dice) -> None:
        self.faces, self.then, self.used = faces, then, 0

    def roll(self, sides: int, purpose: str) -> int:
        self.used += 1
        if self.used <= len(self.faces):
            return self.faces[self.used - 1]
        return self.then.roll(sides, purpose)


Redeal = Callable[[Any, int, np.random.Generator], None]
"""Changes, in a copy of the state, what `seat` may not see (the opponent's hand, the
deck order...), drawing from the generator."""


def check_ruleset(
    factory: Callable[[], Ruleset[Any]],
    seeds: Iterable[int] = range(12),
    redeal: Redeal | None = None,
) -> int:
    """Run every conformance check on duels of random legal play; the decisions checked.

    `factory` builds the ruleset (a variant of it); `redeal`, where the system
    hides something from a seat, re-deals it so the check can assert that the
    seat's observation and mask do not change.
    """
    ruleset = factory()
    _check_declarations(ruleset)
    decisions = 0
    for seed in seeds:
        trace, faces = _checked_duel(ruleset, seed, redeal)
        decisions += len(trace)
        again, _ = _checked_duel(factory(), seed, None)
        if again != trace:
            raise AssertionError(f"{ruleset.system} seed {seed}: the same seed played another duel")
        _check_no_peeking(factory(), seed, trace, faces)
    return decisions


def _check_declarations(ruleset: Ruleset[Any]) -> None:
    values = [int(action) for action in ruleset.actions]
    if values != list(range(len(values))):
        raise AssertionError(f"{ruleset.system}: actions must be numbered 0..n-1, got {values}")
    if ruleset.round_cap < 1:
        raise AssertionError(f"{ruleset.system}: the round cap must be positive")
    unsaid = [a.name for a in ruleset.actions if not ruleset.action_meanings.get(int(a))]
    if unsaid or len(ruleset.action_meanings) != len(values):
        raise AssertionError(
            f"{ruleset.system}: action_meanings must say each action in words, one for each "
            f"(missing: {', '.join(unsaid) or 'none'})"
        )


def _checked_duel(
    ruleset: Ruleset[Any], seed: int, redeal: Redeal | None
) -> tuple[list[tuple[int, int, bytes]], list[int]]:
    """One duel of random legal play, checking each decision; its trace and every face rolled."""
    dice = RecordingDice(GeneratorDice(seed))
    rng = np.random.default_rng(seed)
    redeal_rng = np.random.default_rng([seed, 1])  # apart: a re-deal never shifts the play
    state = ruleset.new_duel(dice)
    if not isinstance(state, DuelState):
        raise AssertionError(f"{ruleset.system}: the state must extend DuelState")
    trace: list[tuple[int, int, bytes]] = []
    while (seat := ruleset.to_act(state)) is not None:
        where = f"{ruleset.system} seed {seed} decision {len(trace) + 1}"
        if len(trace) >= MAX_DECISIONS:
            raise AssertionError(f"{where}: the duel never ends")
        dice.locked = True  # looking at the state rolls nothing
        mask, observations = check_decision(ruleset, state, seat, where)
        if redeal is not None:
            _check_hidden(ruleset, state, seat, redeal, redeal_rng, where)
        dice.locked = False
        action = int(rng.choice(np.flatnonzero(mask)))
        trace.append((seat, action, observations[seat].tobytes()))
        ruleset.apply(state, seat, action, dice)
    check_end(ruleset, state, f"{ruleset.system} seed {seed}")
    return trace, [face for _, _, face in dice.rolls]


def check_decision(
    ruleset: Ruleset[Any], state: Any, seat: int, where: str
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Check a state where `seat` is to decide: its mask, and both seats' observations
    within their declared bounds. Returns the mask and the two observations."""
    mask = _check_masks(ruleset, state, seat, where)
    seats = range(len(ruleset.sides))
    return mask, [_check_observation(ruleset, state, each, where) for each in seats]


def _check_masks(ruleset: Ruleset[Any], state: Any, seat: int, where: str) -> np.ndarray:
    mask = ruleset.legal_actions(state, seat)
    if mask.dtype != np.bool_ or mask.shape != (len(ruleset.actions),):
        raise AssertionError(f"{where}: a mask is a bool array of one entry per action")
    if not mask.any():
        raise AssertionError(f"{where}: seat {seat} is to act but has no legal action")
    for other in range(len(ruleset.sides)):
        if other != seat and ruleset.legal_actions(state, other).any():
            raise AssertionError(f"{where}: seat {other}, not to act, has legal actions")
    return mask


def _check_observation(ruleset: Ruleset[Any], state: Any, seat: int, where: str) -> np.ndarray:
    spec = ruleset.observation_spec
    flat = ruleset.observe(state, seat)
    if flat.dtype != np.float32 or flat.shape != (spec.size,):
        raise AssertionError(f"{where}: an observation is float32 of shape ({spec.size},)")
    outside = np.flatnonzero((flat < spec.low) | (flat > spec.high) | np.isnan(flat))
    if outside.size:
        name = spec.field_names()[outside[0]]
        raise AssertionError(
            f"{where}: seat {seat} observes {name} = {flat[outside[0]]}, outside "
            f"[{spec.low[outside[0]]}, {spec.high[outside[0]]}]"
        )
    return flat


def _check_hidden(
    ruleset: Ruleset[Any],
    state: Any,
    seat: int,
    redeal: Redeal,
    rng: np.random.Generator,
    where: str,
) -> None:
    other = copy.deepcopy(state)
    redeal(other, seat, rng)
    if not np.array_equal(ruleset.observe(other, seat), ruleset.observe(state, seat)):
        raise AssertionError(f"{where}: seat {seat} sees what was re-dealt out of its sight")
    if not np.array_equal(ruleset.legal_actions(other, seat), ruleset.legal_actions(state, seat)):
        raise AssertionError(f"{where}: seat {seat}'s mask depends on what it cannot see")


def check_end(ruleset: Ruleset[Any], state: Any, where: str) -> None:
    """Check a state where nobody is to act: a result, zero-sum, truncated only by the
    round cap, no legal action left, and narration that formats."""
    outcome = state.result
    if outcome is None or not state.over:
        raise AssertionError(f"{where}: nobody is to act but the duel has no result")
    if outcome.reward(0) + outcome.reward(1) != 0:
        raise AssertionError(f"{where}: the rewards are not zero-sum")
    if (
        outcome.truncated != (state.round > ruleset.round_cap)
        or state.round > ruleset.round_cap + 1
    ):
        raise AssertionError(
            f"{where}: truncated {outcome.truncated} at round {state.round} "
            f"(cap {ruleset.round_cap}): only the round cap truncates"
        )
    if outcome.winner is not None and outcome.truncated:
        raise AssertionError(f"{where}: a truncated duel has no winner")
    for seat in range(len(ruleset.sides)):
        if ruleset.legal_actions(state, seat).any():
            raise AssertionError(f"{where}: seat {seat} has legal actions after the end")
    for event in state.log:
        _ = event.text  # every line of narration formats


def _check_no_peeking(
    ruleset: Ruleset[Any], seed: int, trace: list[tuple[int, int, bytes]], faces: list[int]
) -> None:
    """Dice that agree with the recorded duel up to its middle roll, and differ after it,
    must give the same observations until that roll is made: nobody sees a die early."""
    if len(faces) < 2:
        return
    agreed = len(faces) // 2
    dice = _Diverging(faces[:agreed], GeneratorDice(seed + 1))
    state = ruleset.new_duel(dice)
    for step, (seat, action, observed) in enumerate(trace, start=1):
        if dice.used >= agreed or ruleset.to_act(state) != seat:
            return
        if ruleset.observe(state, seat).tobytes() != observed:
            raise AssertionError(
                f"{ruleset.system} seed {seed} decision {step}: seat {seat} observed a die "
                f"not yet rolled"
            )
        ruleset.apply(state, seat, action, dice)


def playthrough(
    ruleset: Ruleset[Any], policies: tuple[Policy, Policy], seed: int, title: str
) -> str:
    """A seeded duel decision by decision: rolls, legal actions, each observed field of
    the deciding seat, the action, and the narration (the text of a golden file).
    `policies` plays each side (every fighter of it, in a skirmish)."""
    spec = ruleset.observation_spec
    actions = ruleset.actions
    dice = RecordingDice(GeneratorDice(seed))
    rngs = [np.random.default_rng([seed, seat]) for seat in range(len(ruleset.sides))]
    state = ruleset.new_duel(dice)
    lines = [f"# {title}", f"# {ruleset.system} v{ruleset.version}, seed {seed}"]
    told = 0

    def happenings() -> None:
        nonlocal told
        lines.extend(f"  roll d{sides} {face} ({purpose})" for sides, purpose, face in dice.take())
        lines.extend(f"  > {event.text}" for event in state.log[told:])
        told = len(state.log)

    lines.append("opening")
    happenings()
    decision = 0
    while (seat := ruleset.to_act(state)) is not None:
        decision += 1
        mask = ruleset.legal_actions(state, seat)
        flat = ruleset.observe(state, seat)
        lines.append(f"decision {decision}: seat {seat}")
        lines.append("  legal " + " ".join(actions(int(i)).name for i in np.flatnonzero(mask)))
        for key in spec.keys:
            values = flat[spec.slice_of(key.name)].tolist()
            names = key.fields or (key.name,)
            lines.append(
                f"  obs {key.name}: "
                + " ".join(f"{n}={v:g}" for n, v in zip(names, values, strict=True))
            )
        policy = policies[ruleset.sides[seat]]
        action = int(policy.act(spec.view(flat), mask.copy(), rngs[seat]))
        lines.append(f"  action {actions(action).name}")
        ruleset.apply(state, seat, action, dice)
        happenings()
    outcome = state.result
    winner = "draw" if outcome.winner is None else f"seat {outcome.winner}"
    lines.append(f"outcome {winner}: {outcome.reason} (truncated {outcome.truncated})")
    return "\n".join(lines) + "\n"
