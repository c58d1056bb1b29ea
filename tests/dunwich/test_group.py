"""Dunwich fights of several a side (digest §13), replayed with scripted dice: every die
each decision rolls is scripted and consumed (`ScriptedDuel`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from duelo.envs.core.config import ConfigError
from duelo.envs.core.dice import chance_outcomes
from duelo.envs.core.testing import ScriptedDuel, check_ruleset
from duelo.envs.dunwich.group import DunwichGroupRuleset
from duelo.envs.dunwich.group_observation import GROUP_SPEC
from duelo.envs.dunwich.group_setup import GroupScenario, Post, load_group_catalog
from duelo.envs.dunwich.group_state import ACTION_IDS as ID
from duelo.envs.dunwich.group_state import Gone
from duelo.envs.dunwich.odds import at_least_one, opposed, pool
from duelo.envs.dunwich.setup import Character
from duelo.envs.dunwich.state import VITALITY, Phase
from tests.test_properties import redeal_plans

HALF = 2  # half metres a metre


def fighter(name: str, fisico: int, lucha: int, ini: int, melee: str, **more: Any) -> Character:
    return Character(
        id=name.lower(), name=name, fisico=fisico, lucha=lucha, ini=ini, melee=melee, **more
    )


def fight(
    side_a: list[tuple[Character, float]],
    side_b: list[tuple[Character, float]],
    opening: tuple[int, ...] = (),
    arena: float = 12.0,
    **options: Any,
) -> ScriptedDuel:
    scenario = GroupScenario(
        "test",
        "",
        tuple(Post(c.id, p) for c, p in side_a),
        tuple(Post(c.id, p) for c, p in side_b),
        arena=arena,
    )
    characters = tuple(c for c, _ in side_a + side_b)
    ruleset = DunwichGroupRuleset(scenario, characters, options or None, load_group_catalog())
    return ScriptedDuel(ruleset, opening)


def crossed(duel: ScriptedDuel, seat: int) -> list[int]:
    """The values of a fighter's crossed Vitality boxes."""
    boxes = duel.state.fighters[seat].crossed
    return [value for value, cross in zip(VITALITY, boxes, strict=True) if cross]


# --- S13-1: one slow target attacked by two faster fighters; a third shoots ------------

S1_A1 = fighter("A1", 3, 3, 6, "knife", pv=0)
S1_A2 = fighter("A2", 2, 3, 5, "machete", pv=0)
S1_B1 = fighter("B1", 2, 2, 4, "unarmed", pv=0)
S1_B2 = fighter("B2", 1, 2, 3, "unarmed", pv=0, disparo=2, ranged="pistol")


def s13_1() -> ScriptedDuel:
    """Nobody has PV or an exit: every plan is a bid of 0 with nothing to choose, so the
    order A1, A2, B1, B2 comes with no decision and no die."""
    return fight([(S1_A1, 4), (S1_A2, 3)], [(S1_B1, 5), (S1_B2, 11)])


def test_s13_1_a_slow_target_attacked_by_two_faster_fighters_and_a_shot() -> None:
    duel = s13_1()
    assert duel.state.order == [0, 1, 2, 3] and duel.seat == 0
    # 1. A1 (B1 at 1.0 m) Dañar; B1 Defenderse: A1 [5, 6, 2] = 3; B1 [5, 3], the 3
    # rerolled to 6: 3. A tie; B1 loses its Initiative Turn.
    duel.act(ID["DANAR_E0"])
    assert duel.seat == 2 and duel.state.phase == Phase.REACT
    duel.act(ID["REACT_DEFEND"], 5, 6, 2, 5, 3, 6)
    assert duel.state.fighters[2].reacted
    # 2. A2 (B1 at 2.0 m) charges to 4.5; B1 reacts again with Dañar (G1): A2 [5, 2, 1]
    # = 1, B1 [6, 4] = 2: B1's bare hands [2, 3] -> Vitality {2}, Incapacitation 1.
    assert duel.seat == 1
    duel.act(ID["DANAR_E0"])
    assert duel.state.fighters[1].position == 9  # 4.5 m
    duel.act(ID["REACT_DANAR"], 5, 2, 1, 6, 4, 2, 3)
    assert crossed(duel, 1) == [2] and duel.state.fighters[1].incap == 1
    # 3. B1 is skipped; B2 is 7.0 m from A1 and 6.5 m from A2: it shoots A1: [5, 1] = 1,
    # pistol [6, 3, 3] -> Vitality {3, 3, 6}, Incapacitation 1.
    assert duel.seat == 3
    duel.act(ID["SHOOT_E0"], 5, 1, 6, 3, 3)
    assert crossed(duel, 0) == [3, 3, 6] and duel.state.fighters[0].incap == 1
    # 4. The turn is over; B1 and B2 untouched.
    assert duel.state.round == 2 and duel.seat == 0
    assert crossed(duel, 2) == crossed(duel, 3) == []


