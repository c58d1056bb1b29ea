"""rules/infierno.md §13: the skirmish's rules, each worked example replayed with
scripted dice, and the exact odds of flanking, the shot into a melee and the group's
initiative."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from duelo.envs.core.testing import ScriptedDuel, check_ruleset
from duelo.envs.infierno.odds import hit_chance
from duelo.envs.infierno.skirmish import InfiernoSkirmishRuleset
from duelo.envs.infierno.skirmish_odds import first_chances, melee_shot_chances
from duelo.envs.infierno.skirmish_setup import Post, SkirmishScenario, load_skirmish_catalog
from duelo.envs.infierno.skirmish_state import Gone, SkirmishAction

A = SkirmishAction
CATALOG = load_skirmish_catalog()


def skirmish(
    side_a: list[tuple[str, int]], side_b: list[tuple[str, int]], **post: Any
) -> SkirmishScenario:
    """A test scenario: (character, square) a fighter, every fighter aware."""
    return SkirmishScenario(
        id="test",
        description="a test setup",
        side_a=tuple(Post(c, pos, **post) for c, pos in side_a),
        side_b=tuple(Post(c, pos, **post) for c, pos in side_b),
    )


def scripted(scenario: SkirmishScenario, opening: list[int], **options: Any) -> ScriptedDuel:
    return ScriptedDuel(InfiernoSkirmishRuleset(scenario, options=options or None), opening)


def test_s13_1_a_four_way_tie_falls_to_dexterity_then_the_initiative_bonus() -> None:
    """S13-1: Judge, outlaw | Johny, guard roll 9, 10, 11, 15: all at 13; the guard's Dex
    +1 puts it last, the Initiative bonus orders the rest; no re-roll die is used."""
    scenario = skirmish([("judge_turner", 15), ("outlaw", 15)], [("johny", 25), ("guard", 25)])
    duel = scripted(scenario, [9, 10, 11, 15])
    assert [f.initiative for f in duel.state.fighters] == [13, 13, 13, 13]
    assert duel.state.order == [0, 1, 2, 3]  # Judge, outlaw, Johny, guard
    assert duel.seat == 0


def test_a_tie_on_every_key_is_rolled_off_in_slot_order_higher_first() -> None:
    """§13.2: two gunfighters tied on total, Dex and Initiative roll a d20 each after
    all initiative rolls, in slot order; a second tie rolls again."""
    scenario = skirmish([("gunfighter", 15)], [("gunfighter", 25), ("brawler", 25)])
    # initiative 10, 10, 1; the tie: 7, 7 (again), then 3, 12: B0 first
    duel = scripted(scenario, [10, 10, 1, 7, 7, 3, 12])
    assert duel.state.order == [1, 0, 2]


def flank_setup(ally_square: int, **options: Any) -> ScriptedDuel:
    """S13-2: the outlaw at 11 (acts first, then ends his turn), gunfighter A0 at 10
    draws his knife; A1 stands at `ally_square`."""
    scenario = skirmish([("gunfighter", 10), ("gunfighter", ally_square)], [("outlaw", 11)])
    duel = scripted(scenario, [10, 5, 19], **options)  # A0 13, A1 8, the outlaw 22
    assert duel.state.order == [2, 0, 1]
    duel.act(A.END_TURN)  # the outlaw has acted: no longer flat-footed
    duel.act(A.DRAW_SECONDARY)  # A0 draws the knife
    return duel


def test_s13_2_flanking_makes_a_tie_hit() -> None:
    """S13-2: d20 7 + 5 + 2 = 14 against Defense 14 hits; the d4 3 + 1 = 4 takes the
    outlaw from 12 to 8."""
    duel = flank_setup(ally_square=12)
    assert duel.field(0, "flank", "enemy0") == 1
    duel.act(A.ATTACK_MAIN_E0, 7, 3)
    assert duel.state.fighters[2].hp == 8
    assert "flanking +2" in duel.log()


def test_s13_2_without_the_ally_beside_the_outlaw_the_same_die_misses() -> None:
    duel = flank_setup(ally_square=14)
    assert duel.field(0, "flank", "enemy0") == 0
    duel.act(A.ATTACK_MAIN_E0, 7)  # 12 < 14: a miss, no damage die
    assert duel.state.fighters[2].hp == 12


def test_a_stunned_ally_flanks_nobody() -> None:
    duel = flank_setup(ally_square=12)
    duel.state.fighters[1].stunned = True
    assert duel.field(0, "flank", "enemy0") == 0


def test_with_flank_counts_stunned_a_stunned_ally_still_flanks() -> None:
    """§13.4 option `flank_counts_stunned`: S13-2's tie hits beside a stunned ally."""
    duel = flank_setup(ally_square=12, flank_counts_stunned=True)
    duel.state.fighters[1].stunned = True
    assert duel.field(0, "flank", "enemy0") == 1
    duel.act(A.ATTACK_MAIN_E0, 7, 3)
    assert duel.state.fighters[2].hp == 8


