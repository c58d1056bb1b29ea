"""Liminal's tests and their exact odds, counted through the function the rules call.

Every roll is 2d6 + skill + modifiers against a Challenge Level (digest §3): a total
equal to the CL succeeds, CL + 5 is a critical, and an unskilled roller (skill 0)
faces CL + 2 (not on initiative). `grade` decides a rolled total; `chances` counts
every 2d6 face through it (STYLE #18).
"""

from __future__ import annotations

from enum import IntEnum
from fractions import Fraction

from duelo.envs.core.dice import Dice, dice_sum

STANDARD_CL = 8
"""Seed: "dificultad normal"; the opposed CL is 8 + the rival's skill (digest §3)."""
CRITICAL_MARGIN = 5
"""A critical is a total of CL + 5 or more (digest §3)."""
UNSKILLED = 2
"""An unskilled roller (skill 0) faces CL + 2, except on initiative (seed, digest §3)."""
QUICK_GRAB_CL = 12
"""Seed: recovering a dropped weapon fast enough to act again is Athletics at 12."""


class Grade(IntEnum):
    MISS = 0
    SUCCESS = 1
    CRITICAL = 2


def challenge(base: int, skill: int, unskilled_applies: bool = True) -> int:
    """The CL a roller with `skill` faces: `base`, +2 unskilled where that applies."""
    return base + (UNSKILLED if skill == 0 and unskilled_applies else 0)


def grade(total: int, cl: int, can_crit: bool = True) -> Grade:
    """Seed/digest §3: total >= CL succeeds (ties go to the roller); CL + 5 is critical."""
    if total < cl:
        return Grade.MISS
    if can_crit and total >= cl + CRITICAL_MARGIN:
        return Grade.CRITICAL
    return Grade.SUCCESS


def roll(
    dice: Dice, bonus: int, cl: int, purpose: str, can_crit: bool = True
) -> tuple[Grade, list[int], int]:
    """A test: its grade, the two faces and the total (2d6 + bonus)."""
    faces = [dice.roll(6, purpose), dice.roll(6, purpose)]
    total = sum(faces) + bonus
    return grade(total, cl, can_crit), faces, total


def chances(bonus: int, cl: int, can_crit: bool = True) -> dict[Grade, Fraction]:
    """The exact chance of each grade of a test of 2d6 + `bonus` against `cl`."""
    out = {grade_: Fraction(0) for grade_ in Grade}
    for total, p in dice_sum(2, 6, bonus).items():
        out[grade(total, cl, can_crit)] += p
    return out


def at_least(k: int) -> Fraction:
    """S(k) = P(2d6 >= k) (digest §3 table)."""
    return chances(0, k)[Grade.SUCCESS] + chances(0, k)[Grade.CRITICAL]
