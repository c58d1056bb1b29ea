"""Dunwich: the digest's worked examples (§11) replayed with scripted dice, and the exact
distributions of its pools and opposed checks (§3), asserted as fractions."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from duelo.envs.core.dice import pool_outcomes
from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.dunwich.odds import (
    SUCCESS_CLASSES,
    at_least_one,
    count,
    knockout,
    opposed,
    pool,
)
from duelo.envs.dunwich.pairing import wound
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.dunwich.setup import Character, Scenario, load_catalog
from duelo.envs.dunwich.state import VITALITY, Action, Phase

CATALOG = load_catalog()
A = Action


def fighter(fisico: int, lucha: int, **changes: object) -> Character:
    return dataclasses.replace(CATALOG.characters["marked"], fisico=fisico, lucha=lucha, **changes)


def duel(
    a: Character,
    b: Character,
    positions: tuple[float, float],
    arena: float = 12,
    advantageous_position: bool = False,
    **options: object,
) -> ScriptedDuel:
    """`a` (side A, on the left) against `b`; no die is rolled before the first plan."""
    scenario = Scenario("test", "a test", (a.id, b.id), positions, arena, advantageous_position)
    return ScriptedDuel(DunwichRuleset(scenario, (a, b), options, CATALOG), [])


def plan(fight: ScriptedDuel, first: Action = A.BID_0, second: Action = A.BID_0) -> None:
    """Both sealed plans (side A decides first)."""
    assert fight.seat == 0 and fight.state.phase == Phase.PLAN
    fight.act(first)
    fight.act(second)


def crossed(character_state: object) -> list[int]:
    return [v for v, c in zip(VITALITY, character_state.crossed, strict=True) if c]


# --- §3: pools and opposed checks ----------------------------------------------------------


def test_one_die_and_its_reroll() -> None:
    """§3: 0, 1, 2 successes at 4/6, 1/6, 1/6 (mean 1/2); a reroll of failures gives 5/6."""
    assert pool(1) == {0: Fraction(4, 6), 1: Fraction(1, 6), 2: Fraction(1, 6)}
    assert pool(1, 1) == {0: Fraction(16, 36), 1: Fraction(10, 36), 2: Fraction(10, 36)}
    assert sum(k * p for k, p in pool(1, 1).items()) == Fraction(5, 6)


@pytest.mark.parametrize("n", range(1, 6))
def test_check_success_chances(n: int) -> None:
    """§3: P(at least one success) = 1 - (2/3)^n, and 1 - (4/9)^n rerolling failures."""
    assert at_least_one(n) == 1 - Fraction(2, 3) ** n
    assert 1 - pool(n, n)[0] == 1 - Fraction(4, 9) ** n


def test_pool_distribution_is_the_generating_polynomial() -> None:
    """§3: the success distribution of n dice is the coefficients of (4 + x + x^2)^n / 6^n."""
    poly = np.polynomial.polynomial.polypow([4, 1, 1], 3)
    assert pool(3) == {k: Fraction(int(c), 6**3) for k, c in enumerate(poly)}


def test_rerolls_are_capped_by_the_allowance() -> None:
    """§10 #28: two dice, one reroll: a double failure keeps one of its failures."""
    assert pool(2, 1)[0] == Fraction(4, 6) * Fraction(4, 6) * Fraction(4, 6)
    assert pool(0) == {0: Fraction(1)} and pool(-1) == {0: Fraction(1)}  # §10 #20


def test_opposed_exact() -> None:
    """§3: one die against one: 9/36 to win, 18/36 to tie."""
    assert opposed(pool(1), pool(1)) == (Fraction(9, 36), Fraction(18, 36))
    win, tie = opposed(pool(3), pool(3, 3))
    assert (round(float(win), 2), round(float(tie), 2)) == (0.22, 0.18)


TABLE = [  # §3, P(row wins) / P(tie), no rerolls
    [(0.25, 0.50), (0.19, 0.38), (0.14, 0.28), (0.10, 0.21), (0.07, 0.16)],
    [(0.44, 0.38), (0.34, 0.31), (0.27, 0.26), (0.20, 0.21), (0.15, 0.17)],
    [(0.58, 0.28), (0.48, 0.26), (0.38, 0.23), (0.31, 0.20), (0.24, 0.18)],
    [(0.69, 0.21), (0.59, 0.21), (0.49, 0.20), (0.40, 0.19), (0.33, 0.18)],
    [(0.77, 0.16), (0.68, 0.17), (0.58, 0.18), (0.49, 0.18), (0.42, 0.17)],
]
DEFENDED = [  # §3, against a Defenderse rerolling its failures
    [(0.19, 0.39), (0.11, 0.23), (0.06, 0.13), (0.03, 0.07), (0.01, 0.04)],
    [(0.36, 0.33), (0.22, 0.23), (0.13, 0.16), (0.08, 0.10), (0.04, 0.07)],
    [(0.50, 0.27), (0.34, 0.23), (0.22, 0.18), (0.14, 0.13), (0.08, 0.09)],
    [(0.62, 0.22), (0.45, 0.21), (0.31, 0.18), (0.21, 0.14), (0.14, 0.11)],
    [(0.71, 0.17), (0.54, 0.19), (0.40, 0.18), (0.28, 0.15), (0.20, 0.12)],
]


