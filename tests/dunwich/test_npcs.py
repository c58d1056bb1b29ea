"""Dunwich's expert reads its odds from the observation: the fighters actually in the duel."""

from __future__ import annotations

import numpy as np

from duelo.agents.dunwich import ExpertBrawler, Side, pairing_value
from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.dunwich.observation import OBSERVATION_SPEC
from duelo.envs.dunwich.odds import opposed, pool
from duelo.envs.dunwich.state import Action, Maneuver
from tests.dunwich.test_rules import duel, fighter, plan

A = Action
EXPERT = ExpertBrawler()


def decide(fight: ScriptedDuel) -> int:
    seat = fight.seat
    assert seat is not None
    flat = fight.ruleset.observe(fight.state, seat)
    return EXPERT.act(OBSERVATION_SPEC.view(flat), fight.mask(), np.random.default_rng(0))


def reaction(attacker_lucha: int, my_lucha: int) -> int:
    """The expert's answer (side B, bare-handed) to a Dañar from side A's baseball bat."""
    fight = duel(
        fighter(5, attacker_lucha, melee="bat"), fighter(1, my_lucha, melee="unarmed"), (5, 5.5)
    )
    plan(fight)
    fight.act(A.DANAR)
    return decide(fight)


def test_it_defends_against_the_stronger_and_strikes_back_at_the_weaker() -> None:
    assert reaction(attacker_lucha=5, my_lucha=2) == A.REACT_DEFEND
    assert reaction(attacker_lucha=1, my_lucha=5) in (A.REACT_DANAR, A.REACT_INCAPACITAR)


def test_its_pairing_odds_are_the_exact_pool_odds_of_the_fighters() -> None:
    fight = duel(fighter(3, 4, melee="knife"), fighter(2, 2), (5, 5.5))
    read = OBSERVATION_SPEC.read(OBSERVATION_SPEC.view(fight.ruleset.observe(fight.state, 0)))
    me, them = Side.of(read, "self"), Side.of(read, "opponent")
    win, tie = opposed(pool(4), pool(2, 2))
    expected = float(win) * 2 * 3 / 6 - float(1 - win - tie) * 0.0  # knife 2d; they defend
    assert pairing_value(me, Maneuver.DANAR, 0, them, Maneuver.DEFENDERSE, 0) == expected


def test_it_outbids_a_faster_rival_in_reach() -> None:
    fight = duel(fighter(2, 3), fighter(4, 3, pv=1), (5, 5.5))  # B leads the order, 1 PV
    assert decide(fight) == A.BID_2  # B's PV plus one: side A acts first for sure
    far = duel(fighter(2, 3), fighter(4, 3, pv=1), (1, 11))
    assert decide(far) == A.BID_0  # nothing in reach this turn: keep the points