def test_s13_2_flanking_odds() -> None:
    """P(hit) with the flank = (1 + 13)/20 = 7/10; without it 12/20 = 3/5."""
    assert hit_chance(5 + 2, 14) == Fraction(7, 10)
    assert hit_chance(5, 14) == Fraction(3, 5)


def melee_setup(**options: Any) -> ScriptedDuel:
    """S13-3: the shooter S at 4 with his revolver in hand; the outlaw at 11 between
    S's allies A1 at 10 and A2 at 12. The outlaw acts first and ends his turn (he is no
    longer flat-footed: Defense 14), then S."""
    scenario = SkirmishScenario(
        id="test",
        description="S13-3",
        side_a=(
            Post("gunfighter", 4, drawn=True),
            Post("gunfighter", 10),
            Post("gunfighter", 12),
        ),
        side_b=(Post("outlaw", 11),),
    )
    duel = scripted(scenario, [10, 5, 4, 19], **options)  # S 13, A1 8, A2 7, the outlaw 22
    duel.act(A.END_TURN)
    assert duel.seat == 0
    return duel


def test_s13_3_an_unaimed_shot_into_a_three_person_melee_hits_a_friend() -> None:
    """S13-3: d20 12 + 5 = 17 hits Defense 14; participant d3 2 is A1; a normal 2d6
    (3, 5) = 8 takes A1 from 12 to 4, the outlaw untouched."""
    duel = melee_setup()
    assert duel.field(0, "melee", "enemy0") == 3
    duel.act(A.ATTACK_MAIN_E0, 12, 2, 3, 5)
    fighters = duel.state.fighters
    assert (fighters[1].hp, fighters[3].hp) == (4, 12)
    assert "into the melee, d3 2" in duel.log() and "a stray hit" in duel.log()


def test_a_stray_die_on_the_target_goes_on_to_the_critical_check() -> None:
    duel = melee_setup()
    duel.act(A.ATTACK_MAIN_E0, 12, 1, 3, 5)  # face 1: the outlaw, 8 damage
    assert duel.state.fighters[3].hp == 4


def test_an_aimed_shot_takes_minus_four_and_hits_only_the_target() -> None:
    duel = melee_setup()
    assert duel.mask()[A.ATTACK_MAIN_AIMED_E0]
    duel.act(A.ATTACK_MAIN_AIMED_E0, 12)  # 12 + 5 - 4 = 13 < 14: a miss
    duel = melee_setup()
    duel.act(A.ATTACK_MAIN_AIMED_E0, 13, 3, 5)  # 14 hits; no participant die
    assert duel.state.fighters[3].hp == 4
    assert "aimed into the melee -4" in duel.log()


