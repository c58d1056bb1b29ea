"""The rules review's findings in Dunwich (issue 29, items 8-12 and 20), replayed with
scripted dice through the engine."""

from __future__ import annotations

import copy
import itertools
from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

from duelo.envs.dunwich.npcs import Side, reactions_of
from duelo.envs.dunwich.observation import OBSERVATION_SPEC
from duelo.envs.dunwich.pairing import wound
from duelo.envs.dunwich.state import REACTIONS, Action, Maneuver, Phase
from tests.dunwich.test_npcs import decide
from tests.dunwich.test_rules import CATALOG, duel, fighter, plan

A = Action


def test_the_dying_reach_the_info_and_no_check_is_rolled() -> None:
    """Item 8, §9: the env's final `info` says who is dying, by seat."""
    env = gym.make("duelo/Dunwich-v2", opponent="aggressive", scenario="warehouse")
    _, info = env.reset(seed=1)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert len(info["dying"]) == 2 and all(isinstance(d, bool) for d in info["dying"])


def test_advantageous_positions_only_where_the_scenario_allows() -> None:
    """Item 10, seed: "si la situación lo permite, y el GM lo considera adecuado"."""
    fight = duel(fighter(3, 2, ini=9), fighter(2, 3), (4, 7))  # 3 m apart: not engaged
    plan(fight)
    assert not fight.mask()[A.POSITION_DANAR] and fight.mask()[A.DANAR]
    scenarios = CATALOG.scenarios
    assert [s for s in scenarios if scenarios[s].advantageous_position] == ["back_alley"]


def test_a_sprint_toward_the_rival() -> None:
    """Item 11: a knife fighter 12 m from a shotgun closes 11 m + 1 m per extra success,
    stopping 0.5 m short; before, it could only sprint away."""
    fighters = fighter(3, 3, melee="knife", ini=9), fighter(2, 3, ranged="shotgun")
    fight = duel(*fighters, (6, 18), arena=20)
    fight.act(A.SPRINT_TOWARD, 5, 1, 1)  # no plan to make (bids closed); 1 success: 11 m
    assert fight.state.fighters[0].position == 2 * 17
    fight = duel(*fighters, (6, 18), arena=20)
    fight.act(A.SPRINT_TOWARD, 6, 6, 6)  # 6 successes: 16 m, but it stops 0.5 m short
    assert fight.state.distance() == 1


def test_strike_then_fall_back() -> None:
    """Item 11, seed: "realizar la acción y mover": a charge of 4.5 m, a tie, then the
    rest of the 7 m (2.5 m) away from the rival."""
    fight = duel(fighter(3, 3, ini=9), fighter(2, 3), (2, 7))
    plan(fight)
    fight.act(A.DANAR_RETREAT)
    assert fight.state.fighters[0].position == 2 * 6.5
    fight.act(A.REACT_DANAR, 5, 1, 1, 5, 1, 1)  # a tie: nothing happens
    assert fight.state.fighters[0].position == 2 * 4 and "then falls back" in fight.log()


def test_move_then_shoot() -> None:
    """Item 11: an advance before the shot stops beyond 5 m (a shot needs more)."""
    fight = duel(fighter(3, 3, ini=9, ranged="pistol", disparo=2), fighter(2, 3), (2, 14), 20)
    fight.act(A.ADVANCE_SHOOT, 1, 1)  # 12 m apart: 6.5 m closer, to 5.5 m; a miss
    assert fight.state.distance() == 11 and "misses" in fight.log()


