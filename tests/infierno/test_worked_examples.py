"""rules/infierno.md §11: every worked example replayed with scripted dice."""

from __future__ import annotations

from fractions import Fraction

import pytest

from duelo.envs.core.dice import DiceExhaustedError, die
from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.infierno.combat import maximum_damage, range_penalty, strength_share
from duelo.envs.infierno.setup import Weapon
from duelo.envs.infierno.staredown import staredown_odds
from duelo.envs.infierno.state import Action, Phase, Staredown, StrShare
from tests.infierno.helpers import CATALOG, character, scenario, scripted_duel

JOHNY, GUARD = 0, 1


def johny_vs_guard(*faces: int, **options: object) -> ScriptedDuel:
    """TV1 opening: Johny (fists) d20 8 -> 10, the guard (rifle slung, -3) d20 12 -> 10."""
    return scripted_duel(
        character("johny"), character("guard"), scenario(1), [8, 12, *faces], **options
    )


def test_tv1_initiative_tie_broken_by_dexterity() -> None:
    duel = johny_vs_guard()
    johny, guard = duel.state.fighters
    assert (johny.initiative, guard.initiative) == (10, 10)  # the seed's "9" is 12 + 1 - 3 = 10
    assert duel.state.order == [JOHNY, GUARD]  # Dex +2 > +1
    assert duel.seat == JOHNY


def test_tv1_equal_dexterity_falls_to_initiative_bonus() -> None:
    duel = scripted_duel(character("johny"), character("guard", dex_mod=2), scenario(1), [8, 12])
    assert duel.state.order == [JOHNY, GUARD]  # Init +2 > +1


def test_tv2_surprise_round_punch_misses_and_guard_stays_flat_footed() -> None:
    # guard Attention 4 (+1 = 5), Johny Stealth 11 (+3 = 14), Johny initiative 8
    duel = scripted_duel(
        character("johny"), character("guard"), scenario(1, surprise="rolled"), [4, 11, 8]
    )
    johny, guard = duel.state.fighters
    assert duel.state.phase == Phase.SURPRISE
    assert not guard.aware and johny.initiative == 10 and guard.initiative is None
    mask = duel.mask()
    assert not mask[Action.TWO_WEAPON_ATTACK] and not mask[Action.RUN_IN]  # no full-round
    duel.act(Action.ATTACK_UNARMED, 5)  # 5 + 4 = 9 vs Defense 12 - 2 = 10: miss
    assert "d20 5 +4 = 9 vs Defense 10 (flat-footed, no Dodge) -> miss" in duel.log()
    assert not duel.mask()[Action.ADVANCE]  # one standard OR one move in the surprise round
    duel.act(Action.END_TURN, 12)  # the guard rolls initiative after it: 12 + 1 - 3 = 10
    assert guard.initiative == 10
    assert duel.state.phase == Phase.ROUND and duel.state.round == 1
    assert duel.state.order == [JOHNY, GUARD] and duel.seat == JOHNY
    assert not johny.flat_footed and guard.flat_footed


def test_tv3_punch_hits_flat_footed_guard_for_nonlethal() -> None:
    duel = johny_vs_guard()
    duel.act(Action.ATTACK_UNARMED, 10, 2)  # 14 vs flat-footed 10: hit, margin 4 < 10
    guard = duel.state.fighters[GUARD]
    assert "d20 10 +4 = 14 vs Defense 10 (flat-footed, no Dodge) -> hit" in duel.log()
    assert (guard.nonlethal, guard.hp) == (3, 8)  # 1d3 (2) + Str 1, nonlethal


@pytest.mark.parametrize(
    ("crit_mode", "damage_faces"), [("reroll", (3, 3)), ("multiply_total", (3,))]
)
def test_tv4_critical_punch_knocks_the_guard_out(
    crit_mode: str, damage_faces: tuple[int, ...]
) -> None:
    duel = johny_vs_guard(crit_mode=crit_mode, crit_choice="always_c1")
    duel.act(Action.ATTACK_UNARMED, 18, *damage_faces)  # 22 vs 10: margin 12 >= 10
    guard = duel.state.fighters[GUARD]
    assert guard.nonlethal == 8 and guard.hp == 8  # reroll 2d3+2 = 8; multiply (3+1)x2 = 8
    outcome = duel.state.result
    assert outcome is not None and outcome.winner == JOHNY
    assert "knocked out" in outcome.reason


def test_tv4_auto_best_picks_the_multiplier() -> None:
    # Only C1 (2d3+2, up to 8) can floor an 8-hp guard; C2's maximum is 4.
    duel = johny_vs_guard()
    duel.act(Action.ATTACK_UNARMED, 18, 3, 3)
    assert "C1 multiplier" in duel.log()
    assert duel.state.fighters[GUARD].nonlethal == 8


