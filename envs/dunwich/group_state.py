"""The actions of a Dunwich fight of several a side and the state they act on (digest
§13).

A fight of several a side keeps the duel's fighters (`state.Fighter`: registers, PV,
the turn's flags) on one line with everyone's own position, plus each fighter's side,
whether it fled, and the turn's one order for everyone. Actions at an opponent come
once per opponent slot (§13.8: action type x target slot); a reaction answers the one
initiator of the pairing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from duelo.envs.core.state import DuelState
from duelo.envs.dunwich.group_setup import MAX_SIDE, GroupOptions, GroupScenario
from duelo.envs.dunwich.rules import REACH
from duelo.envs.dunwich.state import MEANINGS as DUEL_MEANINGS
from duelo.envs.dunwich.state import Action, Fighter, Maneuver, Phase

UNTARGETED = (
    Action.BID_0,
    Action.BID_1,
    Action.BID_2,
    Action.BID_3,
    Action.ESCAPE,
    Action.ADVANCE,
    Action.RETREAT,
    Action.SPRINT,
    Action.SPRINT_TOWARD,
    Action.REACT_DANAR,
    Action.REACT_DEFEND,
    Action.REACT_DESPLAZAR,
    Action.REACT_INCAPACITAR,
    Action.PUSH_0,
    Action.PUSH_1,
    Action.PUSH_2,
    Action.PUSH_3,
)
"""The duel's actions with no target: the plan, the moves (relative to the nearest
active opponent, §13.8 ASSUMPTION), the reactions (at the pairing's initiator) and a
won push's PV."""
AT_OPPONENT = (
    Action.DANAR,
    Action.DESPLAZAR,
    Action.INCAPACITAR,
    Action.POSITION_DANAR,
    Action.DANAR_RETREAT,
    Action.DESPLAZAR_RETREAT,
    Action.INCAPACITAR_RETREAT,
    Action.SHOOT,
    Action.RETREAT_SHOOT,
)
"""The duel's actions at an opponent, once per opponent slot (§13.8); the duel's
advance-then-shoot is left out: with several opponents, where it may stop beyond 5 m of
every one of them is no single rule."""
_MOVE_WORDS = {
    Action.ADVANCE: "advance 7 m toward the nearest opponent (no action)",
    Action.RETREAT: "fall back 7 m from the nearest opponent (no action)",
    Action.SPRINT: "sprint away from the nearest opponent",
    Action.SPRINT_TOWARD: "sprint toward the nearest opponent",
}
_TARGET_WORDS = {
    Action.DANAR: "Dañar: strike {} to harm",
    Action.DESPLAZAR: "Desplazar: push {} back",
    Action.INCAPACITAR: "Incapacitar: grapple {} to subdue",
    Action.POSITION_DANAR: "win an advantageous position, then Dañar {}",
    Action.DANAR_RETREAT: "Dañar {}, then fall back",
    Action.DESPLAZAR_RETREAT: "Desplazar {}, then fall back",
    Action.INCAPACITAR_RETREAT: "Incapacitar {}, then fall back",
    Action.SHOOT: "shoot {} (more than 5 m from every opponent)",
    Action.RETREAT_SHOOT: "fall back 7 m, then shoot {}",
}


@dataclass(frozen=True)
class Decoded:
    """What a skirmish action is: the duel's action, and the opponent slot it names."""

    action: Action
    enemy: int | None = None


def _catalogue() -> tuple[list[str], list[Decoded], list[str]]:
    names, decoded, meanings = [], [], []
    for action in UNTARGETED:
        names.append(action.name)
        decoded.append(Decoded(action))
        meanings.append(_MOVE_WORDS.get(action, DUEL_MEANINGS[action]))
    for action in AT_OPPONENT:
        for slot in range(MAX_SIDE):
            names.append(f"{action.name}_E{slot}")
            decoded.append(Decoded(action, slot))
            meanings.append(_TARGET_WORDS[action].format(f"enemy {slot}"))
    return names, decoded, meanings


_NAMES, DECODED, _MEANINGS = _catalogue()
GroupAction = IntEnum("GroupAction", [(n, i) for i, n in enumerate(_NAMES)])  # type: ignore[misc]  # built from the tables above
"""Every decision of a Dunwich skirmish (digest §13.8)."""
ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
"""Each action's id by name (what the NPCs look up: the enum is built, not written)."""
MEANINGS: dict[int, str] = dict(enumerate(_MEANINGS))
"""Each action in words."""
BY_ACTION: dict[Action, int] = {d.action: i for i, d in enumerate(DECODED) if d.enemy is None}
"""The id of each untargeted duel action."""


class Gone(IntEnum):
    """How a fighter stands (§13.1 "active", §9)."""

    ACTIVE = 0
    DOWN = 1
    """Incapacitated or dead (§9)."""
    FLED = 2
    """Escaped by the arena's end (§9, §10 #24)."""


@dataclass(frozen=True)
class Pairing:
    """A declared melee maneuver waiting for its target's reaction, or its won push for
    the winner's PV (§4 item 4, §8.2, §13.3)."""

    initiator: int
    target: int
    maneuver: Maneuver
    retreat: int = 0
    """Half metres the initiator falls back from the target once the pairing is over."""
    pusher: int | None = None
    """The winner whose push waits for its PV (Phase.PUSH)."""


@dataclass
class GroupState(DuelState):
    scenario: GroupScenario
    options: GroupOptions
    fighters: list[Fighter]
    sides: tuple[int, ...]
    arena: int
    """The arena's length in half metres; walls at 0 and here."""
    standing: list[Gone] = field(default_factory=list)
    phase: Phase = Phase.PLAN
    current: int = 0
    plans: list[Action | None] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    """This combat turn's order, set once every plan is in (§13.2, §13.6); empty before."""
    pairings: list[int] = field(default_factory=list)
    """Pairings each fighter took part in this turn (`reaction_penalty`, §13.3)."""
    pending: Pairing | None = None

    def active(self, seat: int) -> bool:
        """§13.1: not incapacitated, dead or fled."""
        return self.standing[seat] == Gone.ACTIVE

    def allies(self, seat: int) -> list[int]:
        """The other fighters of `seat`'s side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side == self.sides[seat] and s != seat]

    def enemies(self, seat: int) -> list[int]:
        """The fighters of the other side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side != self.sides[seat]]

    def foes(self, seat: int) -> list[int]:
        """The active opponents of `seat` (§13.1: the only ones distance tests count)."""
        return [s for s in self.enemies(seat) if self.active(s)]

    def between(self, one: int, other: int) -> int:
        """Half metres between two fighters (§13.1)."""
        return abs(self.fighters[one].position - self.fighters[other].position)

    def nearest(self, seat: int) -> int | None:
        """The nearest active opponent (the lower slot on a tie), None if none is left."""
        foes = self.foes(seat)
        return min(foes, key=lambda s: (self.between(seat, s), s)) if foes else None

    def push_direction(self, winner: int, loser: int) -> int:
        """+1 or -1: straight away from the winner (§8.2, §10 #16); from the same point,
        toward the end with more room behind the loser, on a tie toward 0 (§13.5)."""
        gap = self.fighters[loser].position - self.fighters[winner].position
        if gap:
            return 1 if gap > 0 else -1
        position = self.fighters[loser].position
        return 1 if self.arena - position > position else -1

    def room(self, seat: int, direction: int) -> int:
        """Half metres from `seat` to the wall in `direction`."""
        position = self.fighters[seat].position
        return self.arena - position if direction > 0 else position

    def engaged(self, seat: int) -> bool:
        """§13.1: an active opponent within melee reach (1.5 m, §10 #15)."""
        return any(self.between(seat, s) <= REACH for s in self.foes(seat))

    def aftermath(self) -> dict[str, Any]:
        """§9: anyone with 5 or more Vitality boxes crossed (and not dead) is dying, by
        seat; reported in `info` only."""
        return {"dying": tuple(f.dying for f in self.fighters)}