def test_with_stray_needs_exceed_an_unaimed_tie_into_the_melee_misses() -> None:
    """§13.5 option `stray_needs_exceed`: d20 9 + 5 = 14 only reaches the outlaw's
    Defense 14, so the unaimed shot misses (no participant die); by default the same
    tie hits and rolls the d3; an aimed shot still hits on a tie (13 + 5 - 4 = 14)."""
    duel = melee_setup(stray_needs_exceed=True)
    duel.act(A.ATTACK_MAIN_E0, 9)
    assert "a tie does not pass it: miss" in duel.log()
    assert [f.hp for f in duel.state.fighters] == [12, 12, 12, 12]
    duel = melee_setup()
    duel.act(A.ATTACK_MAIN_E0, 9, 1, 3, 5)  # the default: a hit, d3 1 is the outlaw
    assert duel.state.fighters[3].hp == 4
    duel = melee_setup(stray_needs_exceed=True)
    duel.act(A.ATTACK_MAIN_AIMED_E0, 13, 3, 5)
    assert duel.state.fighters[3].hp == 4


def test_all_adjacent_participants_take_in_the_targets_allies_beside_it() -> None:
    """§13.5 option `melee_participants` "all_adjacent": a second outlaw beside the
    first joins the melee's participants (the target, A1, A2, then the other outlaw,
    N = 4); by default it does not (N = 3). d4 4 sends S's hit into the other outlaw."""
    scenario = SkirmishScenario(
        id="test",
        description="S13-3 with a second outlaw",
        side_a=(
            Post("gunfighter", 4, drawn=True),
            Post("gunfighter", 10),
            Post("gunfighter", 12),
        ),
        side_b=(Post("outlaw", 11), Post("outlaw", 11)),
    )
    default = scripted(scenario, [10, 5, 4, 19, 18])  # S 13, A1 8, A2 7, outlaws 22, 21
    assert default.field(3, "melee", "enemy0") == 1  # the outlaw shooting: no ally of his
    default.act(A.END_TURN)
    default.act(A.END_TURN)
    assert default.seat == 0 and default.field(0, "melee", "enemy0") == 3
    wide = scripted(scenario, [10, 5, 4, 19, 18], melee_participants="all_adjacent")
    wide.act(A.END_TURN)
    wide.act(A.END_TURN)
    assert wide.state.participants(0, 3) == [3, 1, 2, 4]
    wide.act(A.ATTACK_MAIN_E0, 12, 4, 3, 5)  # 17 hits; d4 4: the other outlaw, 8 damage
    assert (wide.state.fighters[3].hp, wide.state.fighters[4].hp) == (12, 4)


def test_the_aimed_shot_is_offered_only_into_a_melee() -> None:
    scenario = SkirmishScenario(
        id="test",
        description="no melee",
        side_a=(Post("gunfighter", 4, drawn=True), Post("gunfighter", 20)),
        side_b=(Post("outlaw", 11),),
    )
    duel = scripted(scenario, [19, 5, 4])
    assert duel.mask()[A.ATTACK_MAIN_E0] and not duel.mask()[A.ATTACK_MAIN_AIMED_E0]


def test_s13_3_odds_of_the_shot_into_the_melee() -> None:
    """P(unaimed hits O) = (12/20)(1/3) = 1/5, P(an ally is hit) = 2/5; aimed (bonus +1):
    8/20 = 2/5, allies safe."""
    assert melee_shot_chances(5, 14, participants=3, aimed=False) == (
        Fraction(1, 5),
        Fraction(2, 5),
    )
    assert melee_shot_chances(5, 14, participants=3, aimed=True) == (Fraction(2, 5), 0)


def test_group_initiative_odds_are_exact() -> None:
    """Two fighters: P(first) sums the d20 pairs whose totals, then Dex, then the
    Initiative bonus decide, with a full tie shared evenly (the re-roll is fair)."""
    gunfighter = (3, 2, 3)  # total bonus, Dex, Initiative bonus
    first = first_chances([gunfighter, gunfighter])
    assert first == [Fraction(1, 2), Fraction(1, 2)]
    judge, guard = (4, 2, 4), (-2, 1, 1)  # the guard's rifle: -3 to draw
    p_judge, p_guard = first_chances([judge, guard])
    # the judge is first unless the guard's d20 beats his by 7 or more (ties go to Dex)
    beaten = sum(1 for j in range(1, 21) for g in range(1, 21) if g - 2 > j + 4)
    assert p_guard == Fraction(beaten, 400) and p_judge == 1 - p_guard
    three = first_chances([gunfighter, gunfighter, judge])
    assert sum(three) == 1 and three[0] == three[1]


