"""Liminal's actions and the duel state they act on (digest §2, §12)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from duelo.envs.core.state import DuelState
from duelo.envs.liminal.setup import Character, LiminalOptions, Scenario, Weapon


class Action(IntEnum):
    """Every decision of a Liminal duel (digest §12 table): a free move (hold, advance,
    retreat) with the turn's action, the other actions, and the critical choices."""

    HOLD = 0
    HOLD_MELEE = 1
    HOLD_SHOOT = 2
    HOLD_DEFEND = 3
    HOLD_SOCIAL = 4
    ADVANCE = 5
    ADVANCE_MELEE = 6
    ADVANCE_SHOOT = 7
    ADVANCE_DEFEND = 8
    ADVANCE_SOCIAL = 9
    RETREAT = 10
    RETREAT_MELEE = 11
    RETREAT_SHOOT = 12
    RETREAT_DEFEND = 13
    RETREAT_SOCIAL = 14
    RECOVER = 15
    FAST_ADVANCE = 16
    FAST_RETREAT = 17
    CRIT_DAMAGE = 18
    CRIT_ACT_FIRST = 19
    CRIT_DISARM = 20
    CRIT_DRAW_ATTACKS = 21
    DEFEND_PERFECT_COVER = 22
    DEFEND_WITHDRAW = 23
    DEFEND_ALLY_WITHDRAWS = 24


_MOVES = {"HOLD": "stay put", "ADVANCE": "step closer", "RETREAT": "step back"}
_DEEDS = {
    "": "",
    "_MELEE": ", then strike in melee",
    "_SHOOT": ", then shoot",
    "_DEFEND": ", then defend",
    "_SOCIAL": ", then press them to give up",
}
MEANINGS: dict[int, str] = {
    **{
        Action[move + deed]: said + rest
        for move, said in _MOVES.items()
        for deed, rest in _DEEDS.items()
    },
    Action.RECOVER: "pick up your dropped weapon (no move)",
    Action.FAST_ADVANCE: "close two steps fast (Athletics, if engaged)",
    Action.FAST_RETREAT: "fall back two steps fast",
    Action.CRIT_DAMAGE: "critical: +1d6 damage",
    Action.CRIT_ACT_FIRST: "critical: act first from next round",
    Action.CRIT_DISARM: "critical: disarm them",
    Action.CRIT_DRAW_ATTACKS: "critical: become an enemy's next target",
    Action.DEFEND_PERFECT_COVER: "defence critical: reach perfect cover",
    Action.DEFEND_WITHDRAW: "defence critical: withdraw from the fight",
    Action.DEFEND_ALLY_WITHDRAWS: "defence critical: let an ally withdraw",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §12 table: a free move with the turn's action, then the critical choices)."""


class Deed(IntEnum):
    """The action that goes with a free move (ids 0-14 are move * 5 + deed)."""

    NONE = 0
    MELEE = 1
    SHOOT = 2
    DEFEND = 3
    SOCIAL = 4


MOVE_STEPS = (0, -1, 1)
"""The free move of ids 0-4, 5-9 and 10-14: hold, advance, retreat (digest §6)."""


class Phase(IntEnum):
    """Sub-decisions inside one turn (digest §12)."""

    MAIN = 0
    CRIT_ATTACK = 1
    CRIT_DEFEND = 2
    BONUS = 3


@dataclass
class Fighter:
    character: Character
    name: str
    """The character's name, with the side added when both sides share it."""
    carried: list[Weapon]
    endurance: int
    held: int | None = 0
    """Index into `carried` of the weapon in hand; None: empty-handed."""
    dropped: tuple[int, ...] = ()
    """Indices into `carried` of the weapons disarming criticals knocked away, in loadout
    order (digest §7): a second disarm drops a second weapon, it gives back none."""
    drew_this_round: bool = False
    defending: bool = False
    perfect_cover: bool = False
    in_cover: bool = False
    high_ground: bool = False
    unseen: bool = False
    shaken: bool = False
    acted_this_round: bool = False

    @property
    def weapon(self) -> Weapon | None:
        return None if self.held is None else self.carried[self.held]


@dataclass(frozen=True)
class PendingHit:
    """A hit whose critical effect its attacker must choose before damage (digest §4)."""

    attacker: int
    weapon: Weapon
    melee: bool


@dataclass
class LiminalState(DuelState):
    scenario: Scenario
    options: LiminalOptions
    fighters: list[Fighter]
    distance: int
    first: int = 0
    """The seat acting first this round (initiative, or an "act first" critical)."""
    next_first: int = 0
    """The seat acting first from the next round on (digest §7: "from the next round")."""
    current: int = 0
    turn_index: int = 0
    phase: Phase = Phase.MAIN
    pending: PendingHit | None = None
    moved: bool = False
    """The turn's free move is spent (a quick grab's bonus action may still take it)."""
