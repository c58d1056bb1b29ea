"""Scripted NPCs for Liminal skirmishes: teams that read only their observation.

Each fighter decides alone from its own seat's view, as the rules let it see the
fight (a GM-run fight hides nothing, digest §10 #20); what makes them a team is what
they read there: which enemy is nearly down (focus fire), which ally is hurt and who
threatens it (protecting the wounded: an attack on its attacker, or the critical that
draws that attacker's next blow, §13.4, or the one that lets the ally withdraw,
§13.5), and whether a shot must pick its target out of a tight group (§13.3). The
odds are the duel expert's, exact (`npcs.Side`), with the skirmish's modifiers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.observation import FieldReader
from duelo.envs.liminal.npcs import FISTS, MEAN_D6, Side, Weapon, knockout
from duelo.envs.liminal.odds import STANDARD_CL, Grade, challenge, chances
from duelo.envs.liminal.rules import MODIFIER
from duelo.envs.liminal.setup import OUT
from duelo.envs.liminal.skirmish_observation import GROUP_ROWS, ROWS, SKIRMISH_SPEC
from duelo.envs.liminal.skirmish_setup import MAX_SIDE
from duelo.envs.liminal.skirmish_state import ACTION_IDS as ID

ALLY_ROWS = ROWS[1:MAX_SIDE]
ENEMY_ROWS = ROWS[MAX_SIDE:]
MOB_CLUB = Weapon(
    melee=True, bonus=1, bands=(True, False, False, False), adjacent_penalty=0, tier=1
)
"""An armed mob's clubs and bottles (seed L83), for the better-weapon rule."""


@dataclass(frozen=True)
class Foe:
    """An active unit of the other side, as one observer sees it."""

    slot: str
    """The action slot that names it: E0-E3, M0-M3."""
    side: Side
    offset: int
    """Its position less the observer's, toward the enemy positive."""
    tight: bool
    """An individual in a tight group: a shot at it takes -2 (§13.3)."""
    hero_row: str | None = None
    """A mob group: the row of the hero it is assigned to."""


class Team:
    """Named reads of one skirmish observation: the observer, its allies, its foes."""

    def __init__(self, observation: Mapping[str, np.ndarray]) -> None:
        self.read: FieldReader = SKIRMISH_SPEC.read(observation)
        read = self.read
        self.me = Side.of(read, "self", flags="flags")
        self.allies = [
            row for row in ALLY_ROWS if read("present", row) and read("status", f"{row}.active")
        ]
        self.foes: list[Foe] = []
        for k, row in enumerate(ENEMY_ROWS):
            if read("present", row) and read("status", f"{row}.active"):
                self.foes.append(
                    Foe(
                        f"E{k}",
                        Side.of(read, row, flags="flags"),
                        int(read("offset", row)),
                        bool(read("tight", row)),
                    )
                )
        for k, row in enumerate(GROUP_ROWS):
            standing = int(read("group_standing", row))
            if not (read("group_hostile", row) and standing):
                continue
            hp = sum(read("group_members", f"{row}.member{i}") for i in range(standing))
            mob = Side(
                melee=int(read("group_level", row)),
                shoot=0,
                athletics=0,
                defence_bonus=0,
                talent=0,
                hp=hp,
                hp_max=hp,
                held=MOB_CLUB if read("group_armed", row) else None,
                spare=None,
                drew=False,
                defending=False,
                perfect_cover=False,
                in_cover=False,
                high_ground=False,
                unseen=False,
                shaken=False,
                mob=True,
            )
            hero = ROWS[int(read("group_hero", row)) - 1]
            self.foes.append(Foe(f"M{k}", mob, int(read("group_offset", row)), False, hero))

    @cached_property
    def me_moved(self) -> Side:
        """Itself after a step: cover and high ground are lost (§10 #24)."""
        return self.me.moved()

    def struck(self) -> Foe | None:
        """The foe an attack critical struck (the `struck` key)."""
        for foe in self.foes:
            row = f"enemy{foe.slot[1:]}" if foe.hero_row is None else f"group{foe.slot[1:]}"
            if self.read("struck", row):
                return foe
        return None

    def hurt(self, row: str) -> float:
        """The share of its Endurance a fighter has lost."""
        return 1.0 - self.read("hp", row) / max(self.read("hp_max", row), 1.0)

    def attack(self, foe: Foe, melee: bool, offset: int = 0) -> float:
        """Expected damage of the observer's attack on `foe` from `offset` (a move's
        result): exact odds of the weapon the rules would use, with §13.1's shot fired
        while adjacent to any enemy and §13.3's -2 at an individual in a tight group."""
        me = self.me if offset == 0 else self.me_moved
        distance = abs(foe.offset - offset)
        if melee:
            return me.melee_attack(foe.side) if distance == 0 else 0.0
        engaged = any(f.offset == offset for f in self.foes)
        gun = me.gun(distance, engaged) if distance < OUT else None
        if gun is None or foe.side.perfect_cover:
            return 0.0
        picked = -MODIFIER if foe.tight else 0
        return me.shot(gun, foe.side, 0 if engaged else distance, extra=picked)

    def best(self, foe: Foe, offset: int = 0) -> float:
        return max(self.attack(foe, True, offset), self.attack(foe, False, offset))

    def threatened(self, foe: Foe) -> str | None:
        """The hurt ally this foe stands with or is assigned to (the most hurt)."""
        rows = [
            row
            for row in self.allies
            if self.hurt(row) >= 0.5
            and (foe.hero_row == row or int(self.read("offset", row)) == foe.offset)
        ]
        return max(rows, key=self.hurt) if rows else None


