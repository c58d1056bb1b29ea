"""Infierno rules beyond the worked examples, each pinned with scripted dice."""

from __future__ import annotations

import pytest

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.infierno.state import Action, Phase, Place, Staredown
from tests.infierno.helpers import character, scenario, scripted_duel


def gunfighters(
    distance: int = 10, opening: tuple[int, ...] = (15, 5), **options: object
) -> ScriptedDuel:
    """Two gunfighters, no staredown; A wins initiative with the default dice."""
    return scripted_duel(
        character("gunfighter"),
        character("gunfighter"),
        scenario(distance),
        list(opening),
        **options,
    )


def formal(opening: list[int], a: str = "judge_turner", b: str = "outlaw", **options: object):
    return scripted_duel(
        character(a), character(b), scenario(10, staredown=True), opening, **options
    )


# --- the formal duel (§8.1) ---------------------------------------------------------


def test_reading_a_loser_gets_minus_2_initiative() -> None:
    duel = formal([10, 9, 10, 10])  # 16 vs 12: a margin of 4 cows instead
    assert duel.state.fighters[1].staredown == Staredown.COWED
    duel = formal([10, 12, 10, 10])  # 16 vs 15: the outlaw loses by 1
    outlaw = duel.state.fighters[1]
    assert outlaw.staredown == Staredown.LOST and outlaw.initiative == 10 + 3 - 2


def test_reading_b_cows_at_a_raw_difference_of_2() -> None:
    duel = formal([10, 11, 10, 10], staredown_penalty="B")  # 16 vs 14: 2 + 2 = 4
    outlaw = duel.state.fighters[1]
    assert outlaw.staredown == Staredown.COWED and outlaw.initiative == 10 + 3 - 4
    duel = formal([10, 12, 10, 10], staredown_penalty="B")  # 16 vs 15: lost, no penalty
    outlaw = duel.state.fighters[1]
    assert outlaw.staredown == Staredown.LOST and outlaw.initiative == 13


def test_staredown_tie_goes_to_the_higher_bonus_and_equal_bonuses_flinch_nobody() -> None:
    duel = formal([7, 10, 10, 10])  # 13 vs 13: the Judge's +6 wins
    assert duel.state.fighters[1].staredown == Staredown.LOST
    duel = formal([10, 10, 10, 9], a="gunfighter", b="gunfighter")
    assert [f.staredown for f in duel.state.fighters] == [Staredown.NONE, Staredown.NONE]


def both_miss_round(duel: ScriptedDuel) -> None:
    """Both duelists end round 1 without firing (not attacking counts as missing)."""
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)


def test_double_miss_both_settle_is_a_draw() -> None:
    duel = formal([10, 10, 15, 5], a="gunfighter", b="gunfighter")
    both_miss_round(duel)
    assert duel.state.phase == Phase.BOTH_MISS_DECISION
    mask = duel.mask()
    assert mask[Action.SETTLE] and mask[Action.INSIST] and mask.sum() == 2
    duel.act(Action.SETTLE)
    duel.act(Action.SETTLE)
    outcome = duel.state.result
    assert outcome is not None and outcome.winner is None and not outcome.truncated


def test_double_miss_one_insists_and_the_duel_is_repeated_keeping_wounds() -> None:
    duel = formal([10, 10, 15, 5], a="gunfighter", b="gunfighter")
    duel.state.fighters[1].hp = 9  # a fumble's self-damage does not count as a hit
    duel.state.fighters[0].carried[1].place = Place.MAIN_HAND
    both_miss_round(duel)
    duel.act(Action.SETTLE)
    duel.act(Action.INSIST, 12, 12, 3, 18)  # a new staredown and a new draw
    state = duel.state
    assert state.duel_repeats == 1 and state.phase == Phase.ROUND
    assert state.fighters[1].hp == 9  # wounds stay
    assert state.fighters[0].main is None  # weapons holstered again
    assert state.order == [1, 0] and state.fighters[0].flat_footed


def test_after_max_repeats_a_double_miss_is_settled() -> None:
    duel = formal([10, 10, 15, 5], a="gunfighter", b="gunfighter", max_duel_repeats=0)
    both_miss_round(duel)
    outcome = duel.state.result
    assert outcome is not None and outcome.winner is None and "repeated" in outcome.reason


def test_always_repeat_skips_the_decision() -> None:
    duel = formal([10, 10, 15, 5], a="gunfighter", b="gunfighter", both_miss="always_repeat")
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN, 10, 10, 15, 5)
    assert duel.state.duel_repeats == 1 and duel.state.phase == Phase.ROUND


