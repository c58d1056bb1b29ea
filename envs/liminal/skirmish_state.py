"""The actions of a Liminal skirmish and the state they act on (digest §13).

A skirmish is the duel's state with several fighters a side: each individual's and
each mob group's position on the half-band track, range between any two (§13.1), who
rolled initiative well (§13.2), the enemies bound to attack a critter next (§13.4) and
the mob's members, group by group (§13.6). A *unit* is an individual (its seat) or a
mob group (after the seats): both stand somewhere, can be targeted and take turns.

A turn is two decisions: the free move (or a move that is the turn's action: the fast
move, recovering a weapon), then the action (§4); the critical choices follow a
critical as in the duel (§7, §13.4, §13.5).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from duelo.envs.liminal.setup import Weapon
from duelo.envs.liminal.skirmish_setup import MAX_SIDE, SkirmishOptions
from duelo.envs.liminal.state import LiminalState

ENEMY_SLOTS = tuple(f"E{k}" for k in range(MAX_SIDE))
"""The other side's individuals, in slot order."""
GROUP_SLOTS = tuple(f"M{k}" for k in range(MAX_SIDE))
"""The mob's groups, named by the party slot of the hero each is assigned to (§13.1)."""
ALLY_SLOTS = tuple(f"A{k}" for k in range(1, MAX_SIDE))
"""The others of one's own side, in slot order."""
FOES = ENEMY_SLOTS + GROUP_SLOTS


class Kind(IntEnum):
    """What a skirmish action does, with the slot it names (if any)."""

    HOLD = 0
    STEP_BACK = 1
    STEP_TO = 2
    FAST_BACK = 3
    FAST_TO = 4
    RECOVER = 5
    PASS = 6
    DEFEND = 7
    MELEE = 8
    SHOOT = 9
    SOCIAL = 10
    CRIT_DAMAGE = 11
    CRIT_ACT_FIRST = 12
    CRIT_DISARM = 13
    CRIT_TARGET_ME = 14
    DEFEND_PERFECT_COVER = 15
    DEFEND_WITHDRAW = 16
    ALLY_WITHDRAWS = 17


MOVES = (Kind.HOLD, Kind.STEP_BACK, Kind.STEP_TO, Kind.FAST_BACK, Kind.FAST_TO, Kind.RECOVER)
"""The first decision of a turn (§4, §5)."""
DEEDS = (Kind.PASS, Kind.DEFEND, Kind.MELEE, Kind.SHOOT, Kind.SOCIAL)
"""The second: the turn's action (§5)."""
ATTACK_CRITS = (Kind.CRIT_DAMAGE, Kind.CRIT_ACT_FIRST, Kind.CRIT_DISARM, Kind.CRIT_TARGET_ME)
DEFENCE_CRITS = (Kind.DEFEND_PERFECT_COVER, Kind.DEFEND_WITHDRAW, Kind.ALLY_WITHDRAWS)

_TABLE: tuple[tuple[str, Kind, tuple[str, ...], str], ...] = (
    ("HOLD", Kind.HOLD, (), "stay where you are"),
    ("STEP_BACK", Kind.STEP_BACK, (), "step back, away from the enemy (30 paces)"),
    ("STEP_TO", Kind.STEP_TO, FOES + ALLY_SLOTS, "step toward {} (30 paces)"),
    ("FAST_BACK", Kind.FAST_BACK, (), "fall back two steps fast (the action)"),
    ("FAST_TO", Kind.FAST_TO, FOES + ALLY_SLOTS, "move two steps toward {} fast (the action)"),
    ("RECOVER", Kind.RECOVER, (), "pick up your dropped weapon (no move; the action)"),
    ("PASS", Kind.PASS, (), "take no action"),
    ("DEFEND", Kind.DEFEND, (), "take the defensive stance"),
    ("MELEE", Kind.MELEE, FOES, "strike {} in melee"),
    ("SHOOT", Kind.SHOOT, FOES, "shoot at {}"),
    ("SOCIAL", Kind.SOCIAL, FOES, "press {} to give up"),
    ("CRIT_DAMAGE", Kind.CRIT_DAMAGE, (), "critical: +1d6 damage"),
    ("CRIT_ACT_FIRST", Kind.CRIT_ACT_FIRST, (), "critical: act first from next round"),
    ("CRIT_DISARM", Kind.CRIT_DISARM, (), "critical: disarm them"),
    ("CRIT_TARGET_ME", Kind.CRIT_TARGET_ME, FOES, "critical: become the next target of {}"),
    ("DEFEND_PERFECT_COVER", Kind.DEFEND_PERFECT_COVER, (), "defence critical: perfect cover"),
    ("DEFEND_WITHDRAW", Kind.DEFEND_WITHDRAW, (), "defence critical: withdraw from the fight"),
    ("ALLY_WITHDRAWS", Kind.ALLY_WITHDRAWS, ALLY_SLOTS, "defence critical: let {} withdraw"),
)
_WORDS = {"E": "enemy {}", "M": "the mob group of hero {}", "A": "ally {}"}


@dataclass(frozen=True)
class Decoded:
    """What a skirmish action is: its kind and the slot it names ("" for none)."""

    kind: Kind
    slot: str = ""