def _phase(read: FieldReader) -> str:
    for name in ("crit_attack", "crit_defend"):
        if read("phase", name):
            return name
    return "act" if read("turn", "moved") else "move"


class AggressiveSkirmishNpc:
    """Closes on the nearest enemy and attacks it with whatever reaches; +1d6 crits."""

    name = "aggressive"
    description = "close on the nearest enemy, attack it with whatever reaches; crits for damage"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        team = Team(observation)
        foes = sorted(team.foes, key=lambda f: (abs(f.offset), f.slot))
        plan = [ID["CRIT_DAMAGE"], ID["DEFEND_PERFECT_COVER"]]
        for foe in foes:
            plan += [ID[f"MELEE_{foe.slot}"], ID[f"SHOOT_{foe.slot}"]]
        plan.append(ID["RECOVER"])
        for foe in foes:
            if team.attack(foe, melee=False) > 0:
                plan.append(ID["HOLD"])
            plan += [ID[f"STEP_TO_{foe.slot}"]]
        return first_legal(action_mask, [*plan, ID["HOLD"], ID["PASS"]])


class CautiousSkirmishNpc:
    """Shoots from range and steps back from blades, defends when hurt, demands the
    surrender of a hurt enemy, and on a critical stance lets a badly hurt ally go."""

    name = "cautious"
    description = "keep range, defend when hurt, demand surrender, let a badly hurt ally withdraw"

    HURT = 0.5

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        team = Team(observation)
        hurt = team.hurt("self") >= self.HURT
        plan = [ID[f"ALLY_WITHDRAWS_A{row[-1]}"] for row in team.allies if team.hurt(row) > 0.75]
        plan += [ID["DEFEND_PERFECT_COVER"], ID["CRIT_ACT_FIRST"], ID["CRIT_DAMAGE"]]
        foes = sorted(team.foes, key=lambda f: (abs(f.offset), f.slot))
        engaged = any(f.offset == 0 for f in foes)
        if engaged and team.me.held is not None and not team.me.held.melee:
            plan.append(ID["STEP_BACK"])
        for foe in foes:
            if foe.side.hp <= self.HURT * foe.side.hp_max:
                plan.append(ID[f"SOCIAL_{foe.slot}"])
        if hurt:
            plan.append(ID["DEFEND"])
        for foe in foes:
            plan += [ID[f"SHOOT_{foe.slot}"], ID[f"MELEE_{foe.slot}"]]
        plan += [ID["RECOVER"], ID["HOLD"], ID["DEFEND"]]
        return first_legal(action_mask, plan)