def test_s13_1_first_pairing() -> None:
    """Step 1 alone: B1's Defenderse reroll of its one failed die, and the tie."""
    duel = s13_1()
    duel.act(ID["DANAR_E0"])
    duel.act(ID["REACT_DEFEND"], 5, 6, 2, 5, 3, 6)
    assert "A tie: nothing happens" in duel.log()
    assert duel.state.fighters[2].reacted and not duel.state.fighters[2].acted
    assert duel.seat == 1


# --- S13-2: PV bids among four; a shot blocked by a non-target; a charge on a fighter
# that has already acted --------------------------------------------------------------

S2_A1 = fighter("A1", 2, 3, 5, "knife", pv=1)
S2_A2 = fighter("A2", 3, 3, 6, "unarmed", pv=0, disparo=3, ranged="pistol")
S2_B1 = fighter("B1", 2, 2, 4, "machete", pv=2)
S2_B2 = fighter("B2", 1, 2, 3, "unarmed", pv=0, disparo=2, ranged="pistol")
"""The digest's B2 is unarmed; a pistol here shows its shot barred (step 4)."""


def test_s13_2_bids_a_blocked_shot_and_a_charge_on_one_who_acted() -> None:
    duel = fight([(S2_A1, 2), (S2_A2, 0.5)], [(S2_B1, 6), (S2_B2, 10)])
    # 1. Plan: A1 bids 1, B1 bids 1 (A2 and B2 have no PV: nothing to choose).
    assert duel.seat == 0 and duel.state.phase == Phase.PLAN
    duel.act(ID["BID_1"])
    assert duel.seat == 2
    duel.act(ID["BID_1"])
    # Order by (bid, INI): A1 (1, 5), B1 (1, 4), A2 (0, 6), B2 (0, 3); A1 and B1 pay.
    assert duel.state.order == [0, 2, 1, 3]
    assert [f.pv for f in duel.state.fighters] == [0, 0, 1, 0]
    # 2. A1 charges B1 (4.0 m), ends at 5.5; Dañar against Dañar: [5, 5, 1] = 2 and
    # [6, 1] = 2, a tie; B1 paid its bid and still lost its turn.
    duel.act(ID["DANAR_E0"])
    assert duel.state.fighters[0].position == 11
    duel.act(ID["REACT_DANAR"], 5, 5, 1, 6, 1)
    assert duel.state.fighters[2].reacted
    # 3. A2 at 0.5 m: 5.5 m from B1, 9.5 m from B2: it shoots B1, [4, 4, 5] = 1, pistol
    # [2, 2, 5] -> Vitality {2, 2, 5}, Incapacitation 2.
    assert duel.seat == 1
    duel.act(ID["SHOOT_E0"], 4, 4, 5, 2, 2, 5)
    assert crossed(duel, 2) == [2, 2, 5] and duel.state.fighters[2].incap == 2
    # 4. B2 at 10.0 m is 4.5 m from A1: no shot at anyone, though A2 is 9.5 m away. It
    # charges A1, ends at 6.0 (B1's point); A1 (acted) Defenderse: B2 [5, 2] = 1, A1
    # [1, 2, 3] rerolled to [5, 6, 1] = 3: nothing happens to B2.
    assert duel.seat == 3
    mask = duel.mask()
    assert not mask[ID["SHOOT_E0"]] and not mask[ID["SHOOT_E1"]]
    duel.act(ID["DANAR_E0"])
    assert duel.state.fighters[3].position == duel.state.fighters[2].position == 12
    duel.act(ID["REACT_DEFEND"], 5, 2, 1, 2, 3, 5, 6, 1)
    assert not duel.state.fighters[0].reacted and crossed(duel, 0) == []
    # 5. The next turn's plan: B1 (PV 1, A1 in reach) is the first to choose.
    assert duel.state.round == 2 and duel.state.phase == Phase.PLAN and duel.seat == 2


