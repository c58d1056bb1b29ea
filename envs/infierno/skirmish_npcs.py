"""Scripted NPCs for Infierno skirmishes: teams that read only their observation.

Each fighter decides alone from its own seat's view (`SkirmishView`), as the rules let
it see the fight; what makes them a team is what they read there: which enemy an ally
is already fighting (flanking, §13.4), which enemy is nearly down (focus fire), which
ally is hurt and who stands beside it (protecting the wounded), and whether a shot
into a melee risks a friend (§13.5, from `skirmish_odds`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.infierno.odds import hit_chance
from duelo.envs.infierno.skirmish_observation import ROWS, SKIRMISH_SPEC
from duelo.envs.infierno.skirmish_odds import melee_shot_chances
from duelo.envs.infierno.skirmish_setup import MAX_SIDE
from duelo.envs.infierno.skirmish_state import ACTION_IDS as ID
from duelo.envs.infierno.skirmish_state import FLANK_BONUS

SELF = 0
ALLIES = range(1, MAX_SIDE)
ENEMIES = range(MAX_SIDE, 2 * MAX_SIDE)
_INDEX = SKIRMISH_SPEC.index


def _at(action: str, enemy_row: int) -> int:
    """The action `action` at the enemy of observation row `enemy_row`."""
    return ID[f"{action}_E{enemy_row - MAX_SIDE}"]


class SkirmishView:
    """Named reads of one skirmish observation, by row (0 self, 1-3 allies, 4-7 enemies)."""

    __slots__ = ("values",)

    def __init__(self, observation: Mapping[str, np.ndarray]) -> None:
        self.values: list[float] = SKIRMISH_SPEC.flatten(observation).tolist()

    def get(self, key: str, row: int, field: str | None = None) -> float:
        name = ROWS[row] if field is None else f"{ROWS[row]}.{field}"
        return self.values[_INDEX(key, name)]

    def active(self, row: int) -> bool:
        return bool(self.get("present", row)) and bool(self.get("status", row, "active"))

    def hp_left(self, row: int) -> float:
        return self.get("hp", row) - self.get("nonlethal", row)

    def hp_fraction(self, row: int) -> float:
        return self.hp_left(row) / max(self.get("hp_max", row), 1)

    def foes(self) -> list[int]:
        return [row for row in ENEMIES if self.active(row)]

    def friends(self) -> list[int]:
        return [row for row in ALLIES if self.active(row)]

    def gunman(self, row: int) -> bool:
        return bool(self.get("main_hand", row, "firearm"))

    def defense(self, row: int) -> int:
        """The enemy's Defense against the observer's next attack (flat-footed, cover)."""
        defense = self.get("stats", row, "defense")
        if self.get("flags", row, "flat_footed") and not self.get("flags", row, "uncanny_dodge"):
            defense -= self.get("stats", row, "dodge")
        if self.get("flags", row, "cover") and self.get("range", row) > 1:
            defense += 4
        return int(defense)

    def shot(self, row: int, aimed: bool) -> tuple[float, float]:
        """Expected damage of a main-hand attack at enemy `row` to it and to allies."""
        distance = int(self.get("range", row))
        ranged = self.gunman(SELF) or distance > 1
        bonus = int(self.get("stats", SELF, "attack_ranged" if ranged else "attack_melee"))
        bonus += FLANK_BONUS * int(self.get("flank", row))
        increment = int(self.get("main_hand", SELF, "range_increment"))
        if ranged and increment:  # -2 a full increment past the first (§6)
            bonus -= 2 * ((distance + increment - 1) // increment - 1)
        mean = self.get("main_hand", SELF, "mean_damage") or 2.0  # fists: 1d3
        if not ranged:
            return float(hit_chance(bonus, self.defense(row))) * mean, 0.0
        participants = int(self.get("melee", row)) or 1
        target, allies = melee_shot_chances(bonus, self.defense(row), participants, aimed)
        return float(target) * mean, float(allies) * mean


class AggressiveSkirmishNpc:
    """Draws and attacks the nearest enemy every turn, unaimed; blades charge it."""

    name = "aggressive"
    description = "draw and attack the nearest enemy every turn, never aim, charge with blades"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = SkirmishView(observation)
        foes = sorted(view.foes(), key=lambda row: view.get("range", row))
        plan: list[int] = [ID["CRIT_MULTIPLY"]]
        for row in foes:
            plan += [_at("TWO_WEAPON_ATTACK", row), _at("ATTACK_MAIN", row)]
        plan += [ID["CLEAR_JAM"], ID["RELOAD"], ID["DRAW_PRIMARY"]]
        for row in foes:
            plan += [_at("ADVANCE", row), _at("ATTACK_UNARMED", row), _at("RUN_TO", row)]
        return first_legal(action_mask, [*plan, ID["END_TURN"]])


class CautiousSkirmishNpc:
    """Takes cover first, fires only aimed into a melee, surrenders when its side is losing."""

    name = "cautious"
    description = "cover first; fire at the enemy in the open, aimed into a melee; surrenders"

    SURRENDER_BELOW = 0.25
    """Surrender at this fraction of own HP, when its side has fewer fighters left."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = SkirmishView(observation)
        outnumbered = len(view.friends()) + 1 < len(view.foes())
        if view.hp_fraction(SELF) <= self.SURRENDER_BELOW and outnumbered:
            if action_mask[ID["SURRENDER"]]:
                return ID["SURRENDER"]
        foes = sorted(view.foes(), key=lambda row: (view.get("melee", row), view.get("range", row)))
        plan: list[int] = [ID["CRIT_MULTIPLY"]]
        if any(view.get("adjacent", row) for row in foes):
            plan.append(ID["STEP_BACK"])
        plan += [
            ID["TAKE_COVER"],
            ID["DRAW_PRIMARY"],
            ID["CLEAR_JAM"],
            ID["RELOAD"],
        ]
        for row in foes:
            if view.get("melee", row) > 1:
                plan.append(_at("ATTACK_MAIN_AIMED", row))
            else:
                plan.append(_at("ATTACK_MAIN", row))
        plan += [_at("ATTACK_UNARMED", row) for row in foes]
        return first_legal(action_mask, [*plan, ID["END_TURN"]])