def test_surrender_and_flight_take_one_fighter_out() -> None:
    scenario = skirmish([("gunfighter", 0), ("gunfighter", 15)], [("outlaw", 25)])
    duel = scripted(scenario, [19, 5, 4])  # A0 first, then A1, then the outlaw
    duel.act(A.RETREAT)  # A0 stands on side A's home edge: flight
    assert duel.state.gone[0] == Gone.FLED and duel.state.result is None
    assert duel.seat == 1
    duel.act(A.SURRENDER)
    assert duel.state.result is not None and duel.state.result.winner == 1


def test_a_fighter_delays_after_an_enemy_and_stays_flat_footed() -> None:
    scenario = skirmish([("gunfighter", 15)], [("gunfighter", 25), ("outlaw", 25)])
    duel = scripted(scenario, [19, 10, 4])  # A0, B0, then the outlaw
    duel.act(A.DELAY_AFTER_E1)  # after the outlaw, who has not acted
    assert duel.state.order == [1, 2, 0] and duel.seat == 1
    assert not duel.state.fighters[0].has_acted
    duel.act(A.END_TURN)
    duel.act(A.END_TURN)
    assert duel.seat == 0 and not duel.mask()[A.DELAY_AFTER_E0]  # nobody left to wait for


def test_a_fighter_delays_once_a_round_so_two_cannot_wait_on_each_other() -> None:
    scenario = skirmish([("gunfighter", 15)], [("gunfighter", 25)])
    duel = scripted(scenario, [19, 10])  # A0 first
    duel.act(A.DELAY_AFTER_E0)
    assert duel.seat == 1 and duel.mask()[A.DELAY_AFTER_E0]
    duel.act(A.DELAY_AFTER_E0)  # B0 waits on A0 in turn
    assert duel.seat == 0 and not duel.mask()[A.DELAY_AFTER_E0]  # A0 delayed already


def test_the_surprise_round_goes_to_the_aware_alone() -> None:
    """§13.2: the aware roll first and take one standard or one move action each; the
    unaware roll after it, and round 1 orders everyone."""
    scenario = SkirmishScenario(
        id="test",
        description="ambush",
        side_a=(Post("gunfighter", 14, drawn=True),),
        side_b=(Post("gunfighter", 18, aware=False), Post("outlaw", 19, aware=False)),
    )
    duel = scripted(scenario, [10])  # only the aware gunfighter rolls: 13
    assert duel.state.order == [0] and duel.seat == 0 and duel.state.round == 0
    duel.act(A.ATTACK_MAIN_E0, 2)  # 7 misses the flat-footed 10; only a step is left
    assert not duel.mask()[A.ADVANCE_E0] and duel.mask()[A.STEP_FORWARD]
    duel.act(A.END_TURN, 15, 3)  # the surprise round ends: the unaware roll, 18 and 6
    assert duel.state.round == 1 and duel.state.order == [1, 0, 2] and duel.seat == 1


@pytest.mark.parametrize("scenario", sorted(CATALOG.skirmishes))
def test_the_conformance_checks_pass(scenario: str) -> None:
    assert check_ruleset(lambda: InfiernoSkirmishRuleset(scenario), seeds=range(6)) > 0


def reinforced(arrives: int, before: int = -1) -> SkirmishScenario:
    """A gunfighter against a gunfighter, an outlaw coming in for side B (seat 2)."""
    return SkirmishScenario(
        id="test",
        description="reinforcements",
        side_a=(Post("gunfighter", 15),),
        side_b=(
            Post("gunfighter", 25),
            Post("outlaw", 30, arrives=arrives, arrives_before=before),
        ),
    )