@pytest.mark.parametrize(("table", "rerolls"), [(TABLE, False), (DEFENDED, True)])
def test_the_digest_opposed_tables(table: list, rerolls: bool) -> None:
    for n, row in enumerate(table, start=1):
        for m, cell in enumerate(row, start=1):
            win, tie = opposed(pool(n), pool(m, m if rerolls else 0))
            assert (round(float(win), 2), round(float(tie), 2)) == cell, (n, m)


def test_knockout_roll_marks() -> None:
    """§7: an odd die rolled again once: each die marks with 3/4, independently."""
    assert knockout(2) == {0: Fraction(1, 16), 1: Fraction(6, 16), 2: Fraction(9, 16)}


# --- §11: the worked examples -------------------------------------------------------------


def test_v1_counting() -> None:
    assert count([5, 6, 3, 1]) == 3


def v2_fight() -> ScriptedDuel:
    """A (INI 6, knife) and B (INI 5) within reach; both bid nothing, A acts first."""
    fight = duel(fighter(3, 3, melee="knife"), fighter(2, 3), (5, 5.5))
    plan(fight)
    return fight


def test_v2_danar_against_danar() -> None:
    fight = v2_fight()
    fight.act(A.DANAR)
    assert fight.seat == 1 and fight.state.phase == Phase.REACT
    fight.act(A.REACT_DANAR, 6, 2, 5, 5, 5, 1, 4, 1)  # 3 against 2; the knife's 2d
    b = fight.state.fighters[1]
    assert crossed(b) == [1, 4] and b.incap == 1
    assert "Marked (B)'s Initiative Turn" not in fight.log()  # its turn was spent reacting
    assert fight.state.round == 2 and fight.state.phase == Phase.PLAN


def test_v3_danar_against_defenderse() -> None:
    fight = v2_fight()
    fight.act(A.DANAR)
    fight.act(A.REACT_DEFEND, 6, 2, 4, 5, 1, 3, 6, 2)  # 2; B 1, rerolls 1 and 3 -> 6, 2: 3
    assert "Marked (B) fends it off" in fight.log()
    assert "Marked (B): Lucha [5, 1, 3] rerolled to [5, 6, 2] = 3" in fight.log()  # item 13
    assert fight.state.fighters[1].incap == 0 and fight.state.fighters[0].incap == 0


def test_v4_a_tie_does_nothing() -> None:
    fight = v2_fight()
    fight.act(A.DANAR)
    fight.act(A.REACT_DANAR, 5, 5, 2, 6, 1, 1)
    assert "A tie: nothing happens" in fight.log()
    assert "Marked (B)'s Initiative Turn" not in fight.log() and fight.state.round == 2


def test_v5_incapacitar_and_the_knockout_roll() -> None:
    fight = duel(fighter(3, 4, melee="unarmed"), fighter(2, 3), (5, 5.5))  # A's 2d
    plan(fight)
    fight.act(A.INCAPACITAR)
    assert not fight.mask()[A.REACT_INCAPACITAR]  # §5: not against Incapacitar
    fight.act(A.REACT_DANAR, 6, 6, 1, 5, 2, 2, 3, 4, 2)  # 3 dice: 4 vs 1; knockout [3, 4], 3 -> 2
    b = fight.state.fighters[1]
    assert b.incap == 2 and crossed(b) == []


def test_s1_and_v6_a_push_into_the_wall() -> None:
    """S1 (seed): pushed 3 m with a wall 2 m behind: 2 m, then 3 Non-Lethal dice. V6: with
    one PV, 3.5 m and still 3 dice. The winner spends its PV once it has won (§8.2)."""
    for spend, spent in ((A.PUSH_0, 0), (A.PUSH_1, 1)):
        fight = duel(fighter(5, 3), fighter(2, 3), (9.5, 10))  # B 2 m from the right wall
        plan(fight)
        fight.act(A.DESPLAZAR)
        fight.act(A.REACT_DANAR, 6, 6, 6, 1, 1, 1)  # A wins: its push's PV to choose
        assert fight.state.phase == Phase.PUSH and fight.seat == 0
        assert fight.mask()[[A.PUSH_0, A.PUSH_1, A.PUSH_2]].all() and not fight.mask()[A.PUSH_3]
        fight.act(spend, 2, 5, 4)
        a, b = fight.state.fighters
        assert b.position == 24 and a.position == 19  # B at the wall; A stays (§10 #27)
        assert crossed(b) == [2, 4] and b.incap == 2
        assert a.pv == 2 - spent
        assert "pushes Marked (B) 2.0 m" in fight.log() and "into the wall" in fight.log()


