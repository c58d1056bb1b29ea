"""Vampiro's pools (digest §3): the exact distribution of net successes and botches, with
and without a specialty and Willpower, asserted as fractions; the §11 dice vectors."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from duelo.envs.core.dice import pool_outcomes
from duelo.envs.vampiro.exchange import pool_classes
from duelo.envs.vampiro.odds import (
    Outcome,
    SpecialtyMode,
    botch_chance,
    difficulty,
    pool,
    read_pool,
    success_chance,
)

TABLE = {  # §3: P(net >= 1) / P(botch) by pool size and difficulty 4, 6, 7, 8
    1: [(0.70, 0.10), (0.50, 0.10), (0.40, 0.10), (0.30, 0.10)],
    2: [(0.77, 0.05), (0.65, 0.09), (0.56, 0.11), (0.45, 0.13)],
    3: [(0.87, 0.02), (0.74, 0.06), (0.65, 0.09), (0.54, 0.13)],
    4: [(0.91, 0.01), (0.80, 0.04), (0.72, 0.07), (0.60, 0.11)],
    5: [(0.94, 0.00), (0.84, 0.02), (0.76, 0.05), (0.65, 0.09)],
    6: [(0.96, 0.00), (0.88, 0.01), (0.80, 0.03), (0.69, 0.07)],
    8: [(0.98, 0.00), (0.92, 0.00), (0.85, 0.01), (0.74, 0.04)],
}


@pytest.mark.parametrize("size", sorted(TABLE))
def test_the_digest_table(size: int) -> None:
    for target, (success, botch) in zip((4, 6, 7, 8), TABLE[size], strict=True):
        assert round(float(success_chance(size, target)), 2) == success
        assert round(float(botch_chance(size, target)), 2) == botch


@pytest.mark.parametrize("size", range(1, 7))
@pytest.mark.parametrize("target", range(2, 11))
def test_botch_closed_form(size: int, target: int) -> None:
    """§3: P(botch) = ((d - 1)/10)^n - ((d - 2)/10)^n."""
    low, other = Fraction(target - 1, 10), Fraction(target - 2, 10)
    assert botch_chance(size, target) == low**size - other**size


def test_one_die_exactly() -> None:
    assert pool(1) == {
        Outcome(0, True): Fraction(1, 10),
        Outcome(0, False): Fraction(4, 10),
        Outcome(1, False): Fraction(5, 10),
    }


def test_a_specialty_doubles_a_ten() -> None:
    """§3: with a specialty at difficulty 6, P(net >= 1) for n = 1..5 is .50 .67 .76 .83 .87;
    one die: a 10 is two successes."""
    shown = [round(float(success_chance(n, 6, specialty="double")), 2) for n in range(1, 6)]
    assert shown == [0.50, 0.67, 0.76, 0.83, 0.87]
    assert pool(1, 6, "double")[Outcome(2, False)] == Fraction(1, 10)


def test_the_revised_specialty_rerolls_a_ten_once() -> None:
    """§8.5, §10 #27: a 10 is one success and one more die, which does not chain."""
    assert pool(1, 6, "reroll")[Outcome(2, False)] == Fraction(1, 10) * Fraction(5, 10)
    assert read_pool([10, 1], 6, "reroll", reroll=lambda: 10) == Outcome(1, False)


def test_willpower_is_one_success_no_one_cancels() -> None:
    """§10 #26: the automatic success stands and there is no botch; the Revised reading
    lets 1s cancel it (and still no botch: a success was had)."""
    plain = pool(2)
    with_wp = pool(2, willpower=True)
    assert with_wp[Outcome(1, False)] == sum(p for o, p in plain.items() if o.net == 0)
    assert botch_chance(3, willpower=True) == 0
    assert read_pool([1, 1], 6, willpower=True) == Outcome(1, False)
    assert read_pool([1, 1], 6, willpower=True, cancellable=True) == Outcome(0, False)
    assert botch_chance(3, willpower=True, cancellable=True) == 0


def test_a_pool_of_no_dice_rolls_nothing() -> None:
    """§10 #13: the action cannot be attempted (the damage pool's 1-die minimum is the
    rules' own)."""
    assert pool(0) == {Outcome(0, False): Fraction(1)}


def test_difficulty_is_kept_within_two_and_ten() -> None:
    """§10 #20."""
    assert [difficulty(d) for d in (1, 6, 12)] == [2, 6, 10]


# --- §11: the dice vectors -------------------------------------------------------------


def test_v1_attack() -> None:
    assert read_pool([7, 1, 10, 3, 6], 6) == Outcome(2, False)


def test_v2_damage_with_and_without_ones_cancelling() -> None:
    assert read_pool([2, 9, 6, 1, 8, 5], 6) == Outcome(2, False)
    assert read_pool([2, 9, 6, 1, 8, 5], 6, ones_cancel=False) == Outcome(3, False)


def test_v6_botch_against_failure() -> None:
    assert read_pool([1, 3, 4], 6) == Outcome(0, True)
    assert read_pool([6, 1, 1], 6) == Outcome(0, False)


def test_v7_specialty() -> None:
    assert read_pool([10, 10, 1, 6], 6, "double") == Outcome(4, False)


def test_v16_point_blank() -> None:
    assert read_pool([4, 3, 9, 1, 5], 4) == Outcome(2, False)


@pytest.mark.parametrize("specialty", ["none", "double", "reroll"])
@pytest.mark.parametrize("target", [2, 4, 6, 8, 10])
def test_a_pool_read_by_its_classes_has_the_pools_odds(
    target: int, specialty: SpecialtyMode
) -> None:
    """What an OpenSpiel chance node gives for a pool (`dice.roll_pool`, one outcome a count
    of each class `pool_classes` tells apart) is the pool's exact distribution: the
    classes lose nothing the rules read. A specialty's reroll is weighed die by die."""
    for size in range(6):
        read: dict[Outcome, Fraction] = {}
        for p, faces in pool_outcomes(size, 10, pool_classes(target, specialty)):
            tens = faces.count(10) if specialty == "reroll" else 0
            for again in itertools.product(range(1, 11), repeat=tens):
                result = read_pool(faces, target, specialty, reroll=iter(again).__next__)
                read[result] = read.get(result, Fraction(0)) + p / 10**tens
        assert read == pool(size, target, specialty), size


@pytest.mark.parametrize("target", [2, 6, 10])
def test_a_pool_whose_ones_cancel_nothing_is_read_by_successes_alone(target: int) -> None:
    """A damage or soak pool under `ones_cancel_on_damage_soak` off (§10 #3) tells a 1 from
    no other failure: its classes give the same odds as the classes that keep the 1."""
    for size in range(6):
        read: list[dict[Outcome, Fraction]] = [{}, {}]
        for at, ones in enumerate((True, False)):
            for p, faces in pool_outcomes(size, 10, pool_classes(target, ones=ones)):
                result = read_pool(faces, target, ones_cancel=False)
                read[at][result] = read[at].get(result, Fraction(0)) + p
        assert read[0] == read[1], size
        assert len(pool_outcomes(size, 10, pool_classes(target, ones=False))) == size + 1
