"""rules/liminal.md §13: the skirmish's rules, each worked example replayed with
scripted dice, and the exact odds of the party's initiative."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import gymnasium as gym
import pytest

from duelo.envs.core.config import ConfigError
from duelo.envs.core.dice import chance_outcomes
from duelo.envs.core.testing import ScriptedDuel, check_ruleset
from duelo.envs.liminal.odds import Grade, chances
from duelo.envs.liminal.setup import Character
from duelo.envs.liminal.skirmish import LiminalSkirmishRuleset
from duelo.envs.liminal.skirmish_odds import all_before, before_chances
from duelo.envs.liminal.skirmish_setup import (
    MobPost,
    Post,
    SkirmishScenario,
    load_skirmish_catalog,
)
from duelo.envs.liminal.skirmish_state import ACTION_IDS as ID
from duelo.envs.liminal.skirmish_state import SkirmishState, Standing

CATALOG = load_skirmish_catalog()
ANA = Character(id="ana", name="Ana", weapons=("sword",), melee=3, athletics=1, perception=2)
BEA = Character(id="bea", name="Bea", weapons=("unarmed",), endurance=2)
COL = Character(id="col", name="Col", weapons=("knife",), melee=1, perception=1)


def skirmish(
    party: list[tuple[str, int]],
    enemies: list[tuple[str, int]],
    mob: MobPost | None = None,
) -> SkirmishScenario:
    """A test scenario: (character id, position) an individual."""
    return SkirmishScenario(
        id="test",
        description="a test setup",
        party=tuple(Post(c, pos) for c, pos in party),
        enemies=tuple(Post(c, pos) for c, pos in enemies),
        mob=mob,
    )


def scripted(
    scenario: SkirmishScenario,
    opening: list[int],
    fighters: tuple[Any, ...] | None = None,
    **options: Any,
) -> ScriptedDuel:
    ruleset = LiminalSkirmishRuleset(scenario, fighters, options=options or None)
    return ScriptedDuel(ruleset, opening)


def state_of(duel: ScriptedDuel) -> SkirmishState:
    assert isinstance(duel.state, SkirmishState)
    return duel.state


# --- §13.2 the party's initiative ------------------------------------------------


S13_1 = skirmish(
    [("ana", 0), ("bea", 0), ("col", 0)],
    [("supernatural", 3), ("thug", 3)],
    MobPost(members=3),
)


def test_s13_1_the_party_rolls_against_the_best_enemy_perception() -> None:
    """S13-1: CL 8 + 2 = 10; Ana 3+5+2 = 10 (a tie succeeds), Bea 6+4+0 = 10 (no
    unskilled +2), Col 2+3+1 = 6 fails: Ana, Bea, the vampire, the thug, the mob's
    groups, Col."""
    duel = scripted(S13_1, [3, 5, 6, 4, 2, 3], (ANA, BEA, COL, "supernatural", "thug"))
    state = state_of(duel)
    assert state.before == [True, True, False, False, False]
    assert state.order == [0, 1, 3, 4, 5, 6, 7, 2]
    assert duel.seat == 0
    assert "= 10 vs 10: before the enemy" in duel.log()
    assert duel.field(0, "initiative", "self.before") == 1
    assert duel.field(0, "initiative", "ally2.after") == 1
    assert duel.field(0, "initiative", "enemy0.enemy") == 1


def test_s13_1_the_whole_party_acts_first_with_chance_25_in_1296() -> None:
    """S13-1: S(8) S(10) S(9) = 15/36 * 6/36 * 10/36, by the formula and by every
    outcome of the engine's own initiative rolls."""
    assert before_chances([2, 0, 1], 2) == [Fraction(15, 36), Fraction(6, 36), Fraction(10, 36)]
    assert all_before([2, 0, 1], 2) == Fraction(25, 1296)
    ruleset = LiminalSkirmishRuleset(S13_1, (ANA, BEA, COL, "supernatural", "thug"))
    engine = sum(
        (
            p
            for p, before in chance_outcomes(lambda dice: ruleset.new_duel(dice).before)
            if all(before[:3])
        ),
        start=Fraction(0),
    )
    assert engine == Fraction(25, 1296)


