"""Exact chances of what a Liminal skirmish adds (digest §13.2): the party's
initiative, counted through the test the rules roll (`odds.chances`)."""

from __future__ import annotations

from fractions import Fraction
from math import prod

from duelo.envs.liminal.odds import STANDARD_CL, Grade, chances


def before_chances(perceptions: list[int], best_enemy: int) -> list[Fraction]:
    """§13.2: each party member's chance to act before the enemy: 2d6 + Perception
    against 8 + the best enemy Perception, a tie succeeding, no unskilled +2."""
    cl = STANDARD_CL + best_enemy
    return [1 - chances(p, cl, can_crit=False)[Grade.MISS] for p in perceptions]


def all_before(perceptions: list[int], best_enemy: int) -> Fraction:
    """The chance that the whole party acts before the enemy (the rolls are apart)."""
    return prod(before_chances(perceptions, best_enemy), start=Fraction(1))
