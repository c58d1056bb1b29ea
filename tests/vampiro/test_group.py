"""Vampiro fights of several a side (digest §13), replayed with scripted dice: every die
each decision rolls is scripted and consumed (`ScriptedDuel`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from duelo.envs.core.config import ConfigError
from duelo.envs.core.dice import chance_outcomes
from duelo.envs.core.testing import ScriptedDuel, check_ruleset
from duelo.envs.vampiro.group import VampiroGroupRuleset
from duelo.envs.vampiro.group_observation import GROUP_SPEC
from duelo.envs.vampiro.group_setup import GroupScenario, Post, load_group_catalog
from duelo.envs.vampiro.group_state import ACTION_IDS as ID
from duelo.envs.vampiro.odds import success_chance
from duelo.envs.vampiro.setup import Character, Damage
from duelo.envs.vampiro.state import Phase
from tests.test_properties import redeal_declarations

CATALOG = load_group_catalog()
L, B = Damage.LETHAL, Damage.BASHING


def fighter(name: str, **stats: Any) -> Character:
    return Character(id=name.lower(), name=name, **stats)


def fight(
    side_a: list[tuple[Character, float]],
    side_b: list[tuple[Character, float]],
    opening: tuple[int, ...],
    **options: Any,
) -> ScriptedDuel:
    scenario = GroupScenario(
        "test",
        "",
        tuple(Post(c.id, p) for c, p in side_a),
        tuple(Post(c.id, p) for c, p in side_b),
    )
    characters = tuple(c for c, _ in side_a + side_b)
    ruleset = VampiroGroupRuleset(scenario, characters, options or None, CATALOG)
    return ScriptedDuel(ruleset, opening)


# --- S13-1: interleaved declarations, two shots at two targets, two dodges -------------

S1_A1 = fighter(
    "A1", fuerza=2, destreza=3, resistencia=2, astucia=3, armas_fuego=3, weapon="light_pistol"
)
S1_A2 = fighter("A2", fuerza=3, destreza=2, resistencia=2, astucia=2, armas_cc=3, weapon="knife")
S1_B1 = fighter(
    "B1", fuerza=2, destreza=3, resistencia=2, astucia=2, armas_fuego=2, weapon="heavy_pistol"
)
S1_B2 = fighter("B2", fuerza=3, destreza=3, resistencia=3, astucia=1, pelea=2, esquivar=2)


def s13_1() -> ScriptedDuel:
    """Initiative d10s in id order: A1 4 -> 10, A2 7 -> 11, B1 3 -> 8, B2 8 -> 12."""
    return fight([(S1_A1, 0), (S1_A2, 10)], [(S1_B1, 15), (S1_B2, 11)], (4, 7, 3, 8))


def test_s13_1_declarations_interleave_across_sides() -> None:
    duel = s13_1()
    # declaration order B1, A1, A2, B2: the slowest first, whatever the side
    assert [f.declare_initiative for f in duel.state.fighters] == [10, 11, 8, 12]
    assert duel.seat == 2
    duel.act(ID["SHOOT_E0"])  # B1: shoot A1
    duel.act(ID["K0"])
    assert duel.seat == 0
    assert duel.field(0, "plan", "enemy0.shoot") == 1  # A1 sees B1's shot at it
    assert duel.field(0, "targets", "enemy0.first") == 1  # row 1: A1 itself
    duel.act(ID["SHOOT_TWICE_E0_E1"])  # A1: shoot B1, then B2
    duel.act(ID["K0"])
    assert duel.seat == 1
    assert duel.field(1, "plan", "ally1.shoot_twice") == 1  # A2 sees its ally's plan
    duel.act(ID["WEAPON_STRIKE_E1"])  # A2: knife B2
    duel.act(ID["K0"])
    assert duel.seat == 3
    seen = duel.observation(3)["plan"]
    assert seen[:, 0].tolist() == [0, 1, 0, 1, 1, 0]  # B2 sees all three before it
    duel.act(ID["DODGE_TWICE"])
    # order B2 12, A2 11, A1 10, B1 8; B2's first action is a Dodge, held. A2's knife
    # (Dex 2 + Melee 3): [8, 6, 2, 1, 7] = 2; B2's first dodge (5 - 2 = 3 dice):
    # [9, 3, 6] = 2: a miss. A1's first shot at B1 (15 m, 6 - 2 = 4 dice) waits on B1,
    # who has no defence but an untaken shot: it may abort
    duel.act(ID["K0"], 8, 6, 2, 1, 7, 9, 3, 6)
    assert duel.seat == 2 and duel.state.phase == Phase.INTERRUPT
    assert duel.field(2, "attacker", "enemy0") == 1
    # [10, 5, 6, 1] = 1: a hit, no extra; damage 4 dice [6, 7, 2, 3] = 2; a mortal
    # without armour soaks no lethal. Then B1 (Hurt) shoots A1 with 5 - 1 = 4 dice; A1
    # has its second shot untaken: it may abort
    duel.act(ID["NO_ABORT"], 10, 5, 6, 1, 6, 7, 2, 3)
    assert duel.state.fighters[2].health == [L, L]
    assert duel.seat == 0 and duel.state.phase == Phase.INTERRUPT
    # [3, 2, 7, 9] = 2: 1 extra; damage 5 + 1 = 6 dice [6, 1, 8, 4, 6, 2] = 2. End of
    # turn: A1's second shot at B2 (11 m), 3 - 1 (Hurt, G8) = 2 dice [6, 10] = 2; B2's
    # second dodge (2 dice) [4, 6] = 1: a hit, no extra; damage 4 dice [5, 9, 1, 6] = 1.
    # The next turn's initiative: 5 each
    duel.act(ID["NO_ABORT"], 3, 2, 7, 9, 6, 1, 8, 4, 6, 2, 6, 10, 4, 6, 5, 9, 1, 6, 5, 5, 5, 5)
    a1, a2, b1, b2 = duel.state.fighters
    assert (a1.health, a2.health, b1.health, b2.health) == ([L, L], [], [L, L], [L])
    assert (a1.ammo, b1.ammo) == (16, 7)
    assert duel.state.round == 2 and duel.state.phase == Phase.DECLARE
    log = duel.log()
    assert "A1 rolls [6, 10] at 6: 2 net" in log and "B2 rolls [4, 6] at 6: 1 net" in log


# --- S13-2: Celerity, two delayers interrupting, a botch that hits an ally -------------

S2_A1 = fighter(
    "A1",
    fuerza=3,
    destreza=3,
    resistencia=3,
    astucia=2,
    pelea=3,
    vampire=True,
    generation=11,
    celeridad=2,
)
S2_A2 = fighter(
    "A2", fuerza=2, destreza=3, resistencia=2, astucia=2, armas_fuego=2, weapon="light_pistol"
)
S2_B1 = fighter("B1", fuerza=2, destreza=2, resistencia=2, astucia=2, pelea=2)
S2_B2 = fighter(
    "B2", fuerza=2, destreza=2, resistencia=2, astucia=1, armas_fuego=2, weapon="light_pistol"
)


def s13_2() -> ScriptedDuel:
    """Initiative d10s: A1 6 -> 11 + 2 unused Celerity = 13; A2 5 -> 10; B1 7 -> 11;
    B2 3 -> 6."""
    return fight([(S2_A1, 5), (S2_A2, 0)], [(S2_B1, 6), (S2_B2, 5.5)], (6, 5, 7, 3))


def test_s13_2_celerity_two_delayers_and_a_botch_that_hits_an_ally() -> None:
    duel = s13_2()
    assert [duel.seat, duel.state.declaring] == [3, [3, 1, 2, 0]]  # B2, A2, B1, A1
    duel.act(ID["SHOOT_E1"])  # B2: shoot A2
    duel.act(ID["K0"])
    duel.act(ID["DELAY"])  # A2
    duel.act(ID["K0"])
    duel.act(ID["DELAY"])  # B1
    duel.act(ID["K0"])
    assert duel.seat == 0
    duel.act(ID["STRIKE_E0"])  # A1: strike B1, one Celerity action (blood 6 -> 5)
    # A1 at 12 strikes B1, who has delayed: it may abort
    duel.act(ID["K1"])
    assert duel.state.fighters[0].blood == 5 and duel.state.fighters[0].initiative == 12
    assert duel.seat == 2 and duel.state.phase == Phase.INTERRUPT
    # 6 dice [8, 2, 3, 6, 4, 5] = 2: 1 extra; 3 + 1 = 4 dice [6, 2, 9, 7] = 3; B1 soaks
    # Stamina 2 [4, 8] = 1: 2 bashing. Then B1's own slot (11): it is offered to act
    duel.act(ID["NO_ABORT"], 8, 2, 3, 6, 4, 5, 6, 2, 9, 7, 4, 8)
    assert duel.state.fighters[2].health == [B, B]
    assert duel.seat == 2 and duel.state.phase == Phase.DELAYED
    duel.act(ID["WAIT"])
    # A2's slot (10): both are offered, sealed; both wait
    assert duel.state.asking == [2, 1]
    duel.act(ID["WAIT"])
    assert duel.seat == 1
    duel.act(ID["WAIT"])
    # before B2's slot (6): both act now, B1 (11) before A2 (10)
    assert duel.state.asking == [2, 1]
    duel.act(ID["STRIKE_E0"])  # B1 at A1
    assert duel.seat == 1
    assert duel.field(1, "plan", "enemy0.strike") == 0  # sealed: A2 does not see it
    duel.act(ID["SHOOT_E1"])  # A2 at B2
    # B1 strikes A1, who has its Celerity action untaken: A1 may abort
    assert duel.seat == 0 and duel.state.phase == Phase.INTERRUPT
    # B1 (Hurt) 2 + 2 - 1 = 3 dice [1, 3, 4]: a botch; B2 stands 0.5 m from A1: B1's
    # base Strength 2 bashing [7, 8] = 2, B2 soaks [3, 6] = 1: 1 bashing on B2. Then A2
    # shoots B2, who has its shot untaken: it may abort
    duel.act(ID["NO_ABORT"], 1, 3, 4, 7, 8, 3, 6)
    assert duel.state.fighters[3].health == [B]
    assert "B1 botches and hits B2" in duel.log()
    assert duel.seat == 3 and duel.state.phase == Phase.INTERRUPT
    # A2: 5 dice [6, 6, 2, 9, 1] = 2: 1 extra; 4 + 1 = 5 dice [6, 6, 7, 2, 1] = 2 lethal.
    # B2 at 6 shoots A2 with 2 + 2 - 1 = 3 dice [5, 4, 3]: a plain failure. End of turn:
    # A1's Celerity strike on B1, the full 6 dice [7, 7, 2, 1, 9, 10] = 3: 2 extra;
    # 3 + 2 = 5 dice [6, 8, 3, 1, 6] = 2; soak [6, 1] = 0: 2 bashing. Next turn: 5 each
    duel.act(
        ID["NO_ABORT"],
        *(6, 6, 2, 9, 1, 6, 6, 7, 2, 1),
        *(5, 4, 3),
        *(7, 7, 2, 1, 9, 10, 6, 8, 3, 1, 6, 6, 1),
        *(5, 5, 5, 5),
    )
    a1, a2, b1, b2 = duel.state.fighters
    assert (a1.health, a2.health, b1.health, b2.health) == ([], [], [B] * 4, [L, L, B])
    assert (a1.blood, a2.ammo, b2.ammo) == (5, 17, 17)
    assert "B2 rolls [5, 4, 3] at 6: 0 net" in duel.log()


# --- §13.1 G1: surrounded ------------------------------------------------------------

BRUTE = fighter("Brute", fuerza=3, destreza=2, resistencia=2, astucia=1, pelea=2, esquivar=2)
TARGET = fighter("Target", fuerza=2, destreza=3, resistencia=2, astucia=3, pelea=2, esquivar=2)


def surrounded(**options: Any) -> ScriptedDuel:
    """Two brutes declare strikes on Target (1 m each side); Target declares a strike and
    keeps a dodge. Initiative: Brutes 3 + 1 = 4 and 4 (tied), Target 10 + 6 = 16."""
    duel = fight([(BRUTE, 4), (BRUTE, 6)], [(TARGET, 5)], (1, 1, 10), **options)
    duel.act(ID["STRIKE_E0"])  # brute 0 (tied with brute 1: they declare blind)
    duel.act(ID["K0"])
    assert duel.field(1, "plan", "ally1.known") == 0  # a full tie: blind, ally or not
    duel.act(ID["STRIKE_E0"])
    duel.act(ID["K0"])
    duel.act(ID["ATTACK_DODGE_E0"])
    return duel


def test_two_melee_attackers_cost_a_difficulty_on_attack_and_defence() -> None:
    """G1: Target's strike (5 - 2 = 3 dice) and its dodge (5 - 3 = 2 dice) roll at 7."""
    duel = surrounded()
    duel.act(ID["K0"])
    # Target strikes brute 0, who may abort (its strike untaken): it keeps it
    assert duel.seat == 0 and duel.state.phase == Phase.INTERRUPT
    # [7, 6, 6] at 7: 1 net; damage 2 dice [6, 6] = 2, soak [3, 4] = 0: brute 0 Hurt.
    # The brutes, tied, strike at once: brute 0 (3 dice, Hurt) [6, 6, 2] = 2 against
    # the dodge [8, 8] = 2; brute 1 [6, 6, 2, 2] = 2: 1 extra, 4 dice [8, 9, 5, 4] = 2,
    # soak [1, 2] = 0. The next turn: 5 each
    duel.act(
        ID["NO_ABORT"],
        *(7, 6, 6, 6, 6, 3, 4),
        *(6, 6, 2, 8, 8),
        *(6, 6, 2, 2, 8, 9, 5, 4, 1, 2),
        5,
        5,
        5,
    )
    log = duel.log()
    assert "Target rolls [7, 6, 6] at 7: 1 net" in log
    assert "Target rolls [8, 8] at 7: 2 net" in log  # its dodge meets the first brute
    assert duel.state.fighters[2].health == [B, B]