def test_reading_c_carries_the_loss_into_the_repeated_staredown() -> None:
    duel = formal([10, 12, 15, 5], staredown_penalty="C", both_miss="always_repeat")
    outlaw = duel.state.fighters[1]
    assert outlaw.staredown == Staredown.LOST and outlaw.initiative == 5 + 3  # no -2 here
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN, 10, 13, 15, 5)  # outlaw 13 + 3 - 2 = 14 < Judge 16
    assert "the outlaw d20 13 +1 = 14" in duel.log()


def test_continue_fights_on_after_a_double_miss() -> None:
    duel = formal([10, 10, 15, 5], both_miss="continue")
    both_miss_round(duel)
    assert duel.state.phase == Phase.ROUND and duel.state.round == 2


# --- turn economy (§4, §5) ---------------------------------------------------------


def test_draw_is_a_move_and_a_move_may_replace_the_standard_action() -> None:
    duel = gunfighters()
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.TAKE_COVER)  # the second move uses the standard action
    mask = duel.mask()
    assert not mask[Action.ATTACK_MAIN] and not mask[Action.ADVANCE] and mask[Action.STEP_IN]


def test_quick_draw_is_free() -> None:
    artist = character("quick_draw_artist")
    duel = scripted_duel(artist, character("gunfighter"), scenario(10), [15, 5])
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.DRAW_SECONDARY)
    assert duel.state.budget.standard and duel.state.budget.move


def test_full_round_actions_need_the_whole_turn() -> None:
    duel = gunfighters(distance=1, opening=(15, 5))
    assert duel.mask()[Action.RUN_OUT]
    duel.act(Action.DRAW_PRIMARY)
    assert not duel.mask()[Action.RUN_OUT] and not duel.mask()[Action.RELOAD]


def test_step_forbids_other_movement_and_movement_forbids_the_step() -> None:
    duel = gunfighters()
    duel.act(Action.STEP_IN)
    mask = duel.mask()
    assert not mask[Action.ADVANCE] and not mask[Action.RETREAT] and not mask[Action.STEP_OUT]
    duel = gunfighters()
    duel.act(Action.ADVANCE)
    assert duel.state.distance == 4
    assert not duel.mask()[Action.STEP_IN]


def test_advance_stops_at_adjacent_and_cover_is_lost_in_melee() -> None:
    duel = gunfighters(distance=5)
    duel.act(Action.TAKE_COVER)
    duel.act(Action.STEP_IN)  # a step keeps cover...
    assert duel.state.fighters[0].cover and duel.state.distance == 4
    duel = gunfighters(distance=5)
    duel.act(Action.TAKE_COVER)
    duel.act(Action.ADVANCE)  # ...moving loses it
    assert not duel.state.fighters[0].cover and duel.state.distance == 1


def test_cover_adds_4_to_defense() -> None:
    duel = gunfighters(distance=10)
    duel.act(Action.TAKE_COVER)
    duel.act(Action.END_TURN)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 12, 1, 1)  # vs 13 + 4 = 17 (A has acted: full Defense)
    assert "d20 12 +5 = 17 vs Defense 17 (cover +4) -> hit" in duel.log()


def test_prone_defense_against_ranged_and_melee() -> None:
    duel = gunfighters(distance=10)
    duel.act(Action.PRONE_TOGGLE)
    duel.act(Action.END_TURN)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 2)
    assert "vs Defense 17 (target prone +4)" in duel.log()
    duel = gunfighters(distance=1)
    duel.act(Action.PRONE_TOGGLE)
    assert not duel.mask()[Action.ADVANCE]  # no moving but the step while prone
    duel.act(Action.END_TURN)
    duel.act(Action.ATTACK_UNARMED, 2)
    assert "vs Defense 9 (target prone -4)" in duel.log()


def test_delay_swaps_the_order_for_good_once_a_round() -> None:
    duel = gunfighters()
    duel.act(Action.DELAY)
    assert duel.seat == 1 and duel.state.order == [1, 0]
    assert not duel.mask()[Action.DELAY]  # no delaying back in the same round
    duel.act(Action.END_TURN)
    assert duel.seat == 0 and duel.state.fighters[0].flat_footed
    duel.act(Action.END_TURN)
    assert duel.state.round == 2 and duel.seat == 1


def test_delayer_stays_flat_footed_until_acting() -> None:
    duel = gunfighters()
    duel.act(Action.DELAY)
    assert duel.state.fighters[0].flat_footed
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 4)  # vs the delayer's 13 - 3 = 10
    assert "d20 4 +5 = 9 vs Defense 10 (flat-footed, no Dodge)" in duel.log()


