"""Every random draw of every ruleset, and the exact odds behind it.

Rules never touch a random generator directly: they ask a `Dice` for one face of
one die, naming what the roll is for. Two sources exist:

- `GeneratorDice` draws from a numpy bit generator of its own, seeded by the
  caller (a tournament duel's SeedSequence, a seed drawn from Gymnasium's
  `np_random`), so a seed fixes a whole duel; it rolls the faces numpy's
  `Generator.integers` would, from raw outputs drawn in blocks.
- `KeyedDice` draws each face from a keyed hash of the seed and what the face is for
  (whose move, which round, the roll's purpose, how many such rolls came before): the
  dice of tournaments and of fights played from a seed, so the two seat orders of a
  game see the same luck wherever the rules roll the same dice, even after the
  policies' choices made them roll different ones (common random numbers).
- `ScriptedDice` replays a list of faces, so the worked examples of the seeds can
  be re-run to their printed numbers; running out is an error, never a silent
  random fallback.

The distribution helpers return exact `Fraction` probabilities, so tests and
search-based NPCs use the true odds (OpenSpiel's `chance_outcomes`) instead of
sampling.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Protocol, TypeVar

import numpy as np

Distribution = dict[int, Fraction]
"""An exact discrete distribution: value -> probability (the values sum to 1)."""


class DiceExhaustedError(RuntimeError):
    """A scripted dice source was asked for more faces than it was given."""


class Dice(Protocol):
    """A source of die faces. `purpose` names the roll in errors and logs."""

    def roll(self, sides: int, purpose: str) -> int:
        """One face of a `sides`-sided die, 1..sides."""
        ...


class GeneratorDice:
    """Dice drawn from a bit generator of their own, seeded once (never a global RNG).

    Each roll's face is exactly what `numpy.random.default_rng(seed).integers(1, sides + 1)`
    would give at that point: numpy's bounded-integer method (Lemire's, on the
    generator's 32-bit outputs, rejecting the few biased draws) replayed in
    Python. The raw outputs are drawn in blocks, so a roll costs a few
    arithmetic operations instead of a numpy call (about 3 us).
    """

    BLOCK = 64
    """Raw 64-bit outputs drawn at a time; each gives two 32-bit words, low half first."""

    def __init__(self, seed: np.random.SeedSequence | int) -> None:
        self.bit_generator = np.random.PCG64(seed)
        self._words: list[int] = []
        self._next = 0

    def roll(self, sides: int, purpose: str) -> int:
        if not 1 <= sides <= _WORD:
            raise ValueError(f"a d{sides} cannot be rolled (for {purpose})")
        if sides == 1:
            return 1  # numpy draws nothing for a single possible value
        threshold = (_WORD - sides) % sides  # the biased low products to reject
        while True:
            if self._next == len(self._words):
                self._refill()
            product = self._words[self._next] * sides
            self._next += 1
            if product & _LOW >= threshold:
                return (product >> 32) + 1

    def _refill(self) -> None:
        raw = self.bit_generator.random_raw(self.BLOCK).tolist()
        self._words = [half for value in raw for half in (value & _LOW, value >> 32)]
        self._next = 0


_WORD = 1 << 32
_LOW = _WORD - 1


class KeyedDice:
    """Dice whose every face is keyed by what it is for, not by how many came before it.

    The k-th roll for a purpose in one move of one seat in one round (`turn` says whose
    move and which round; the rolls that start a fight belong to nobody's move, round 0)
    is a keyed BLAKE2b of the seed and those four, so a duel played twice from one seed,
    its seats' choices different, rolls the same faces wherever both plays make the same
    roll of the same move: an extra die in round 2 leaves round 3's dice, and the other
    seat's, as they were. That is what keeps the two seat orders of a tournament game
    comparable after their plays part (common random numbers). Nobody can walk a face
    back to the seed, nor one face to another, without the seed.

    A face is uniform: the hash's 64 bits reduced by rejection (a draw in the few biased
    low values is hashed again with the next attempt number).
    """

    KEY = b"duelo/keyed-dice"
    """The hash key that keeps these faces apart from any other use of the seed."""

    def __init__(self, seed: int) -> None:
        self._seed = hashlib.blake2b(str(seed).encode(), key=self.KEY, digest_size=32).digest()
        self._keyed = hashlib.blake2b(key=self._seed, digest_size=8)
        """The face hash with its key absorbed: each face copies it (cheaper than keying anew)."""
        self._turn = "-/0"
        self._counts: dict[str, int] = {}

    def turn(self, seat: int | None, round_number: int) -> None:
        """The rolls from now on are those of `seat`'s move (None: nobody's) in that round."""
        self._turn = f"{'-' if seat is None else seat}/{round_number}"

    def roll(self, sides: int, purpose: str) -> int:
        if not 1 <= sides <= _WORD:
            raise ValueError(f"a d{sides} cannot be rolled (for {purpose})")
        key = f"{self._turn}/{purpose}"
        count = self._counts.get(key, 0)
        self._counts[key] = count + 1
        threshold = (_WIDE - sides) % sides  # the biased low values to reject
        attempt = 0
        while True:
            face = self._keyed.copy()
            face.update(f"{key}/{count}/{attempt}".encode())
            value = int.from_bytes(face.digest(), "little")
            if value >= threshold:
                return value % sides + 1
            attempt += 1


_WIDE = 1 << 64


class ScriptedDice:
    """Replays fixed faces in order, for known-answer tests of worked examples."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)
        self.used = 0

    @property
    def remaining(self) -> int:
        return len(self.faces) - self.used

    def roll(self, sides: int, purpose: str) -> int:
        if self.used >= len(self.faces):
            raise DiceExhaustedError(
                f"scripted dice ran out at roll {self.used + 1} (d{sides} for {purpose}); "
                f"only {len(self.faces)} faces were given"
            )
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise ValueError(
                f"scripted face {face} at roll {self.used + 1} does not fit a d{sides} "
                f"(for {purpose})"
            )
        self.used += 1
        return face