# --- §13.3: the lost turn, a busy fighter, the options of pairings ---------------------

THUG = fighter("Thug", 3, 3, 6, "club", pv=0)
THUG2 = fighter("Thug2", 3, 3, 5, "club", pv=0)
SLOW = fighter("Slow", 2, 2, 2, "unarmed", pv=0)
SLOW2 = fighter("Slow2", 2, 2, 1, "unarmed", pv=0)


def test_a_target_that_already_acted_loses_nothing_and_reacts_again() -> None:
    """§13.3: the first pairing before its turn spends it; later pairings cost nothing."""
    duel = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)])
    duel.act(ID["DANAR_E0"])
    duel.act(ID["REACT_DANAR"], 1, 1, 1, 1, 1)
    assert duel.state.fighters[2].reacted
    duel.act(ID["INCAPACITAR_E0"])
    mask = duel.mask()  # the full list but Incapacitar against Incapacitar (§5)
    assert mask[ID["REACT_DANAR"]] and mask[ID["REACT_DESPLAZAR"]]
    assert not mask[ID["REACT_INCAPACITAR"]]
    duel.act(ID["REACT_DEFEND"], 1, 1, 1, 1, 1, 1)  # 2 dice, 2 dice, both rerolled
    assert duel.state.round == 2


def test_reaction_penalty_takes_a_die_per_earlier_pairing() -> None:
    """G1 `reaction_penalty`: the second pairing rolls the target's pool less one."""
    duel = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)], reaction_penalty=True)
    duel.act(ID["DANAR_E0"])
    duel.act(ID["REACT_DANAR"], 1, 1, 1, 1, 1)
    duel.act(ID["DANAR_E0"])
    duel.act(ID["REACT_DANAR"], 1, 1, 1, 1)  # 3 dice against 2 - 1
    assert "(-1d)" in duel.log()


def test_gang_bonus_adds_a_die_per_ally_engaged_with_the_target() -> None:
    """G3 `gang_bonus`: +1d to the initiator per other ally within 1.5 m of the target;
    by default allies add nothing (the first pairing: 3 dice against 2)."""
    plain = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)])
    plain.act(ID["DANAR_E0"])
    plain.act(ID["REACT_DANAR"], 1, 1, 1, 1, 1)
    ganged = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)], gang_bonus=True)
    ganged.act(ID["DANAR_E0"])
    ganged.act(ID["REACT_DANAR"], 1, 1, 1, 1, 1, 1)
    assert "(+1d)" in ganged.log()


def test_a_busy_fighter_only_defends_without_rerolls_and_still_escapes() -> None:
    """§13.3, §4 (e): a fighter on the escape task answers every pairing with Defenderse
    alone and no rerolls; if still standing at its Initiative Turn, it escapes."""
    duel = fight([(THUG, 5)], [(SLOW, 6), (SLOW2, 11.5)])
    # as if committed: in play no opponent comes within a charge of an escaper, who
    # starts more than 7 m from all of them and whom nobody can push closer
    duel.state.fighters[1].task = True
    duel.act(ID["DANAR_E0"])
    mask = duel.mask()
    assert np.flatnonzero(mask).tolist() == [ID["REACT_DEFEND"]]
    duel.act(ID["REACT_DEFEND"], 1, 1, 1, 1, 1)  # 3 dice and 2, no reroll
    assert not duel.state.fighters[1].reacted
    assert duel.state.standing[1] == Gone.FLED and duel.seat == 2


def test_escaping_side_draws_unless_escape_is_loss() -> None:
    """§13.7, §10 #24: a side whose every fighter escaped draws; else it loses."""
    for loss, winner in ((False, None), (True, 0)):
        duel = fight([(THUG, 3)], [(SLOW, 11.5)], escape_is_loss=loss)
        assert duel.state.phase == Phase.PLAN and duel.seat == 1
        duel.act(ID["ESCAPE"])
        assert duel.state.fighters[1].initiative == 4  # 2 x Físico (§4 (e))
        duel.act(ID["ADVANCE"])  # the Thug first (INI 6); then the escape
        assert duel.state.result is not None and duel.state.result.winner == winner


