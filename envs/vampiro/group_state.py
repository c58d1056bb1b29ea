"""The actions of a Vampiro fight of several a side and the state they act on (digest
§13).

A fight of several a side keeps the duel's fighters (`state.Fighter`: health,
Willpower, blood, the turn's declared actions) with each one's side and position on a
line. A plan that needs a target takes an opponent slot, one per attack (§13.10):
Attack + Dodge a slot, a Double attack and Shoot x2 a slot for each attack; Dodge x2
joins the plans. Clinches and bites are left out (the env docstring says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.state import DuelState
from duelo.envs.vampiro.group_setup import MAX_SIDE, GroupOptions, GroupScenario
from duelo.envs.vampiro.state import ABORTS, MODIFIERS, Action, Fighter, Move, Phase
from duelo.envs.vampiro.state import MEANINGS as DUEL_MEANINGS

UNTARGETED = (
    Action.DODGE,
    Action.BLOCK_PARRY,
    Action.OPEN,
    Action.RELOAD,
    Action.AIM,
    Action.HEAL,
    Action.DELAY,
)
"""The duel's plans with no target (an Open runs from the nearest active opponent)."""
AT_OPPONENT = (
    Action.STRIKE,
    Action.KICK,
    Action.WEAPON_STRIKE,
    Action.SHOOT,
    Action.BURST,
    Action.FULL_AUTO,
    Action.CLOSE,
    Action.ATTACK_DODGE,
)
"""The duel's plans at one opponent, once per opponent slot (§13.10)."""
AT_TWO = (Action.SHOOT_TWICE, Action.DOUBLE_ATTACK)
"""Plans of two attacks, a target slot for each (§13.3, §13.10)."""
_TARGET_WORDS = {
    Action.STRIKE: "strike {} with your fists (within 1 m)",
    Action.KICK: "kick {} (within 1 m)",
    Action.WEAPON_STRIKE: "strike {} with your melee weapon (within 2 m)",
    Action.SHOOT: "shoot {}",
    Action.BURST: "fire a burst at {} (3 rounds)",
    Action.FULL_AUTO: "fire full auto at {} (half the clip)",
    Action.CLOSE: "run at {}, stopping at 1 m",
    Action.ATTACK_DODGE: "attack {} (-2 dice), and dodge when needed (-3 dice)",
    Action.SHOOT_TWICE: "shoot {} (-2 dice), then {} (-3 dice)",
    Action.DOUBLE_ATTACK: "attack {} in melee (-2 dice), then {} (-3 dice)",
}


class Plan(IntEnum):
    """What a fighter declared, without its targets (the observation's one-hot)."""

    STRIKE = 0
    KICK = 1
    WEAPON_STRIKE = 2
    SHOOT = 3
    SHOOT_TWICE = 4
    BURST = 5
    FULL_AUTO = 6
    DODGE = 7
    BLOCK_PARRY = 8
    ATTACK_DODGE = 9
    DOUBLE_ATTACK = 10
    CLOSE = 11
    OPEN = 12
    RELOAD = 13
    AIM = 14
    HEAL = 15
    DELAY = 16
    DODGE_TWICE = 17


@dataclass(frozen=True)
class Decoded:
    """What a skirmish action is: its plan and the opponent slot of each attack, or a
    modifier, an abort, or keeping on waiting after a delay."""

    plan: Plan | None = None
    enemies: tuple[int, ...] = ()
    duel: Action | None = None
    """The duel's action it stands for (a modifier or an abort; the plan's, if any)."""
    wait: bool = False


def _catalogue() -> tuple[list[str], list[Decoded], list[str]]:
    names, decoded, meanings = [], [], []
    for action in UNTARGETED:
        names.append(action.name)
        decoded.append(Decoded(Plan[action.name], duel=action))
        meanings.append(DUEL_MEANINGS[action])
    names.append("DODGE_TWICE")
    decoded.append(Decoded(Plan.DODGE_TWICE))
    meanings.append("plan: dodge twice (-2 dice, then -3), one attack each")
    for action in AT_OPPONENT:
        for slot in range(MAX_SIDE):
            names.append(f"{action.name}_E{slot}")
            decoded.append(Decoded(Plan[action.name], (slot,), action))
            meanings.append("plan: " + _TARGET_WORDS[action].format(f"enemy {slot}"))
    for action in AT_TWO:
        for first in range(MAX_SIDE):
            for second in range(MAX_SIDE):
                names.append(f"{action.name}_E{first}_E{second}")
                decoded.append(Decoded(Plan[action.name], (first, second), action))
                words = _TARGET_WORDS[action].format(f"enemy {first}", f"enemy {second}")
                meanings.append("plan: " + words)
    for action in (*MODIFIERS, *ABORTS):
        names.append(action.name)
        decoded.append(Decoded(duel=action))
        meanings.append(DUEL_MEANINGS[action])
    names.append("WAIT")
    decoded.append(Decoded(wait=True))
    meanings.append("delayed: keep waiting")
    return names, decoded, meanings