def roll_until(
    dice: Dice,
    sides: tuple[int, ...],
    purposes: tuple[str, ...],
    accept: Callable[[tuple[int, ...]], bool],
    rejected: Callable[[tuple[int, ...]], None] | None = None,
) -> tuple[int, ...]:
    """Roll dice of `sides` together, again and again until `accept` takes the faces: a
    re-rolled tie. `rejected` hears each refused throw (to narrate it).

    Real and scripted dice roll it as written, one die at a time. A dice source with
    its own `roll_until` (the solver's) may answer at once with a face of the accepted
    throws, which the loop gives with equal chances: the loop is unbounded, its answer
    is not.
    """
    own = getattr(dice, "roll_until", None)
    if own is not None:
        return own(sides, purposes, accept)
    while True:
        faces = tuple(dice.roll(n, purpose) for n, purpose in zip(sides, purposes, strict=True))
        if accept(faces):
            return faces
        if rejected is not None:
            rejected(faces)


def roll_pool(
    dice: Dice, count: int, sides: int, purpose: str, classes: tuple[int, ...] | None = None
) -> list[int]:
    """`count` dice of `sides` rolled together (none for a count of 0 or less), for rules
    that read a pool as a whole: the order of its faces never matters to them, nor which
    face of a class showed. `classes` gives each face's class, face 1 first, numbered as
    they first come (`runs(10, 2, 6, 10)` reads a d10 as 1, 2-5, 6-9 and 10; (0, 1, 0,
    1, 0, 1) a d6 as odd or even); None: every face a class.

    Real, keyed and scripted dice roll it as written, one die at a time. A dice source
    with its own `roll_pool` (the OpenSpiel game's, the solver's) may answer with one
    outcome per count of each class, exactly distributed, each class shown by its first
    face: a pool of six d10 is 84 outcomes of four classes instead of a million sequences
    of faces. Passing `classes` says that the rules read nothing finer than those."""
    own = getattr(dice, "roll_pool", None)
    if own is not None:
        return list(own(max(count, 0), sides, purpose, classes))
    return [dice.roll(sides, purpose) for _ in range(max(count, 0))]


