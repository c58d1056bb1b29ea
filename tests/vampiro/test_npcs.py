"""Vampiro's expert reads its odds from the observation: the fighters actually in the fight."""

from __future__ import annotations

import numpy as np

from duelo.agents.vampiro import ExpertKindred, hit_levels
from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.vampiro.observation import OBSERVATION_SPEC
from duelo.envs.vampiro.odds import pool
from duelo.envs.vampiro.state import Action
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
