"""Exact chances of Infierno's attack mechanics (digest §3), for tests and NPCs.

Each function enumerates the d20 faces through the same predicates the attack
pipeline uses, so the odds cannot drift from the rules.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from duelo.envs.core.dice import d20_test
from duelo.envs.infierno.combat import TEST_DC, confirms, hits


@lru_cache(maxsize=4096)
def hit_chance(bonus: int, defense: int) -> Fraction:
    """P(hit) of 1d20 + bonus against Defense, natural 1 and 20 included."""
    return Fraction(sum(hits(d, bonus, defense) for d in range(1, 21)), 20)


def crit_chance(bonus: int, defense: int, threshold: int) -> Fraction:
    """Direct criticals plus a natural 20 confirmed by a second roll (digest §3)."""
    direct = [
        d for d in range(2, 21) if hits(d, bonus, defense) and d + bonus - defense >= threshold
    ]
    chance = Fraction(len(direct), 20)
    if 20 not in direct:
        confirm = Fraction(sum(confirms(d, bonus, defense) for d in range(1, 21)), 20)
        chance += Fraction(1, 20) * confirm
    return chance


def fumble_chance(skill: int) -> Fraction:
    """A natural 1, then a failed DC 15 test: a fumble (Reflex) or a jam (reliability)."""
    return Fraction(1, 20) * (1 - d20_test(skill, TEST_DC))


def clear_jam_chance(craft: int) -> Fraction:
    """One Craft (Mechanics) attempt at DC 15."""
    return d20_test(craft, TEST_DC)
