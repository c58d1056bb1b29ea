"""Vampiro's d10 pools and their exact odds, counted through the functions the rules call.

A pool of d10 is rolled against a difficulty (6 by default): a die at or above it is a
success (a 10 is two with a specialty, seed; or is rolled again once, Revised), each 1
cancels a success, and a roll with no success at all and a 1 is a botch (digest §3).
Willpower adds one automatic success that 1s cannot cancel and that rules out a botch
(§10 #26), or that 1s may cancel (the Revised reading, `willpower_cancellable`).
`face_value` is the one place a face is read; `pool` counts every face through it,
die by die (STYLE #18).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Literal

TENTH = Fraction(1, 10)
FACES = range(1, 11)
MIN_DIFFICULTY, MAX_DIFFICULTY = 2, 10
"""§10 #20: a difficulty is kept within 2..10."""

SpecialtyMode = Literal["none", "double", "reroll"]


@dataclass(frozen=True)
class Outcome:
    """A rolled pool: net successes (floored at 0) and whether it botched."""

    net: int
    botch: bool


def difficulty(value: int) -> int:
    """§3, §10 #20: clamp a difficulty to 2..10."""
    return max(MIN_DIFFICULTY, min(MAX_DIFFICULTY, value))


def face_value(face: int, target: int, specialty: SpecialtyMode) -> tuple[int, int, bool]:
    """One face read: (successes, ones, rolled again). A 10 with a specialty is two
    successes (seed), or one and a reroll (Revised, §8.5); a 1 cancels one success."""
    if face == 1:
        return 0, 1, False
    if face < target:
        return 0, 0, False
    if face == 10 and specialty == "double":
        return 2, 0, False
    return 1, 0, face == 10 and specialty == "reroll"


def outcome(successes: int, ones: int, willpower: bool, cancellable: bool) -> Outcome:
    """§3: net = successes - ones; a botch is no success rolled and a 1. The Willpower
    success (§3, §10 #26) counts apart, or is cancelled like a rolled one."""
    if willpower and not cancellable:
        return Outcome(max(successes - ones, 0) + 1, False)
    rolled = successes + (1 if willpower else 0)
    return Outcome(max(rolled - ones, 0), rolled == 0 and ones > 0)


def read_pool(
    faces: Sequence[int],
    target: int,
    specialty: SpecialtyMode = "none",
    willpower: bool = False,
    cancellable: bool = False,
    reroll: Callable[[], int] | None = None,
    ones_cancel: bool = True,
) -> Outcome:
    """A rolled pool's outcome; `reroll` rolls the extra die of a specialty 10 (§10 #27:
    it does not chain, and a 1 on it cancels nothing). `ones_cancel` off reads a damage
    or soak roll without cancelling (§10 #3)."""
    successes = ones = 0
    for face in faces:
        s, o, again = face_value(face, target, specialty)
        successes, ones = successes + s, ones + o
        if again:
            assert reroll is not None
            successes += face_value(reroll(), target, "none")[0]
    return outcome(successes, ones if ones_cancel else 0, willpower, cancellable)


@cache
def _die(target: int, specialty: SpecialtyMode) -> dict[tuple[int, int], Fraction]:
    """One die's (successes, ones), each face read through `face_value`."""
    out: dict[tuple[int, int], Fraction] = {}
    for face in FACES:
        s, o, again = face_value(face, target, specialty)
        options = [(s, TENTH)]
        if again:
            options = [(s + face_value(f, target, "none")[0], TENTH * TENTH) for f in FACES]
        for total, p in options:
            out[(total, o)] = out.get((total, o), Fraction(0)) + p
    return out


@cache
def pool(
    size: int,
    target: int = 6,
    specialty: SpecialtyMode = "none",
    willpower: bool = False,
    cancellable: bool = False,
) -> dict[Outcome, Fraction]:
    """The exact distribution of a pool's outcome (§3 table): die by die, then read by
    `outcome`. A pool of 0 or fewer dice rolls nothing (§10 #13)."""
    counts: dict[tuple[int, int], Fraction] = {(0, 0): Fraction(1)}
    for _ in range(max(size, 0)):
        after: dict[tuple[int, int], Fraction] = {}
        for (s, o), p in counts.items():
            for (ds, do), q in _die(target, specialty).items():
                key = (s + ds, o + do)
                after[key] = after.get(key, Fraction(0)) + p * q
        counts = after
    out: dict[Outcome, Fraction] = {}
    for (s, o), p in counts.items():
        result = outcome(s, o, willpower, cancellable)
        out[result] = out.get(result, Fraction(0)) + p
    return out


def success_chance(size: int, target: int = 6, **flags: object) -> Fraction:
    """P(at least one net success)."""
    return sum((p for o, p in pool(size, target, **flags).items() if o.net >= 1), Fraction(0))


def botch_chance(size: int, target: int = 6, **flags: object) -> Fraction:
    return sum((p for o, p in pool(size, target, **flags).items() if o.botch), Fraction(0))
