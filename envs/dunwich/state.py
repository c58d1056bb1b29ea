"""Dunwich's actions and the duel state they act on (digest §2, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.record import DuelRecord
from duelo.envs.dunwich.setup import Character, DunwichOptions, Scenario, Weapon

VITALITY = (1, 2, 2, 3, 3, 4, 5, 6)
"""The Vitality register's boxes (§1, §7, published)."""
INCAPACITATION = 4
"""Incapacitation boxes of an ordinary human (§2, published): all crossed, out."""
DYING = 5
"""Vitality boxes crossed from which a combatant is dying (§7, §9, published)."""


class Action(IntEnum):
    """Every decision of a Dunwich duel (digest §12 table; RETREAT_SHOOT added, §4 (a):
    the move and the shot in one Initiative Turn)."""

    BID_0 = 0
    BID_1 = 1
    BID_2 = 2
    DANAR = 3
    DESPLAZAR = 4
    DESPLAZAR_PV = 5
    INCAPACITAR = 6
    SHOOT = 7
    ADVANCE = 8
    RETREAT = 9
    SPRINT = 10
    POSITION_DANAR = 11
    ESCAPE = 12
    REACT_DANAR = 13
    REACT_DEFEND = 14
    REACT_DESPLAZAR = 15
    REACT_INCAPACITAR = 16
    REACT_DESPLAZAR_PV = 17
    RETREAT_SHOOT = 18


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


BIDS = (Action.BID_0, Action.BID_1, Action.BID_2)
PLAN = (*BIDS, Action.ESCAPE)
ATTACKS = {
    Action.DANAR: Maneuver.DANAR,
    Action.DESPLAZAR: Maneuver.DESPLAZAR,
    Action.DESPLAZAR_PV: Maneuver.DESPLAZAR,
    Action.INCAPACITAR: Maneuver.INCAPACITAR,
    Action.POSITION_DANAR: Maneuver.DANAR,
}
REACTIONS = {
    Action.REACT_DANAR: Maneuver.DANAR,
    Action.REACT_DEFEND: Maneuver.DEFENDERSE,
    Action.REACT_DESPLAZAR: Maneuver.DESPLAZAR,
    Action.REACT_INCAPACITAR: Maneuver.INCAPACITAR,
    Action.REACT_DESPLAZAR_PV: Maneuver.DESPLAZAR,
}
WITH_PV = (Action.DESPLAZAR_PV, Action.REACT_DESPLAZAR_PV)
"""A push with one Advantage Point committed, paid only if the push wins (§10 #26)."""


class Phase(IntEnum):
    """The three kinds of decision (§12): the turn's sealed plan, an Initiative Turn, a
    reaction to a melee maneuver."""

    PLAN = 0
    ACT = 1
    REACT = 2


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
    def out(self) -> bool:
        """Incapacitated or dead (§9)."""
        return self.incap >= INCAPACITATION or all(self.crossed)


@dataclass(frozen=True)
class Pending:
    """A declared melee maneuver waiting for its target's reaction (§4 item 4)."""

    initiator: int
    maneuver: Maneuver
    pv: int


@dataclass
class DunwichState(DuelRecord):
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

    def behind(self, seat: int) -> int:
        """Half metres from `seat` to the wall at its back (away from its rival)."""
        fighter = self.fighters[seat]
        return fighter.position if seat == 0 else self.arena - fighter.position
