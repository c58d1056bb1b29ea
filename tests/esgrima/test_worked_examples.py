"""rules/esgrima.md §11: the card table, the odds, and every vector with scripted dice."""

from __future__ import annotations

from fractions import Fraction

import pytest

from duelo.envs.core.dice import ScriptedDice
from duelo.envs.esgrima.duel import REPOSITION, DuelAction
from duelo.envs.esgrima.mechanics import Body, Card, d3, matchup, success_chance
from duelo.envs.esgrima.setup import TerrainObject
from duelo.envs.esgrima.skirmish_state import SkirmishAction as A
from tests.esgrima.helpers import character, duel, layout, skirmish

C = Card
TABLE = """
ESTOCADA_ALTA      = D = = = A
ESTOCADA_PROFUNDA  A = D = = =
TAJO_CIRCULAR      = A = D = =
TRETA              = = A = D =
FINTA              = = = A = D
INSULTO            D = = = A =
"""
"""Digest §11: rows the roller's card, columns the opponent's, in Card order."""


def test_card_matchup_table_matches_the_seed() -> None:
    symbol = {1: "A", -1: "D", 0: "="}
    for line in TABLE.strip().splitlines():
        name, *cells = line.split()
        assert [symbol[matchup(C[name], other)] for other in Card] == cells, name


@pytest.mark.parametrize(
    ("rating", "dis", "base", "adv"),
    [
        (1, "1/6", "11/36", "91/216"),
        (2, "1/3", "5/9", "19/27"),
        (3, "1/2", "3/4", "7/8"),
        (4, "2/3", "8/9", "26/27"),
        (5, "5/6", "35/36", "215/216"),
    ],
)
def test_test_probabilities(rating: int, dis: str, base: str, adv: str) -> None:
    """§3 table (0.167 / 0.306 / 0.421 ... 0.833 / 0.972 / 0.995), exactly."""
    assert success_chance(rating, -1) == Fraction(dis)
    assert success_chance(rating, 0) == Fraction(base)
    assert success_chance(rating, 1) == Fraction(adv)


def test_tv15_duel_probabilities_at_rating_3() -> None:
    assert success_chance(3, matchup(C.TRETA, C.TAJO_CIRCULAR)) == Fraction(875, 1000)
    assert success_chance(3, matchup(C.TRETA, C.INSULTO)) == Fraction(75, 100)
    assert success_chance(3, matchup(C.TRETA, C.FINTA)) == Fraction(1, 2)


def pj(**changes: object):
    """A PJ with Agresividad 3 and no Esgrima elegante, no armour, 5 PG."""
    return character("duelist", traits=(), armour="none", **changes)


def pnj(**changes: object):
    return character("pirate", **changes)


def test_tv1_initiative_pj_9_acts_before_the_pnj() -> None:
    fight = skirmish(pj(), pnj(), layout((1, 2)), [4, 5])
    assert fight.state.fighters[0].initiative == 9 and fight.state.fighters[1].initiative == 7.5
    assert fight.state.order == [0, 1]
    fencing = duel(pj(), pnj(), list(Card) * 6, [4, 5], duel_variant="faithful")
    assert fencing.state.foco == 0  # in a duel the PJ starts with Foco


def test_tv2_focalizar_then_attack_with_advantage() -> None:
    target = pnj(armour="none", weapons=("sabre",))
    fight = skirmish(pj(weapons=("sabre",)), target, layout((2, 2)), [3, 3])  # PJ 6 < 7.5
    fight.act(A.PASS)
    fight.act(A.PASS)
    fight.act(A.FOCALIZAR, 4)
    assert fight.state.fighters[0].initiative == 10 and fight.state.fighters[0].foco_next
    fight.act(A.MELEE_ATTACK, 6, 5, 2)  # 3d6: one die (2) <= 3
    assert fight.state.fighters[1].body.pg == 4
    assert not fight.state.fighters[0].foco_next
    assert fight.state.round == 2 and fight.seat == 0  # 10 now beats 7.5


def test_tv3_light_armour() -> None:
    body = Body(5, 5, "light", 3)
    assert body.take_damage(2) == 1 and (body.armour_pts, body.pg) == (2, 4)
    assert body.take_damage(1) == 0 and (body.armour_pts, body.pg) == (1, 4)


def test_tv4_heavy_armour() -> None:
    body = Body(5, 5, "heavy", 5)
    assert body.take_damage(2) == 0 and (body.armour_pts, body.pg) == (4, 5)
    assert d3(ScriptedDice([5]), "1d3") == (3, 5)  # Estocada alta, d6 5 -> 1d3 3
    assert body.take_damage(3) == 1 and (body.armour_pts, body.pg) == (3, 4)


def test_tv5_deterioration() -> None:
    body = Body(5, 5, "heavy", 1)
    body.take_damage(2)
    assert (body.armour_pts, body.pg) == (0, 5) and body.deteriorated
    body.take_damage(2)
    assert body.pg == 3  # deteriorated armour protects nothing


def musketeer_vs_pj(*opening: int):
    shooter = character("musketeer", tecnica=2)
    fight = skirmish(shooter, pj(), layout((0, 2)), [1, 1, *opening])  # PJ 2 < 7.5
    fight.state.fighters[0].weapons[0].loaded = False  # the musket was fired
    return fight


def test_tv6_slow_reload() -> None:
    fight = musketeer_vs_pj()
    fight.act(A.RELOAD, 5, 3)  # Técnica 2: no success
    musket = fight.state.fighters[0].weapons[0]
    assert not musket.loaded and fight.state.fighters[0].reload_pending
    fight.act(A.RELOAD)  # the next Action reloads automatically
    assert musket.loaded


