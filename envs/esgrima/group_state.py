"""The actions of an Esgrima fight of several a side and the state they act on (§13).

A turn is two Actions, each one decision (§13.3); an action names what it acts on: a
reference fighter for a move or a delay (self excepted: allies A1-A2, enemies E0-E2,
§13.1), an enemy for an attack, a Locate and an edge, an adjacent ally for a
hand-over (§13.4), a zone offset for area damage (§13.5) and for suppressive fire
(§13.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

from duelo.envs.core.state import DuelState
from duelo.envs.esgrima.group_setup import MAX_SIDE, GroupOptions, GroupScenario
from duelo.envs.esgrima.setup import MAX_ZONES
from duelo.envs.esgrima.skirmish_state import Combatant

ENEMY_SLOTS = tuple(f"E{k}" for k in range(MAX_SIDE))
"""The other side's fighters, in slot order (§13.1)."""
ALLY_SLOTS = tuple(f"A{k}" for k in range(1, MAX_SIDE))
"""The others of one's own side, in slot order."""
REFERENCES = ALLY_SLOTS + ENEMY_SLOTS
"""Any other fighter: what a move or a delay is relative to (§13.1, §13.3)."""
AREA_OFFSETS = (-1, 0, 1)
"""§13.5: the area is a zone at distance <= 1 of the activator's."""
SUPPRESS_OFFSETS = tuple(range(-(MAX_ZONES - 1), MAX_ZONES))
"""§13.6: any zone within the weapon's reach, Far included (S13-2 suppresses at d = 2)."""


class Kind(IntEnum):
    """What a group action does, with the slot or offset it names (if any)."""

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
    INTERACT_BLOCK = 16
    CANCEL_EDGE = 17
    HAND_WEAPON = 18
    HAND_AMMO = 19
    PASS = 20
    SURRENDER = 21
    DELAY_AFTER = 22
    DELAY_BEFORE = 23


def _offset(value: int) -> str:
    return f"{'M' if value < 0 else 'P'}{abs(value)}"


_TABLE: tuple[tuple[Kind, tuple[str, ...], str], ...] = (
    (Kind.MOVE_TOWARD, REFERENCES, "move one zone toward {}"),
    (Kind.MOVE_AWAY, REFERENCES, "move one zone away from {} (off the map while Far: flight)"),
    (Kind.RELOCATE_NEAR, REFERENCES, "relocate to the zone on the other side of {}, Near"),
    (Kind.MELEE_ATTACK, ENEMY_SLOTS, "attack {} in melee"),
    (Kind.SHOT, ENEMY_SLOTS, "shoot at {}"),
    (Kind.THROW_WEAPON, ENEMY_SLOTS, "throw your light melee weapon at {}"),
    (Kind.EVADE, (), "evade"),
    (Kind.DRAW_WEAPON, (), "draw or swap weapon"),
    (Kind.RELOAD, (), "reload"),
    (Kind.FOCALIZAR, (), "Focalizar: take Foco (Advantage on your next Action)"),
    (Kind.LOCATE, ENEMY_SLOTS, "locate {}, hidden"),
    (Kind.SUPPRESSIVE_FIRE, tuple(map(_offset, SUPPRESS_OFFSETS)), "suppressive fire on {}"),
    (Kind.TAKE_COVER, (), "take cover behind an object here"),
    (Kind.HIDE, (), "hide behind an object here"),
    (Kind.INTERACT_EDGE, ENEMY_SLOTS, "use an object here for an edge over {}"),
    (Kind.INTERACT_AREA, tuple(map(_offset, AREA_OFFSETS)), "use an object here to hurt {}"),
    (Kind.INTERACT_BLOCK, ("M1", "P1"), "use an object here to close the way to {}"),
    (Kind.CANCEL_EDGE, ENEMY_SLOTS, "cancel the edge {} holds over you"),
    (Kind.HAND_WEAPON, ALLY_SLOTS, "hand a weapon to {} (your spare, else the one in hand)"),
    (Kind.HAND_AMMO, ALLY_SLOTS, "share your ammunition with {}, who has none"),
    (Kind.PASS, (), "pass"),
    (Kind.SURRENDER, (), "surrender: you are out"),
    (Kind.DELAY_AFTER, REFERENCES, "delay: act right after {} (not an Action)"),
    (Kind.DELAY_BEFORE, REFERENCES, "delay: act right before {} (not an Action)"),
)


def _words(slot: str) -> str:
    kind, number = slot[0], int(slot[1:])
    if kind == "A":
        return f"ally {number}"
    if kind == "E":
        return f"enemy {number}"
    if number == 0:
        return "your own zone"
    zones = "zone" if number == 1 else "zones"
    return f"the zone {number} {zones} {'down' if kind == 'M' else 'up'}"