def test_a_push_spends_as_many_pv_as_the_winner_wants() -> None:
    """Item 9, seed: "más medio metro por cada Punto de Ventaja que el vencedor quiera
    emplear": a winner holding 3 spends all 3, 3 m + 1.5 m, with room to spare; a winner
    without PV has no choice to make."""
    fight = duel(fighter(5, 3, pv=3), fighter(2, 3), (1, 1.5))
    plan(fight)
    fight.act(A.DESPLAZAR)
    fight.act(A.REACT_DANAR, 6, 6, 6, 1, 1, 1)
    fight.act(A.PUSH_3)
    a, b = fight.state.fighters
    assert a.pv == 0 and b.position == 2 * (1.5 + 4.5) and "(+3 PV)" in fight.log()
    fight = duel(fighter(5, 3, pv=0), fighter(2, 3), (1, 1.5))
    fight.act(A.BID_0)  # side B's plan; side A, without PV, has none to make
    fight.act(A.DESPLAZAR)
    fight.act(A.REACT_DANAR, 6, 6, 6, 1, 1, 1)
    assert fight.state.phase != Phase.PUSH and fight.state.fighters[1].position == 2 * 4.5


def test_v7_no_push_against_a_wall_under_a_metre_away() -> None:
    fight = duel(fighter(5, 3), fighter(2, 3), (11, 11.5))  # B 0.5 m from its wall
    plan(fight)
    assert not fight.mask()[A.DESPLAZAR] and not fight.mask()[A.DESPLAZAR_RETREAT]
    fight = duel(fighter(5, 3), fighter(2, 3), (0.5, 1))  # the initiator 0.5 m from its wall
    plan(fight)
    fight.act(A.DANAR)
    assert not fight.mask()[A.REACT_DESPLAZAR]


def test_v8_repeated_values_are_ignored() -> None:
    b = duel(fighter(3, 3), fighter(2, 3), (5, 5.5)).state.fighters[1]
    b.crossed[3] = b.crossed[4] = True  # both 3s
    assert wound(b, [3, 6, 3], lethal=True) == [6] and b.incap == 1


def test_v9_sprint() -> None:
    for faces, metres in (([6, 5, 1], 13), ([1, 2, 3], 11)):
        fight = duel(fighter(3, 3), fighter(2, 3), (14, 16), arena=30)
        plan(fight)
        fight.act(A.SPRINT, *faces)
        assert fight.state.fighters[0].position == 2 * (14 - metres)


def test_v10_advantageous_position() -> None:
    fight = duel(fighter(3, 2, ini=9), fighter(2, 3), (4, 7), advantageous_position=True)
    plan(fight)
    fight.act(A.POSITION_DANAR, 5, 6, 2)
    assert fight.state.fighters[0].bonus == 2
    fight.act(A.REACT_DANAR, 5, 1, 1, 1, 1, 1, 1, 1)  # [5, 1] = 1 + 2 = 3 against 0; 3d
    assert "Lucha [5, 1] = 3 (+2 from position)" in fight.log()


def test_v10_a_failed_position_leaves_only_defenderse() -> None:
    fight = duel(fighter(3, 2, ini=9), fighter(2, 3), (4, 7), advantageous_position=True)
    plan(fight)
    fight.act(A.POSITION_DANAR, 1, 2, 4)
    assert fight.seat == 1 and fight.state.fighters[0].defend_only
    fight.act(A.DANAR)
    assert np.flatnonzero(fight.mask()).tolist() == [A.REACT_DEFEND]


def test_v11_the_task_keeps_its_place_in_the_order() -> None:
    """V11, with a duel's one task (escape): INI 2 x Físico; attacked first (here by a
    shot: no melee reaches beyond 7 m), the task still happens at its Initiative Turn."""
    c = fighter(2, 4)
    d = fighter(3, 3, ranged="pistol", disparo=3)
    fight = duel(c, d, (0.5, 9))
    assert fight.mask(0)[A.ESCAPE]
    fight.act(A.ESCAPE)  # side B has no plan to make: bids are closed (item 12)
    assert fight.state.fighters[0].initiative == 4 and fight.seat == 1
    fight.act(A.SHOOT, 5, 3, 1, 1, 3, 5)  # a hit; 3 odd damage dice on free boxes
    assert fight.state.result is not None and fight.state.result.winner is None
    assert "Marked (A) escapes" in fight.log()


