"""Scripted NPCs for Esgrima fights of several a side: teams that read only their
observation.

Each fighter decides alone from its own seat's view, as the rules let it see the
fight; what makes them a team is what they read there: which enemy is nearly down
(focus fire), which enemies stand with allies (no area damage on a friend, §13.5),
which ally has run out of powder (a shared share, §13.7) and where an enemy must step
to reach them (suppressive fire, §13.6).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.row_view import SELF, RowView
from duelo.envs.esgrima.group_observation import GROUP_SPEC, ROWS
from duelo.envs.esgrima.group_odds import attack_odds, harm, reach_of
from duelo.envs.esgrima.group_setup import MAX_SIDE
from duelo.envs.esgrima.group_state import ACTION_IDS as ID
from duelo.envs.esgrima.mechanics import success_chance
from duelo.envs.esgrima.setup import WeaponClass
from duelo.envs.esgrima.skirmish_observation import WEAPON_FIELDS

ENEMIES = range(MAX_SIDE, 2 * MAX_SIDE)
_CLASSES = tuple(WeaponClass)
SWITCH = 1.5
"""A draw costs an Action: the expert swaps weapons when the other is worth this much
more a blow (over the four Actions of the next two turns, 3 x 1.5 > 4 x 1)."""
_LIGHT = (WeaponClass.LIGHT_MELEE, WeaponClass.LIGHT_RANGED)
_MELEE = (WeaponClass.LIGHT_MELEE, WeaponClass.HEAVY_MELEE)
_RANGED = (WeaponClass.LIGHT_RANGED, WeaponClass.HEAVY_RANGED)


class View(RowView):
    """Named reads of one observation, by row (0 self, 1-2 allies, 3-5 enemies)."""

    __slots__ = ()
    SPEC, ROWS, MAX_SIDE = GROUP_SPEC, ROWS, MAX_SIDE

    def weapon(self, row: int) -> WeaponClass | None:
        """The class of the weapon in hand, or None."""
        for cls, name in zip(_CLASSES, WEAPON_FIELDS, strict=False):
            if self.get("weapon", row, name):
                return cls
        return None

    def gun_ready(self, row: int) -> bool:
        cls = self.weapon(row)
        return (
            cls in (WeaponClass.LIGHT_RANGED, WeaponClass.HEAVY_RANGED)
            and not self.get("ammo", row, "empty")
            and (cls == WeaponClass.LIGHT_RANGED or bool(self.get("weapon", row, "loaded")))
        )

    def distance(self, row: int) -> int:
        return int(self.get("range", row))

    def slot(self, row: int) -> str:
        return f"A{row}" if row < MAX_SIDE else f"E{row - MAX_SIDE}"

    def attack_value(self, row: int, kind: str, cls: WeaponClass | None = None) -> float:
        """The share of enemy `row` an attack of `kind` (MELEE_ATTACK, SHOT,
        THROW_WEAPON) with a weapon of `cls` (default: the one in hand) is expected to
        take, exactly from the rules' odds (`group_odds`)."""
        cls = self.weapon(SELF) if cls is None else cls
        if cls is None:
            return 0.0
        thrown = kind == "THROW_WEAPON"
        modifier = reach_of(cls, self.distance(row), thrown)
        if modifier is None:
            return 0.0
        ranged = thrown or cls not in _MELEE
        edge = modifier + int(self.get("flags", SELF, "foco"))
        edge += int(self.get("flags", SELF, "hidden"))
        edge += self.get("edge_on", SELF) == row + 1
        if ranged and self.get("flags", row, "in_cover"):
            edge -= 1
        if self.get("edge_on", row) == SELF + 1:
            edge -= 1
        rating = int(self.get("skills", SELF, "punteria" if ranged else "melee"))
        damage = 1 if thrown or cls in _LIGHT else 2
        reflejos = int(self.get("skills", row, "reflejos"))
        hit = attack_odds(rating, int(edge), reflejos if self.get("flags", row, "evading") else 0)
        share, kill = harm(self.body(row), damage)
        return float(hit * (share + kill))

    def best_with(self, cls: WeaponClass, foes: list[int]) -> float:
        """The best attack's worth at `foes` with a ready weapon of `cls`."""
        kind = "MELEE_ATTACK" if cls in _MELEE else "SHOT"
        return max((self.attack_value(row, kind, cls) for row in foes), default=0.0)

    def body(self, row: int) -> tuple[int, int, int]:
        """(PG, armour 0 none / 1 light / 2 heavy, armour points) of `row`."""
        armour = (
            1 if self.get("armour", row, "light") else 2 if self.get("armour", row, "heavy") else 0
        )
        return int(self.get("hp", row)), armour, int(self.get("armour", row, "points"))


def _nearest(view: View, rows: list[int]) -> list[int]:
    return sorted(rows, key=lambda r: (view.distance(r), r))


class AggressiveGroupNpc:
    """Closes on the nearest enemy and attacks it with whatever reaches; never yields."""

    name = "aggressive"
    description = "attack the nearest enemy with whatever reaches, otherwise advance on it"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        foes = _nearest(view, view.foes())
        plan = []
        for row in foes:
            slot = view.slot(row)
            plan += [ID[f"MELEE_ATTACK_{slot}"], ID[f"SHOT_{slot}"]]
        plan.append(ID["RELOAD"])
        plan += [ID[f"MOVE_TOWARD_{view.slot(row)}"] for row in foes]
        plan += [ID[f"LOCATE_{view.slot(row)}"] for row in foes]
        return first_legal(action_mask, [*plan, ID["DRAW_WEAPON"], ID["PASS"]])


