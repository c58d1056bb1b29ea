"""The rules review's findings in Liminal (issue 29, items 14-19), replayed with scripted
dice through the engine, and the expert's expected damage checked exactly against an
enumeration of the dice through the rules themselves."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.liminal.mob import LiminalMobRuleset, MobScenario
from duelo.envs.liminal.npcs import ExpertFighter, Side, attack_gain
from duelo.envs.liminal.observation import OBSERVATION_SPEC
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import Scenario
from duelo.envs.liminal.state import Action, Deed, Phase
from tests.liminal.test_mob import mob_fight
from tests.liminal.test_rules import A_FIRST, CATALOG, character, duel

A = Action


def test_a_second_disarm_does_not_give_back_the_first_weapon() -> None:
    """Item 14: the duelist knocks the gunman's pistol away, then the knife it drew; the
    gunman has nothing to shoot with (before, the second disarm overwrote the first and
    the pistol came back), and recovering brings back the pistol, its first weapon."""
    fight = duel(character("duelist"), character("gunman"), 0, A_FIRST)
    gunman = fight.state.fighters[1]
    fight.act(A.HOLD_MELEE, 6, 6)  # 12 + 3 = 15 vs 8 + max(1, 1) = 9: critical
    fight.act(A.CRIT_DISARM, 1)  # 1 + 3 = 4: 9 -> 5
    assert gunman.dropped == (0,) and gunman.held is None
    fight.act(A.HOLD_MELEE, 1, 1)  # the knife, drawn: 2 + 1 = 3 vs 11, a miss
    assert gunman.held == 1
    fight.act(A.HOLD_MELEE, 6, 6)
    fight.act(A.CRIT_DISARM, 1)  # 5 -> 1
    assert gunman.dropped == (0, 1) and gunman.held is None
    mask = fight.mask()
    assert not mask[[A.HOLD_SHOOT, A.RETREAT_SHOOT, A.ADVANCE_SHOOT]].any() and mask[A.RECOVER]
    assert fight.field(1, "status", "self.disarmed") == 1
    fight.act(A.RECOVER, 1, 1)  # the quick grab fails: the pistol, and the turn ends
    assert gunman.held == 0 and gunman.dropped == (1,)
    assert "Gunman recovers the pistol" in fight.log()


def test_listed_bare_hands_knocked_away_leave_the_fists_empty() -> None:
    """A loadout may list the bare hands; a disarming critical knocks that slot away, and
    the boxer's next punch is thrown with empty fists (before, drawing the dropped slot
    raised StopIteration)."""
    thug = CATALOG.characters["thug"]
    boxer = dataclasses.replace(thug, id="boxer", name="Boxer", weapons=("unarmed",))
    fight = duel(character("duelist"), boxer, 0, A_FIRST)
    fight.act(A.HOLD_MELEE, 6, 6)  # 12 + 3 + 2 (a sword against fists) = 17 vs 10: critical
    fight.act(A.CRIT_DISARM, 1)  # 1 + 3 = 4: 9 -> 5
    fists = fight.state.fighters[1]
    assert fists.dropped == (0,) and fists.held is None
    fight.act(A.HOLD_MELEE, 6, 6, 3)  # 12 + 2 = 14 vs 8 + 3 = 11; 1d6 3 bare-handed
    assert fists.held is None and not fists.drew_this_round
    assert fight.state.fighters[0].endurance == 7


def scenario(**places: tuple[bool, bool]) -> Scenario:
    return Scenario("test", "a test", 0, ("brute", "thug"), **places)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("places", "notes"),
    [
        ({"high_ground": (True, False)}, ["high ground +2"]),
        ({"high_ground": (True, True)}, []),
        ({"unseen": (False, True)}, ["target unseen -2"]),
        ({"unseen": (True, True)}, []),
    ],
)
def test_the_same_modifier_on_both_sides_cancels(
    places: dict[str, tuple[bool, bool]], notes: list[str]
) -> None:
    """Item 15, seed L67: "si ambos bandos ... tienen la misma ventaja o desventaja ... los
    modificadores se cancelan". The brute (Melee 2) swings at the thug (CL 10)."""
    ruleset = LiminalRuleset(scenario(**places), catalog=CATALOG)
    fight = ScriptedDuel(ruleset, A_FIRST)
    fight.act(A.HOLD_MELEE, 1, 1)  # a miss whatever the modifiers: no damage die
    line = next(e.text for e in fight.state.log if "attacks with" in e.text)
    bonus = 2 * len([n for n in notes if "+2" in n]) - 2 * len([n for n in notes if "-2" in n])
    assert all(note in line for note in notes) and ("(" in line) == bool(notes)
    assert f"2d6 [1, 1] {2 + bonus:+d} = {4 + bonus} vs 10" in fight.log()


