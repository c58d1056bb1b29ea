"""rules/infierno.md §3: exact probabilities, asserted exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest

from duelo.envs.core.dice import d20_test, dice_sum, probability
from duelo.envs.infierno.odds import clear_jam_chance, crit_chance, fumble_chance, hit_chance
from tests.infierno.helpers import CATALOG


@pytest.mark.parametrize(
    ("bonus", "defense", "hit", "crit_t10", "crit_t9"),
    [
        (5, 10, "0.80", "0.30", "0.35"),
        (5, 12, "0.70", "0.20", "0.25"),
        (5, 14, "0.60", "0.10", "0.15"),
        (7, 12, "0.80", "0.30", "0.35"),
        (4, 10, "0.75", "0.25", "0.30"),
        (4, 12, "0.65", "0.15", "0.20"),
    ],
)
def test_hit_and_crit_table(
    bonus: int, defense: int, hit: str, crit_t10: str, crit_t9: str
) -> None:
    assert hit_chance(bonus, defense) == Fraction(hit)
    assert crit_chance(bonus, defense, 10) == Fraction(crit_t10)
    assert crit_chance(bonus, defense, 9) == Fraction(crit_t9)


def test_natural_one_and_twenty_bound_the_hit_chance() -> None:
    assert hit_chance(30, 10) == Fraction(19, 20)
    assert hit_chance(-30, 40) == Fraction(1, 20)


def test_unconfirmable_natural_20_adds_its_confirmation_chance() -> None:
    # +2 vs 16 with T 10: no direct critical; a 20 confirms with P(hit) = 7/20
    assert crit_chance(2, 16, 10) == Fraction(1, 20) * Fraction(7, 20)


def test_revolver_attack_chances() -> None:
    revolver = CATALOG.weapons["revolver"]
    assert hit_chance(5, 14) == Fraction(3, 5)
    assert crit_chance(5, 14, revolver.crit_low - 10) == Fraction(1, 10)
    assert fumble_chance(revolver.reliability) == Fraction(225, 10000)  # jam per shot
    assert clear_jam_chance(0) == Fraction(3, 10)


def test_fumble_chance_with_reflex_3() -> None:
    assert fumble_chance(3) == Fraction(275, 10000)


def test_plain_tests_and_dice_sums() -> None:
    assert d20_test(0, 15) == Fraction(6, 20)
    two_d6 = dice_sum(2, 6)
    assert two_d6[12] == Fraction(1, 36)  # one revolver hit kills a fresh duelist (§10.2)
    assert (
        round(float(probability(dice_sum(4, 6), lambda v: v >= 12)), 2) == 0.76
    )  # two hits kill 76 % of the time