def test_bids_only_when_a_pairing_is_in_reach() -> None:
    """Item 12, seed: PV win initiative "en un emparejamiento": at 7 m or more the plan
    has nothing to bid (and is skipped when there is no escape either)."""
    far = duel(fighter(2, 3), fighter(3, 3), (2, 9))  # 7 m
    assert far.state.phase == Phase.ACT  # no plan decision at all
    near = duel(fighter(2, 3), fighter(3, 3), (2, 8.5))  # 6.5 m: a charge reaches
    assert near.state.phase == Phase.PLAN and near.mask()[[A.BID_1, A.BID_2]].all()
    escaper = duel(fighter(2, 3), fighter(3, 3, ranged="pistol"), (0.5, 9))
    assert escaper.mask()[A.ESCAPE] and not escaper.mask()[A.BID_1]


def test_bids_reach_three() -> None:
    fight = duel(fighter(2, 3, pv=3), fighter(3, 3, pv=2), (5, 5.5))
    assert fight.mask()[A.BID_3]
    plan(fight, A.BID_3, A.BID_2)
    assert fight.seat == 0 and fight.state.fighters[0].pv == 0


# --- the expert (item 20) -----------------------------------------------------------------


REACTIONS_OF = {A.DANAR: Maneuver.DANAR, A.INCAPACITAR: Maneuver.INCAPACITAR}


@pytest.mark.parametrize("positions", [(0.5, 5), (0.5, 1.5), (0.5, 1), (2, 6), (10, 11)])
@pytest.mark.parametrize("maneuver", [A.DANAR, A.INCAPACITAR])
def test_the_reactions_it_counts_are_the_masks_after_the_charge(
    positions: tuple[float, float], maneuver: Action
) -> None:
    """Item 20: the reactions the expert weighs against its maneuver are those the rules'
    mask leaves the target once the charge has moved the initiator (0.5 m from its wall
    before a 4.5 m charge, 4.5 m after it: a Desplazar back is open)."""
    fight = duel(fighter(3, 3, ini=9), fighter(2, 3), positions)
    plan(fight)
    read = OBSERVATION_SPEC.read(fight.observation(0))
    me, them = Side.of(read, "self"), Side.of(read, "opponent")
    counted = reactions_of(them, REACTIONS_OF[maneuver], me.charged(float(read("range"))))
    fight.act(maneuver)
    legal = [REACTIONS[a] for a in REACTIONS if fight.mask()[a]]
    assert sorted(counted) == sorted(legal)


def test_it_bids_nothing_for_an_initiative_it_holds() -> None:
    """Item 20: first by INI, against a rival with no PV to outbid it: no bid."""
    fight = duel(fighter(4, 3), fighter(2, 3, pv=0), (5, 5.5))
    assert decide(fight) == A.BID_0
    fight = duel(fighter(2, 3), fighter(4, 3, pv=0), (5, 5.5))  # second by INI
    assert decide(fight) == A.BID_1


@pytest.mark.parametrize("room", [0.0, 1.0, 2.5, 4.0])
def test_its_push_harm_is_the_rules_and_it_spends_the_fewest_pv_for_it(room: float) -> None:
    """Each PV spend's wall impact, enumerated through the rules' `wound` (Non-Lethal
    dice, §8.2), equals the expert's figure; it spends the fewest PV doing the most."""
    fight = duel(fighter(5, 3, pv=3), fighter(2, 3), (12 - room - 0.5 - 1, 12 - room))
    plan(fight)
    read = OBSERVATION_SPEC.read(fight.observation(0))
    me, them = Side.of(read, "self"), Side.of(read, "opponent")
    target = fight.state.fighters[1]
    values = []
    for pv in range(4):
        push = 3 + pv / 2  # ceil(5 / 2) m + 0.5 m a PV
        exact = Fraction(0)
        if push > room:
            dice = int(push)
            for faces in itertools.product(range(1, 7), repeat=dice):
                struck = copy.deepcopy(target)
                wound(struck, list(faces), lethal=False)
                exact += Fraction(min(struck.incap, 4) - target.incap, 6**dice)
        assert me.impact(them, pv) == pytest.approx(float(exact), abs=1e-12)
        values.append(exact)
    best = max(values)
    assert me.push_spend(them) == values.index(best)