def test_a_mob_never_retreats() -> None:
    """Item 16, §12: "it never retreats unless broken" (and a broken mob is gone)."""
    for distance in (0, 1, 3):
        fight = mob_fight(distance=distance, opening=(1, 1))  # the mob acts first
        mask = fight.mask()
        retreats = [A.RETREAT, A.RETREAT_DEFEND, A.RETREAT_SHOOT, A.FAST_RETREAT]
        assert fight.seat == 1 and not mask[retreats].any() and mask.any()


def test_the_mob_aftermath_saves_members_with_medicine() -> None:
    """Item 18, V4's aftermath: a healer with Medicine 2 rolls (5, 4) -> 11, three above
    8, capped at the two members down -> two saved; reported in `info` only."""
    fight = mob_fight(members=4, social=1, medicine=2)
    fight.act(A.HOLD_MELEE, 3, 4, 4)  # 7 + 2 + 2 = 11 vs 8; 4 + 2 = 6: pool 12 -> 6
    fight.act(A.HOLD)  # the mob waits
    fight.act(A.HOLD_SOCIAL, 3, 5, 5, 4)  # 8 + 1 = 9 vs 8: two of four down, it breaks
    assert fight.state.result.winner == 0
    assert fight.state.aftermath() == {"members_downed": 2, "members_saved": 2}
    assert "Medicine 2d6 [5, 4] +2 = 11; 2 of 2 downed saved" in fight.log()


def test_no_medicine_no_roll_and_a_lost_fight_saves_nobody() -> None:
    fight = mob_fight(members=2)
    fight.act(A.HOLD_MELEE, 3, 4, 6)  # 6 + 2 = 8: the whole mob of two (pool 6) is down
    assert fight.state.aftermath() == {"members_downed": 2, "members_saved": 0}
    fight = mob_fight(members=10, armed=True, opening=(1, 1), medicine=3, endurance=1)
    fight.act(A.HOLD_MELEE, 5, 5, 1)  # level 3: 13 vs 10; 1 + 1: the hero is down
    assert fight.state.result.winner == 1
    assert fight.state.aftermath() == {"members_downed": 0, "members_saved": 0}


def test_the_aftermath_reaches_the_gymnasium_info() -> None:
    env = gym.make("duelo/LiminalMob-v2", opponent="aggressive")
    _, info = env.reset(seed=3)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert set(info) >= {"members_downed", "members_saved", "winner"}
    assert "members_downed" not in env.reset(seed=3)[1]


STAT_BLOCKS = {
    "thug": {"melee": 2, "athletics": 1, "perception": 1, "social": 1, "conviction": 1},
    "gunman": {"shoot": 2, "athletics": 1, "melee": 1, "perception": 1},
    "brute": {"melee": 2, "athletics": 2},
    "duelist": {"melee": 3, "athletics": 2},
    "hunter": {"shoot": 3, "athletics": 1, "perception": 2},
    "supernatural": {"melee": 3, "athletics": 3, "perception": 2},
}
"""Digest §10 #4's skills for each preset."""


def test_the_presets_hold_the_digests_skills_and_no_others() -> None:
    skills = ("melee", "shoot", "athletics", "perception", "social", "conviction", "medicine")
    for name, given in STAT_BLOCKS.items():
        block = CATALOG.characters[name]
        assert {s: getattr(block, s) for s in skills if getattr(block, s)} == given, name


# --- the expert's odds (item 19) ----------------------------------------------------------


