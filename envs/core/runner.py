"""Play one duel between two policies over a ruleset, without Gymnasium.

The CLI's narrated duel and the tournaments run duels through this function.
One integer seed fixes the duel: the dice are keyed by it (`KeyedDice`: each face a
hash of the seed and of what the face is for, so the two seat orders of a game share
their luck where the rules let them; the batched engine's tournaments roll a stream
instead, `DiceKind`), and each seat draws from a generator seeded by a one-way hash of
the seed (`seat_seed`), so the dice do not depend on how much randomness the policies
consume, a duel replays exactly from its seed, and no policy can walk its own
generator back to the seed and so to the dice (a SeedSequence child of the seed
carries the seed inside it, and PCG64's seeding can be inverted).

A policy asked through `referee.ask` gets a copy of the mask and its seat's own
generator; one that raises, exits, returns an illegal action or exceeds the
per-move time limit forfeits the duel, and the outcome says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from duelo.envs.core.dice import Dice, GeneratorDice, KeyedDice, RecordingDice
from duelo.envs.core.policy import BLIND, Policy, reads_observation, served_by_process
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.ruleset import Ruleset
from duelo.envs.core.state import Outcome


@dataclass(frozen=True)
class DuelResult:
    outcome: Outcome
    decisions: int
    state: Any
    forfeit: int | None = None
    """The seat that forfeited, if one did."""


SEAT_KEY = b"duelo/seat-generator"
"""The key of `seat_seed`'s hash (it separates this use of the hash from any other)."""


def seat_seed(seed: int, seat: int) -> int:
    """The 128-bit seed of `seat`'s generator in the duel with this seed: a keyed BLAKE2b
    of it, which nobody holding the generator can walk back (only a search over seeds
    finds it, so a seed that must stay secret must be drawn from entropy)."""
    digest = hashlib.blake2b(f"{seed}/{seat}".encode(), key=SEAT_KEY, digest_size=16)
    return int.from_bytes(digest.digest(), "little")


DiceKind = Literal["keyed", "stream"]
"""How a fight's seed gives its dice: "keyed", each face keyed by what it is for
(`KeyedDice`, common random numbers across seat orders), or "stream", one generator's
faces in the order the rules ask for them (what the batched engine rolls)."""
DICE_KINDS: tuple[DiceKind, ...] = ("keyed", "stream")


def duel_streams(
    seed: int, seats: int = 2, dice: DiceKind = "keyed"
) -> tuple[KeyedDice | GeneratorDice, tuple[np.random.Generator, ...]]:
    """The dice and each seat's generator of the fight with this seed: keyed dice, or a
    stream from `SeedSequence(seed).spawn(1)[0]` (made directly, spawn key 0); each
    seat's generator is seeded by `seat_seed`."""
    rolled = (
        KeyedDice(seed)
        if dice == "keyed"
        else GeneratorDice(np.random.SeedSequence(seed, spawn_key=(0,)))
    )
    return rolled, tuple(np.random.default_rng(seat_seed(seed, seat)) for seat in range(seats))


def move(ruleset: Ruleset[Any], state: Any, seat: int, action: int, dice: Dice) -> None:
    """`seat` takes `action`: the rules apply it, and keyed dice learn whose move it is and
    in which round first. Every fight played from a seed moves through here."""
    keyed = getattr(dice, "turn", None)
    if keyed is not None:
        keyed(seat, state.round)
    ruleset.apply(state, seat, action, dice)


@contextmanager
def playing(policies: tuple[Policy, ...]) -> Iterator[None]:
    """A duel's lifetime for the policies served by a process (`ProcessPolicy`): a fresh
    one each before the duel, stopped, with all it started, when the duel ends."""
    own = list({id(p): p for p in policies if served_by_process(p)}.values())
    for policy in own:
        policy.new_duel()
    try:
        yield
    finally:
        for policy in own:
            policy.close()


def line_up(ruleset: Ruleset[Any], side_a: Policy, side_b: Policy) -> tuple[Policy, ...]:
    """The policy of each seat when one policy plays each side: a duel's two, or every
    fighter of a side in a skirmish. A policy served by a process plays every seat in a
    process of its own (`ProcessPolicy.fork`): what the rules keep from a seat's allies
    (a plan sealed from them too) or from its rival (the same module on both sides) is
    in no memory that seat's code can read."""
    seated: list[Policy] = []
    for side in ruleset.sides:
        policy = side_b if side else side_a
        if served_by_process(policy) and any(p is policy for p in seated):
            policy = policy.fork()
        seated.append(policy)
    return tuple(seated)


Watch = Callable[[Any, int, Mapping[str, np.ndarray], np.ndarray], None]
"""Called before each decision with the state, the seat, its observation and its mask."""


def play_duel(
    ruleset: Ruleset[Any],
    policies: tuple[Policy, ...],
    seed: int,
    move_time_limit: float | None = None,
    watch: Watch | None = None,
    rolls: list[tuple[int, str, int]] | None = None,
    dice: DiceKind = "keyed",
) -> DuelResult:
    """Play a whole fight; `policies[s]` plays seat s (a duel's two, or each fighter of a
    skirmish: `ruleset.sides`); `watch` sees each decision coming; every roll is appended
    to `rolls` (sides, purpose, face) as it is made, where a list is given; `dice` says
    how the seed gives the dice (`DiceKind`)."""
    if len(policies) != len(ruleset.sides):
        raise ValueError(
            f"{ruleset.system}: {len(ruleset.sides)} seats to play, {len(policies)} policies"
        )
    with playing(policies):
        return _play(ruleset, policies, seed, move_time_limit, watch, rolls, dice)


def _play(
    ruleset: Ruleset[Any],
    policies: tuple[Policy, ...],
    seed: int,
    move_time_limit: float | None,
    watch: Watch | None,
    rolls: list[tuple[int, str, int]] | None,
    kind: DiceKind,
) -> DuelResult:
    generated, rngs = duel_streams(seed, len(policies), kind)
    dice: Dice = generated if rolls is None else RecordingDice(generated, rolls)
    state = ruleset.new_duel(dice)
    decisions = 0
    reads = [watch is not None or reads_observation(policy) for policy in policies]
    while (seat := ruleset.to_act(state)) is not None:
        mask = ruleset.legal_actions(state, seat)
        observation = (
            ruleset.observation_spec.view(ruleset.observe(state, seat)) if reads[seat] else BLIND
        )
        if watch is not None:
            watch(state, seat, observation, mask.copy())
        try:
            action = ask(policies[seat], observation, mask, rngs[seat], move_time_limit)
        except PolicyFault as fault:  # a broken policy loses the duel, not the tournament
            return _forfeit(state, decisions, seat, ruleset.sides[seat], str(fault))
        move(ruleset, state, seat, action, dice)
        decisions += 1
    outcome = state.result
    if outcome is None:  # to_act and outcome disagree: a ruleset bug, not bad input
        raise RuntimeError(f"{ruleset.system}: nobody is to act but the duel has no outcome")
    return DuelResult(outcome, decisions, state)


def forfeit_reason(side: int, why: str) -> str:
    """The outcome's reason when a policy of `side` faults (`why`: the referee's words)."""
    return f"side {'AB'[side]} forfeits: its policy {why}"


def _forfeit(state: Any, decisions: int, seat: int, side: int, why: str) -> DuelResult:
    """A policy's fault loses the fight for its whole side."""
    outcome = Outcome(1 - side, forfeit_reason(side, why))
    state.finish(outcome)
    return DuelResult(outcome, decisions, state, forfeit=seat)