@dataclass(frozen=True)
class Decoded:
    """What a group action is: its kind, and the slot ("A1", "E0") or the zone offset
    ("M1" minus one, "P0", "P2" plus two) it names ("" for none)."""

    kind: Kind
    slot: str = ""

    @property
    def offset(self) -> int:
        return -int(self.slot[1:]) if self.slot[0] == "M" else int(self.slot[1:])


def _catalogue() -> tuple[list[str], list[Decoded], list[str]]:
    names, decoded, meanings = [], [], []
    for kind, slots, meaning in _TABLE:
        for slot in slots or ("",):
            names.append(f"{kind.name}_{slot}" if slot else kind.name)
            decoded.append(Decoded(kind, slot))
            meanings.append(meaning.format(_words(slot)) if slot else meaning)
    return names, decoded, meanings


_NAMES, DECODED, _MEANINGS = _catalogue()
GroupAction = IntEnum("GroupAction", [(n, i) for i, n in enumerate(_NAMES)])  # type: ignore[misc]  # built from the table above
"""Every decision of an Esgrima fight of several a side (digest §13.8 Actions)."""
ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
"""Each action's id by name (what the NPCs look up: the enum is built, not written)."""
MEANINGS: dict[int, str] = dict(enumerate(_MEANINGS))
"""Each action in words (digest §12, §13.8)."""


class Standing(IntEnum):
    """A fighter's status (§13.1 Active, §9)."""

    ACTIVE = 0
    DOWN = 1
    SURRENDERED = 2
    FLED = 3


class Ammo(StrEnum):
    """§13.7: a PJ's ammunition: some left, shared with an ally (Disadvantage on the next
    check), or none (no Shot with its guns)."""

    FULL = "full"
    SHARED = "shared"
    EMPTY = "empty"


@dataclass
class GroupState(DuelState):
    scenario: GroupScenario
    options: GroupOptions
    fighters: list[Combatant]
    sides: tuple[int, ...]
    spent: list[bool]
    standing: list[Standing] = field(default_factory=list)
    ammo: list[Ammo] = field(default_factory=list)
    karma: list[int] = field(default_factory=lambda: [0, 0])
    """§13.7: each side's Karma pool, +1 PK for every mid-combat ammunition check."""
    blocked: set[int] = field(default_factory=set)
    """Closed zone boundaries: boundary b lies between zones b and b + 1."""
    tie_rank: dict[int, tuple[float, int]] = field(default_factory=dict)
    """§13.2: seat -> (the score its tie was settled at, its rank there, higher first)."""
    edge_over: list[int | None] = field(default_factory=list)
    """Per seat: the enemy it holds an Interact edge over (§8.3), or None."""
    order: list[int] = field(default_factory=list)
    """This round's seats in the order they act (§13.2, §13.3)."""
    turn_index: int = 0
    current: int | None = None
    actions_left: int = 0
    delayed: set[int] = field(default_factory=set)
    """The seats that delayed this round (once a round, §4 step 5)."""
    turn_zone: int = 0
    """The zone the fighter to act began its turn in (§13.6 "acting")."""
    drew_fire: set[int] = field(default_factory=set)
    """Suppressors that shot the fighter to act this turn, on entry or acting (§13.6)."""
    ammo_checks: list[str] = field(default_factory=list)
    """§13.7: the end-of-combat checks, "<name>: <verdict>" each."""

    def aftermath(self) -> dict[str, Any]:
        """§13.7, §8.4: each fighter's ammunition after the checks ("full", "shared",
        "empty") and each side's Karma, statistics and never reward."""
        return {"ammo": [str(a) for a in self.ammo], "karma": list(self.karma)}

    @property
    def seats(self) -> int:
        return len(self.sides)

    def active(self, seat: int) -> bool:
        """PG > 0, not surrendered, not fled (§13.1)."""
        return self.standing[seat] == Standing.ACTIVE

    def distance(self, one: int, other: int) -> int:
        """§13.1: the zone difference; its band is 0 Adjacent, 1 Near, 2+ Far."""
        return abs(self.fighters[one].zone - self.fighters[other].zone)

    def allies(self, seat: int) -> list[int]:
        """The other fighters of `seat`'s side, in slot order."""
        return [s for s in range(self.seats) if self.sides[s] == self.sides[seat] and s != seat]

    def enemies(self, seat: int) -> list[int]:
        """The other side's fighters, in slot order."""
        return [s for s in range(self.seats) if self.sides[s] != self.sides[seat]]

    def references(self, seat: int) -> list[int | None]:
        """The seat each of `REFERENCES` names for `seat` (None: an empty slot)."""
        allies, enemies = self.allies(seat), self.enemies(seat)
        pad = [None] * MAX_SIDE
        return [*(allies + pad)[: MAX_SIDE - 1], *(enemies + pad)[:MAX_SIDE]]