@pytest.mark.parametrize(
    ("effect", "faces", "nonlethal", "hp", "sequels"),
    [
        (Action.CRIT_MAXIMUM, (), 4, 8, 0),  # C2: 3 + 1
        (Action.CRIT_SEQUEL, (2,), 3, 8, 1),  # C4: normal + a Sequel
        (Action.CRIT_LETHAL, (2,), 0, 5, 0),  # C5: normal as lethal
    ],
)
def test_tv4_other_critical_effects(
    effect: Action, faces: tuple[int, ...], nonlethal: int, hp: int, sequels: int
) -> None:
    duel = johny_vs_guard(crit_choice="agent")
    duel.act(Action.ATTACK_UNARMED, 18)
    assert duel.state.phase == Phase.CRIT_CHOICE and duel.seat == JOHNY
    mask = duel.mask()
    assert not mask[Action.CRIT_IGNORE_RD]  # the guard has no RD, C3 is pointless
    assert mask[Action.CRIT_LETHAL]  # the punch is nonlethal
    duel.act(effect, *faces)
    guard = duel.state.fighters[GUARD]
    assert (guard.nonlethal, guard.hp, guard.sequels) == (nonlethal, hp, sequels)
    assert duel.state.phase == Phase.ROUND


def tommy_vs_drunk() -> ScriptedDuel:
    """Tommy (bottle in hand) goes first: initiative 10 + 3 = 13 vs 5 + 0."""
    tommy = character("tommy_dos_pistolas", weapons=("bottle",))
    return scripted_duel(tommy, character("drunk"), scenario(1, drawn=(True, False)), [10, 5])


def test_tv5_tommy_fumbles_the_bottle() -> None:
    duel = tommy_vs_drunk()
    duel.act(Action.ATTACK_MAIN, 1, 3, 2)  # natural 1; Reflex 3 + 3 = 6 < 15; 1d4 = 2
    tommy = duel.state.fighters[0]
    assert tommy.hp == 10 and tommy.stunned
    assert duel.seat == 1  # the stun ends Tommy's turn
    assert "FUMBLE" in duel.log()


def test_tv6_the_drunks_revolver_jams_and_is_cleared() -> None:
    duel = tommy_vs_drunk()
    duel.act(Action.ATTACK_MAIN, 1, 3, 2)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 1, 7)  # natural 1 -> jam test 7 + 5 = 12 < 15
    revolver = duel.state.fighters[1].carried[0]
    assert revolver.jammed and revolver.ammo == 5
    duel.act(Action.END_TURN)
    assert not duel.state.fighters[0].stunned  # Tommy recovers at the start of his turn
    duel.act(Action.END_TURN)
    mask = duel.mask()
    assert not mask[Action.ATTACK_MAIN] and mask[Action.CLEAR_JAM]
    duel.act(Action.CLEAR_JAM, 14)  # 14 + 0 < 15
    assert revolver.jammed
    duel.act(Action.END_TURN)
    duel.act(Action.END_TURN)
    duel.act(Action.CLEAR_JAM, 15)
    assert not revolver.jammed


@pytest.mark.parametrize(("reading", "margin"), [("A", 12), ("B", 14)])
def test_tv7_judge_turner_cows_the_outlaw_and_shoots_first(reading: str, margin: int) -> None:
    # Intimidate 16 and 7, initiative 15 and 17
    duel = scripted_duel(
        character("judge_turner"),
        character("outlaw"),
        scenario(10, staredown=True),
        [16, 7, 15, 17],
        staredown_penalty=reading,
    )
    judge, outlaw = duel.state.fighters
    assert outlaw.staredown == Staredown.COWED and judge.staredown == Staredown.NONE
    assert (judge.initiative, outlaw.initiative) == (19, 16)
    duel.act(Action.DRAW_PRIMARY)
    duel.act(Action.ATTACK_MAIN, 12, 4, 3)  # 17 vs flat-footed 10, no range penalty at 15 m
    assert "d20 12 +5 = 17 vs Defense 10 (flat-footed, no Dodge) -> hit" in duel.log()
    assert outlaw.hp == 5
    assert duel.seat == 0  # the step is left; the Judge ends his turn himself
    duel.act(Action.END_TURN)
    assert duel.seat == 1 and not judge.flat_footed


def test_tv7_staredown_odds_match_the_digest() -> None:
    odds = staredown_odds((6, 3))
    judge_wins = sum(p for (judge, _), p in odds.items() if judge == Staredown.NONE)
    outlaw_cowed = sum(p for (_, outlaw), p in odds.items() if outlaw == Staredown.COWED)
    judge_cowed = sum(p for (judge, _), p in odds.items() if judge == Staredown.COWED)
    assert judge_wins == Fraction(66, 100)
    assert outlaw_cowed == Fraction(475, 1000)
    assert judge_cowed == Fraction(2275, 10000)