def test_no_extra_difficulty_when_the_rule_is_off() -> None:
    duel = surrounded(multi_opponent_difficulty="off")
    duel.act(ID["K0"])
    duel.act(
        ID["NO_ABORT"],
        *(7, 6, 6, 1, 1, 1, 1, 3, 4),  # 3 net: 4 damage dice, none; brute 0 unhurt
        *(6, 6, 2, 2, 8, 8),
        *(6, 6, 2, 2, 8, 9, 5, 4, 1, 2),
        *(5, 5, 5),
    )
    log = duel.log()
    assert "Target rolls [7, 6, 6] at 6: 3 net" in log and "[8, 8] at 6: 2 net" in log


class _Enough(Exception):
    """Raised at the first die after the ones a test enumerates."""


class _First:
    """The engine's dice, stopped after `count` rolls: every outcome of those alone."""

    def __init__(self, inner: Any, count: int) -> None:
        self.inner, self.count = inner, count

    def roll(self, sides: int, purpose: str) -> int:
        if self.count == 0:
            raise _Enough
        self.count -= 1
        return int(self.inner.roll(sides, purpose))


def test_exact_odds_of_a_surrounded_strike_through_the_engine() -> None:
    """G1: Target's 3 dice at 7 hit with P(net >= 1 at 7) = 0.652, exactly, over every
    outcome of the engine's first three dice."""
    duel = surrounded()
    duel.act(ID["K0"])
    ruleset, opening = duel.ruleset, duel.state

    def strike(dice: Any) -> bool:
        state = opening.clone()
        try:
            ruleset.apply(state, 0, ID["NO_ABORT"], _First(dice, 3))
        except _Enough:
            pass
        line = next(e.text for e in state.log[len(opening.log) :] if "Target rolls" in e.text)
        return "at 7" in line and not line.endswith(": 0 net") and "botch" not in line

    hit = sum((p for p, landed in chance_outcomes(strike) if landed), Fraction(0))
    assert hit == success_chance(3, 7) == Fraction(163, 250)


