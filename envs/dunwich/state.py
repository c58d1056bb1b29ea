"""Dunwich's actions and the duel state they act on (digest §2, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from duelo.envs.core.state import DuelState
from duelo.envs.dunwich.setup import Character, DunwichOptions, Scenario, Weapon

VITALITY = (1, 2, 2, 3, 3, 4, 5, 6)
"""The Vitality register's boxes (§1, §7, published)."""
INCAPACITATION = 4
"""Incapacitation boxes of an ordinary human (§2, published): all crossed, out."""
DYING = 5
"""Vitality boxes crossed from which a combatant is dying (§7, §9, published)."""


class Action(IntEnum):
    """Every decision of a Dunwich duel (digest §12 table, widened by the rules review):
    the plan's bids of 0..3 PV (§2: a fighter holds up to 3) or the escape task; an
    Initiative Turn's move and deliberate action in either order (§4 (a)); the reactions;
    and the PV a push's winner spends (§8.2: "que el vencedor quiera emplear")."""

    BID_0 = 0
    BID_1 = 1
    BID_2 = 2
    BID_3 = 3
    ESCAPE = 4
    DANAR = 5
    DESPLAZAR = 6
    INCAPACITAR = 7
    POSITION_DANAR = 8
    DANAR_RETREAT = 9
    DESPLAZAR_RETREAT = 10
    INCAPACITAR_RETREAT = 11
    SHOOT = 12
    ADVANCE_SHOOT = 13
    RETREAT_SHOOT = 14
    ADVANCE = 15
    RETREAT = 16
    SPRINT = 17
    SPRINT_TOWARD = 18
    REACT_DANAR = 19
    REACT_DEFEND = 20
    REACT_DESPLAZAR = 21
    REACT_INCAPACITAR = 22
    PUSH_0 = 23
    PUSH_1 = 24
    PUSH_2 = 25
    PUSH_3 = 26