def test_tv7_judge_acts_first_about_61_percent() -> None:
    """The digest's Monte Carlo figure (0.613), here computed exactly."""
    odds = staredown_odds((6, 3))
    penalty = {Staredown.NONE: 0, Staredown.LOST: -2, Staredown.COWED: -4}
    first = Fraction(0)
    for (judge_state, outlaw_state), p in odds.items():
        for j, pj in die(20).items():
            for o, po in die(20).items():
                judge = j + 4 + penalty[judge_state]
                outlaw = o + 3 + penalty[outlaw_state]
                if judge >= outlaw:  # equal Dex: the tie goes to the higher Init bonus
                    first += p * pj * po
    assert round(float(first), 3) == 0.613


def duel_at(
    distance: int, attacker: dict, target: dict, weapon: str, **options: object
) -> ScriptedDuel:
    """Attacker (seat 0, `weapon` drawn) acts first against a target who has acted."""
    a = character("gunfighter", weapons=(weapon,), init_bonus=20, **attacker)
    b = character("gunfighter", **target)
    duel = scripted_duel(a, b, scenario(distance, drawn=(True, False)), [10, 1], **options)
    duel.state.fighters[1].has_acted = True  # full Defense
    return duel


def test_tv8_knife_critical_at_margin_9() -> None:
    duel = duel_at(1, {"attack_bonus": 4}, {"defense": 12}, "knife", crit_choice="always_c1")
    duel.act(Action.ATTACK_MAIN, 17, 1, 1)  # 21 vs 12: margin 9 >= T 9 -> critical, 2d4+2
    assert "margin 9 >= 9: CRITICAL" in duel.log()
    assert duel.state.fighters[1].hp == 12 - 4


def test_tv8_armour_raises_the_critical_margin() -> None:
    duel = duel_at(10, {"attack_bonus": 5}, {"defense": 12, "rd": 2}, "revolver")
    duel.act(Action.ATTACK_MAIN, 18, 4, 3)  # 23 vs 12: margin 11 < T 12 -> normal
    assert "CRITICAL" not in duel.log()
    assert duel.state.fighters[1].hp == 12 - (7 - 2)  # 2d6 - RD 2


def test_tv8_unconfirmed_natural_20_ignores_armour() -> None:
    duel = duel_at(10, {"attack_bonus": 2}, {"defense": 16, "rd": 2}, "revolver")
    duel.act(Action.ATTACK_MAIN, 20, 9, 4, 3)  # 22, margin 6: threat; 9 + 2 = 11 < 16
    assert "not confirmed, normal hit ignoring RD" in duel.log()
    assert duel.state.fighters[1].hp == 12 - 7  # RD not subtracted


def test_tv8_natural_20_already_critical_needs_no_confirmation() -> None:
    duel = duel_at(10, {"attack_bonus": 5}, {"defense": 14}, "revolver", crit_choice="always_c1")
    duel.act(Action.ATTACK_MAIN, 20, 1, 1, 1, 1)  # 25, margin 11: critical, then 4d6
    assert "confirmation" not in duel.log()
    assert duel.state.fighters[1].hp == 12 - 4


def test_tv8_range_penalties() -> None:
    revolver, rifle = CATALOG.weapons["revolver"], CATALOG.weapons["rifle"]
    assert range_penalty(revolver, 10) == 0  # 15 m, the first increment's end point
    assert range_penalty(revolver, 11) == -2  # 16.5 m
    assert range_penalty(revolver, 20) == -2  # 30 m
    assert range_penalty(revolver, 21) == -4  # 31.5 m
    assert range_penalty(rifle, 40) == -4  # 60 m: ceil(60 / 27) - 1 = 2 increments
    assert revolver.max_range == 100  # 150 m: beyond it no shot


def test_tv8_shot_beyond_maximum_range_is_masked() -> None:
    duel = duel_at(21, {}, {}, "derringer")  # derringer: 3 m x 10 = 30 m = 20 squares
    assert not duel.mask()[Action.ATTACK_MAIN]


def test_tv8_critical_damage_rules() -> None:
    triple = Weapon(
        id="x3", name="x3", category="melee", hands=1, damage=(1, 6), crit_low=20, multiplier=3
    )
    assert maximum_damage(triple, 2) == 12  # C2 on a x3 weapon: 8 x 1.5
    duel = duel_at(5, {"attack_bonus": 5}, {"defense": 10}, "revolver", crit_choice="always_c1")
    with pytest.raises(DiceExhaustedError):
        duel.act(Action.ATTACK_MAIN, 19, 1, 1, 1)  # C1 on a x2 revolver rolls 4d6, not 3


def test_tv8_half_strength_on_thrown_weapons() -> None:
    assert strength_share(3, StrShare.HALF) == 1
    assert strength_share(-1, StrShare.HALF) == -1
    assert strength_share(3, StrShare.ONE_AND_HALF) == 4