# --- §13.4: shots and charges among many opponents --------------------------------------

GUN = fighter("Gun", 2, 2, 7, "unarmed", pv=0, disparo=3, ranged="pistol")


def test_a_charge_reaches_only_an_opponent_under_7_m() -> None:
    """Being within 7 m of one opponent does not let one charge another 7 m or more away."""
    duel = fight([(THUG, 2)], [(SLOW, 8.5), (SLOW2, 9)])
    mask = duel.mask()
    assert mask[ID["DANAR_E0"]] and not mask[ID["DANAR_E1"]]


def test_a_shot_needs_more_than_5_m_from_every_active_opponent() -> None:
    """An opponent within 5 m blocks every shot; once down, it counts no more (§13.1)."""
    duel = fight([(GUN, 0.5)], [(SLOW, 5.5), (SLOW2, 10.5)])
    assert not duel.mask()[ID["SHOOT_E1"]]
    duel.state.standing[1] = Gone.DOWN
    assert duel.mask()[ID["SHOOT_E1"]] and not duel.mask()[ID["DANAR_E0"]]


def test_fire_into_melee_takes_a_die() -> None:
    """G5 `fire_into_melee`: -1d at a target engaged with an ally of the shooter."""
    shooters = [(GUN, 1.5), (THUG, 10.5)]
    plain = fight(shooters, [(SLOW, 11)])
    plain.act(ID["SHOOT_E0"], 1, 1, 1)
    penalised = fight(shooters, [(SLOW, 11)], fire_into_melee=True)
    penalised.act(ID["SHOOT_E0"], 1, 1)
    assert "into the melee (-1d)" in penalised.log()


def test_exact_odds_of_a_shot_into_a_melee_through_the_engine() -> None:
    """Disparo 3 less 1 die: P(hit) = 1 - (2/3)^2 = 5/9, by every outcome of the
    engine's dice (the damage dice counted too)."""
    duel = fight([(GUN, 1.5), (THUG, 10.5)], [(SLOW, 11)], fire_into_melee=True)
    ruleset, opening = duel.ruleset, duel.state

    def shot(dice: Any) -> bool:
        state = opening.clone()
        ruleset.apply(state, 0, ID["SHOOT_E0"], dice)
        return not any("misses" in e.text for e in state.log[len(opening.log) :])

    hit = sum(p for p, landed in chance_outcomes(shot) if landed)
    assert hit == Fraction(5, 9) == at_least_one(2)


def test_exact_odds_of_the_second_pairing_under_the_reaction_penalty() -> None:
    """Thug's 3 dice against Slow's Dañar at 2 - 1 dice: the engine's win and tie odds
    equal the odds module's opposed pools, exactly."""
    duel = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)], reaction_penalty=True)
    duel.act(ID["DANAR_E0"])
    duel.act(ID["REACT_DANAR"], 1, 1, 1, 1, 1)
    duel.act(ID["DANAR_E0"])
    ruleset, opening = duel.ruleset, duel.state

    def pairing(dice: Any) -> str:
        state = opening.clone()
        ruleset.apply(state, 2, ID["REACT_DANAR"], dice)
        text = " ".join(e.text for e in state.log[len(opening.log) :])
        return "tie" if "A tie" in text else "thug" if "to Slow" in text else "slow"

    odds: dict[str, Fraction] = {}
    for p, who in chance_outcomes(pairing):
        odds[who] = odds.get(who, Fraction(0)) + p
    win, tie = opposed(pool(3), pool(1))
    assert odds["thug"] == win and odds["tie"] == tie


# --- §13.2: the order, ties rolled off ---------------------------------------------------

TWIN = fighter("Twin", 3, 3, 6, "club", pv=0)


def test_full_ties_roll_off_and_reroll_among_those_still_tied() -> None:
    """§13.2 G9: three fighters tied in bid, INI and Lucha roll 1d6 in seat order (4, 4,
    2); the two 4s roll again (1, 5): seat 1, seat 0, seat 2."""
    duel = fight([(TWIN, 1.5), (TWIN, 2)], [(TWIN, 10)], opening=(4, 4, 2, 1, 5))
    assert duel.state.order == [1, 0, 2]
    by_id = fight([(TWIN, 1.5), (TWIN, 2)], [(TWIN, 10)], tie_break="id")
    assert by_id.state.order == [0, 1, 2]