class CautiousGroupNpc:
    """Takes cover, shoots from range, steps back from blades and evades."""

    name = "cautious"
    description = "take cover, shoot from range, step back from blades, evade"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        foes = _nearest(view, view.foes())
        plan = [ID["TAKE_COVER"]]
        blades = [r for r in foes if view.distance(r) == 0]
        if blades and view.gun_ready(SELF):
            plan.append(ID[f"MOVE_AWAY_{view.slot(blades[0])}"])
        for row in foes:
            plan.append(ID[f"SHOT_{view.slot(row)}"])
        plan.append(ID["RELOAD"])
        if not view.gun_ready(SELF) and view.weapon(SELF) not in (
            WeaponClass.LIGHT_MELEE,
            WeaponClass.HEAVY_MELEE,
        ):
            plan.append(ID["DRAW_WEAPON"])
        for row in foes:
            plan.append(ID[f"MELEE_ATTACK_{view.slot(row)}"])
        plan.append(ID["EVADE"])
        plan += [ID[f"MOVE_TOWARD_{view.slot(row)}"] for row in foes]
        return first_legal(action_mask, [*plan, ID["DRAW_WEAPON"], ID["PASS"]])


class ExpertGroupNpc:
    """Fights as a team from exact odds.

    - Each attack at an enemy is worth the share of it it is expected to take: the
      exact chance to hit (reach, Foco, hiding, cover, the edges, the Evasion save)
      times the PG lost through its armour over the PG it has left, plus the chance
      to take it out: focus fire on the nearly down.
    - Area damage (§13.5) is worth its chance, r/6 at Disadvantage, times the value
      of 1 PG to each enemy in the zone less that to each ally there, itself included:
      it drops the rigging on a crowd of foes, never on its friends.
    - With no attack worth taking, it shares powder with an ally who has none (§13.7),
      reloads, draws the weapon that reaches, and closes in; a gunman whose enemies
      are a step away lays suppressive fire on the zone they must enter (§13.6), or
      takes cover or evades on its last Action.
    """

    name = "expert"
    description = "focus fire from exact odds; area damage on foes only; suppress the approach"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        foes = _nearest(view, view.foes())
        if not foes:
            return first_legal(action_mask, [ID["PASS"]])
        best, value = ID["PASS"], 0.0
        for row in foes:
            slot = view.slot(row)
            for kind in ("MELEE_ATTACK", "SHOT", "THROW_WEAPON"):
                action = ID[f"{kind}_{slot}"]
                if action_mask[action]:
                    worth = view.attack_value(row, kind)
                    if kind == "THROW_WEAPON":  # the blade is lost: only to finish a foe
                        worth = worth if worth >= 1 else 0.0
                    if worth > value:
                        best, value = action, worth
        for offset in (-1, 0, 1):
            action = ID[f"INTERACT_AREA_{'M' if offset < 0 else 'P'}{abs(offset)}"]
            if action_mask[action]:
                worth = self._area_value(view, offset)
                if worth > value:
                    best, value = action, worth
        arming = self._arming(view, foes, value)
        if value > 0 and not (arming and action_mask[arming[0]]):
            return best
        plan = [*arming, *(ID[f"HAND_AMMO_A{row}"] for row in view.friends())]
        plan.append(ID["RELOAD"])
        last = view.get("turn", None, "actions_left") == 1
        near = [r for r in foes if view.distance(r) <= 2]
        if view.gun_ready(SELF) and near and last:
            step = int(np.sign(view.get("offset", near[0])))
            zone = step if view.distance(near[0]) == 2 else 0
            plan.append(ID[f"SUPPRESSIVE_FIRE_{'M' if zone < 0 else 'P'}{abs(zone)}"])
        if last and view.gun_ready(SELF):
            plan += [ID["TAKE_COVER"], ID["EVADE"]]
        plan += [ID[f"MOVE_TOWARD_{view.slot(row)}"] for row in foes]
        plan += [ID[f"LOCATE_{view.slot(row)}"] for row in foes]
        return first_legal(action_mask, [*plan, ID["EVADE"], ID["PASS"]])

    @staticmethod
    def _area_value(view: View, offset: int) -> float:
        zone = view.get("zone", SELF) + offset
        chance = float(success_chance(int(view.get("skills", SELF, "talento")), -1))
        worth = 0.0
        for row in range(len(ROWS)):
            if not view.active(row) or view.get("zone", row) != zone:
                continue
            share, kill = harm(view.body(row), 1)
            worth += float(share + kill) * (1 if row in ENEMIES else -1)
        return chance * worth

    @staticmethod
    def _arming(view: View, foes: list[int], value: float) -> list[int]:
        """Draw a blade beside an enemy while holding a gun, or a gun when no enemy is
        in a blade's reach, when it is worth much more a blow (a Draw costs an Action)."""
        held = view.weapon(SELF)
        wanted = _RANGED if held in _MELEE else _MELEE
        for cls in wanted:
            if (
                view.get("carried", SELF, str(cls)) > 0
                and view.best_with(cls, foes) > SWITCH * value
            ):
                return [ID["DRAW_WEAPON"]]
        return []


NPCS = {npc.name: npc for npc in (AggressiveGroupNpc, CautiousGroupNpc, ExpertGroupNpc)}
