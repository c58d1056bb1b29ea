"""Vampiro's turn replayed with scripted dice: initiative, declarations in reverse order
(seen only by who declares later, blind in a full tie), aborts, Dodges and the damage
chain (§4, §8, §10 #29, #30, §11 V9-V11)."""

from __future__ import annotations

import dataclasses

import numpy as np

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.vampiro.damage import damage_pool
from duelo.envs.vampiro.exchange import action_pool
from duelo.envs.vampiro.odds import difficulty, read_pool
from duelo.envs.vampiro.rules import VampiroRuleset, attack_difficulty
from duelo.envs.vampiro.setup import Character, Scenario, load_catalog
from duelo.envs.vampiro.state import Action, Move, Phase

CATALOG = load_catalog()
A = Action


def fighter(base: str, **changes: object) -> Character:
    return dataclasses.replace(CATALOG.characters[base], **changes)


def duel(
    a: Character, b: Character, distance: float, opening: list[int], **options: object
) -> ScriptedDuel:
    """`a` against `b`; `opening` scripts the two initiative dice."""
    scenario = Scenario("test", "a test", (a.id, b.id), distance)
    return ScriptedDuel(VampiroRuleset(scenario, (a, b), options, CATALOG), opening)


def test_v10_the_slower_declares_first_and_the_faster_sees_it() -> None:
    a = fighter("brujah", celeridad=0, willpower=1)  # Dex 3 + Wits 2 + 8 = 13
    b = fighter("thug", willpower=1)  # Dex 2 + Wits 2 + 5 = 9
    fight = duel(a, b, 1, [8, 5])
    assert fight.seat == 1 and fight.state.phase == Phase.DECLARE  # B, the slower, first
    fight.act(A.STRIKE)
    fight.act(A.K0)
    assert fight.seat == 0 and fight.field(0, "plan", "opponent.strike") == 1
    fight.act(A.ATTACK_DODGE)
    fight.act(A.K0)
    # at 13, A strikes at -2 (Dex 3 + Brawl 3 - 2 = 4 dice); B may abort: it keeps its blow
    assert fight.seat == 1 and fight.state.phase == Phase.INTERRUPT
    # A misses; at 9, B strikes (Dex 2 + Brawl 2 = 4 dice): 2 net; A's Dodge meets it at
    # -3 (Dex 3 + Dodge 2 - 3 = 2 dice): 2 net; then the next turn's initiative
    fight.act(A.NO_ABORT, 2, 2, 2, 2, 7, 7, 2, 2, 8, 8, 5, 5)
    log = fight.log()
    assert "Brujah brawler misses" in log
    assert "Brujah brawler rolls [8, 8] at 6: 2 net" in log and "fended off" in log


def test_v11_an_abort_by_a_willpower_roll() -> None:
    """B declared a shot at 8; A attacks at 12; B's Willpower 5 [6, 2, 8, 1, 3] = 1 net:
    the shot becomes a Dodge of Dex 3 + Dodge 2 = 5 dice."""
    a = fighter("thug", willpower=1)  # Dex 2 + Wits 2 + 8 = 12
    b = fighter("hunter", astucia=2, willpower=5, armour="none")  # 3 + 2 + 3 = 8
    fight = duel(a, b, 1, [8, 3])
    fight.act(A.SHOOT)
    fight.act(A.K0)
    fight.act(A.STRIKE)
    fight.act(A.K0)
    assert fight.seat == 1 and fight.state.phase == Phase.INTERRUPT
    # the roll; A's strike (2 + 2 = 4 dice): 2 net; B's Dodge (5 dice): 2 net; the next turn
    fight.act(A.ABORT_DODGE_ROLL, 6, 2, 8, 1, 3, 6, 6, 2, 2, 7, 7, 7, 1, 2, 5, 5)
    log = fight.log()
    assert "Hunter rolls Willpower [6, 2, 8, 1, 3]: aborts" in log
    assert "Hunter rolls [7, 7, 7, 1, 2] at 6: 2 net" in log and "fended off" in log