def test_the_order_sorts_by_bid_then_ini_then_lucha() -> None:
    """§13.6: a bid first, then INI (2 x Físico on a task), then Lucha."""
    quick = fighter("Quick", 2, 4, 6, "knife", pv=1)
    duel = fight([(THUG, 4), (quick, 2)], [(TWIN, 8), (SLOW, 9)])
    assert duel.seat == 1  # Quick alone has PV, and Twin is in reach (6 m)
    duel.act(ID["BID_1"], 6, 1)
    # Quick (bid 1) first and pays (every opponent bid less); Thug and Twin (INI 6,
    # Lucha 3) roll off, 6 against 1; Slow (INI 2) last.
    assert duel.state.order == [1, 0, 2, 3] and duel.state.fighters[1].pv == 0


# --- §13.5: pushes ---------------------------------------------------------------------


def test_a_push_from_the_same_point_goes_toward_the_end_with_more_room() -> None:
    """§13.5: winner and loser on one point: the loser goes toward the farther wall."""
    duel = fight([(THUG, 3)], [(SLOW, 3)])
    duel.act(ID["DESPLAZAR_E0"])
    duel.act(ID["REACT_DANAR"], 6, 6, 6, 1, 1)
    assert duel.state.fighters[1].position == 3 * HALF + 2 * HALF  # 2 m toward 12


# --- §13.6: sealed plans -----------------------------------------------------------------


VARIANTS = [
    {"scenario": s} for s in ("three_on_three", "two_on_two", "outnumbered", "crossfire")
] + [
    {
        "scenario": "outnumbered",
        "options": {
            "reaction_penalty": True,
            "gang_bonus": True,
            "fire_into_melee": True,
            "tie_break": "id",
            "team_shared_plan": True,
            "pusher_follows": True,
            "bank_extra_successes": True,
        },
    }
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: str(v))
def test_conformance_and_sealed_plans(variant: dict[str, Any]) -> None:
    """The ruleset kit's checks, with the re-deal of every plan a fighter may not see."""
    assert check_ruleset(lambda: DunwichGroupRuleset(**variant), range(8), redeal_plans) > 0


def test_team_shared_plan_shows_an_allys_plan_only() -> None:
    """G7 `team_shared_plan`: an ally's chosen plan is shown; an opponent's never is."""
    quick = fighter("Quick", 2, 4, 6, "knife", pv=1)
    for shared in (False, True):
        duel = fight(
            [(quick, 3), (quick, 3.5)], [(quick, 6), (quick, 6.5)], team_shared_plan=shared
        )
        duel.act(ID["BID_1"])
        assert duel.seat == 1
        seen = duel.field(1, "plan", "ally1")
        assert seen == (2 if shared else 0)
        duel.act(ID["BID_0"])
        assert duel.field(2, "plan", "ally1") == 0  # seat 3 has not chosen yet
        assert sum(duel.observation(2)["plan"]) == 0


# --- scenarios ---------------------------------------------------------------------------


def test_a_scenario_refuses_a_side_too_large_and_a_position_off_the_grid() -> None:
    post = Post("thug", 1)
    with pytest.raises(ValueError, match="1..3 a side"):
        GroupScenario("x", "", (post,) * 4, (post,))
    with pytest.raises(ValueError, match="0.5 m"):
        GroupScenario("x", "", (Post("thug", 1.25),), (post,))
    with pytest.raises(ValueError, match="must lie in"):
        GroupScenario("x", "", (Post("thug", 13),), (post,))


def test_the_fighters_must_match_the_scenario() -> None:
    with pytest.raises(ConfigError, match="fighters must name the scenario's 6 fighters"):
        DunwichGroupRuleset("three_on_three", fighters=("thug", "thug"))


def test_the_observation_has_a_row_per_slot_and_the_spec_names_them() -> None:
    duel = fight([(THUG, 5), (THUG2, 5.5)], [(SLOW, 6)])
    seen = duel.observation(2)
    assert seen["present"].tolist() == [1, 0, 0, 1, 1, 0]
    assert seen["range"].tolist()[3:5] == [1.0, 0.5]
    assert GROUP_SPEC.index("hp", "enemy1") > GROUP_SPEC.index("hp", "enemy0")