def test_an_act_first_critical_puts_the_critter_ahead_of_the_bands_next_round() -> None:
    """§7, §13.2: the duelist failed its roll (after the enemy); its critical's "act
    first" puts it ahead of everyone from the next round, and it may not take it again."""
    scenario = skirmish([("thug", 0), ("duelist", 0)], [("thug", 0)])
    # the party's thug 6+6+1 = 13 vs 9 before, the duelist 1+1 = 2 after
    duel = scripted(scenario, [6, 6, 1, 1])
    state = state_of(duel)
    assert state.order == [0, 2, 1]
    for _ in range(2):  # the party's thug and the enemy pass
        duel.act(ID["HOLD"])
        duel.act(ID["PASS"])
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_E0"], 6, 6)  # 12 + 3 = 15 vs 8 + 2 = 10: a critical
    assert duel.mask()[ID["CRIT_ACT_FIRST"]]
    duel.act(ID["CRIT_ACT_FIRST"], 1)  # sword 1 + 3 = 4: the thug 9 -> 5
    assert state.round == 2
    assert state.order == [1, 0, 2]
    assert duel.seat == 1
    assert duel.field(1, "initiative", "self.crit_first") == 1
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_E0"], 6, 6)
    assert not duel.mask()[ID["CRIT_ACT_FIRST"]]


# --- §13.3 targeting and the tight group ------------------------------------------