# --- §13.2, §13.8: what a declaration shows ---------------------------------------------


def test_an_allys_later_declaration_stays_hidden_unless_plans_are_shared() -> None:
    """G2: A1 declares before its ally A2 and never sees A2's plan this turn; with
    `team_shared_plan` it does."""
    for shared in (False, True):
        duel = fight(
            [(S1_A1, 0), (S1_A2, 10)],
            [(S1_B1, 15), (S1_B2, 11)],
            (4, 7, 3, 8),
            team_shared_plan=shared,
        )
        for action in ("SHOOT_E0", "K0", "SHOOT_E0", "K0", "WEAPON_STRIKE_E1", "K0"):
            duel.act(ID[action])
        assert duel.field(0, "plan", "ally1.known") == (1 if shared else 0)
        assert duel.field(0, "plan", "enemy1.known") == 0  # B2 has not declared
        assert duel.field(2, "plan", "enemy1.known") == 0  # B1 declared first: sees none
        assert duel.field(2, "plan", "ally1.known") == 0


def test_a_hidden_declaration_hides_the_points_it_spent() -> None:
    """§13.8: the faster fighter's Willpower point stays uncounted for the slower."""
    duel = s13_2()
    for action in ("SHOOT_E1", "K0", "DELAY", "K0", "DELAY", "K0", "STRIKE_E0"):
        duel.act(ID[action])
    duel.act(ID["K1_WP"])
    a1 = duel.state.fighters[0]
    assert (a1.willpower, a1.blood) == (2, 5)
    assert duel.field(2, "willpower", "enemy0.points") == 3  # B1 declared before A1
    assert duel.field(2, "blood", "enemy0.points") == 6
    assert duel.field(1, "blood", "ally1.points") == 6


