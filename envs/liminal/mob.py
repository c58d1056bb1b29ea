"""Liminal's mob variant: one hero (seat 0) against a turba (seat 1).

Seed ("Turbas"), digest `rules/liminal.md` §8: a group of unskilled people that makes
one attack a round, its level 1 per 2 members standing (at most 3), 1d6 damage (1d6+1
armed); each member has 3 Endurance and damage beyond that spills to the next, so the
mob is a pool of 3 x members. The mob defends, moves and tests at skill 0, never shoots,
defends or talks, takes +1d6 on its criticals, and breaks to a demand to surrender once
half its members are down. Everything else is the duel's rules (`rules.py`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from duelo.envs.core.config import ConfigError, entry_of, load_entries, packaged_config, require
from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import ObservationSpec, ObsKey
from duelo.envs.core.state import Outcome
from duelo.envs.liminal.observation import OBSERVATION_SPEC as DUEL_SPEC
from duelo.envs.liminal.observation import observed
from duelo.envs.liminal.odds import STANDARD_CL, Grade, roll
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import (
    OUT,
    Catalog,
    Character,
    LiminalOptions,
    Scenario,
    load_catalog,
)
from duelo.envs.liminal.state import Action, LiminalState, PendingHit

HERO, MOB = 0, 1
MEMBER_ENDURANCE = 3
"""Seed: each member of a mob has 3 Endurance."""
MAX_ATTACK_LEVEL = 3
MAX_MEMBERS = 10
"""Digest §2 says 2-12; 10 keeps the pool (3 a member) within the observed Endurance, 0..30."""
MOB_ACTIONS = (
    Action.HOLD,
    Action.HOLD_MELEE,
    Action.ADVANCE,
    Action.ADVANCE_MELEE,
    Action.FAST_ADVANCE,
)
"""A mob only moves, fast-moves and strikes in melee (digest §8 ASSUMPTIONS), and never
retreats unless broken (§12), which ends the fight: so it never retreats."""
MOB_MASK = np.isin(np.arange(len(Action)), MOB_ACTIONS)
"""MOB_ACTIONS as a mask, built once (the mask is asked for at every step)."""


@dataclass(frozen=True)
class MobScenario:
    """A hero against a mob: its size, whether it is armed, the starting distance."""

    id: str
    description: str
    hero: str
    members: int
    armed: bool = False
    distance: int = 1

    def __post_init__(self) -> None:
        if not 2 <= self.members <= MAX_MEMBERS:
            raise ValueError(f"members {self.members} must lie in 2..{MAX_MEMBERS}")
        if not 0 <= self.distance < OUT:
            raise ValueError(f"distance {self.distance} must lie in 0..{OUT - 1}")


def load_mob_scenarios(
    path: str | Path | None = None, catalog: Catalog | None = None
) -> dict[str, MobScenario]:
    """The mob scenarios (`configs/liminal/mobs.yaml`), their heroes checked."""
    path = Path(path or packaged_config("liminal/mobs.yaml"))
    catalog = catalog or load_catalog()
    scenarios = load_entries(MobScenario, path)
    for key, scenario in scenarios.items():
        require(
            scenario.hero in catalog.characters,
            f"{path}: {key}.hero",
            f"unknown character {scenario.hero!r}",
        )
    return scenarios


def attack_level(standing: int) -> int:
    """Seed: 1 per 2 members, rounded up, at most 3 (digest §8)."""
    return min(MAX_ATTACK_LEVEL, math.ceil(standing / 2))


def standing(pool: int) -> int:
    """Members still up: the pool of 3 Endurance each, the front one maybe wounded."""
    return math.ceil(max(pool, 0) / MEMBER_ENDURANCE)


MOB_FIELDS = ("members_start", "members_standing", "front_endurance", "attack_level", "armed")
OBSERVATION_SPEC = ObservationSpec(
    (
        *DUEL_SPEC.keys,
        ObsKey(
            "mob",
            "the mob: members at the start, standing, the front member's Endurance, its "
            "attack level, armed",
            0,
            12,
            (5,),
            MOB_FIELDS,
        ),
    )
)


@dataclass
class MobState(LiminalState):
    """A hero's fight against a mob: the duel's state and what the aftermath reports."""

    saved: int = 0
    """Downed members the hero's Medicine saved after the fight (§8)."""

    def aftermath(self) -> dict[str, Any]:
        """Digest §12: `members_downed` and `members_saved`, statistics and never reward."""
        mob = self.fighters[MOB]
        members = mob.character.endurance_max // MEMBER_ENDURANCE
        return {"members_downed": members - standing(mob.endurance), "members_saved": self.saved}