def test_a_fighter_arriving_holds_its_slot_absent_until_its_round() -> None:
    """§13.2: the slot is reserved and observed as absent; at the top of its round the
    newcomer rolls (outlaw d20 4 + 3 = 7, behind both) and acts that round."""
    duel = scripted(reinforced(arrives=2), [19, 5])  # A0 22, B0 8: only those two roll
    seen = duel.observation(0)
    assert list(seen["present"][4:6]) == [1, 0] and not seen["hp"][5]
    assert not duel.mask()[A.ADVANCE_E1] and duel.state.order == [0, 1]
    duel.act(A.END_TURN)
    duel.act(A.END_TURN, 4)  # round 2 opens: the outlaw arrives and rolls 4
    assert duel.state.round == 2 and duel.state.order == [0, 1, 2] and duel.seat == 0
    assert duel.observation(0)["present"][5] == 1 and duel.mask()[A.ADVANCE_E1]
    duel.act(A.END_TURN)
    duel.act(A.END_TURN)
    assert duel.seat == 2 and not duel.state.fighters[2].has_acted  # flat-footed till now


def test_an_arrival_placed_ahead_of_the_fighter_about_to_act_waits_a_round() -> None:
    """§13.2: the outlaw comes in before B0's turn with 20 + 3 = 23, ahead of everyone:
    its place this round has passed, so B0 acts now and the outlaw opens round 2."""
    duel = scripted(reinforced(arrives=1, before=1), [19, 5])
    duel.act(A.END_TURN, 20)  # before B0's turn the outlaw arrives and rolls 20
    assert duel.state.order == [2, 0, 1] and duel.seat == 1
    duel.act(A.END_TURN)
    assert duel.state.round == 2 and duel.seat == 2


def test_an_arrival_placed_behind_the_fighter_about_to_act_plays_this_round() -> None:
    duel = scripted(reinforced(arrives=1, before=1), [19, 5])
    duel.act(A.END_TURN, 1)  # the outlaw rolls 1: 4, behind B0's 8
    assert duel.state.order == [0, 1, 2] and duel.seat == 1
    duel.act(A.END_TURN)
    assert duel.state.round == 1 and duel.seat == 2


def test_an_arrival_tied_on_every_key_rolls_off_the_fighter_it_meets() -> None:
    """The outlaw's 5 + 3 = 8 ties B0 on total, Dexterity (+2) and Initiative (+3): a
    d20 each, the newcomer's first; 3 against 11 puts it behind B0."""
    duel = scripted(reinforced(arrives=1, before=1), [19, 5])
    duel.act(A.END_TURN, 5, 3, 11)
    assert duel.state.order == [0, 1, 2] and duel.seat == 1


def test_a_side_is_out_without_the_fighters_yet_to_arrive() -> None:
    """§13.8: fighters not yet arrived do not count: B0's surrender ends the fight."""
    duel = scripted(reinforced(arrives=3), [19, 5])
    duel.act(A.END_TURN)
    duel.act(A.SURRENDER)
    assert duel.state.result is not None and duel.state.result.winner == 0


@pytest.mark.parametrize(
    ("side_b", "error"),
    [
        ([{"arrives": 1}], "there from the start"),
        ([{}, {"arrives": 1, "arrives_before": 2}], "arrives_before 2"),
        ([{}, {"arrives": 1}, {"arrives": 2, "arrives_before": 2}], "arrives_before 2"),
        ([{}, {"arrives": 1, "arrives_before": 9}], "arrives_before 9"),
        ([{}, {"arrives_before": 0}], "needs arrives"),
    ],
)
def test_a_bad_arrival_is_a_clear_error(side_b: list[dict[str, int]], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        SkirmishScenario(
            id="test",
            description="",
            side_a=(Post("gunfighter", 15),),
            side_b=tuple(Post("outlaw", 25, **post) for post in side_b),
        )


@pytest.mark.parametrize("scenario", ["three_on_three", "outnumbered"])
def test_the_conformance_checks_pass_with_every_skirmish_ruling_off_its_default(
    scenario: str,
) -> None:
    """The §13 options in play: observations stay within their bounds (a melee of
    all_adjacent participants counts up to seven), masks and ends as the kit asks."""
    options = {
        "flank_counts_stunned": True,
        "melee_participants": "all_adjacent",
        "stray_needs_exceed": True,
    }
    assert (
        check_ruleset(lambda: InfiernoSkirmishRuleset(scenario, options=options), seeds=range(6))
        > 0
    )