MEANINGS: dict[int, str] = {
    Action.BID_0: "bid no Advantage Points for the initiative",
    Action.BID_1: "bid 1 Advantage Point for the initiative",
    Action.BID_2: "bid 2 Advantage Points for the initiative",
    Action.BID_3: "bid 3 Advantage Points for the initiative",
    Action.ESCAPE: "try to escape by the arena's end (a task)",
    Action.DANAR: "Dañar: strike to harm",
    Action.DESPLAZAR: "Desplazar: push them back",
    Action.INCAPACITAR: "Incapacitar: grapple to subdue",
    Action.POSITION_DANAR: "move to an advantageous position, then Dañar",
    Action.DANAR_RETREAT: "Dañar, then retreat 7 m",
    Action.DESPLAZAR_RETREAT: "Desplazar, then retreat 7 m",
    Action.INCAPACITAR_RETREAT: "Incapacitar, then retreat 7 m",
    Action.SHOOT: "shoot (more than 5 m away)",
    Action.ADVANCE_SHOOT: "advance, staying beyond 5 m, then shoot",
    Action.RETREAT_SHOOT: "retreat 7 m, then shoot",
    Action.ADVANCE: "advance 7 m (no action)",
    Action.RETREAT: "retreat 7 m (no action)",
    Action.SPRINT: "sprint away",
    Action.SPRINT_TOWARD: "sprint toward them",
    Action.REACT_DANAR: "react: Dañar back",
    Action.REACT_DEFEND: "react: defend yourself",
    Action.REACT_DESPLAZAR: "react: Desplazar them",
    Action.REACT_INCAPACITAR: "react: Incapacitar them",
    Action.PUSH_0: "push them half your Físico in metres (no Advantage Points)",
    Action.PUSH_1: "push them 0.5 m further for 1 Advantage Point",
    Action.PUSH_2: "push them 1 m further for 2 Advantage Points",
    Action.PUSH_3: "push them 1.5 m further for 3 Advantage Points",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §12 table; the push's Advantage Points, §8.2)."""


class Maneuver(IntEnum):
    """The four melee maneuvers (§5)."""

    DANAR = 0
    DEFENDERSE = 1
    DESPLAZAR = 2
    INCAPACITAR = 3

    @property
    def label(self) -> str:
        """The seed's name, for the narration."""
        return "Dañar" if self == Maneuver.DANAR else self.name.capitalize()


BIDS = (Action.BID_0, Action.BID_1, Action.BID_2, Action.BID_3)
PLAN = (*BIDS, Action.ESCAPE)
PUSHES = (Action.PUSH_0, Action.PUSH_1, Action.PUSH_2, Action.PUSH_3)
"""The PV a push's winner spends: +0.5 m each (§8.2)."""
ATTACKS = {
    Action.DANAR: Maneuver.DANAR,
    Action.DESPLAZAR: Maneuver.DESPLAZAR,
    Action.INCAPACITAR: Maneuver.INCAPACITAR,
    Action.POSITION_DANAR: Maneuver.DANAR,
    Action.DANAR_RETREAT: Maneuver.DANAR,
    Action.DESPLAZAR_RETREAT: Maneuver.DESPLAZAR,
    Action.INCAPACITAR_RETREAT: Maneuver.INCAPACITAR,
}
STRIKE_AND_RETREAT = (
    Action.DANAR_RETREAT,
    Action.DESPLAZAR_RETREAT,
    Action.INCAPACITAR_RETREAT,
)
"""The maneuver, then the rest of the turn's 7 m away from the rival (§4 (a): "realizar
la acción y mover")."""
SHOTS = (Action.SHOOT, Action.ADVANCE_SHOOT, Action.RETREAT_SHOOT)
REACTIONS = {
    Action.REACT_DANAR: Maneuver.DANAR,
    Action.REACT_DEFEND: Maneuver.DEFENDERSE,
    Action.REACT_DESPLAZAR: Maneuver.DESPLAZAR,
    Action.REACT_INCAPACITAR: Maneuver.INCAPACITAR,
}


class Phase(IntEnum):
    """The kinds of decision (§12): the turn's sealed plan, an Initiative Turn, a reaction
    to a melee maneuver, and the PV a won push spends (§8.2 step 2)."""

    PLAN = 0
    ACT = 1
    REACT = 2
    PUSH = 3


@dataclass
class Fighter:
    character: Character
    name: str
    """The character's name, with the side added when both sides share it."""
    melee: Weapon
    ranged: Weapon | None
    position: int
    """Half metres from the left wall."""
    pv: int
    crossed: list[bool] = field(default_factory=lambda: [False] * len(VITALITY))
    incap: int = 0
    initiative: int = 0
    """This turn's INI: Físico + Lucha, or 2 x Físico while on a task (§4)."""
    acted: bool = False
    """Its Initiative Turn came this combat turn."""
    reacted: bool = False
    """Targeted before its Initiative Turn: it has none this combat turn (§4 item 5)."""
    task: bool = False
    """Committed to the escape task this combat turn (§4 item 3(e), §9)."""
    defend_only: bool = False
    """A failed advantageous position: only Defenderse for the rest of the turn (§8.3)."""
    engaged_at_start: bool = False
    bonus: int = 0
    """Successes an advantageous position adds to the Dañar it buys (§8.3, §10 #21)."""
    bid: int = 0
    """Its bid this turn, shown once both plans are in."""

    @property
    def crossed_count(self) -> int:
        return sum(self.crossed)

    @property
    def dying(self) -> bool:
        """Five or more Vitality boxes crossed, not all (§7, §9, published)."""
        return DYING <= self.crossed_count < len(VITALITY)

    @property
    def out(self) -> bool:
        """Incapacitated or dead (§9)."""
        return self.incap >= INCAPACITATION or all(self.crossed)


@dataclass(frozen=True)
class Pending:
    """A declared melee maneuver waiting for its target's reaction, or its won push for
    the winner's PV (§4 item 4, §8.2)."""

    initiator: int
    maneuver: Maneuver
    retreat: int = 0
    """Half metres the initiator moves away once the pairing is over (§4 (a))."""
    pusher: int | None = None
    """The winner of the pairing whose push waits for its PV (Phase.PUSH)."""


@dataclass
class DunwichState(DuelState):
    scenario: Scenario
    options: DunwichOptions
    fighters: list[Fighter]
    arena: int
    """The arena's length in half metres; walls at 0 and here."""
    phase: Phase = Phase.PLAN
    current: int = 0
    plans: list[Action | None] = field(default_factory=lambda: [None, None])
    order: tuple[int, int] = (0, 1)
    """This combat turn's Initiative order, once both plans are in."""
    ordered: bool = False
    pending: Pending | None = None

    def distance(self) -> int:
        """Half metres between the two (side A is always left of side B)."""
        return self.fighters[1].position - self.fighters[0].position

    def aftermath(self) -> dict[str, Any]:
        """§9: anyone with 5 or more Vitality boxes crossed (and not dead) is dying, by
        seat; reported in `info` only."""
        return {"dying": tuple(f.dying for f in self.fighters)}

    def behind(self, seat: int) -> int:
        """Half metres from `seat` to the wall at its back (away from its rival)."""
        fighter = self.fighters[seat]
        return fighter.position if seat == 0 else self.arena - fighter.position