class LiminalMobRuleset(LiminalRuleset):
    """A Liminal hero (seat 0) against a mob (seat 1) (DESIGN.md layer 2).

    Args:
        scenario: a mob scenario id of `configs/liminal/mobs.yaml` or a `MobScenario`.
        hero: a character id or `Character`; None takes the scenario's.
        options: `LiminalOptions` or a dict of its fields (GM rulings).
        catalog: weapons and characters; None loads the packaged ones.
    """

    system = "liminal_mob"
    version = 2
    State = MobState
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | MobScenario = "street_gang",
        hero: str | Character | None = None,
        options: LiminalOptions | dict[str, Any] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        catalog = catalog or load_catalog()
        scenarios = load_mob_scenarios(catalog=catalog) if isinstance(scenario, str) else {}
        mob_scenario = entry_of(scenario, MobScenario, _finder(scenarios), "scenario")
        hero_character = entry_of(
            mob_scenario.hero if hero is None else hero, Character, catalog.character, "hero"
        )
        members = mob_scenario.members
        mob = Character(
            id="mob",
            name=f"the mob of {members}",
            weapons=("improvised",) if mob_scenario.armed else ("unarmed",),
            melee=attack_level(members),
            endurance=MEMBER_ENDURANCE * members,
        )
        duel = Scenario(  # the duel's scenario shape, for the rules the two share
            mob_scenario.id,
            mob_scenario.description,
            mob_scenario.distance,
            (hero_character.id, "mob"),
        )
        super().__init__(duel, (hero_character, mob), options, catalog)
        self.mob_scenario = mob_scenario

    def new_duel(self, dice: Dice) -> LiminalState:
        state = super().new_duel(dice)
        if not self.mob_scenario.armed:
            state.fighters[MOB].held = None  # an unarmed mob holds nothing: a blade gets +2 (§8)
        return state

    def legal_actions(self, state: LiminalState, seat: int) -> np.ndarray:
        mask = super().legal_actions(state, seat)
        if seat == MOB:
            mask &= MOB_MASK
        elif state.phase.name == "CRIT_ATTACK":
            mask[Action.CRIT_DISARM] = False  # §12: nothing to disarm in a mob
        return mask

    def observe(self, state: LiminalState, seat: int) -> np.ndarray:
        mob = state.fighters[MOB]
        up = standing(mob.endurance)
        front = mob.endurance - MEMBER_ENDURANCE * (up - 1) if up else 0
        values = observed(state, seat, self.strength_bonus)
        values += [self.mob_scenario.members, up, front, attack_level(up), self.mob_scenario.armed]
        return OBSERVATION_SPEC.pack(values)

    # --- what a mob does differently (§8) ---------------------------------------------

    def _initiative(self, state: LiminalState, dice: Dice) -> int:
        """The hero rolls Perception against the mob's 0 (CL 8) (§12)."""
        hero = state.fighters[HERO]
        result, faces, total = roll(dice, hero.character.perception, STANDARD_CL, "initiative")
        state.say(HERO, "Initiative: {} rolls Perception 2d6 {} = {} vs 8", hero.name, faces, total)
        return HERO if result != Grade.MISS else MOB

    def _defence(self, state: LiminalState, seat: int, melee: bool) -> int:
        if seat == MOB:
            return 0  # §8 ASSUMPTION: the mob defends at skill 0 (CL 8 to hit it)
        return super()._defence(state, seat, melee)

    def _chooses_critical(self, state: LiminalState, seat: int) -> bool:
        return seat != MOB and super()._chooses_critical(state, seat)

    def _fixed_critical(self, state: LiminalState, seat: int) -> Action:
        if seat == MOB:
            return Action.CRIT_DAMAGE  # §8 ASSUMPTION: a mob's critical takes +1d6
        choice = super()._fixed_critical(state, seat)
        return Action.CRIT_DAMAGE if choice == Action.CRIT_DISARM else choice

    def _wounded(self, state: LiminalState, seat: int) -> None:
        """Members fall as the pool drains; the attack level follows them (§8)."""
        if seat != MOB:
            return
        mob = state.fighters[MOB]
        up = standing(mob.endurance)
        level = attack_level(up)
        if level != mob.character.melee:
            mob.character = dataclasses.replace(mob.character, melee=level)
        state.say(MOB, "{} members stand (attack level {})", up, level)

    def _damage(self, state: LiminalState, hit: PendingHit, dice: Dice, extra_die: bool) -> None:
        super()._damage(state, hit, dice, extra_die)
        if state.result is not None and state.result.winner == HERO:
            self._tend_the_fallen(state, dice)

    def _tend_the_fallen(self, state: LiminalState, dice: Dice) -> None:
        """Seed L87-88, §8: after the fight the hero, standing and with Medicine, rolls it
        once at normal difficulty; each point above 8 saves one downed member."""
        assert isinstance(state, MobState)
        hero = state.fighters[HERO]
        medicine = hero.character.medicine
        downed = state.aftermath()["members_downed"]
        if medicine < 1 or not downed:  # "con habilidades curativas", someone to save
            return
        faces = [dice.roll(6, "medicine"), dice.roll(6, "medicine")]
        state.saved = min(downed, max(0, sum(faces) + medicine - STANDARD_CL))
        state.say(
            HERO,
            "After the fight: {} rolls Medicine 2d6 {} {:+d} = {}; {} of {} downed saved",
            hero.name,
            faces,
            medicine,
            sum(faces) + medicine,
            state.saved,
            downed,
        )

    def _social(self, state: LiminalState, seat: int, dice: Dice) -> None:
        """§8: a demand breaks the mob once half its members are down, else nothing."""
        if seat == MOB:
            return super()._social(state, seat, dice)
        result, _ = self._test(state, seat, "social", STANDARD_CL, dice, "demand surrender")
        mob = state.fighters[MOB]
        down = self.mob_scenario.members - standing(mob.endurance)
        if result != Grade.MISS and down >= self.mob_scenario.members / 2:
            state.say(seat, "{} breaks and runs", mob.name)
            state.finish(Outcome(HERO, f"{mob.name} breaks"))
            self._tend_the_fallen(state, dice)
            return
        state.say(seat, "{} does not listen", mob.name)
        self._end_turn(state)


def _finder(scenarios: dict[str, MobScenario]) -> Callable[[str], MobScenario]:
    def find(name: str) -> MobScenario:
        if name not in scenarios:
            known = ", ".join(sorted(scenarios))
            raise ConfigError(f"unknown mob scenario {name!r} (known: {known})")
        return scenarios[name]

    return find