# --- §13.3 G4, §13.6, §13.9 ---------------------------------------------------------------

GUN = fighter(
    "Gun", fuerza=2, destreza=3, resistencia=2, astucia=3, armas_fuego=3, weapon="light_pistol"
)
RUNNER = fighter("Runner", fuerza=2, destreza=2, resistencia=2, astucia=1, esquivar=2)


def test_a_target_gone_loses_the_action_unless_retargeted() -> None:
    """G4: both guns shoot the first runner, one level from out; the first shot takes
    it out, and the second is lost, or passes to the other runner."""
    for retarget in (False, True):
        duel = fight(
            [(GUN, 0), (GUN, 1)],
            [(RUNNER, 10), (RUNNER, 12)],
            (9, 8, 1, 1),
            retarget_if_out=retarget,
        )
        duel.state.fighters[2].health = [B] * 6
        assert duel.state.declaring == [2, 3, 1, 0]
        for action in ("BLOCK_PARRY", "K0", "BLOCK_PARRY", "K0", "SHOOT_E0", "K0", "SHOOT_E0"):
            duel.act(ID[action])
        # gun 0: 6 dice [6, 6, 2, 2, 2, 2] = 2: 1 extra, 5 damage dice [6, 2, 2, 2, 2] = 1:
        # the runner is out; gun 1's shot is lost, or aimed at the other runner [2] x 6
        second = (2,) * 6 if retarget else ()
        duel.act(ID["K0"], 6, 6, 2, 2, 2, 2, 6, 2, 2, 2, 2, *second, 5, 5, 5)
        assert duel.state.fighters[2].out
        log = duel.log()
        assert ("Gun (A1) can no longer shoot" in log) != retarget
        assert ("Gun (A1) rolls [2, 2, 2, 2, 2, 2]" in log) == retarget


