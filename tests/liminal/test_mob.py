"""Liminal's mob (digest §8): the worked example V4 with scripted dice, and what a mob may
and may not do."""

from __future__ import annotations

import dataclasses

import numpy as np

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.liminal.mob import (
    MOB_ACTIONS,
    LiminalMobRuleset,
    MobScenario,
    attack_level,
    standing,
)
from duelo.envs.liminal.setup import load_catalog
from duelo.envs.liminal.state import Action, Phase

CATALOG = load_catalog()


def mob_fight(
    members: int = 5,
    armed: bool = False,
    distance: int = 0,
    opening: tuple[int, ...] = (6, 6),
    **hero: object,
) -> ScriptedDuel:
    """A brute (Melee 2, machete, no talent by default) against a mob; the hero rolls
    initiative (Perception against 8) with `opening`."""
    brute = dataclasses.replace(CATALOG.characters["brute"], **{"strength": "none", **hero})
    scenario = MobScenario("test", "a test", "brute", members, armed, distance)
    return ScriptedDuel(LiminalMobRuleset(scenario, brute, None, CATALOG), list(opening))


def test_attack_level_and_members_standing() -> None:
    """Seed: 1 per 2 members, rounded up, at most 3; 3 Endurance a member."""
    assert [attack_level(n) for n in range(1, 8)] == [1, 1, 2, 2, 3, 3, 3]
    assert [standing(pool) for pool in (15, 13, 12, 7, 1, 0)] == [5, 5, 4, 3, 1, 0]


def test_v4_a_mob_of_5_takes_8_damage() -> None:
    fight = mob_fight()
    fight.act(Action.HOLD_MELEE, 3, 4, 6)  # 7 + 2 + 2 (better weapon) = 11 vs 8; 6 + 2 = 8
    assert "better weapon +2" in fight.log() and "= 11 vs 8 -> success" in fight.log()
    mob = fight.state.fighters[1]
    assert mob.endurance == 7 and mob.character.melee == 2
    observed = fight.observation(0)["mob"]
    assert observed.tolist() == [5, 3, 1, 2, 0]  # start, standing, front member, level, armed
    fight.act(Action.HOLD_MELEE, 3, 4)  # the mob, level 2: 7 + 2 = 9 vs 8 + max(2, 2) = 10
    assert "the mob of 5 2d6 [3, 4] +2 = 9 vs 10 -> miss" in fight.log()


def test_what_a_mob_may_do() -> None:
    fight = mob_fight(distance=1, opening=(1, 1))  # the hero fails initiative: the mob first
    assert fight.seat == 1
    legal = set(np.flatnonzero(fight.mask()).tolist())
    assert legal <= set(MOB_ACTIONS) and Action.ADVANCE_MELEE in legal


def test_a_mob_critical_takes_the_extra_die_and_the_hero_cannot_disarm_it() -> None:
    fight = mob_fight(members=6, armed=True, opening=(1, 1))
    fight.act(Action.HOLD_MELEE, 6, 6, 2, 3)  # 12 + 3 = 15 vs 12: critical, +1d6 at once
    assert fight.state.phase == Phase.MAIN and fight.state.fighters[0].endurance == 10 - (2 + 3 + 1)
    fight.act(Action.HOLD_MELEE, 6, 6)  # the hero's critical: a decision, disarm masked
    mask = fight.mask()
    assert mask[Action.CRIT_DAMAGE] and not mask[Action.CRIT_DISARM]


def test_a_mob_breaks_only_at_half_strength() -> None:
    fight = mob_fight(distance=1, social=3)
    fight.act(Action.HOLD_SOCIAL, 6, 6)  # a critical, but no member is down yet
    assert fight.state.result is None and "does not listen" in fight.log()
    fight.act(Action.HOLD)  # the mob waits
    fight.state.fighters[1].endurance = 9  # 3 of 5 standing: 2 down, not half
    fight.act(Action.HOLD_SOCIAL, 6, 6)
    assert fight.state.result is None
    fight.act(Action.HOLD)
    fight.state.fighters[1].endurance = 6  # 2 standing: 3 down
    fight.act(Action.HOLD_SOCIAL, 4, 3)  # 7 + 3 = 10 vs 8
    assert fight.state.result.winner == 0 and "breaks" in fight.state.result.reason
