"""Vampiro's damage, health track, initiative and multiple actions: the digest's §11
vectors that are not dice counts (those are in test_odds)."""

from __future__ import annotations

from duelo.envs.vampiro.damage import (
    Status,
    after_soak,
    defended,
    initiative,
    multiple_action_penalties,
    soak_pool,
    take,
    wound_penalty,
)
from duelo.envs.vampiro.odds import read_pool
from duelo.envs.vampiro.setup import Damage

B, L, A = Damage.BASHING, Damage.LETHAL, Damage.AGGRAVATED


def test_s1_soak_pools() -> None:
    """S1 (seed): Stamina 3, Fortitude 2: bashing and lethal with 5 dice, aggravated 2."""
    assert [soak_pool(d, True, 3, 2, 0) for d in (B, L, A)] == [5, 5, 2]
    assert [soak_pool(d, False, 3, 0, 3) for d in (B, L, A)] == [6, 3, 0]  # a mortal in Kevlar


def test_v3_a_mortal_takes_lethal_unsoaked() -> None:
    health: list[Damage] = []
    assert soak_pool(L, False, 3, 0, 0) == 0
    assert take(health, 2, L, vampire=False) == Status.ACTIVE
    assert health == [L, L] and wound_penalty(health) == 1  # Hurt


def test_v4_a_vampire_soaks_lethal() -> None:
    soaked = read_pool([6, 2, 9, 1], 6).net
    health: list[Damage] = []
    take(health, after_soak(2, soaked, False), L, vampire=True)
    assert health == [L] and wound_penalty(health) == 0  # Bruised


def test_v5_a_vampire_halves_bashing() -> None:
    damage = read_pool([6, 7, 8, 9, 10, 2], 6).net
    soak = read_pool([6, 7, 2], 6).net
    assert (damage, soak, after_soak(damage, soak, True)) == (5, 2, 1)


def test_v8_multiple_action_pools() -> None:
    """Strike (pool 7) then Dodge (pool 6), N = 2: 5 and 3 dice."""
    penalties = multiple_action_penalties(2)
    assert [pool - p for pool, p in zip([7, 6], penalties, strict=True)] == [5, 3]


def test_v9_initiative() -> None:
    assert initiative(7, 3, 2, penalty=1, celerity=2, celerity_used=0) == 13
    assert initiative(7, 3, 2, penalty=1, celerity=2, celerity_used=1) == 12


def test_v12_dodge_subtraction() -> None:
    assert defended(3, 2) == 0
    assert defended(3, 3) is None and defended(3, 4) is None


def test_v14_overflow() -> None:
    health = [B] * 7
    assert take(health, 0, B, vampire=False) == Status.UNCONSCIOUS
    assert take(health, 1, B, vampire=False) == Status.INCAPACITATED
    assert health.count(L) == 1
    assert take(health, 1, L, vampire=False) == Status.DEAD


def test_a_vampire_overflows_into_torpor_or_final_death() -> None:
    health = [L] * 7
    assert take(list(health), 1, B, vampire=True) == Status.TORPOR
    assert take(list(health), 1, A, vampire=True) == Status.FINAL_DEATH
    mixed = [L] * 6 + [B]
    assert take(mixed, 1, L, vampire=True) == Status.INCAPACITATED and mixed == [L] * 7


def test_worse_damage_is_listed_first() -> None:
    health: list[Damage] = []
    take(health, 1, B, vampire=False)
    take(health, 1, A, vampire=False)
    take(health, 1, L, vampire=False)
    assert health == [A, L, B]