class ExpertSkirmishNpc:
    """Fights as a team from exact odds: focus fire, protecting the wounded, the crowd.

    - Each attack at a foe is worth the share of the foe it is expected to take (exact
      expected damage over the Endurance it has left: focus fire on the nearly down),
      half as much again when the foe stands with a hurt ally or is the mob group
      assigned to one (protecting the wounded). The shot's odds count the -2 of a
      target in a tight group (§13.3) and the pistol's -2 beside any enemy (§13.1), so
      the expert prefers the clear shot and holds a rifle it cannot fire.
    - The free move is the one after which its best attack is worth most, less half
      the expected damage of the foes that could strike it there (a gunman steps back
      from a blade; a blade steps in); with no attack from any step, it moves fast
      toward the foe worth most, or recovers a dropped weapon first.
    - It demands surrender of an individual at half its Endurance, or breaks the mob
      once half of it is down, when the test is likelier to succeed than its best
      attack is to hit.
    - Criticals: with a hurt ally whose attacker has not acted yet, it draws that
      attacker's next blow (§13.4) when it is itself the sturdier; else +1d6 when that
      makes the knockout likely, else disarm a foe with nothing else to draw, else act
      first. On a critical stance it lets a badly hurt, engaged ally withdraw (§13.5),
      else takes perfect cover.
    """

    name = "expert"
    description = "focus fire and protecting the wounded from exact odds; draws attacks off allies"

    PROTECT = 0.5
    """How much more an attack on a hurt ally's attacker is worth."""
    THREAT_WEIGHT = 0.5
    """How much the damage it risks where a move leaves it counts against the move."""
    SURRENDER_AT = 0.5
    """The surrender threshold it assumes (the option's default, digest §10 #14)."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        team = Team(observation)
        phase = _phase(team.read)
        if phase == "crit_attack":
            return self._attack_critical(team, action_mask)
        if phase == "crit_defend":
            plan = [
                ID[f"ALLY_WITHDRAWS_A{row[-1]}"]
                for row in sorted(team.allies, key=team.hurt, reverse=True)
                if team.hurt(row) >= 0.75
                and any(f.offset == team.read("offset", row) for f in team.foes)
            ]
            return first_legal(action_mask, [*plan, ID["DEFEND_PERFECT_COVER"]])
        if phase == "move":
            return self._move(team, action_mask)
        return self._deed(team, action_mask)

    def _worth(self, team: Team, foe: Foe, damage: float) -> float:
        share = damage / max(foe.side.hp, 1.0)
        return share * (1 + self.PROTECT) if team.threatened(foe) else share

    def _move(self, team: Team, mask: np.ndarray) -> int:
        if mask[ID["RECOVER"]]:
            return ID["RECOVER"]
        options: list[tuple[int, int]] = [(ID["HOLD"], 0), (ID["STEP_BACK"], -1)]
        for foe in team.foes:
            step = 1 if foe.offset > 0 else -1 if foe.offset < 0 else 0
            options.append((ID[f"STEP_TO_{foe.slot}"], step))
        best, value = None, 0.0
        for action, offset in options:
            if not mask[action]:
                continue
            gain = max((self._worth(team, f, team.best(f, offset)) for f in team.foes), default=0.0)
            if gain <= 0:
                continue
            risk = sum(
                max(_strike(f.side, team.me, abs(f.offset - offset) - d) for d in (0, 1))
                for f in team.foes
            ) / max(team.me.hp, 1.0)
            score = gain - self.THREAT_WEIGHT * risk
            if best is None or score > value:
                best, value = action, score
        if best is not None:
            return best
        goal = max(team.foes, key=lambda f: (self._reach_worth(team, f), -abs(f.offset)))
        return first_legal(
            mask, [ID[f"FAST_TO_{goal.slot}"], ID[f"STEP_TO_{goal.slot}"], ID["HOLD"]]
        )

    def _reach_worth(self, team: Team, foe: Foe) -> float:
        """What it could do to `foe` once in reach (at its best range)."""
        return max(self._worth(team, foe, team.best(foe, foe.offset - d)) for d in range(OUT))

    def _deed(self, team: Team, mask: np.ndarray) -> int:
        best, value, hit = ID["DEFEND"], 0.0, 0.0
        for foe in team.foes:
            for kind, melee in (("MELEE", True), ("SHOOT", False)):
                action = ID[f"{kind}_{foe.slot}"]
                if not mask[action]:
                    continue
                damage = team.attack(foe, melee)
                worth = self._worth(team, foe, damage)
                if worth > value:
                    best, value = action, worth
                    hit = damage / (MEAN_D6 + 2)
        demand = self._demand(team, mask, hit)
        return demand if demand is not None else first_legal(mask, [best, ID["DEFEND"]])

    def _demand(self, team: Team, mask: np.ndarray, hit: float) -> int | None:
        """A demand to surrender when it would work and beats the attack's odds."""
        read = team.read
        social = int(read("skills", "self.social"))
        for foe in team.foes:
            action = ID[f"SOCIAL_{foe.slot}"]
            if not mask[action]:
                continue
            if foe.hero_row is not None:
                if read("mob", "members_down") < read("mob", "members_start") / 2:
                    continue  # §13.6: it breaks once half of it is down
                conviction = 0
            else:
                if foe.side.hp > self.SURRENDER_AT * foe.side.hp_max:
                    continue
                conviction = int(read("skills", f"enemy{foe.slot[1:]}.conviction"))
            if _yields(social, conviction) > hit:
                return action
        return None

    def _attack_critical(self, team: Team, mask: np.ndarray) -> int:
        for foe in team.foes:
            ally = team.threatened(foe)
            action = ID[f"CRIT_TARGET_ME_{foe.slot}"]
            if ally is not None and mask[action] and team.hurt("self") < team.hurt(ally):
                return action
        struck = team.struck()
        if struck is None or struck.hero_row is not None:
            return first_legal(mask, [ID["CRIT_DAMAGE"]])  # a mob: more members fall
        held = team.me.held or FISTS
        damage = held.bonus + (team.me.talent if held.melee else 0)
        them = struck.side
        plain = knockout(damage, False, them.hp, them.defending)
        extra = knockout(damage, True, them.hp, them.defending)
        if extra > max(plain, Fraction(1, 2)):
            return first_legal(mask, [ID["CRIT_DAMAGE"]])
        if them.held is not None and them.spare is None:
            return first_legal(mask, [ID["CRIT_DISARM"], ID["CRIT_ACT_FIRST"]])
        return first_legal(mask, [ID["CRIT_ACT_FIRST"], ID["CRIT_DAMAGE"]])


def _strike(attacker: Side, target: Side, distance: int) -> float:
    """`attacker`'s best attack on `target` at `distance` (its own step taken)."""
    return attacker.best_attack(target, max(distance, 0)) if distance < OUT else 0.0


@lru_cache(maxsize=256)
def _yields(social: int, conviction: int) -> float:
    """The exact chance that a demand to surrender succeeds (§5, §10 #14)."""
    odds = chances(social, challenge(STANDARD_CL + conviction, social))
    return float(odds[Grade.SUCCESS] + odds[Grade.CRITICAL])


NPCS = {npc.name: npc for npc in (AggressiveSkirmishNpc, CautiousSkirmishNpc, ExpertSkirmishNpc)}
"""The skirmish's NPCs, registered as "liminal_skirmish:NAME"."""
