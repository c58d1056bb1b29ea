"""Vampiro's actions and the fight state they act on (digest §2, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.state import DuelState
from duelo.envs.vampiro.damage import Status
from duelo.envs.vampiro.setup import Armour, Character, Damage, VampiroOptions, Weapon


class Action(IntEnum):
    """Every decision (digest §12): the plan declared in Phase 1 (0-18), its modifiers
    (19-30: Celerity actions k and the Willpower success, id 19 + 2k + wp), and the
    choice to abort to a defence when attacked (31-35)."""

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
    CLINCH = 15
    BITE = 16
    HEAL = 17
    DELAY = 18
    K0 = 19
    K0_WP = 20
    K1 = 21
    K1_WP = 22
    K2 = 23
    K2_WP = 24
    K3 = 25
    K3_WP = 26
    K4 = 27
    K4_WP = 28
    K5 = 29
    K5_WP = 30
    NO_ABORT = 31
    ABORT_DODGE_ROLL = 32
    ABORT_DODGE_WP = 33
    ABORT_BLOCK_ROLL = 34
    ABORT_BLOCK_WP = 35


MEANINGS: dict[int, str] = {
    Action.STRIKE: "plan: strike with your fists (within 1 m)",
    Action.KICK: "plan: kick (within 1 m)",
    Action.WEAPON_STRIKE: "plan: strike with your melee weapon (within 2 m)",
    Action.SHOOT: "plan: shoot",
    Action.SHOOT_TWICE: "plan: shoot twice (-2 dice, then -3)",
    Action.BURST: "plan: fire a burst (3 rounds)",
    Action.FULL_AUTO: "plan: fire full auto (half the clip)",
    Action.DODGE: "plan: dodge",
    Action.BLOCK_PARRY: "plan: block, or parry with a melee weapon (against melee)",
    Action.ATTACK_DODGE: "plan: attack (-2 dice), and dodge when needed (-3 dice)",
    Action.DOUBLE_ATTACK: "plan: attack twice in melee (-2 dice, then -3)",
    Action.CLOSE: "plan: run at them, stopping at 1 m",
    Action.OPEN: "plan: run away (far enough, and you have fled)",
    Action.RELOAD: "plan: reload, or clear a jam",
    Action.AIM: "plan: aim (dice for your next shot)",
    Action.CLINCH: "plan: clinch (within 1 m)",
    Action.BITE: "plan: bite (a vampire, holding or clinched)",
    Action.HEAL: "plan: heal a wound with blood (a vampire)",
    Action.DELAY: "plan: delay, and choose after their next action",
    **{
        Action[f"K{k}{wp}"]: f"Celerity: {k} extra action{'s' if k != 1 else ''}{said}"
        for k in range(6)
        for wp, said in (("", ""), ("_WP", ", and 1 Willpower for an automatic success"))
    },
    Action.NO_ABORT: "attacked: keep your plan",
    Action.ABORT_DODGE_ROLL: "attacked: abort to a dodge (roll Willpower)",
    Action.ABORT_DODGE_WP: "attacked: abort to a dodge (spend 1 Willpower)",
    Action.ABORT_BLOCK_ROLL: "attacked: abort to a block or parry (roll Willpower)",
    Action.ABORT_BLOCK_WP: "attacked: abort to a block or parry (spend 1 Willpower)",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §12 tables: the plan, its modifiers, the abort)."""


PLANS = tuple(Action(i) for i in range(Action.DELAY + 1))
MODIFIERS = tuple(Action(i) for i in range(Action.K0, Action.K5_WP + 1))
ABORTS = tuple(Action(i) for i in range(Action.NO_ABORT, Action.ABORT_BLOCK_WP + 1))
MULTIPLE = (Action.SHOOT_TWICE, Action.ATTACK_DODGE, Action.DOUBLE_ATTACK)
"""Plans of two actions (§8.1): declared in Phase 1, never chosen after a delay."""


def modifier(celerity: int, willpower: bool) -> Action:
    return Action(Action.K0 + 2 * celerity + int(willpower))


class Phase(IntEnum):
    """The decision a seat faces (§12): its plan, the plan's modifiers, an abort to a
    defence, or the action a delayed character takes now."""

    DECLARE = 0
    MODIFIERS = 1
    INTERRUPT = 2
    DELAYED = 3


class Move(IntEnum):
    """One action in a fighter's turn: what it does when its moment comes (§4, §5)."""

    STRIKE = 0
    KICK = 1
    WEAPON_STRIKE = 2
    SHOOT = 3
    BURST = 4
    FULL_AUTO = 5
    DODGE = 6
    BLOCK_PARRY = 7
    CLOSE = 8
    OPEN = 9
    RELOAD = 10
    AIM = 11
    CLINCH = 12
    BITE = 13
    HEAL = 14