def test_surrender_and_flight_lose() -> None:
    duel = gunfighters()
    duel.act(Action.SURRENDER)
    outcome = duel.state.result
    assert outcome is not None and outcome.winner == 1 and duel.seat is None
    duel = gunfighters(distance=40)
    duel.act(Action.RETREAT)
    outcome = duel.state.result
    assert outcome is not None and outcome.winner == 1 and "flees" in outcome.reason


# --- attacks (§5, §7, §8) ----------------------------------------------------------


def test_empty_revolver_is_masked_until_reloaded() -> None:
    duel = gunfighters()
    duel.act(Action.DRAW_PRIMARY)
    duel.state.fighters[0].main.ammo = 0
    mask = duel.mask()
    assert not mask[Action.ATTACK_MAIN] and not mask[Action.RELOAD]  # reload is full-round
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    duel.act(Action.RELOAD)
    assert duel.state.fighters[0].main.ammo == 6


def test_untracked_ammo_never_runs_out() -> None:
    duel = gunfighters(track_ammo=False)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 2)
    assert duel.state.fighters[0].main.ammo == 6


def test_two_weapon_attack_with_the_feat() -> None:
    tommy = character("tommy_dos_pistolas")
    duel = scripted_duel(tommy, character("gunfighter"), scenario(5, drawn=(True, False)), [15, 5])
    duel.act(Action.DRAW_SECONDARY)
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    duel.act(Action.TWO_WEAPON_ATTACK, 2, 2)  # both miss: 2 + 5 - 2 = 5
    log = duel.log()
    assert "d20 2 +3 = 5" in log and "(off hand): d20 2 +3 = 5" in log
    assert [item.ammo for item in duel.state.fighters[0].carried] == [5, 5]


def test_two_weapon_penalties_without_the_feat_and_half_strength_off_hand() -> None:
    brawler = character("brawler", weapons=("knife", "knife"))
    duel = scripted_duel(
        brawler, character("gunfighter"), scenario(1, drawn=(True, False)), [15, 5]
    )
    duel.act(Action.DRAW_SECONDARY)
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    duel.act(Action.TWO_WEAPON_ATTACK, 15, 2, 17, 2)  # -4 main, -8 off; Str 3 full, then 1
    log = duel.log()
    assert "d20 15 +1 = 16" in log and "(off hand): d20 17 -3 = 14" in log
    assert "1d4+3 [2]" in log and "1d4+1 [2]" in log


def test_feint_makes_the_next_attack_a_sneak_attack() -> None:
    duel = gunfighters(distance=1)
    duel.state.fighters[1].has_acted = True
    duel.act(Action.FEINT, 15, 5)  # Deceive 16 vs Attention 7
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    duel.act(Action.ATTACK_UNARMED, 8, 1)  # next turn: vs 13 - 3 = 10
    assert "vs Defense 10 (feinted, no Dodge)" in duel.log()


def test_uncanny_dodge_keeps_dodge_while_flat_footed() -> None:
    artist = character("quick_draw_artist")
    duel = scripted_duel(
        character("gunfighter"), artist, scenario(10, drawn=(True, False)), [15, 5]
    )
    duel.act(Action.ATTACK_MAIN, 9, 1, 1)
    assert "d20 9 +5 = 14 vs Defense 14 -> hit" in duel.log()


def test_partial_concealment_can_lose_a_hit() -> None:
    duel = gunfighters(lighting="partial_concealment")
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 8, 20)  # 13 vs flat-footed 10 hits; d100 20 <= 20
    assert "the hit is lost" in duel.log() and duel.state.fighters[1].hp == 12
    duel = gunfighters(lighting="partial_concealment")
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 8, 21, 3, 3)
    assert duel.state.fighters[1].hp == 6


def test_armour_absorbs_and_minimum_damage_applies_before_it() -> None:
    armoured = character("gunfighter", rd=3)
    weak = character("gunfighter", str_mod=-3, weapons=("knife",))
    duel = scripted_duel(weak, armoured, scenario(1, drawn=(True, False)), [15, 5])
    duel.act(Action.ATTACK_MAIN, 15, 1)  # 1d4 - 3 = -2 -> 1, then RD 3 -> 0
    assert duel.state.fighters[1].hp == 12
    strong = character("gunfighter", weapons=("knife",))
    duel = scripted_duel(strong, armoured, scenario(1, drawn=(True, False)), [15, 5])
    duel.act(Action.ATTACK_MAIN, 15, 4)  # 1d4 + 1 = 5, RD 3 -> 2
    assert duel.state.fighters[1].hp == 10


def test_sequel_penalises_attacks() -> None:
    duel = gunfighters()
    duel.state.fighters[0].sequels = 1
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 4)
    assert "d20 4 +3 = 7" in duel.log() and "sequels -2" in duel.log()