def runs(sides: int, *firsts: int) -> tuple[int, ...]:
    """The classes of a d`sides` split into runs of faces, each run after the first
    starting at one of `firsts` (`roll_pool`'s `classes`)."""
    if list(firsts) != sorted(set(firsts)) or not all(1 < f <= sides for f in firsts):
        raise ValueError(f"runs from {firsts} do not split a d{sides} into classes")
    return tuple(sum(f <= face for f in firsts) for face in range(1, sides + 1))


def pool_outcomes(
    count: int, sides: int, classes: tuple[int, ...] | None = None
) -> list[tuple[Fraction, list[int]]]:
    """Every outcome of `roll_pool` read by class, with its exact probability: the faces
    sorted, each class shown by its first face, in a fixed order."""
    labels = tuple(range(sides)) if classes is None else classes
    kinds = len(set(labels))
    if len(labels) != sides or list(dict.fromkeys(labels)) != list(range(kinds)):
        raise ValueError(f"classes {classes} do not sort the faces of a d{sides}")
    firsts = [labels.index(c) + 1 for c in range(kinds)]
    sizes = [labels.count(c) for c in range(kinds)]
    outcomes = []
    for drawn in itertools.combinations_with_replacement(range(kinds), count):
        tally = [drawn.count(c) for c in range(kinds)]
        ways = math.factorial(count) // math.prod(math.factorial(n) for n in tally)
        chance = Fraction(ways * math.prod(s**n for s, n in zip(sizes, tally, strict=True)))
        outcomes.append((chance / sides**count, [firsts[c] for c in drawn]))
    return outcomes


class RecordingDice:
    """Dice that remember every roll (sides, purpose, face), and can be told to stop."""

    def __init__(self, inner: Dice, rolls: list[tuple[int, str, int]] | None = None) -> None:
        self.inner = inner
        self.rolls: list[tuple[int, str, int]] = [] if rolls is None else rolls
        """Every roll so far (or since the last `take`); a list given is appended to."""
        self.locked = False

    def roll(self, sides: int, purpose: str) -> int:
        if self.locked:
            raise AssertionError(f"a d{sides} for {purpose} was rolled where nothing may roll")
        face = self.inner.roll(sides, purpose)
        self.rolls.append((sides, purpose, face))
        return face

    def turn(self, seat: int | None, round_number: int) -> None:
        """Passed on to dice that key their faces by the move (`KeyedDice`)."""
        keyed = getattr(self.inner, "turn", None)
        if keyed is not None:
            keyed(seat, round_number)

    def take(self) -> list[tuple[int, str, int]]:
        """The rolls since the last `take`."""
        rolls, self.rolls = self.rolls, []
        return rolls


# --- every outcome of a step --------------------------------------------------------

T = TypeVar("T")