def test_escape_as_a_loss() -> None:
    fight = duel(fighter(2, 4), fighter(3, 3), (0.5, 9), escape_is_loss=True)
    fight.act(A.ESCAPE)  # side B has no plan to make: bids are closed (item 12)
    fight.act(A.RETREAT)
    assert fight.state.result.winner == 1


def test_v12_the_fourth_incapacitation_box_ends_the_duel() -> None:
    fight = v2_fight()
    fight.state.fighters[1].incap = 3
    fight.act(A.DANAR)
    fight.act(A.REACT_DANAR, 6, 6, 6, 1, 1, 2, 1)  # B's pool 3 - 1 (wounded, §10 #13)
    assert fight.state.result.winner == 0 and "is incapacitated" in fight.state.result.reason


def test_v13_dying_after_the_fight_is_reported_not_rolled() -> None:
    """§9 (item 8): B ends the fight with Vitality {1, 2, 3, 3, 4} crossed, 5 of 8: dying,
    in `info` only. V13's Físico check comes after the duel: no die is rolled for it, so
    the register stays as the fight left it (before, it could cross box 6 too)."""
    fight = v2_fight()
    b = fight.state.fighters[1]
    for box in (0, 1, 3, 4):  # 1, 2, 3, 3
        b.crossed[box] = True
    b.incap = 3
    fight.act(A.DANAR)
    fight.act(A.REACT_DANAR, 6, 6, 6, 1, 1, 4, 1)  # box 4: Incapacitation 4, out
    assert crossed(b) == [1, 2, 3, 3, 4] and b.incap == 4
    assert fight.state.aftermath() == {"dying": (False, True)}
    assert fight.state.result.reason == "Marked (B) is incapacitated"


# --- the turn: bids, order, reactions --------------------------------------------------------


def test_the_higher_bid_acts_first_and_pays() -> None:
    fight = duel(fighter(2, 3), fighter(3, 3), (5, 5.5))  # B leads the INI order
    plan(fight, A.BID_1, A.BID_0)
    assert fight.seat == 0 and fight.state.fighters[0].pv == 1
    fight = duel(fighter(2, 3), fighter(3, 3), (5, 5.5))
    plan(fight, A.BID_2, A.BID_2)  # equal bids: INI order, nobody pays
    assert fight.seat == 1 and [f.pv for f in fight.state.fighters] == [2, 2]


def test_a_tie_of_ini_and_lucha_is_rolled() -> None:
    scenario = Scenario("test", "a test", ("marked", "marked"), (5, 5.5))
    fight = ScriptedDuel(DunwichRuleset(scenario, catalog=CATALOG), [])
    fight.act(A.BID_0)
    fight.act(A.BID_0, 2)
    assert fight.seat == 1


def test_the_sealed_bid_stays_sealed() -> None:
    """Whatever side A's plan, side B sees and may do the same until both are in."""
    seen = set()
    for bid in (A.BID_0, A.BID_1, A.BID_2):
        fight = duel(fighter(3, 3), fighter(3, 3), (5, 5.5))
        fight.act(bid)
        assert fight.seat == 1
        seen.add((fight.ruleset.observe(fight.state, 1).tobytes(), fight.mask().tobytes()))
    assert len(seen) == 1


def test_a_target_that_already_acted_reacts_and_loses_nothing() -> None:
    fight = duel(fighter(3, 3), fighter(2, 3), (2, 6))
    plan(fight)
    fight.act(A.RETREAT)  # A's Initiative Turn: 7 m back (to the wall, 2 m)
    assert fight.seat == 1
    fight.act(A.ADVANCE)
    assert fight.state.round == 2


def test_an_initiative_tie_shows_the_die_that_breaks_it() -> None:
    """§10 #1 (issue 29, item 13): equal INI and Lucha: a die decides, and it is told."""
    fight = duel(fighter(3, 3), fighter(3, 3), (4, 8))
    fight.act(A.BID_0)
    fight.act(A.BID_0, 2)  # the tie's die: side B
    assert "INI and Lucha tie: a die gives the turn to Marked (B)" in fight.log()
    assert fight.seat == 1


def test_a_pool_read_by_its_success_classes_has_the_pools_odds() -> None:
    """An OpenSpiel chance node's outcomes of a Lucha or check pool (`SUCCESS_CLASSES`:
    1-4, 5, 6) give the pool's exact distribution of successes (§3)."""
    for size in range(7):
        read: dict[int, Fraction] = {}
        for p, faces in pool_outcomes(size, 6, SUCCESS_CLASSES):
            read[count(faces)] = read.get(count(faces), Fraction(0)) + p
        assert read == pool(size), size