def test_without_an_ally_beside_the_target_a_botch_is_the_duels_mishap() -> None:
    """G6 off: B1's botch leaves it off balance; B2 takes nothing."""
    duel = fight(
        [(S2_A1, 5), (S2_A2, 0)], [(S2_B1, 6), (S2_B2, 5.5)], (6, 5, 7, 3), botch_hits_ally=False
    )
    for action in ("SHOOT_E1", "K0", "DELAY", "K0", "DELAY", "K0", "STRIKE_E0", "K1"):
        duel.act(ID[action])
    duel.act(ID["NO_ABORT"], 8, 2, 3, 6, 4, 5, 6, 2, 9, 7, 4, 8)
    for action in ("WAIT", "WAIT", "WAIT", "STRIKE_E0", "SHOOT_E1"):
        duel.act(ID[action])
    duel.act(ID["NO_ABORT"], 1, 3, 4)
    assert "B1 is off balance" in duel.log() and duel.state.fighters[3].health == []


def test_a_side_that_all_fled_draws_unless_flight_is_a_loss() -> None:
    """§13.9 G9: the runner gets beyond the brute's 30 m (no gun) and has fled."""
    brute = fighter("Brute", fuerza=3, destreza=2, resistencia=2, astucia=1, pelea=2)
    for loss in (False, True):
        duel = fight([(brute, 0)], [(RUNNER, 40)], (1, 1), flee_is_loss=loss)
        for action in ("CLOSE_E0", "K0", "OPEN", "K0"):
            duel.act(ID[action])
        result = duel.state.result
        assert result is not None and duel.state.fighters[1].fled
        assert result.winner == (0 if loss else None)


def test_both_sides_out_in_one_simultaneous_exchange_is_a_draw() -> None:
    """§13.9, §10 #32: tied brutes strike at once, each taking the other out."""
    brute = fighter("Brute", fuerza=3, destreza=2, resistencia=2, astucia=1, pelea=2)
    duel = fight([(brute, 0)], [(brute, 1)], (1, 1))
    for fighter_ in duel.state.fighters:
        fighter_.health = [B] * 5
    for action in ("STRIKE_E0", "K0", "STRIKE_E0"):
        duel.act(ID[action])
    # each: 4 - 2 = 2 dice [6, 6]: 1 extra; 4 damage dice [6] x 4; soak [1, 1]
    duel.act(ID["K0"], *(6, 6, 6, 6, 6, 6, 1, 1) * 2)
    result = duel.state.result
    assert result is not None and result.winner is None and result.reason == "both sides are out"