class Faces:
    """Dice that hand out `faces` in order; what a path leaves unrolled is ignored."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def roll(self, sides: int, purpose: str = "") -> int:
        assert sides == 6, purpose
        return self.faces.pop(0)


def exact_damage(fight: ScriptedDuel, action: int) -> Fraction:
    """The expected Endurance the target loses to `action`, every die enumerated through
    the rules (four faces cover the attack's 2d6, its 1d6 and a critical's +1d6, taken)."""
    seat = fight.seat
    total = Fraction(0)
    paths = list(itertools.product(range(1, 7), repeat=4))
    for faces in paths:
        state = fight.state.clone()
        dice: Any = Faces(faces)
        fight.ruleset.apply(state, seat, action, dice)
        if state.result is None and state.phase == Phase.CRIT_ATTACK:
            fight.ruleset.apply(state, seat, A.CRIT_DAMAGE, dice)
        total += fight.state.fighters[1 - seat].endurance - state.fighters[1 - seat].endurance
    return total / len(paths)


def situations() -> list[tuple[str, ScriptedDuel]]:
    brute = character("brute")
    tough_thug = character("thug", endurance=30)
    tough_gunman = character("gunman", endurance=30)
    out = [
        ("blade against a blade", duel(character("duelist"), tough_thug, 0, A_FIRST)),
        ("blade against a gun", duel(character("thug"), tough_gunman, 0, A_FIRST)),
        ("a pistol adjacent", duel(character("gunman"), tough_thug, 0, A_FIRST)),
        ("a shot at near", duel(character("gunman"), tough_thug, 1, A_FIRST)),
        ("an unskilled blade", duel(character("hunter"), tough_thug, 0, A_FIRST)),
    ]
    places = [
        ("high ground", {"high_ground": (True, False)}, 0, brute),
        ("high ground both", {"high_ground": (True, True)}, 0, brute),
        ("unseen target", {"unseen": (False, True)}, 1, character("gunman")),
        ("both unseen", {"unseen": (True, True)}, 1, character("gunman")),
        ("target in cover", {"cover": (False, True)}, 2, character("hunter")),
        ("both in cover", {"cover": (True, True)}, 2, character("hunter")),
    ]
    for label, flags, distance, attacker in places:
        flat = Scenario("test", "a test", distance, (attacker.id, "thug"), **flags)  # type: ignore[arg-type]
        ruleset = LiminalRuleset(flat, (attacker, tough_thug), None, CATALOG)
        out.append((label, ScriptedDuel(ruleset, A_FIRST)))
    defending = duel(character("duelist"), tough_thug, 0, A_FIRST)
    defending.state.fighters[1].defending = True
    out.append(("a stance halves", defending))
    shaken = duel(character("duelist"), tough_thug, 0, A_FIRST)
    shaken.state.fighters[0].shaken = True
    out.append(("shaken", shaken))
    mob = MobScenario("test", "a test", "brute", 10, False, 0)
    out.append(("a mob defends at 0", ScriptedDuel(LiminalMobRuleset(mob, brute), [6, 6])))
    return out


SITUATIONS = situations()


@pytest.mark.parametrize(("label", "fight"), SITUATIONS, ids=[label for label, _ in SITUATIONS])
def test_the_experts_expected_damage_is_the_rules(label: str, fight: ScriptedDuel) -> None:
    """Every legal move-and-attack of the deciding side: the expert's expected damage
    equals the enumeration through the rules' own `apply`."""
    mob = isinstance(fight.ruleset, LiminalMobRuleset)
    read = OBSERVATION_SPEC.read(fight.observation(0))
    me, them = Side.of(read, "self"), Side.of(read, "opponent", mob=mob)
    distance = fight.state.distance
    mask = fight.mask()
    attacks = [
        a
        for a in range(A.RETREAT_SOCIAL + 1)
        if mask[a] and a % len(Deed) in (Deed.MELEE, Deed.SHOOT)
    ]
    assert attacks, label
    for action in attacks:
        exact = exact_damage(fight, action)
        assert attack_gain(action, me, them, distance) == pytest.approx(float(exact), abs=1e-12), (
            label,
            A(action).name,
        )


def test_the_critical_takes_the_die_that_knocks_out() -> None:
    """Item 19: the duelist's critical on a thug left at 8: the sword's 1d6 + 3 knocks out
    2 times in 6, with the extra die 30 in 36, so +1d6, not the disarm (the thug has no
    other weapon); at 12 Endurance the extra die knocks out 10 in 36: the disarm."""
    expert = ExpertFighter()
    for endurance, choice in ((8, A.CRIT_DAMAGE), (12, A.CRIT_DISARM)):
        fight = duel(character("duelist"), character("thug", endurance=30), 0, A_FIRST)
        fight.state.fighters[1].endurance = endurance
        fight.act(A.HOLD_MELEE, 6, 6)
        assert fight.state.phase == Phase.CRIT_ATTACK
        rng = np.random.default_rng(0)
        assert expert.act(fight.observation(0), fight.mask(), rng) == choice


def test_the_expert_demands_a_mobs_surrender_at_half_its_members() -> None:
    """Item 19: a mob breaks once half its members are down, not at half its pool."""
    expert = ExpertFighter()
    fight = mob_fight(members=4, distance=1, social=3, melee=0)  # the demand is likelier
    rng = np.random.default_rng(0)
    fight.state.fighters[1].endurance = 7  # 3 standing, 1 down: no demand
    assert expert.act(fight.observation(0), fight.mask(), rng) % len(Deed) != Deed.SOCIAL
    fight.state.fighters[1].endurance = 6  # 2 standing, 2 down: it breaks to a demand
    assert expert.act(fight.observation(0), fight.mask(), rng) % len(Deed) == Deed.SOCIAL
