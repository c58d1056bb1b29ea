"""Dunwich's expert reads its odds from the observation: the fighters actually in the duel."""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction

import numpy as np
import pytest

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.dunwich.npcs import ExpertBrawler, Side, pairing_value
from duelo.envs.dunwich.observation import OBSERVATION_SPEC
from duelo.envs.dunwich.odds import opposed, pool
from duelo.envs.dunwich.pairing import wound
from duelo.envs.dunwich.state import VITALITY, Action, Maneuver
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
    harm = float(_harm_by_the_rules(fight, 1, 2, True))  # the knife's 2 lethal dice (§7)
    expected = float(win) * harm - float(1 - win - tie) * 0.0  # they defend: nothing back
    assert pairing_value(me, Maneuver.DANAR, them, Maneuver.DEFENDERSE) == expected


def test_it_outbids_a_faster_rival_in_reach() -> None:
    fight = duel(fighter(2, 3), fighter(4, 3, pv=1), (5, 5.5))  # B leads the order, 1 PV
    assert decide(fight) == A.BID_2  # B's PV plus one: side A acts first for sure
    far = duel(fighter(2, 3), fighter(4, 3, pv=1), (1, 11))
    assert decide(far) == A.BID_0  # nothing in reach this turn: keep the points


def _harm_by_the_rules(fight: ScriptedDuel, seat: int, dice: int, lethal: bool) -> Fraction:
    """Incapacitation boxes `dice` damage dice add, enumerated face by face through the
    rules' own `wound` (§7), capped where the fighter is out."""
    fighter = fight.state.fighters[seat]
    total = Fraction(0)
    for faces in itertools.product(range(1, 7), repeat=dice):
        struck = copy.deepcopy(fighter)
        wound(struck, list(faces), lethal)
        total += Fraction(struck.incap - fighter.incap, 6**dice)
    return total


@pytest.mark.parametrize("lethal", [True, False])
@pytest.mark.parametrize("crossed", [(), (2,), (1, 3, 5), (1, 2, 4, 6)])
def test_its_expected_damage_is_the_rules_exact_figure(
    crossed: tuple[int, ...], lethal: bool
) -> None:
    """§7 (issue 29, item 20): two dice showing one even value cross at most that value's
    free boxes. The expert once counted every free even value once per die: 3 lethal dice
    on a fresh register gave 1.50 where the rules give 1.34."""
    fight = duel(fighter(3, 3), fighter(3, 3), (4, 8))
    target = fight.state.fighters[1]
    for index in crossed:
        target.crossed[index] = True
    target.incap = sum(1 for i in crossed if VITALITY[i] % 2 == 0)
    read = OBSERVATION_SPEC.read(OBSERVATION_SPEC.view(fight.ruleset.observe(fight.state, 0)))
    them = Side.of(read, "opponent")
    for dice in range(1, 6):
        exact = _harm_by_the_rules(fight, 1, dice, lethal)
        assert them.harm(dice, lethal) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)