# --- conformance, hidden information, scenarios -------------------------------------------

VARIANTS = [
    {"scenario": s} for s in ("two_on_two", "three_on_three", "outnumbered", "crossfire")
] + [
    {
        "scenario": "three_on_three",
        "options": {
            "multi_opponent_difficulty": "all",
            "team_shared_plan": True,
            "retarget_if_out": True,
            "botch_hits_ally": False,
            "flee_is_loss": True,
            "fixed_initiative": True,
        },
    }
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: str(v))
def test_conformance_and_hidden_declarations(variant: dict[str, Any]) -> None:
    """The ruleset kit's checks, with the re-deal of every declaration and sealed choice
    a fighter may not see."""
    assert check_ruleset(lambda: VampiroGroupRuleset(**variant), range(6), redeal_declarations)


def test_the_hidden_check_catches_a_peek_at_a_later_declaration() -> None:
    """The re-deal check fails a ruleset that shows how later fighters declared."""

    class Peeking(VampiroGroupRuleset):
        def observe(self, state: Any, seat: int) -> Any:
            flat = super().observe(state, seat).copy()
            flat[GROUP_SPEC.index("turn")] = sum(f.choice or 0 for f in state.fighters)
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(Peeking, range(4), redeal_declarations)


def test_the_hidden_check_catches_a_peek_at_a_sealed_delay_choice() -> None:
    class Peeking(VampiroGroupRuleset):
        def observe(self, state: Any, seat: int) -> Any:
            flat = super().observe(state, seat).copy()
            flat[GROUP_SPEC.index("turn")] = sum(state.choices.values())
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(Peeking, range(40), redeal_declarations)


def test_a_scenario_refuses_a_side_too_large_and_a_position_off_the_line() -> None:
    post = Post("thug", 1)
    with pytest.raises(ValueError, match="1..3 a side"):
        GroupScenario("x", "", (post,) * 4, (post,))
    with pytest.raises(ValueError, match="must lie in"):
        GroupScenario("x", "", (Post("thug", -1),), (post,))


def test_the_fighters_must_match_the_scenario() -> None:
    with pytest.raises(ConfigError, match="fighters must name the scenario's 4 fighters"):
        VampiroGroupRuleset("two_on_two", fighters=("thug", "thug"))


def test_the_observation_has_a_row_per_slot() -> None:
    duel = s13_1()
    seen = duel.observation(2)  # B1: its ally B2, then A1 and A2
    assert seen["present"].tolist() == [1, 1, 0, 1, 1, 0]
    assert seen["range"].tolist() == [0, 4, 0, 15, 5, 0]
    assert seen["initiative"].tolist() == [8, 12, 0, 10, 11, 0]


def test_a_later_declaration_is_not_narrated_to_who_declared_before() -> None:
    """§13.8: B1 declared first; the narration keeps A1's, A2's and B2's declarations
    from a person at B1 until the turn is over, while A2 reads A1's and B2 reads all."""
    duel = s13_1()
    for action in ("SHOOT_E0", "K0", "SHOOT_TWICE_E0_E1", "K0", "WEAPON_STRIKE_E1", "K0"):
        duel.act(ID[action])
    state = duel.state

    def told(seat: int) -> str:
        return "\n".join(e.text for e in state.log if e.seen_by({seat}, state))

    assert "B1 declares: shoot at A1" in told(0)
    assert "A1 declares" not in told(2) and "A2 declares" not in told(2)
    assert "A1 declares: shoot twice at B1 then B2" in told(1)
    assert "A2 declares" in told(3) and "A2 declares" not in told(0)
    duel.act(ID["DODGE_TWICE"])
    duel.act(ID["K0"], 8, 6, 2, 1, 7, 9, 3, 6)
    duel.act(ID["NO_ABORT"], 10, 5, 6, 1, 6, 7, 2, 3)
    assert "B2 declares" not in told(2)  # the turn goes on
    duel.act(ID["NO_ABORT"], 3, 2, 7, 9, 6, 1, 8, 4, 6, 2, 6, 10, 4, 6, 5, 9, 1, 6, 5, 5, 5, 5)
    assert "A1 declares" in told(2) and "B2 declares" in told(2)  # turn 2: all told