class ExpertSkirmishNpc:
    """Fights as a team from exact odds: focus fire, flanking, the wounded, the melee.

    - Each attack is scored by the share of its target it is expected to take
      (P(hit) with flanking, flat-footed Defense and cover, times the weapon's mean
      damage, over the HP the target has left), more for an enemy standing beside a
      wounded ally; a shot into a melee counts the damage it is expected to do to
      allies against it (`melee_shot_chances`), and is aimed when aiming is worth more.
    - A shot whose expected harm to allies outweighs its worth is held: the fighter
      takes cover or closes in instead.
    - A blade goes for the enemy an ally already fights (the flank), else the nearest.
    - Draws first, clears jams, reloads a gun only once it is empty, takes cover with a
      spare move, and with a gun drops prone (free: +4 Defense against shots) while no
      enemy blade is within a charge.
    - Never surrenders (a surrender scores as the side's loss when it is the last).
    """

    name = "expert"
    description = "focus fire and flanking from exact odds, protects the wounded, holds fire"

    ALLY_WEIGHT = 1.5
    """How much worse a point of damage on an ally is than one on an enemy is good."""
    WOUNDED_BELOW = 0.5
    """An ally under this HP fraction is worth protecting..."""
    PROTECT_BONUS = 0.25
    """...and an enemy beside it is worth this much more to hit."""
    MELEE_REACH = 7
    """An enemy blade this close can advance and strike this round: stay standing."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = SkirmishView(observation)
        if action_mask[ID["CRIT_MAXIMUM"]] or action_mask[ID["CRIT_MULTIPLY"]]:
            return first_legal(action_mask, [ID["CRIT_MAXIMUM"], ID["CRIT_MULTIPLY"]])
        foes = view.foes()
        best, worth = None, 0.0
        for row in foes:
            for action, aimed in (("ATTACK_MAIN", False), ("ATTACK_MAIN_AIMED", True)):
                index = _at(action, row)
                if not action_mask[index]:
                    continue
                value = self._worth(view, row, aimed)
                if value > worth:
                    best, worth = index, value
        plan: list[int] = []
        blade_near = any(
            not view.gunman(row) and view.get("range", row) <= self.MELEE_REACH for row in foes
        )
        prone = bool(view.get("flags", SELF, "prone"))
        if view.gunman(SELF) and not prone and not blade_near:
            plan.append(ID["PRONE_TOGGLE"])
        elif prone and (blade_near or not view.gunman(SELF)):
            plan.append(ID["PRONE_TOGGLE"])
        plan.append(ID["CLEAR_JAM"])
        empty = view.get("main_hand", SELF, "present") and not view.get("main_hand", SELF, "ammo")
        if empty and view.gunman(SELF):
            plan.append(ID["RELOAD"])
        plan.append(ID["DRAW_PRIMARY"])
        if best is not None:
            plan.append(best)
        target = self._melee_target(view, foes)
        if target is not None and not view.gunman(SELF):
            plan += [_at("ADVANCE", target), _at("RUN_TO", target), _at("ATTACK_UNARMED", target)]
        plan.append(ID["TAKE_COVER"])
        if target is not None:
            plan.append(_at("ATTACK_UNARMED", target))
        return first_legal(action_mask, [*plan, ID["END_TURN"]])

    def _worth(self, view: SkirmishView, row: int, aimed: bool) -> float:
        to_target, to_allies = view.shot(row, aimed)
        share = to_target / max(view.hp_left(row), 1.0)
        if any(
            view.hp_fraction(ally) < self.WOUNDED_BELOW and view.get("adjacent", ally)
            for ally in view.friends()
        ):
            share += self.PROTECT_BONUS * to_target / max(view.hp_left(row), 1.0)
        return share - self.ALLY_WEIGHT * to_allies / max(view.get("hp_max", SELF), 1.0)

    @staticmethod
    def _melee_target(view: SkirmishView, foes: list[int]) -> int | None:
        """The enemy an ally already fights (to flank it), else the nearest."""
        if not foes:
            return None
        engaged = [row for row in foes if view.get("melee", row) > 1]
        pool = engaged or foes
        return min(pool, key=lambda row: (view.get("range", row), view.hp_left(row)))


NPCS = {npc.name: npc for npc in (AggressiveSkirmishNpc, CautiousSkirmishNpc, ExpertSkirmishNpc)}
"""The skirmish's NPCs, registered as "infierno_skirmish:NAME"."""