DEFENCES = (Move.DODGE, Move.BLOCK_PARRY)
MELEE_ATTACKS = (Move.STRIKE, Move.KICK, Move.WEAPON_STRIKE, Move.CLINCH, Move.BITE)
SHOTS = (Move.SHOOT, Move.BURST, Move.FULL_AUTO)
ATTACKS = (*MELEE_ATTACKS, *SHOTS)


@dataclass
class Slot:
    """A declared action: its move, the dice its multiple-action place costs (§8.1), and
    whether it is a Celerity action (full pool, end of turn, §8.3)."""

    move: Move
    penalty: int = 0
    celerity: bool = False
    done: bool = False
    target: int | None = None
    """The seat it is aimed at, in a fight of several a side (§13.3); None in a duel."""


@dataclass
class Fighter:
    character: Character
    name: str
    weapon: Weapon
    """The weapon in hand (fists when none, or after a botch dropped it)."""
    carried: Weapon
    """The weapon the character brought (picked up again by RELOAD after a drop)."""
    armour: Armour
    willpower: int
    blood: int
    ammo: int
    declared_blood: int = 0
    """Blood spent on this turn's Celerity (§8.3): with the Willpower point declared, what
    a rival who may not see the declaration does not see spent (§12, §10 #30)."""
    health: list[Damage] = field(default_factory=list)
    status: Status = Status.ACTIVE
    jammed: bool = False
    aiming: int = 0
    off_balance: bool = False
    """A brawl botch: its next action is lost (§7)."""
    clinched: bool = False
    fled: bool = False
    roll: int = 0
    """This turn's initiative die (6 with `fixed_initiative`)."""
    initiative: int = 0
    declare_initiative: int = 0
    """The score with every Celerity dot unused, which orders the declarations (§10 #22)."""
    plan: Action | None = None
    celerity: int = 0
    willpower_success: bool = False
    """Its Willpower success this turn, not yet used on a roll (§3, §10 #23)."""
    declared_willpower: bool = False
    slots: list[Slot] = field(default_factory=list)
    delayed: bool = False
    shots: int = 0
    """Shots fired this turn (at most the weapon's rate, §8.1)."""
    held_penalty: int | None = None
    """The wound penalty its rolls use during a simultaneous exchange: the one it had when
    the exchange began, whatever lands in it (§10 #11); None otherwise."""

    @property
    def out(self) -> bool:
        """Out of the fight: down (§9), or fled (§10 #24)."""
        return self.status != Status.ACTIVE or self.fled


@dataclass(frozen=True)
class Incoming:
    """An attack waiting on its target's choice to abort to a defence (§8.2)."""

    attacker: int
    index: int
    """The attacker's slot."""
    move: Move


@dataclass
class VampiroState(DuelState):
    options: VampiroOptions
    fighters: list[Fighter]
    range: float
    phase: Phase = Phase.DECLARE
    current: int = 0
    order: tuple[int, int] = (0, 1)
    """Phase 2's order, fastest first (seat order when tied: simultaneous)."""
    tied: bool = False
    """Both scores and ratings tie: declarations are blind and actions simultaneous (§10 #29)."""
    first_declarer: int | None = None
    """The side that declared first this turn, the slower (§4); None in a full tie."""
    declared: list[bool] = field(default_factory=lambda: [False, False])
    incoming: Incoming | None = None
    queue: list[tuple[int, int]] = field(default_factory=list)
    """(seat, slot) still to act this turn, in order."""


def damage_type(state: VampiroState, seat: int, move: Move) -> Damage:
    """The damage `seat`'s `move` does to its rival in a duel (`hit_type`)."""
    return hit_type(state.options, state.fighters[seat], state.fighters[1 - seat], move)


def hit_type(options: VampiroOptions, me: Fighter, them: Fighter, move: Move) -> Damage:
    """§5, §7: fists, kicks and clinches bash; fangs aggravate; a weapon its own type;
    bullets on a vampire bash with `bullets_bashing_vs_vampires` (§10 #9)."""
    if move == Move.BITE:
        return Damage.AGGRAVATED
    if move in (Move.STRIKE, Move.KICK, Move.CLINCH):
        return Damage.BASHING
    if move == Move.WEAPON_STRIKE:
        return me.weapon.damage_type
    bashing = options.bullets_bashing_vs_vampires and them.character.vampire
    return Damage.BASHING if bashing else me.weapon.damage_type