def test_a_full_tie_declares_blind() -> None:
    """§10 #29: with equal scores and ratings, side B declares without seeing side A's
    plan, its Celerity, or the Willpower it spent."""
    seen = set()
    for plan, modifier in ((A.CLOSE, A.K0), (A.OPEN, A.K0_WP), (A.DODGE, A.K0)):
        fight = duel(fighter("brujah"), fighter("brujah"), 5, [4, 4])
        assert fight.state.tied and fight.seat == 0
        fight.act(plan)
        fight.act(modifier)
        assert fight.seat == 1
        seen.add((fight.ruleset.observe(fight.state, 1).tobytes(), fight.mask().tobytes()))
    assert len(seen) == 1


def test_the_faster_sees_the_slower_declaration_as_it_is_made() -> None:
    fight = duel(fighter("brujah", willpower=1), fighter("thug", willpower=1), 1, [8, 5])
    before = fight.ruleset.observe(fight.state, 0)
    fight.act(A.CLINCH)
    fight.act(A.K0_WP)
    after = fight.ruleset.observe(fight.state, 0)
    assert not np.array_equal(before, after)
    assert fight.field(0, "plan", "opponent.clinch") == 1
    assert fight.field(0, "plan", "opponent.willpower") == 1


def test_the_slower_never_sees_the_faster_declaration_all_turn() -> None:
    """§12 ("known only if the opponent declared earlier"), §10 #30: at its interrupt, B
    (9, declared first) sees nothing of A's later declaration: no plan, the Willpower
    point A spent on it still shown, no Phase 2 order. Under `public_declarations` it
    sees them all."""
    for public in (False, True):
        a = fighter("brujah", celeridad=0, willpower=1)  # 13
        b = fighter("thug", willpower=1)  # 9
        fight = duel(a, b, 1, [8, 5], public_declarations=public)
        fight.act(A.STRIKE)
        fight.act(A.K0)
        fight.act(A.ATTACK_DODGE)
        fight.act(A.K0_WP)
        assert fight.seat == 1 and fight.state.phase == Phase.INTERRUPT
        assert fight.state.fighters[0].willpower == 0  # spent, in the rules
        assert fight.field(1, "plan", "opponent.known") == public
        assert fight.field(1, "plan", "opponent.attack_dodge") == public
        assert fight.field(1, "plan", "opponent.willpower") == public
        assert fight.field(1, "willpower", "opponent.points") == (0 if public else 1)
        assert fight.field(1, "initiative", "opponent") == public  # A acts first
        assert fight.field(0, "plan", "opponent.strike") == 1  # A saw B's all along


def test_v13_the_damage_pool_is_never_below_one_die() -> None:
    assert [damage_pool(d) for d in (-2, 0, 1, 5)] == [1, 1, 1, 5]


def test_v15_unskilled_rolls() -> None:
    """A missing Skill (Firearms) rolls Dex alone at 7; a missing Talent (Brawl) at 6."""
    fight = duel(fighter("thug", destreza=3, pelea=0, armas_fuego=0), fighter("thug"), 5, [5, 6])
    me = fight.state.fighters[0]
    assert action_pool(me, "armas_fuego", "destreza", 0) == (3, 7)
    assert action_pool(me, "pelea", "destreza", 0) == (3, 6)


def test_v16_point_blank() -> None:
    """A light pistol at 1.5 m: difficulty 4; Dex 3 + Firearms 2 [4, 3, 9, 1, 5] = 2 net."""
    shooter = fighter("hunter", weapon="light_pistol", armas_fuego=2, armour="none")
    fight = duel(shooter, fighter("thug"), 1.5, [5, 6])
    me = fight.state.fighters[0]
    dice, target = action_pool(me, "armas_fuego", "destreza", 0)
    target = difficulty(target + attack_difficulty(fight.state, me, Move.SHOOT))
    assert (dice, target) == (5, 4)
    assert read_pool([4, 3, 9, 1, 5], target).net == 2


