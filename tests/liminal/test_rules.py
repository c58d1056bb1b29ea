"""Liminal: the digest's worked examples (§11) replayed with scripted dice, and the exact
odds of its tests (§3), asserted as fractions."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.liminal.observation import OBSERVATION_SPEC
from duelo.envs.liminal.odds import QUICK_GRAB_CL, STANDARD_CL, Grade, at_least, challenge, chances
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import OUT, Character, Scenario, load_catalog
from duelo.envs.liminal.state import Action, Phase

CATALOG = load_catalog()


def character(name: str, **changes: object) -> Character:
    return dataclasses.replace(CATALOG.characters[name], **changes)


def duel(
    a: Character, b: Character, distance: int, opening: list[int], **options: object
) -> ScriptedDuel:
    """`a` against `b` at `distance`; `opening` scripts the initiative roller (d2) and its 2d6."""
    scenario = Scenario("test", "a test", distance, (a.id, b.id))
    return ScriptedDuel(LiminalRuleset(scenario, (a, b), options, CATALOG), opening)


# seat 0 rolls initiative (d2 face 1) and wins it with a double six
A_FIRST = [1, 6, 6]


# --- §3: the test and its odds ----------------------------------------------------------


def test_the_2d6_table() -> None:
    """Digest §3: S(k) * 36 for k = 2..13."""
    assert [at_least(k) * 36 for k in range(2, 14)] == [36, 35, 33, 30, 26, 21, 15, 10, 6, 3, 1, 0]


@pytest.mark.parametrize(
    ("attack", "defence", "hit", "crit"),
    [
        (0, 0, Fraction(6, 36), 0),
        (0, 1, Fraction(3, 36), 0),
        (1, 0, Fraction(21, 36), Fraction(1, 36)),
        (1, 3, Fraction(6, 36), 0),
        (2, 1, Fraction(21, 36), Fraction(1, 36)),
        (3, 0, Fraction(30, 36), Fraction(6, 36)),
        (3, 3, Fraction(15, 36), 0),
    ],
)
def test_opposed_hit_and_critical_chances(
    attack: int, defence: int, hit: Fraction, crit: Fraction
) -> None:
    """Digest §3 table: P(hit) = S(8 + D + u - A), P(crit) = S(13 + D + u - A)."""
    odds = chances(attack, challenge(STANDARD_CL + defence, attack))
    assert odds[Grade.SUCCESS] + odds[Grade.CRITICAL] == hit and odds[Grade.CRITICAL] == crit


def test_fixed_challenges() -> None:
    """Digest §3: the stance at 8, the quick grab at 12 (impossible unskilled)."""
    stance = chances(2, challenge(STANDARD_CL, 2))
    assert stance[Grade.SUCCESS] + stance[Grade.CRITICAL] == Fraction(26, 36)
    assert stance[Grade.CRITICAL] == Fraction(3, 36)
    grab = [chances(a, challenge(QUICK_GRAB_CL, a))[Grade.MISS] for a in (0, 1, 2, 3)]
    assert [1 - g for g in grab] == [0, Fraction(3, 36), Fraction(6, 36), Fraction(10, 36)]


# --- §11: the worked examples -------------------------------------------------------------


def v1(melee: int = 2) -> ScriptedDuel:
    """V1: a swordsman (Melee `melee`) against a knife-fighter with Athletics 1, Melee 2."""
    attacker = character("duelist", melee=melee)
    defender = character("thug", athletics=1, melee=2)
    return duel(attacker, defender, 0, A_FIRST)


def test_v1_opposed_melee_attack() -> None:
    fight = v1()
    fight.act(Action.HOLD_MELEE, 4, 5, 3)  # 9 + 2 = 11 vs 10: hit; 1d6 3 + 3
    assert "= 11 vs 10 -> success" in fight.log()
    assert fight.state.fighters[1].endurance == 3


@pytest.mark.parametrize(
    ("melee", "faces", "verdict"),
    [(2, (3, 5), "success"), (2, (3, 4), "miss"), (0, (6, 5), "miss")],
)
def test_v1_ties_succeed_and_the_unskilled_face_plus_2(
    melee: int, faces: tuple[int, int], verdict: str
) -> None:
    fight = v1(melee)
    damage = (1,) if verdict == "success" else ()
    fight.act(Action.HOLD_MELEE, *faces, *damage)
    cl = 10 if melee else 12
    assert f"vs {cl} -> {verdict}" in fight.log()


def v2(distance: int) -> ScriptedDuel:
    """V2: a shooter with Shoot 3 and a pistol against Athletics 1, Endurance 9."""
    shooter = character("gunman", shoot=3)
    target = character("thug", athletics=1)
    return duel(shooter, target, distance, A_FIRST)


def test_v2_ranged_critical_with_an_extra_die() -> None:
    fight = v2(3)
    fight.act(Action.HOLD_SHOOT, 6, 5)  # 11 + 3 = 14 vs 9: critical at 9 + 5
    assert fight.state.phase == Phase.CRIT_ATTACK
    fight.act(Action.CRIT_DAMAGE, 2, 4)  # 2 + 3 + 4 = 9
    assert fight.state.fighters[1].endurance == 0
    assert fight.state.result.winner == 0 and fight.state.result.reason == "Thug is down"


def test_v2_adjacent_the_pistol_takes_minus_2() -> None:
    fight = v2(0)
    fight.act(Action.HOLD_SHOOT, 6, 5, 1)  # 11 + 3 - 2 = 12: a hit, not a critical
    assert "= 12 vs 9 -> success" in fight.log() and fight.state.phase == Phase.MAIN


def v3(stance: tuple[int, int]) -> ScriptedDuel:
    """V3: a defender with Athletics 2, Melee 0 and a knife acts first and takes the stance."""
    defender = character("thug", athletics=2, melee=0, endurance=10)
    attacker = character("brute", melee=1, strength="none")
    fight = duel(defender, attacker, 0, A_FIRST)
    fight.act(Action.HOLD_DEFEND, *stance)
    return fight


def test_v3_the_defensive_stance_halves_damage() -> None:
    fight = v3((3, 3))  # 6 + 2 = 8 vs 8: success, not a critical
    assert fight.state.fighters[0].defending
    fight.act(Action.HOLD_MELEE, 5, 4, 5)  # machete: 9 + 1 = 10 vs 10; 5 + 2 = 7, halved
    assert fight.state.fighters[0].endurance == 7
    assert fight.state.current == 0 and fight.state.round == 2
    assert not fight.state.fighters[0].defending  # cleared at the start of its turn


def test_v3_a_critical_stance_may_withdraw() -> None:
    fight = v3((6, 5))  # 11 + 2 = 13: critical
    assert fight.state.phase == Phase.CRIT_DEFEND
    fight.act(Action.DEFEND_WITHDRAW)
    outcome = fight.state.result
    assert outcome.winner == 1 and outcome.reward(0) == -0.5 and outcome.reward(1) == 0.5


def test_v5_initiative_fast_move_and_quick_recovery() -> None:
    roller = character("gunman", perception=1)
    rival = character("hunter", perception=2)
    fight = duel(roller, rival, 0, [1, 5, 5])  # 10 + 1 = 11 vs 10: the roller acts first
    assert fight.state.first == 0 and fight.seat == 0
    runner = character("thug", athletics=1)
    fight = duel(runner, character("brute"), 0, A_FIRST)
    fight.act(Action.FAST_RETREAT, 2, 4)  # engaged: 6 + 1 = 7 vs 8, fail: one step only
    assert fight.state.distance == 1
    grabber = character("thug", athletics=2)
    fight = duel(grabber, character("brute"), 0, A_FIRST)
    fight.state.fighters[0].dropped, fight.state.fighters[0].held = (0,), None
    fight.act(Action.RECOVER, 6, 4)  # 10 + 2 = 12 vs 12: the weapon and a bonus action
    assert fight.state.fighters[0].held == 0 and fight.state.phase == Phase.BONUS
    assert fight.seat == 0


def test_a_fast_move_s_test_is_a_success_not_a_critical() -> None:
    """§10 #11 (issue 29, item 17): 12 + 1 = 13 vs 8 would grade a critical, which means
    nothing for a move: it is told as a success, and the runner takes both steps."""
    fight = duel(character("thug", athletics=1), character("brute"), 0, A_FIRST)
    fight.act(Action.FAST_RETREAT, 6, 6)
    log = fight.log()
    assert "Fast move: Thug 2d6 [6, 6] +1 = 13 vs 8 -> success" in log, log
    assert "moves fast (2 steps)" in log and fight.state.distance == 2


def test_a_retreat_out_past_far_withdraws() -> None:
    fight = duel(character("gunman"), character("duelist"), 5, A_FIRST)
    assert fight.mask()[Action.RETREAT] and not fight.mask()[Action.RETREAT_SHOOT]
    fight.act(Action.RETREAT)
    assert fight.state.result.winner == 1 and fight.state.result.stake == 0.5


def test_a_fast_retreat_from_far_ends_out_within_the_observed_range() -> None:
    """Two steps from 5 would be 7; the track ends at OUT, the top of the observed range."""
    fight = duel(character("gunman"), character("duelist"), 5, A_FIRST)
    fight.act(Action.FAST_RETREAT)  # the duelist cannot shoot at 5: no test, two steps
    assert fight.state.result.winner == 1 and fight.state.distance == OUT
    assert fight.ruleset.observe(fight.state, 0)[OBSERVATION_SPEC.index("range")] == OUT


def test_social_surrender_at_half_endurance_else_shaken() -> None:
    """Digest §10 #14: a success forces surrender at <= half Endurance, else -2 next test."""
    talker = character("duelist", social=3)
    fight = duel(talker, character("thug"), 1, A_FIRST)
    fight.act(Action.HOLD_SOCIAL, 4, 4)  # 8 + 3 = 11 vs 9: success, the rival unhurt
    assert fight.state.fighters[1].shaken
    fight.act(Action.HOLD_DEFEND, 6, 1)  # shaken: 7 + 1 - 2 = 6 vs 8, and steady again
    assert "= 6 vs 8 -> miss" in fight.log() and not fight.state.fighters[1].shaken
    fight.state.fighters[1].endurance = 4  # 4 <= 9 / 2
    fight.act(Action.HOLD_SOCIAL, 4, 4)
    assert fight.state.result.winner == 0 and "surrenders" in fight.state.result.reason
