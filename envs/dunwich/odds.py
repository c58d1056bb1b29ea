"""Dunwich's checks and their exact odds, counted through the functions the rules call.

A check rolls a pool of d6: each 5 is one success, each 6 two (digest §3, published).
Defenderse may reroll up to Lucha of its failed dice once (§10 #28); a knockout roll
rerolls every odd die once and counts the even ones (§7). The distributions below
count every face through `successes` and `knockout_marks` (STYLE #18), die by die.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache, partial

from duelo.envs.core.dice import Dice, runs
from duelo.envs.core.dice import roll_pool as roll_d6

Distribution = dict[int, Fraction]
FACES = range(1, 7)
SIXTH = Fraction(1, 6)


def successes(face: int) -> int:
    """§3: a 5 is one success, a 6 two, 1-4 none."""
    return 2 if face == 6 else 1 if face == 5 else 0


def count(faces: Sequence[int]) -> int:
    return sum(successes(face) for face in faces)


def rerolled(faces: list[int], allowance: int, reroll: Callable[[int], list[int]]) -> list[int]:
    """Defenderse (§5, §10 #28): up to `allowance` dice showing 1-4 (the leftmost) are
    rolled again once, together (`reroll(n)` rolls n dice), and the new faces kept."""
    out = list(faces)
    again = [i for i, face in enumerate(out) if successes(face) == 0][: max(allowance, 0)]
    for i, face in zip(again, reroll(len(again)), strict=True):
        out[i] = face
    return out


def knockout_marks(faces: list[int], reroll: Callable[[int], list[int]]) -> tuple[list[int], int]:
    """§7, §10 #11: every odd die rolled again once, together (`reroll(n)` rolls n dice);
    one Incapacitation box per even die."""
    final = list(faces)
    odd = [i for i, face in enumerate(final) if face % 2]
    for i, face in zip(odd, reroll(len(odd)), strict=True):
        final[i] = face
    return final, sum(1 for face in final if face % 2 == 0)


SUCCESS_CLASSES = runs(6, 5, 6)
"""A pool read for its successes alone (§3): 1-4 none, 5 one, 6 two (`dice.roll_pool`)."""
PARITY = (0, 1, 0, 1, 0, 1)
"""A pool read for odd and even faces alone: a knockout roll and its rerolls (§7)."""
EVEN_FACES = (0, 1, 0, 2, 0, 3)
"""A Non-Lethal damage pool: odd faces count for nothing, each even one for its box (§7)."""


def roll_pool(
    dice: Dice, size: int, purpose: str, classes: tuple[int, ...] | None = None
) -> list[int]:
    """A pool of `size` d6 (§3: a pool of 0 or fewer dice rolls nothing, §10 #20);
    `classes`: the faces the caller tells apart (`SUCCESS_CLASSES`, `PARITY`,
    `EVEN_FACES`), None every face (a lethal damage pool's boxes)."""
    return roll_d6(dice, size, 6, purpose, classes)


@cache
def pool(size: int, allowance: int = 0) -> Distribution:
    """The exact distribution of a pool's successes, rerolling up to `allowance` failed
    dice (Defenderse). Die by die, left to right as `rerolled` goes: each face is
    counted through `successes`, and a failed one is rolled again while rerolls last."""
    states: dict[tuple[int, int], Fraction] = {(allowance, 0): Fraction(1)}
    for _ in range(max(size, 0)):
        after: dict[tuple[int, int], Fraction] = {}
        for (left, total), p in states.items():
            for face in FACES:
                faces = [(face, left, SIXTH)]
                if successes(face) == 0 and left:
                    faces = [(again, left - 1, SIXTH * SIXTH) for again in FACES]
                for final, rest, q in faces:
                    key = (rest, total + successes(final))
                    after[key] = after.get(key, Fraction(0)) + p * q
        states = after
    out: Distribution = {}
    for (_, total), p in states.items():
        out[total] = out.get(total, Fraction(0)) + p
    return out


def opposed(mine: Distribution, theirs: Distribution, bonus: int = 0) -> tuple[Fraction, Fraction]:
    """P(mine + bonus beats theirs), P(a tie) (§3: more successes wins; a tie, nothing)."""
    win = tie = Fraction(0)
    for a, pa in mine.items():
        for b, pb in theirs.items():
            if a + bonus > b:
                win += pa * pb
            elif a + bonus == b:
                tie += pa * pb
    return win, tie


def at_least_one(size: int) -> Fraction:
    """A check succeeds with one success or more (§3): 1 - (2/3)^n."""
    return 1 - pool(size).get(0, Fraction(0))


def _shown(face: int, count: int) -> list[int]:
    """`count` rerolled dice that all show `face` (for the odds of one die's reroll)."""
    return [face] * count


@cache
def knockout(dice: int) -> Distribution:
    """The exact distribution of a knockout roll's marks: one die's faces (and its
    reroll) counted through `knockout_marks`, the dice being independent."""
    one: Distribution = {}
    for face in FACES:
        for again in FACES:
            _, marks = knockout_marks([face], partial(_shown, again))
            one[marks] = one.get(marks, Fraction(0)) + SIXTH * SIXTH
    out: Distribution = {0: Fraction(1)}
    for _ in range(dice):
        nxt: Distribution = {}
        for a, pa in out.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        out = nxt
    return out
