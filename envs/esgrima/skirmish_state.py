"""Esgrima skirmish: its actions and the state they act on (digest §4-§9, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.state import DuelState
from duelo.envs.esgrima.mechanics import Body
from duelo.envs.esgrima.setup import (
    Character,
    EsgrimaOptions,
    Layout,
    Weapon,
    WeaponClass,
)

ACTIONS_PER_TURN = 2
"""Seed (Acciones en combate): each turn, 2 Actions."""


class SkirmishAction(IntEnum):
    """One Action (digest §12 skirmish table)."""

    MOVE_TOWARD = 0
    MOVE_AWAY = 1
    RELOCATE_NEAR = 2
    MELEE_ATTACK = 3
    SHOT = 4
    THROW_WEAPON = 5
    EVADE = 6
    DRAW_WEAPON = 7
    RELOAD = 8
    FOCALIZAR = 9
    LOCATE = 10
    SUPPRESSIVE_FIRE = 11
    TAKE_COVER = 12
    HIDE = 13
    INTERACT_EDGE = 14
    INTERACT_AREA = 15
    CANCEL_EDGE = 16
    PASS = 17
    SURRENDER = 18
    DELAY = 19
    INTERACT_BLOCK = 20


MEANINGS: dict[int, str] = {
    SkirmishAction.MOVE_TOWARD: "move one band toward your opponent",
    SkirmishAction.MOVE_AWAY: "move one band away (off the map from Far: flight)",
    SkirmishAction.RELOCATE_NEAR: "relocate to the zone on their other side, staying Near",
    SkirmishAction.MELEE_ATTACK: "attack in melee",
    SkirmishAction.SHOT: "shoot",
    SkirmishAction.THROW_WEAPON: "throw your light melee weapon",
    SkirmishAction.EVADE: "evade",
    SkirmishAction.DRAW_WEAPON: "draw or swap weapon",
    SkirmishAction.RELOAD: "reload",
    SkirmishAction.FOCALIZAR: "Focalizar: take Foco (Advantage on your next Action)",
    SkirmishAction.LOCATE: "locate a hidden enemy",
    SkirmishAction.SUPPRESSIVE_FIRE: "suppressive fire on their zone",
    SkirmishAction.TAKE_COVER: "take cover behind an object here",
    SkirmishAction.HIDE: "hide behind an object here",
    SkirmishAction.INTERACT_EDGE: "use an object here for an edge over them",
    SkirmishAction.INTERACT_AREA: "use an object here to hurt their zone",
    SkirmishAction.CANCEL_EDGE: "cancel the edge they hold over you",
    SkirmishAction.PASS: "pass",
    SkirmishAction.SURRENDER: "surrender: you lose",
    SkirmishAction.DELAY: "delay: act right after them",
    SkirmishAction.INTERACT_BLOCK: "use an object here to block the way toward them",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §12 skirmish table, with its optional Delay and Interact: block)."""


MOVES = (SkirmishAction.MOVE_TOWARD, SkirmishAction.MOVE_AWAY, SkirmishAction.RELOCATE_NEAR)
INTERACTIONS = (
    SkirmishAction.INTERACT_EDGE,
    SkirmishAction.INTERACT_AREA,
    SkirmishAction.INTERACT_BLOCK,
)
ATTACKS = (SkirmishAction.MELEE_ATTACK, SkirmishAction.SHOT, SkirmishAction.THROW_WEAPON)
QUIET = frozenset(
    {
        SkirmishAction.EVADE,
        SkirmishAction.DRAW_WEAPON,
        SkirmishAction.RELOAD,
        SkirmishAction.FOCALIZAR,
        SkirmishAction.LOCATE,
        SkirmishAction.TAKE_COVER,
        SkirmishAction.HIDE,
        SkirmishAction.PASS,
    }
)
"""Actions that do not draw attention, so a hidden combatant stays hidden (ASSUMPTION:
the seed names Move, Attack and Spell, and 'any other attention-drawing Action')."""
UNSUPPRESSED = frozenset({SkirmishAction.HIDE, SkirmishAction.TAKE_COVER, SkirmishAction.EVADE})
"""Inside a suppressed zone, these (and leaving it) draw no shot. Seed (Fuego de supresión):
"salir de esa zona, ocultarse o protegerse de algún modo"; Evasión is a way of protecting
oneself (the digest, §8.2, names taking cover only)."""
BANDS = ("adjacent", "near", "far")


def band(distance: int) -> int:
    """0 Adjacent (same zone), 1 Near (next zone), 2 Far (digest §6 zone model)."""
    return min(distance, 2)


REACH = {
    WeaponClass.LIGHT_MELEE: {0: 0},
    WeaponClass.HEAVY_MELEE: {0: 0, 1: -1},
    WeaponClass.LIGHT_RANGED: {0: -1, 1: 0, 2: 0},
    WeaponClass.HEAVY_RANGED: {1: 0, 2: 0},
}
"""Seed (Tipos de armas): the bands each class reaches, and its Advantage there."""


def reach(weapon: Weapon, distance: int, thrown: bool = False) -> int | None:
    """None if out of reach, else the Advantage modifier of the band (seed: Tipos de armas).

    A thrown light melee weapon counts as light ranged (seed: Armas arrojadizas improvisadas).
    """
    cls = WeaponClass.LIGHT_RANGED if thrown else weapon.cls
    return REACH[cls].get(band(distance))


@dataclass
class Held:
    weapon: Weapon
    loaded: bool = True
    lost: bool = False


@dataclass
class Combatant:
    character: Character
    name: str
    body: Body
    zone: int
    weapons: list[Held]
    in_hand: int | None = 0
    initiative: float = 0.0
    reload_pending: bool = False
    foco_next: bool = False
    evading: bool = False
    hidden: bool = False
    in_cover: bool = False
    suppressing: int | None = None
    edge: bool = False
    """An Interact edge against the opponent is active."""
    used_projectiles: bool = False

    @property
    def held(self) -> Held | None:
        return None if self.in_hand is None else self.weapons[self.in_hand]


@dataclass
class SkirmishState(DuelState):
    ROUND_RELATIVE = ("delayed_round",)
    layout: Layout
    options: EsgrimaOptions
    fighters: list[Combatant]
    spent: list[bool]
    blocked: set[int] = field(default_factory=set)
    """Closed zone boundaries: boundary b lies between zones b and b + 1."""
    delayed_round: int = -1
    order: list[int] = field(default_factory=lambda: [0, 1])
    turn_index: int = 0
    current: int | None = None
    actions_left: int = 0

    def distance(self) -> int:
        return abs(self.fighters[0].zone - self.fighters[1].zone)
