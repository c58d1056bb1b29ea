"""Vampiro's expert reads its odds from the observation: the fighters actually in the fight."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.vampiro.damage import after_soak, damage_pool, soak_pool
from duelo.envs.vampiro.exchange import action_pool, attack_traits, damage_dice
from duelo.envs.vampiro.npcs import ExpertKindred, Rival, Side, hit_levels
from duelo.envs.vampiro.observation import OBSERVATION_SPEC
from duelo.envs.vampiro.odds import difficulty, pool
from duelo.envs.vampiro.rules import attack_difficulty
from duelo.envs.vampiro.setup import Damage
from duelo.envs.vampiro.state import Action, Move, damage_type
from tests.vampiro.test_turn import duel, fighter

A = Action
EXPERT = ExpertKindred()


def decide(fight: ScriptedDuel) -> int:
    seat = fight.seat
    assert seat is not None
    flat = fight.ruleset.observe(fight.state, seat)
    return EXPERT.act(OBSERVATION_SPEC.view(flat), fight.mask(), np.random.default_rng(0))


def test_expected_levels_are_the_exact_pool_odds() -> None:
    """Two damage dice, nothing to soak: the mean net successes of two dice at 6."""
    exact = sum(float(p) * o.net for o, p in pool(2).items())
    assert hit_levels(2, 0, False) == exact
    assert hit_levels(2, 2, True) < hit_levels(2, 2, False)  # a vampire halves bashing


def test_it_runs_in_bare_handed_and_shoots_from_range() -> None:
    fight = duel(fighter("brujah"), fighter("hunter"), 5, [1, 10])  # the Brujah declares first
    assert fight.seat == 0 and decide(fight) == A.CLOSE
    fight.act(A.CLOSE)
    fight.act(A.K0)
    assert decide(fight) in (A.SHOOT, A.SHOOT_TWICE)


def test_a_vampire_bites_once_clinched() -> None:
    fight = duel(fighter("brujah"), fighter("thug"), 1, [10, 1])  # the thug declares first
    for side in fight.state.fighters:
        side.clinched = True
    fight.act(A.STRIKE)
    fight.act(A.K0)
    assert fight.seat == 0 and decide(fight) == A.BITE  # aggravated: a mortal cannot soak it


def exact_levels(fight: ScriptedDuel, seat: int, move: Move) -> float:
    """An attack's expected health levels, enumerated through the rules' own functions:
    its pool and difficulty, the damage pool of its extra successes, the target's soak
    by damage type, the halving of bashing on a vampire (§3, §4, §7)."""
    state = fight.state
    me, them = state.fighters[seat], state.fighters[1 - seat]
    ability, attribute = attack_traits(move)
    dice, target = action_pool(me, ability, attribute, 0)
    target = difficulty(target + attack_difficulty(state, me, move))
    kind = damage_type(state, seat, move)
    c = them.character
    soak = soak_pool(kind, c.vampire, c.resistencia, c.fortaleza, them.armour.rating)
    halve = kind == Damage.BASHING and c.vampire and state.options.halve_bashing_vs_vampires
    total = Fraction(0)
    for rolled, p in pool(dice, target).items():
        if rolled.net < 1:
            continue
        for hit, q in pool(damage_pool(damage_dice(me, move) + rolled.net - 1)).items():
            for soaked, r in pool(soak).items():
                total += p * q * r * after_soak(hit.net, soaked.net, halve)
    return float(total)


def sides(fight: ScriptedDuel, seat: int) -> tuple[Side, Side]:
    read = OBSERVATION_SPEC.read(OBSERVATION_SPEC.view(fight.ruleset.observe(fight.state, seat)))
    return Side.of(read, "self"), Side.of(read, "opponent")


def test_a_clinched_strike_and_kick_are_weighed_at_their_plus_one() -> None:
    """§10 #39: clinched, a Strike rolls at 7 and a Kick at 8; the expert once read 6, 7."""
    fight = duel(fighter("thug"), fighter("brujah"), 1, [10, 1])
    for side in fight.state.fighters:
        side.clinched = True
    me, them = sides(fight, 0)
    for action, move in ((A.STRIKE, Move.STRIKE), (A.KICK, Move.KICK)):
        assert me.strike(them, action, 0, 1.0, None) == pytest.approx(
            exact_levels(fight, 0, move), rel=1e-12
        )


def test_a_clinch_on_a_vampire_is_weighed_halved() -> None:
    """§7, §10 #10: a clinch's Strength damage is bashing, which a vampire halves."""
    fight = duel(fighter("thug"), fighter("brujah"), 1, [10, 1])
    me, them = sides(fight, 0)
    assert me.strike(them, A.CLINCH, 0, 1.0, None) == pytest.approx(
        exact_levels(fight, 0, Move.CLINCH), rel=1e-12
    )


def test_it_weighs_the_dodge_and_the_plan_its_rival_declared() -> None:
    """§12: the faster sees the slower's plan. Against a declared Dodge its strike meets
    the Dodge; against a rival that only runs, nothing is taken back."""
    dodger = fighter("thug", esquivar=3)  # Dex 2 + Dodge 3
    fight = duel(fighter("brujah"), dodger, 1, [10, 1])  # the thug declares first
    fight.act(A.DODGE)
    fight.act(A.K0)
    read = OBSERVATION_SPEC.read(OBSERVATION_SPEC.view(fight.ruleset.observe(fight.state, 0)))
    rival = Rival.of(read)
    assert rival == Rival(attacks=False, dodge=0)
    me, them = Side.of(read, "self"), Side.of(read, "opponent")
    values = ExpertKindred._plan_values(fight.mask(), me, them, 1.0, rival)
    assert values[A.STRIKE] == me.strike(them, A.STRIKE, 0, 1.0, 0)  # into the Dodge, no reply
    assert values[A.STRIKE] < me.strike(them, A.STRIKE, 0, 1.0, None)