def test_a_shot_at_an_individual_in_a_tight_group_takes_minus_2() -> None:
    """Seed L72, §13.3: the gunman (Shoot 2, acts first) shoots the thug standing with
    the duelist: 2d6 4+4 + 2 - 2 = 8 vs 8 + 1 = 9 misses; alone it would hit."""
    scenario = skirmish([("gunman", 2), ("duelist", 0)], [("thug", 0)])
    duel = scripted(scenario, [6, 6, 6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_E0"], 4, 4)
    assert "picked out of a tight group -2" in duel.log()
    assert "= 8 vs 9 -> miss" in duel.log()


@pytest.mark.parametrize(("ally_at", "bonus"), [(0, 0), (1, 2)])
def test_the_tight_group_in_exact_odds(ally_at: int, bonus: int) -> None:
    """§13.3 exactly: the gunman's shot (Shoot 2) at the thug (CL 8 + 1) hits with
    P(2d6 + 2 - 2 >= 9) = 10/36 when the duelist stands with the thug, 21/36 when it
    stands a step away; every outcome of the engine's own dice counted."""
    scenario = skirmish([("gunman", 2), ("duelist", ally_at)], [("thug", 0)])
    duel = scripted(scenario, [6, 6, 6, 6])
    duel.act(ID["HOLD"])
    ruleset, state = duel.ruleset, duel.state

    def shot(dice: Any) -> bool:
        after = state.clone()
        ruleset.apply(after, 0, ID["SHOOT_E0"], dice)
        return after.hit is not None or after.fighters[2].endurance < 9  # a critical waits

    hit = sum((p for p, wounded in chance_outcomes(shot) if wounded), start=Fraction(0))
    odds = chances(bonus, 9)
    assert hit == odds[Grade.SUCCESS] + odds[Grade.CRITICAL] == Fraction(10 + 11 * bonus // 2, 36)


def test_a_melee_blow_picks_its_opponent_unless_the_option_says_otherwise() -> None:
    """§13.3: melee takes no -2 in a crowd; `group_penalty_melee` makes it take one."""
    scenario = skirmish([("duelist", 0), ("thug", 0)], [("thug", 0)])
    for option, penalised in ((False, False), (True, True)):
        duel = scripted(scenario, [6, 6, 6, 6], group_penalty_melee=option)
        duel.act(ID["HOLD"])
        duel.act(ID["MELEE_E0"], 1, 1)
        assert ("picked out of a tight group -2" in duel.log()) is penalised


def test_the_pistol_takes_minus_2_beside_any_enemy_and_a_rifle_cannot_fire() -> None:
    """§13.1: the gunman stands with thug E0 and shoots E1 at medium range: -2; the
    option `target_only` drops it. A hunter there cannot fire its rifle at E1."""
    scenario = skirmish([("gunman", 0)], [("thug", 0), ("thug", 2)])
    duel = scripted(scenario, [6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_E1"], 3, 3)
    assert "adjacent -2" in duel.log()
    duel = scripted(scenario, [6, 6], adjacent_penalty="target_only")
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_E1"], 3, 3)
    assert "adjacent -2" not in duel.log()
    hunter = skirmish([("hunter", 0)], [("thug", 0), ("thug", 2)])
    duel = scripted(hunter, [6, 6])
    duel.act(ID["HOLD"])
    assert not duel.mask()[ID["SHOOT_E1"]]
    duel = scripted(hunter, [6, 6], adjacent_penalty="target_only")
    duel.act(ID["HOLD"])
    assert duel.mask()[ID["SHOOT_E1"]]


# --- §13.4 "become the next target" ----------------------------------------------


S13_3 = skirmish([("ana", 0), ("bea", 0)], [("thug", 0), ("supernatural", 0)])


def s13_3() -> ScriptedDuel:
    """S13-3's opening: Ana succeeds (6+6+2 vs 10), Bea fails (1+1 vs 10): Ana, T, V, Bea."""
    duel = scripted(S13_3, [6, 6, 1, 1], (ANA, BEA, "thug", "supernatural"))
    assert state_of(duel).order == [0, 2, 3, 1]
    return duel


def test_s13_3_drawing_the_vampire_off_a_wounded_friend() -> None:
    """S13-3: Ana's (6,6) 12 + 3 = 15 is a critical against T's CL 10; she becomes V's
    next target; sword 4 + 3 = 7: T 9 -> 2. V may strike only Ana: (5,3) 8 + 3 = 11
    against CL 11 hits; claws 3 + 2 + 2 = 7: Ana 9 -> 2; Bea stays at 2. From V's
    following turn it may target anyone again."""
    duel = s13_3()
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_E0"], 6, 6)
    mask = duel.mask()
    for name in ("CRIT_DAMAGE", "CRIT_ACT_FIRST", "CRIT_DISARM", "CRIT_TARGET_ME_E1"):
        assert mask[ID[name]], name
    assert duel.field(0, "struck", "enemy0") == 1
    duel.act(ID["CRIT_TARGET_ME_E1"], 4)
    state = state_of(duel)
    assert state.fighters[2].endurance == 2
    assert state.must_target == {3: 0}
    duel.act(ID["HOLD"])  # T
    duel.act(ID["PASS"])
    assert duel.seat == 3
    assert duel.field(3, "bound_to", "self") == 1 + 4  # Ana is V's enemy0, row 4
    duel.act(ID["HOLD"])
    mask = duel.mask()
    assert mask[ID["MELEE_E0"]] and not mask[ID["MELEE_E1"]]
    duel.act(ID["MELEE_E0"], 5, 3, 3)
    assert [f.endurance for f in state.fighters[:2]] == [2, 2]
    assert state.must_target == {}
    for _ in range(3):  # Bea, then round 2: Ana and T
        duel.act(ID["HOLD"])
        duel.act(ID["PASS"])
    assert duel.seat == 3
    duel.act(ID["HOLD"])
    assert duel.mask()[ID["MELEE_E1"]]


def test_the_next_target_critical_needs_an_ally() -> None:
    """§13.4: masked for a fighter alone on its side (a duel's case)."""
    scenario = skirmish([("duelist", 0)], [("thug", 0), ("thug", 0)])
    duel = scripted(scenario, [6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_E0"], 6, 6)
    assert not duel.mask()[ID["CRIT_TARGET_ME_E1"]]
    assert duel.mask()[ID["CRIT_DAMAGE"]]


def test_a_mob_group_drawn_off_strikes_the_critter_once_and_stays_assigned() -> None:
    """§13.4: the duelist's critical on its own group binds the thug's group: that
    group's next attack goes to the duelist instead of its hero, the round after to
    its hero again."""
    scenario = skirmish(
        [("duelist", 0), ("thug", 0)], [("gunman", 5)], MobPost(members=4, distance=0)
    )
    duel = scripted(scenario, [6, 6, 6, 6])  # both party members before the enemy
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_M0"], 6, 6)  # 12 + 3 + 2 (better weapon) = 17 vs 8: critical
    duel.act(ID["CRIT_TARGET_ME_M1"], 1)  # sword 1 + 3 = 4: members 3, 3 -> 0, 2
    state = state_of(duel)
    assert state.groups[0].members == [0, 2]
    assert state.must_target == {4: 0}
    assert duel.field(1, "group_bound_to", "group1") == 1 + 1  # the duelist: the thug's ally1
    duel.act(ID["HOLD"])  # the party's thug
    duel.act(ID["PASS"])
    duel.act(ID["HOLD"])  # the gunman; then each group misses the duelist: 1+1 + 1 vs 11
    duel.act(ID["PASS"], 1, 1, 1, 1)
    log = duel.log()
    assert log.count("attacks Duelist: 2d6 [1, 1] +1 = 3 vs 11 -> miss") == 2
    assert state.must_target == {}
    duel.act(ID["HOLD"])  # round 2: the duelist, the thug, the gunman pass
    duel.act(ID["PASS"])
    duel.act(ID["HOLD"])
    duel.act(ID["PASS"])
    duel.act(ID["HOLD"])
    duel.act(ID["PASS"], 1, 1, 1, 1)  # the thug's group is back on the thug: 8 + 2
    assert "attacks Thug: 2d6 [1, 1] +1 = 3 vs 10 -> miss" in duel.log()


# --- §13.5 "let an ally withdraw" -------------------------------------------------


def test_a_defensive_critical_lets_a_named_ally_withdraw_at_once() -> None:
    """Seed L63, §13.5: the duelist's stance (6,6) 12 + 2 = 14 vs 8 is a critical; it
    names ally A1, who withdraws with no roll; the defender keeps the halving."""
    scenario = skirmish([("duelist", 0), ("thug", 0)], [("brute", 3)])
    duel = scripted(scenario, [6, 6, 6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["DEFEND"], 6, 6)
    mask = duel.mask()
    assert mask[ID["ALLY_WITHDRAWS_A1"]] and not mask[ID["ALLY_WITHDRAWS_A2"]]
    duel.act(ID["ALLY_WITHDRAWS_A1"])
    state = state_of(duel)
    assert state.standing[1] == Standing.WITHDRAWN
    assert state.fighters[0].defending
    assert duel.seat == 2  # the brute: the party's thug left before its turn


# --- §13.6 mobs --------------------------------------------------------------------


def test_s13_2_a_mob_of_7_split_over_three_heroes_then_one_falls() -> None:
    """S13-2: 3, 2, 2 members (levels 2, 1, 1); H2 goes down: its first member joins
    H3's smaller group, the second H1's (a tie, the lower slot): 4 and 3 (levels 2, 2)."""
    weak = Character(id="weak", name="H2", weapons=("unarmed",), endurance=1)
    scenario = skirmish(
        [("duelist", 0), ("weak", 0), ("duelist", 0)], [("gunman", 2)], MobPost(members=7)
    )
    # every hero fails (1+1 vs 9): the gunman acts first
    duel = scripted(scenario, [1, 1, 1, 1, 1, 1], ("duelist", weak, "duelist", "gunman"))
    state = state_of(duel)
    assert [g.members for g in state.groups] == [[3, 3, 3], [3, 3], [3, 3]]
    assert duel.field(3, "group_level", "group0") == 2
    assert duel.field(3, "group_level", "group1") == 1
    duel.act(ID["HOLD"])
    # 5+5 + 2 - 2 (H2 stands with the heroes) = 10 vs 8: a hit; 1 + 3 = 4
    duel.act(ID["SHOOT_E1"], 5, 5, 1)
    assert state.standing[1] == Standing.DOWN
    assert [g.standing for g in state.groups] == [4, 0, 3]
    assert duel.field(0, "group_level", "group0") == 2
    assert duel.field(0, "group_level", "group2") == 2
    assert "A member of the mob turns to Duelist (A2)" in duel.log()


def test_damage_spills_within_a_group_and_the_rest_is_lost() -> None:
    """Seed L84, §13.6: 8 damage on a group of two: 3, 3, and 2 lost; with the option
    `spill_across_groups` the 2 go on to the next group."""
    scenario = skirmish([("brute", 0), ("brute", 0)], [("gunman", 5)], MobPost(4, distance=0))
    for across, second in ((False, [3, 3]), (True, [1, 3])):
        duel = scripted(scenario, [6, 6, 6, 6], spill_across_groups=across)
        duel.act(ID["HOLD"])
        # 3+3 + 2 + 2 (better weapon) = 10 vs 8: a hit; machete 5 + 2 + Fuerte 1 = 8
        duel.act(ID["MELEE_M0"], 3, 3, 5)
        groups = state_of(duel).groups
        assert groups[0].members == [0, 0]
        assert groups[1].members == second


def test_a_demand_breaks_the_whole_mob_once_half_of_it_is_down() -> None:
    """§13.6: before half the members are down a demand does nothing; after, a success
    against any group breaks the whole mob (the thug fights on)."""
    scenario = skirmish([("doctor", 1)], [("thug", 5)], MobPost(members=4, distance=0))
    duel = scripted(scenario, [6, 6])  # the doctor: 12 + 2 vs 9, before the enemy
    duel.act(ID["HOLD"])
    duel.act(ID["SOCIAL_M0"], 6, 6)  # 12 + 2 vs 8: a success, but none is down
    assert "The mob does not listen" in duel.log()
    duel.act(ID["HOLD"])  # the thug; the mob (level 2) misses: 1+1 + 2 vs 9
    duel.act(ID["PASS"], 1, 1)
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_M0"], 5, 5, 3)  # 10 + 1 - 2 (adjacent) vs 8; 3 + 3 = 6: two down
    state = state_of(duel)
    assert state.groups[0].members == [0, 0, 3, 3]
    assert duel.field(0, "mob", "members_down") == 2
    duel.act(ID["HOLD"])  # the thug; the mob (level 1) misses: 1+1 + 1 vs 9
    duel.act(ID["PASS"], 1, 1)
    duel.act(ID["HOLD"])
    duel.act(ID["SOCIAL_M0"], 5, 5)
    assert state.broken and not state.active(2)
    assert duel.field(0, "group_standing", "group0") == 0
    assert not state.over and duel.seat == 1


def test_the_healers_save_downed_members_after_the_fight() -> None:
    """Seed L87-88, §13.6: after the fight the doctor (Medicine 2) rolls 5+4 + 2 - 8 =
    3 saved, capped at the 2 members down."""
    scenario = skirmish([("doctor", 0)], [("thug", 3)], MobPost(members=2, distance=0))
    duel = scripted(scenario, [6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_M0"], 5, 5, 3)  # 10 + 1 - 2 vs 8; 3 + 3 = 6: both members down
    state = state_of(duel)
    assert state.groups[0].members == [0, 0] and not state.over
    duel.act(ID["HOLD"])  # the thug
    duel.act(ID["PASS"])
    duel.act(ID["HOLD"])
    duel.act(ID["SHOOT_E0"], 6, 6, 6, 5, 4)  # 13 vs 9; 6 + 3 = 9: the thug down
    assert state.result is not None and state.result.winner == 0
    assert state.aftermath() == {"members_downed": 2, "members_saved": 2}
    assert "After the fight: the doctor rolls Medicine 2d6 [5, 4] +2" in duel.log()


# --- §13.1, §13.7 moving out and the end ------------------------------------------


def test_a_side_that_all_withdrew_loses_half() -> None:
    """§13.1, §13.7: a fighter whose own move leaves it 6 or more from every enemy has
    withdrawn; when every out member of the loser withdrew, the stake is halved."""
    scenario = skirmish([("gunman", 0)], [("thug", 5)])
    duel = scripted(scenario, [6, 6])
    duel.act(ID["STEP_BACK"])
    state = state_of(duel)
    assert state.standing[0] == Standing.WITHDRAWN
    assert state.result is not None and state.result.winner == 1
    assert state.result.reward(0) == -0.5


def test_a_side_with_a_fighter_down_loses_whole() -> None:
    scenario = skirmish([("duelist", 0)], [("thug", 0)])
    duel = scripted(scenario, [6, 6])
    duel.act(ID["HOLD"])
    duel.act(ID["MELEE_E0"], 6, 5, 6)  # 11 + 3 = 14 vs 10: a hit; 6 + 3 = 9
    assert state_of(duel).result is not None
    assert state_of(duel).result.reward(1) == -1.0


# --- the test kit ------------------------------------------------------------------


@pytest.mark.parametrize("scenario", sorted(CATALOG.skirmishes))
def test_every_scenario_passes_the_ruleset_checks(scenario: str) -> None:
    assert check_ruleset(lambda: LiminalSkirmishRuleset(scenario), seeds=range(6)) > 0


@pytest.mark.parametrize(
    "options",
    [
        {"adjacent_penalty": "target_only", "group_penalty_melee": True},
        {"spill_across_groups": True, "crit_choice": "fixed"},
        {"taunt_duration": "until_next_attack", "rebalance_on_wipe": True},
    ],
)
def test_the_options_pass_the_ruleset_checks(options: dict[str, Any]) -> None:
    assert check_ruleset(lambda: LiminalSkirmishRuleset("mob", options=options), seeds=range(6))


def test_the_gymnasium_env_reports_the_mob_aftermath_in_info() -> None:
    """§13.6: after a fight with a mob `info` carries the members downed and saved,
    and the reward is the side's (§13.7)."""
    env = gym.make("duelo/LiminalSkirmish-v0", scenario="mob", opponent="expert", ally="expert")
    _, info = env.reset(seed=4)
    terminated = truncated = False
    reward = 0.0
    while not (terminated or truncated):
        action = int(info["action_mask"].nonzero()[0][0])
        _, reward, terminated, truncated, info = env.step(action)
    assert {"members_downed", "members_saved"} <= set(info)
    assert 0 <= info["members_saved"] <= info["members_downed"] <= 10
    assert reward in (-1.0, -0.5, 0.0, 0.5, 1.0)


def test_a_drawn_enemy_stays_bound_until_its_next_attack_with_the_option() -> None:
    """§13.4 option `taunt_duration`: "next_turn" ends the obligation with V's next
    turn, an attack or not; "until_next_attack" keeps it until V attacks."""
    for duration, kept in (("next_turn", False), ("until_next_attack", True)):
        duel = scripted(
            S13_3, [6, 6, 1, 1], (ANA, BEA, "thug", "supernatural"), taunt_duration=duration
        )
        duel.act(ID["HOLD"])
        duel.act(ID["MELEE_E0"], 6, 6)
        duel.act(ID["CRIT_TARGET_ME_E1"], 4)
        for _ in range(2):  # T, then V, pass
            duel.act(ID["HOLD"])
            duel.act(ID["PASS"])
        state = state_of(duel)
        assert (state.must_target == {3: 0}) is kept
        for _ in range(3):  # Bea, then round 2: Ana and T
            duel.act(ID["HOLD"])
            duel.act(ID["PASS"])
        duel.act(ID["HOLD"])  # V
        assert duel.mask()[ID["MELEE_E1"]] is not kept
        duel.act(ID["MELEE_E0"], 1, 1)  # a miss, but the attack it owed
        assert state.must_target == {}


def test_a_group_wiped_while_its_hero_stands_is_refilled_with_the_option() -> None:
    """§13.6 option `rebalance_on_wipe`: the duelist's 3+3 + 3 + 2 = 11 vs 8 hits its
    group of two for 6 + 3 = 9; refilled, it takes one member from the thug's group."""
    scenario = skirmish(
        [("duelist", 0), ("thug", 0)], [("gunman", 5)], MobPost(members=4, distance=0)
    )
    for refill, standing in ((False, [0, 2]), (True, [1, 1])):
        duel = scripted(scenario, [6, 6, 6, 6], rebalance_on_wipe=refill)
        duel.act(ID["HOLD"])
        duel.act(ID["MELEE_M0"], 3, 3, 6)
        assert [g.standing for g in state_of(duel).groups] == standing


def test_the_duels_initiative_mode_is_refused_by_name() -> None:
    """§13.2 replaces the duel's initiative: its option would change nothing, so it is
    refused rather than ignored."""
    with pytest.raises(ConfigError, match="initiative_mode"):
        LiminalSkirmishRuleset("two_on_two", options={"initiative_mode": "opposed"})


def test_a_wrong_party_is_refused_with_a_bounded_message() -> None:
    """Bad input names the key and shows a bounded value, however long."""
    with pytest.raises(ConfigError, match=r"fighters must name the scenario's 4 fighters") as e:
        LiminalSkirmishRuleset("two_on_two", fighters=("thug",) * 10_000)
    assert len(str(e.value)) < 300