def _catalogue() -> tuple[list[str], list[Decoded], list[str]]:
    names, decoded, meanings = [], [], []
    for name, kind, slots, meaning in _TABLE:
        for slot in slots or ("",):
            names.append(f"{name}_{slot}" if slot else name)
            decoded.append(Decoded(kind, slot))
            meanings.append(meaning.format(_WORDS[slot[0]].format(slot[1:])) if slot else meaning)
    return names, decoded, meanings


_NAMES, DECODED, _MEANINGS = _catalogue()
SkirmishAction = IntEnum("SkirmishAction", [(n, i) for i, n in enumerate(_NAMES)])  # type: ignore[misc]  # built from the table above
"""Every decision of a Liminal skirmish (digest §13.1, §13.3-§13.5): the moves, the
actions at each enemy, mob group or ally slot, and the critical choices."""
ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
"""Each action's id by name (what the NPCs look up: the enum is built, not written)."""
MEANINGS: dict[int, str] = dict(enumerate(_MEANINGS))
"""Each action in words (digest §13)."""


class Standing(IntEnum):
    """An individual's status (digest §2, §13.8)."""

    ACTIVE = 0
    DOWN = 1
    SURRENDERED = 2
    WITHDRAWN = 3


@dataclass
class Group:
    """One mob group (§13.6): its members' Endurance in list order, the hero it is
    assigned to (a party seat) and whether it has had its turn this round."""

    hero: int
    members: list[int]
    acted: bool = False

    @property
    def standing(self) -> int:
        return sum(1 for m in self.members if m > 0)

    @property
    def front(self) -> int:
        """The Endurance of the member a blow lands on (0 if none stands)."""
        return next((m for m in self.members if m > 0), 0)


@dataclass(frozen=True)
class Hit:
    """A hit whose critical effect its attacker must choose before damage (§4, §7)."""

    attacker: int
    target: int
    """The unit hit."""
    weapon: Weapon
    melee: bool


@dataclass
class SkirmishState(LiminalState):
    sides: tuple[int, ...] = ()
    standing: list[Standing] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    """Each unit's position on the track (§13.1): the seats', then the groups'."""
    mob_start: int = 0
    mob_armed: bool = False
    broken: bool = False
    """The whole mob broke to a demand to surrender (§13.6)."""
    saved: int = 0
    """Downed members the party's healers saved after the fight (§13.6)."""
    before: list[bool] = field(default_factory=list)
    """Per seat: a party member who succeeded at initiative acts before the enemy (§13.2)."""
    crit_first: list[int] = field(default_factory=list)
    """The seats an "act first" critical puts ahead, oldest choice first (§7)..."""
    crit_first_next: list[int] = field(default_factory=list)
    """...and those whose critical came this round: ahead from the next (§7)."""
    order: list[int] = field(default_factory=list)
    """This round's units in the order they act (§13.2)."""
    must_target: dict[int, int] = field(default_factory=dict)
    """Unit -> the critter it must target on its next turn (§13.4)."""
    hit: Hit | None = None
    """The hit awaiting its critical choice (the duel's `pending` names a duel's seats)."""

    def aftermath(self) -> dict[str, Any]:
        """Seed L87-88, §13.6: the members downed over the whole mob and those the
        healers saved, statistics and never reward (a fight without a mob: none)."""
        if not self.mob_start:
            return {}
        downed = self.mob_start - sum(g.standing for g in self.groups)
        return {"members_downed": downed, "members_saved": self.saved}

    @property
    def seats(self) -> int:
        return len(self.sides)

    @property
    def rulings(self) -> SkirmishOptions:
        """The options, with the skirmish's own (`options` is typed as the duel's)."""
        assert isinstance(self.options, SkirmishOptions)  # a skirmish ruleset sets them
        return self.options

    def group_of(self, unit: int) -> Group | None:
        return self.groups[unit - self.seats] if unit >= self.seats else None

    def active(self, unit: int) -> bool:
        """In the fight: an individual active (§2), a group with a member standing and
        the mob not broken (§13.6)."""
        group = self.group_of(unit)
        if group is None:
            return self.standing[unit] == Standing.ACTIVE
        return not self.broken and group.standing > 0

    def side_of(self, unit: int) -> int:
        return self.sides[unit] if unit < self.seats else 1  # the mob is the enemy's (§13.6)

    def between(self, one: int, other: int) -> int:
        """§13.1: range(i, j) = |pos_i - pos_j| on the half-band track."""
        return abs(self.positions[one] - self.positions[other])

    def allies(self, seat: int) -> list[int]:
        """The other individuals of `seat`'s side, in slot order."""
        return [s for s in range(self.seats) if self.sides[s] == self.sides[seat] and s != seat]

    def enemies(self, seat: int) -> list[int]:
        """The other side's individuals, in slot order."""
        return [s for s in range(self.seats) if self.sides[s] != self.sides[seat]]

    def foes(self, unit: int) -> list[int]:
        """Every unit of the other side, individuals then groups."""
        side = self.side_of(unit)
        return [u for u in range(len(self.positions)) if self.side_of(u) != side]

    def engaged(self, unit: int) -> bool:
        """Standing with an active enemy (§13.1 "al lado")."""
        return any(self.active(u) and self.between(unit, u) == 0 for u in self.foes(unit))

    def crowded(self, seat: int) -> bool:
        """§13.3: an individual sharing its position with another active unit, of either
        side: a tight group to pick it out of."""
        return any(
            u != seat and self.active(u) and self.between(seat, u) == 0
            for u in range(len(self.positions))
        )