class _BranchDice:
    """Replays a prefix of outcomes, then takes the first outcome of every further roll,
    noting each roll's chances: a die's faces, or a pool's class counts (`roll_pool`),
    so that a pool the rules read by class branches once per count, not once per die."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.chances: list[tuple[Fraction, ...]] = []

    def _next(self, chances: tuple[Fraction, ...]) -> int:
        """The outcome (numbered from 0) of the next roll."""
        at = len(self.chances)
        self.chances.append(chances)
        return self.prefix[at] if at < len(self.prefix) else 0

    def roll(self, sides: int, purpose: str) -> int:
        return self._next(_even(sides)) + 1

    def roll_pool(
        self, count: int, sides: int, purpose: str, classes: tuple[int, ...] | None
    ) -> list[int]:
        outcomes = _pool_by_class(count, sides, classes)
        if len(outcomes) == 1:
            return outcomes[0][1]
        return outcomes[self._next(tuple(p for p, _ in outcomes))][1]

    def roll_until(
        self,
        sides: tuple[int, ...],
        purposes: tuple[str, ...],
        accept: Callable[[tuple[int, ...]], bool],
    ) -> tuple[int, ...]:
        """The accepted throws as one die with a face for each (see `roll_until`)."""
        throws = itertools.product(*(range(1, n + 1) for n in sides))
        accepted = [faces for faces in throws if accept(faces)]
        if not accepted:
            raise ValueError(f"no throw of d{sides} is ever accepted (for {purposes[0]})")
        return accepted[self.roll(len(accepted), purposes[0]) - 1]


@functools.cache
def _even(sides: int) -> tuple[Fraction, ...]:
    return (Fraction(1, sides),) * sides


@functools.cache
def _pool_by_class(
    count: int, sides: int, classes: tuple[int, ...] | None
) -> list[tuple[Fraction, list[int]]]:
    return pool_outcomes(count, sides, classes)


def chance_outcomes(step: Callable[[Dice], T]) -> Iterator[tuple[Fraction, T]]:
    """Every outcome of `step` (a function of the dice, e.g. one `apply` on a fresh copy
    of a state), each with its exact probability (OpenSpiel's `chance_outcomes`).

    The step runs once per sequence of outcomes it can roll, depth first: each run
    replays a prefix and takes the first outcome of every roll after it, and every other
    outcome of those rolls becomes a prefix of its own. An outcome is a die's face, or a
    pool's count of each class of faces (`roll_pool`: six d10 read by class are 84
    outcomes, not a million). The rules' own code decides what is rolled, so nothing is
    re-implemented; a step must be a pure function of the dice. The outcomes come one at
    a time, so a caller can merge them as they come (a d20 each for initiative and an
    opposed roll make 160,000 of them).
    """
    pending: list[tuple[int, ...]] = [()]
    while pending:
        prefix = pending.pop()
        dice = _BranchDice(prefix)
        result = step(dice)
        taken = prefix + (0,) * (len(dice.chances) - len(prefix))
        for at in range(len(dice.chances) - 1, len(prefix) - 1, -1):
            pending += [taken[:at] + (o,) for o in range(len(dice.chances[at]) - 1, 0, -1)]
        sides, chance = 1, Fraction(1)
        for chances, outcome in zip(dice.chances, taken, strict=True):
            if chances is _even(len(chances)):  # a die: one integer product, not Fractions
                sides *= len(chances)
            else:
                chance *= chances[outcome]
        yield chance / sides, result


# --- exact distributions -------------------------------------------------------


def die(sides: int) -> Distribution:
    """One fair die."""
    p = Fraction(1, sides)
    return {face: p for face in range(1, sides + 1)}


def constant(value: int) -> Distribution:
    return {value: Fraction(1)}


def convolve(a: Distribution, b: Distribution) -> Distribution:
    """The distribution of the sum of two independent values."""
    out: Distribution = {}
    for va, pa in a.items():
        for vb, pb in b.items():
            out[va + vb] = out.get(va + vb, Fraction(0)) + pa * pb
    return out


def dice_sum(count: int, sides: int, bonus: int = 0) -> Distribution:
    """`count`d`sides` + `bonus` (count may be 0)."""
    out = constant(bonus)
    for _ in range(count):
        out = convolve(out, die(sides))
    return out


def transform(dist: Distribution, fn: Callable[[int], int]) -> Distribution:
    """The distribution of `fn(value)`."""
    out: Distribution = {}
    for value, p in dist.items():
        key = fn(value)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def probability(dist: Distribution, event: Callable[[int], bool]) -> Fraction:
    return sum((p for value, p in dist.items() if event(value)), Fraction(0))


def expectation(dist: Distribution) -> Fraction:
    return sum((value * p for value, p in dist.items()), Fraction(0))


def d20_test(bonus: int, dc: int) -> Fraction:
    """P(1d20 + bonus >= dc) for a plain test (no automatic natural 1 or 20)."""
    return probability(dice_sum(1, 20, bonus), lambda total: total >= dc)