@pytest.mark.parametrize("duration", ["start_of_next_turn", "end_of_round"])
def test_stun_duration_option(duration: str) -> None:
    """Tommy fumbles acting second: the stun lasts into the drunk's next turn, or not."""
    tommy = character("tommy_dos_pistolas", weapons=("bottle",))
    duel = scripted_duel(
        tommy,
        character("drunk"),
        scenario(1, drawn=(True, False)),
        [5, 10],
        stun_duration=duration,
    )
    duel.act(Action.END_TURN)  # the drunk (10) acts before Tommy (8)
    duel.act(Action.ATTACK_MAIN, 1, 3, 2)
    assert duel.seat == 1 and duel.state.round == 2
    assert duel.state.fighters[0].stunned is (duration == "start_of_next_turn")


def test_round_cap_truncates_as_a_draw() -> None:
    duel = gunfighters(round_cap=2)
    for _ in range(4):
        duel.act(Action.END_TURN)
    outcome = duel.state.result
    assert outcome is not None and outcome.truncated and outcome.winner is None


# --- findings of the rules review (issue 13) ------------------------------------------


def test_the_off_hand_weapon_leads_once_the_main_hand_one_is_thrown() -> None:
    """Seed (TIPOS DE ACCIONES, ataque): any weapon in hand can attack. A knife thrown from
    the main hand leaves the bottle in the off hand usable (it was stuck there before)."""
    duel = scripted_duel(
        character("brawler"), character("gunfighter"), scenario(2, drawn=(True, False)), [15, 5]
    )
    duel.act(Action.DRAW_SECONDARY)  # the bottle into the off hand
    duel.act(Action.THROW_MAIN, 2)  # the knife misses: d20 2
    brawler = duel.state.fighters[0]
    assert brawler.main is not None and brawler.main.weapon.id == "bottle"
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    mask = duel.mask()
    assert mask[Action.THROW_MAIN] and mask[Action.HOLSTER_MAIN]


def test_the_opponents_hidden_weapon_shows_only_once_drawn() -> None:
    """Digest §12: of the opponent, the weapon in hand is observed; its holstered hideout
    gun (the derringer) is not, until it has been drawn."""
    artist = character("quick_draw_artist")  # revolver and derringer, Quick Draw
    duel = scripted_duel(character("gunfighter"), artist, scenario(10), [5, 15])
    assert duel.seat == 1
    gunfighter_sees = duel.field(0, "loadout", "opponent.secondary.present")
    assert gunfighter_sees == 0 and duel.field(0, "holstered", "opponent.secondary") == 0
    assert duel.field(1, "loadout", "self.secondary.present") == 1  # its own, it knows
    duel.act(Action.DRAW_SECONDARY)  # free with Quick Draw
    assert duel.field(0, "loadout", "opponent.secondary.present") == 1
    assert duel.field(0, "loadout", "opponent.primary.present") == 0  # the revolver: not yet


def test_honour_choices_are_told_when_both_are_in() -> None:
    """Seed DUELOS: each duelist decides whether honour is at stake; the second to answer
    must not hear the first's answer in the narration."""
    duel = formal([10, 10, 15, 5], a="gunfighter", b="gunfighter")
    both_miss_round(duel)
    duel.act(Action.INSIST)
    assert "chooses to" not in duel.log()
    duel.act(Action.SETTLE, 12, 12, 3, 18)
    assert "Gunfighter (A) chooses to insist" in duel.log()


@pytest.mark.parametrize(("reading", "penalty"), [("digest", "+5"), ("literal", "+3")])
def test_the_range_penalty_at_exactly_one_increment_is_an_option(
    reading: str, penalty: str
) -> None:
    """Digest §6: "each full increment gives -2"; at 15 m, exactly one revolver increment,
    the digest's reading has no penalty, the literal one -2 (0.80 -> 0.70 against a
    flat-footed Defense 10)."""
    duel = gunfighters(distance=10, range_increments=reading)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 2)  # a plain miss, to read the modifier
    assert f"d20 2 {penalty} = " in duel.log()


def test_initiative_rolled_tells_a_zero_total_from_no_roll() -> None:
    """An initiative total of 0 (d20 1 - 1 here) is a roll; before the roll the key says so."""
    weak = character("gunfighter", init_bonus=-1)
    duel = scripted_duel(weak, weak, scenario(10), [1, 20])
    assert duel.field(0, "initiative", "self") == 0
    assert duel.field(0, "initiative_rolled", "self") == 1
    ambush = scripted_duel(character("johny"), character("guard"), scenario(1, surprise="A"), [8])
    assert ambush.field(0, "initiative_rolled", "opponent") == 0  # the surprised side