def test_cover_adds_to_the_shooters_difficulty() -> None:
    """§6: good cover (+2) turns a shot at 6 into one at 8."""
    shooter, target = fighter("hunter"), fighter("thug", willpower=1)
    scenario = Scenario("test", "a test", (shooter.id, target.id), 10, cover=(0, 2))
    fight = ScriptedDuel(VampiroRuleset(scenario, (shooter, target), None, CATALOG), [10, 1])
    fight.act(A.CLOSE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.SHOOT)
    fight.act(A.K0)
    # Dex 3 + Firearms 3 - Kevlar 1 = 5 dice at 8: 1 net; 5 damage dice, nothing soaked;
    # then the thug runs in, and the next turn's initiative
    fight.act(A.NO_ABORT, 8, 8, 1, 2, 3, 1, 1, 1, 1, 1, 5, 5)
    assert "Hunter rolls [8, 8, 1, 2, 3] at 8: 1 net" in fight.log()


def test_unused_celerity_dots_add_dice_under_the_v20_flag() -> None:
    """§8.3 (V20): Dex 3 + Brawl 3 + 1 unused Celerity dot = 7 dice."""
    fight = duel(fighter("brujah"), fighter("thug"), 1, [10, 1], celerity_dice=True)
    fight.act(A.DODGE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.STRIKE)
    # the strike: 7 dice, a miss; the thug's Dodge is not needed; the next turn
    fight.act(A.K0, 2, 2, 2, 2, 2, 2, 2, 5, 5)
    assert "Brujah brawler rolls [2, 2, 2, 2, 2, 2, 2] at 6: 0 net" in fight.log()


def test_a_run_past_30_m_from_a_bare_handed_rival_is_a_flight_and_a_draw() -> None:
    """§9, §10 #24: the thug runs 20 + 3 x 2 = 26 m from 5 m: 31 m, past 30 m."""
    fight = duel(fighter("thug"), fighter("brujah"), 5, [10, 1])  # the Brujah declares first
    fight.act(A.CLOSE)
    fight.act(A.K0)
    fight.act(A.OPEN)
    fight.act(A.K0)
    assert fight.state.result.winner is None and "flees" in fight.state.result.reason


def test_a_botched_shot_jams_the_gun() -> None:
    """§7, §10 #16, #33: no success and a 1 is a botch; the round is spent, the gun jams."""
    fight = duel(fighter("hunter"), fighter("thug", willpower=1), 10, [10, 1])
    fight.act(A.CLOSE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.SHOOT)
    fight.act(A.K0)
    # Dex 3 + Firearms 3 - Kevlar 1 = 5 dice, a botch; the thug runs in; the next turn
    fight.act(A.NO_ABORT, 1, 2, 3, 4, 5, 5, 5)
    hunter = fight.state.fighters[0]
    assert hunter.jammed and hunter.ammo == hunter.weapon.clip - 1 and "jams" in fight.log()


def test_celerity_actions_come_at_the_end_of_the_turn() -> None:
    """§4, §8.3, §10 #31: the Brujah's Celerity strike waits until the thug has struck."""
    fight = duel(fighter("brujah"), fighter("thug"), 1, [10, 1])
    fight.act(A.STRIKE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.STRIKE)
    fight.act(A.K1)
    fight.act(A.NO_ABORT, 2, 2, 2, 2, 2, 2)  # the thug keeps its blow; the Brujah misses
    fight.act(A.NO_ABORT, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 5, 5)  # thug, then Celerity
    rolls = [line for line in fight.log().splitlines() if " rolls [" in line]
    assert [line.split(" rolls")[0] for line in rolls] == [
        "Brujah brawler",
        "Street thug",
        "Brujah brawler",
    ]