def test_tv6_another_action_in_between_needs_a_new_test() -> None:
    fight = musketeer_vs_pj()
    fight.act(A.RELOAD, 5, 3)
    fight.act(A.MOVE_TOWARD)
    assert not fight.state.fighters[0].reload_pending
    fight.act(A.PASS)
    fight.act(A.PASS)
    fight.act(A.RELOAD, 6, 2)  # a new Técnica Test, passed with the 2
    assert fight.state.fighters[0].weapons[0].loaded


def test_tv7_evasion() -> None:
    evader = pj(reflejos=4)
    shooter = pnj(weapons=("pistol",))
    fight = skirmish(evader, shooter, layout((1, 2)), [6, 6])
    fight.act(A.EVADE)
    fight.act(A.PASS)
    fight.act(A.SHOT, 1, 1, 5)  # hit; Reflejos save with Disadvantage: 1d6 5 > 4
    assert fight.state.fighters[0].body.pg == 4
    fight.act(A.SHOT, 1, 1, 3)  # hit; save 3 <= 4: avoided
    assert fight.state.fighters[0].body.pg == 4


def test_tv8_duel_pj_with_foco_plays_treta_with_advantage() -> None:
    deck = [C.TRETA, C.INSULTO, C.ESTOCADA_ALTA, C.TAJO_CIRCULAR, C.FINTA, C.ESTOCADA_PROFUNDA]
    fencing = duel(pj(), pnj(), deck, [4, 5], duel_variant="faithful")
    assert fencing.state.commits[1].card == C.TAJO_CIRCULAR  # turned over first
    fencing.act(DuelAction.PLAY_TRETA, 5, 2, 6)
    pirate = fencing.state.sides[1].body
    assert (pirate.armour_pts, pirate.pg) == (2, 5)  # 1 PG, absorbed
    assert fencing.state.sides[0].hand == [C.ESTOCADA_ALTA, C.FINTA, C.INSULTO]
    assert fencing.state.discard == [C.TRETA, C.TAJO_CIRCULAR]


def test_tv9_duel_pnj_with_foco_counters_the_high_thrust() -> None:
    deck = [C.ESTOCADA_ALTA, C.TRETA, C.TAJO_CIRCULAR, C.ESTOCADA_PROFUNDA, C.FINTA, C.INSULTO]
    fencing = duel(pj(), pnj(), deck, [3, 3], duel_variant="faithful")  # 6 < 7.5
    assert fencing.state.foco == 1 and not fencing.state.commits
    fencing.act(DuelAction.PLAY_ESTOCADA_ALTA, 4)  # 1d6: Disadvantage against Profunda
    assert fencing.state.sides[0].body.pg == 3


def test_tv10_success_at_disadvantage_steals_foco() -> None:
    deck = [C.FINTA, C.TRETA, C.TAJO_CIRCULAR, C.INSULTO, C.ESTOCADA_ALTA, C.ESTOCADA_ALTA]
    fencing = duel(pj(), pnj(), deck, [3, 3], duel_variant="faithful")
    fencing.act(DuelAction.PLAY_FINTA, 3)
    assert fencing.state.foco == 0


def test_tv11_insulto_heals_and_rerolls_initiative() -> None:
    deck = [C.INSULTO, C.TRETA, C.TAJO_CIRCULAR, C.FINTA, C.ESTOCADA_ALTA, C.ESTOCADA_ALTA]
    fencing = duel(pj(), pnj(), deck, [4, 5], duel_variant="faithful")
    fencing.state.sides[0].body.pg = 4
    fencing.act(DuelAction.PLAY_INSULTO, 1, 6, 6, 3, 3)  # success; re-roll 2d6 = 6
    assert fencing.state.sides[0].body.pg == 5
    assert fencing.state.sides[0].initiative == 6 and fencing.state.foco == 1


def test_tv12_reposition_then_a_failed_defense() -> None:
    deck = [C.TRETA, C.TAJO_CIRCULAR, C.INSULTO, C.FINTA, C.ESTOCADA_ALTA, C.TRETA]
    fencing = duel(pj(), pnj(), deck, [3, 3], duel_variant="faithful")
    assert fencing.state.sides[0].hand == [C.TAJO_CIRCULAR, C.TRETA, C.INSULTO]
    fencing.act(REPOSITION + 0b100, 6, 4, 3)  # discard slot 3; Defense [6, 4] fails; d6 3
    assert fencing.state.sides[0].body.pg == 3
    assert C.FINTA in fencing.state.sides[0].hand and C.INSULTO in fencing.state.discard


def test_tv13_area_damage_hits_everyone_in_the_zone() -> None:
    actor = pj(talento=3)
    enemy = pnj()  # light armour
    fight = skirmish(actor, enemy, layout((2, 2), TerrainObject(2, interact=True)), [6, 6])
    fight.act(A.INTERACT_AREA, 2)  # Talento with Disadvantage: 1d6 2 <= 3
    assert fight.state.fighters[1].body.armour_pts == 2 and fight.state.fighters[1].body.pg == 5
    assert fight.state.fighters[0].body.pg == 4
    assert fight.state.spent == [True]


def test_tv14_ammo_check_after_combat() -> None:
    shooter = pj(suerte=2, weapons=("pistol",))
    fight = skirmish(shooter, pnj(), layout((1, 2)), [6, 6])
    fight.act(A.SHOT, 6, 6)  # a miss, but projectiles were used
    fight.act(A.PASS)
    fight.act(A.SURRENDER, 4, 6)  # combat over: Suerte 2, 2d6 [4, 6], no success
    assert "Ammo check: the duelist 2d6 [4, 6] vs 2 -> has used it all up" in fight.log()