_NAMES, DECODED, _MEANINGS = _catalogue()
GroupAction = IntEnum("GroupAction", [(n, i) for i, n in enumerate(_NAMES)])  # type: ignore[misc]  # built from the tables above
"""Every decision of a Vampiro skirmish (digest §13.10)."""
ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
"""Each action's id by name (what the NPCs look up: the enum is built, not written)."""
MEANINGS: dict[int, str] = dict(enumerate(_MEANINGS))
"""Each action in words."""
PLAN_IDS = tuple(i for i, d in enumerate(DECODED) if d.plan is not None)
MODIFIER_IDS = {d.duel: i for i, d in enumerate(DECODED) if d.duel in MODIFIERS}
ABORT_IDS = {d.duel: i for i, d in enumerate(DECODED) if d.duel in ABORTS}
WAIT_ID = ACTION_IDS["WAIT"]
MULTIPLE = (Plan.SHOOT_TWICE, Plan.ATTACK_DODGE, Plan.DOUBLE_ATTACK, Plan.DODGE_TWICE)
"""Plans of two actions (§8.1): declared in Phase 1, never chosen after a delay."""


@dataclass
class GroupFighter(Fighter):
    """A duel's fighter with its side and place on the line (§13.1)."""

    side: int = 0
    position: float = 0.0
    choice: int | None = None
    """The action id of this turn's declaration (its plan and targets), once made."""
    declared: bool = False
    """Declared this turn: public, as the order of declarations is (§13.8)."""

    @property
    def plan_of(self) -> Plan | None:
        return None if self.choice is None else DECODED[self.choice].plan


@dataclass(frozen=True)
class Incoming:
    """An attack waiting on its target's choice to abort to a defence (§8.2)."""

    attacker: int
    index: int
    """The attacker's slot."""
    move: Move


@dataclass(frozen=True)
class Entry:
    """A place in the turn's Phase 2: `seat`'s action `index` (None: a delayer's own
    initiative slot, with nothing declared), in round `place` (0: the ordered actions;
    1 on: the end of the turn, §13.7)."""

    seat: int
    index: int | None
    place: int


@dataclass
class GroupState(DuelState):
    scenario: GroupScenario
    options: GroupOptions
    fighters: list[GroupFighter]
    sides: tuple[int, ...]
    phase: Phase = Phase.DECLARE
    current: int = 0
    declaring: list[int] = field(default_factory=list)
    """This turn's declarations still to come, slowest first (§13.2)."""
    queue: list[Entry] = field(default_factory=list)
    """Phase 2 still to come, in order (§13.2, §13.7)."""
    offered: bool = False
    """The delayers' moment before the queue's head has been offered (§13.5)."""
    asking: list[int] = field(default_factory=list)
    """Delayers still to choose at this moment, sealed (§13.5)."""
    choices: dict[int, int] = field(default_factory=dict)
    """The sealed choices made at this moment: an action id, or WAIT."""
    acting: list[int] = field(default_factory=list)
    """Delayers who chose to act at this moment, fastest first (§13.5)."""
    incoming: Incoming | None = None

    def allies(self, seat: int) -> list[int]:
        """The other fighters of `seat`'s side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side == self.sides[seat] and s != seat]

    def enemies(self, seat: int) -> list[int]:
        """The fighters of the other side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side != self.sides[seat]]

    def active(self, seat: int) -> bool:
        """§13.1: not out (down or fled)."""
        return not self.fighters[seat].out

    def foes(self, seat: int) -> list[int]:
        """The active opponents of `seat`."""
        return [s for s in self.enemies(seat) if self.active(s)]

    def between(self, one: int, other: int) -> float:
        """Metres between two fighters (§13.1)."""
        return abs(self.fighters[one].position - self.fighters[other].position)

    def nearest(self, seat: int) -> int | None:
        """The nearest active opponent (the lower seat on a tie), None if none is left."""
        foes = self.foes(seat)
        return min(foes, key=lambda s: (self.between(seat, s), s)) if foes else None

    def rating(self, seat: int) -> int:
        """Dexterity + Wits: the tie-breaker of initiative (§4)."""
        c = self.fighters[seat].character
        return c.destreza + c.astucia

    def declares_before(self, one: int, other: int) -> bool:
        """`one` declares strictly before `other` this turn: a lower score, or an equal
        score and a lower rating (§13.2); full ties declare blind."""
        a, b = self.fighters[one], self.fighters[other]
        return (a.declare_initiative, self.rating(one)) < (b.declare_initiative, self.rating(other))

    def sees(self, seat: int, other: int) -> bool:
        """Whether `seat` may see `other`'s declaration this turn: its own, one made
        before its own (§13.2, §13.8), or an ally's under `team_shared_plan` (G2)."""
        if other == seat:
            return True
        if not self.fighters[other].declared:
            return False
        if self.options.team_shared_plan and self.sides[other] == self.sides[seat]:
            return True
        return self.declares_before(other, seat)
