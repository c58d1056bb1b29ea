"""Infierno's actions and the duel state they act on (digest §2, §12)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.dice import Dice
from duelo.envs.core.state import DuelState
from duelo.envs.infierno.setup import Character, InfiernoOptions, Scenario, Weapon


class Action(IntEnum):
    """Every decision of an Infierno duel (digest §12 table, plus the two decision phases)."""

    END_TURN = 0
    ATTACK_MAIN = 1
    ATTACK_UNARMED = 2
    PISTOL_WHIP = 3
    THROW_MAIN = 4
    TWO_WEAPON_ATTACK = 5
    DRAW_PRIMARY = 6
    DRAW_SECONDARY = 7
    HOLSTER_MAIN = 8
    ADVANCE = 9
    RETREAT = 10
    STEP_IN = 11
    STEP_OUT = 12
    RUN_IN = 13
    RUN_OUT = 14
    TAKE_COVER = 15
    CLEAR_JAM = 16
    RELOAD = 17
    FEINT = 18
    PRONE_TOGGLE = 19
    DELAY = 20
    SURRENDER = 21
    SETTLE = 22
    INSIST = 23
    CRIT_MULTIPLY = 24
    CRIT_MAXIMUM = 25
    CRIT_IGNORE_RD = 26
    CRIT_SEQUEL = 27
    CRIT_LETHAL = 28


MEANINGS: dict[int, str] = {
    Action.END_TURN: "end your turn",
    Action.ATTACK_MAIN: "attack with the weapon in your main hand (melee or ranged, by range)",
    Action.ATTACK_UNARMED: "punch or kick (adjacent)",
    Action.PISTOL_WHIP: "strike with the butt of your firearm (adjacent)",
    Action.THROW_MAIN: "throw the weapon in your main hand",
    Action.TWO_WEAPON_ATTACK: "attack with both hands (full round)",
    Action.DRAW_PRIMARY: "draw your primary weapon",
    Action.DRAW_SECONDARY: "draw your secondary weapon",
    Action.HOLSTER_MAIN: "holster the weapon in your main hand",
    Action.ADVANCE: "move toward your opponent (a move action)",
    Action.RETREAT: "move away from your opponent (a move action)",
    Action.STEP_IN: "take a 1.5 m step toward your opponent",
    Action.STEP_OUT: "take a 1.5 m step away from your opponent",
    Action.RUN_IN: "run toward your opponent (full round)",
    Action.RUN_OUT: "run away from your opponent (full round)",
    Action.TAKE_COVER: "get behind the cover nearby",
    Action.CLEAR_JAM: "clear your jammed firearm",
    Action.RELOAD: "reload your firearm (full round)",
    Action.FEINT: "feint (Deceive against Attention): your next attack is a sneak attack",
    Action.PRONE_TOGGLE: "drop prone, or stand up",
    Action.DELAY: "delay: from now on, act right after your opponent",
    Action.SURRENDER: "surrender: you lose the duel",
    Action.SETTLE: "both missed: settle (a draw if both settle)",
    Action.INSIST: "both missed: insist (the duel is fought again)",
    Action.CRIT_MULTIPLY: "critical: multiply the damage",
    Action.CRIT_MAXIMUM: "critical: maximum damage",
    Action.CRIT_IGNORE_RD: "critical: ignore the damage reduction",
    Action.CRIT_SEQUEL: "critical: leave a Sequel (-2 to their rolls)",
    Action.CRIT_LETHAL: "critical: make the nonlethal damage lethal",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §12 table; the critical effects C1-C5 of §7)."""


CRIT_EFFECTS = (
    Action.CRIT_MULTIPLY,
    Action.CRIT_MAXIMUM,
    Action.CRIT_IGNORE_RD,
    Action.CRIT_SEQUEL,
    Action.CRIT_LETHAL,
)
"""The five critical effects C1..C5 of digest §7.1, in table order."""


class Phase(IntEnum):
    SURPRISE = 0
    ROUND = 1
    BOTH_MISS_DECISION = 2
    CRIT_CHOICE = 3


class Place(IntEnum):
    """Where a carried weapon is (digest §2 `where`)."""

    HOLSTERED = 0
    MAIN_HAND = 1
    OFF_HAND = 2
    THROWN_AWAY = 3


class Staredown(IntEnum):
    NONE = 0
    LOST = 1
    COWED = 2


@dataclass
class Carried:
    """One weapon a fighter carries, with its own ammunition and jam state."""

    weapon: Weapon
    place: Place = Place.HOLSTERED
    ammo: int = 0
    jammed: bool = False
    shown: bool = False
    """It has been out of the holster: the opponent has seen it (a holstered weapon it
    never drew stays hidden, the derringer above all)."""

    def draw(self, place: Place) -> None:
        """Take it into a hand (drawn, or in hand when the scenario opens)."""
        self.place = place
        self.shown = True


@dataclass
class Budget:
    """What is left of the current turn (digest §4 step 7)."""

    standard: bool = True
    move: bool = True
    moved: bool = False
    stepped: bool = False
    acted: bool = False
    surprise: bool = False
    free_used: set[Action] = field(default_factory=set)

    @property
    def full_round(self) -> bool:
        return self.standard and self.move and not self.surprise

    @property
    def can_step(self) -> bool:
        """The 1.5 m step: only if no other distance was moved this turn (seed)."""
        return not (self.moved or self.stepped)

    @property
    def exhausted(self) -> bool:
        return not (self.standard or self.move or self.can_step)


def is_out(hp: int, nonlethal: int) -> bool:
    """Down (hp <= 0) or knocked out (nonlethal >= hp), digest §9."""
    return hp <= 0 or nonlethal >= hp


@dataclass
class Fighter:
    character: Character
    name: str
    """The character's name, with the side added when both sides share it."""
    carried: list[Carried]
    hp: int
    cover_nearby: bool
    draws_free: bool = False
    """Drawing costs it no move action (Quick Draw, §4 step 9)."""
    nonlethal: int = 0
    sequels: int = 0
    initiative: float | None = None
    has_acted: bool = False
    aware: bool = True
    stunned: bool = False
    prone: bool = False
    cover: bool = False
    staredown: Staredown = Staredown.NONE
    staredown_carry: int = 0
    feint_turns: int = 0
    damaged_opponent: bool = False

    def in_hand(self, place: Place) -> Carried | None:
        for item in self.carried:
            if item.place == place:
                return item
        return None

    @property
    def main(self) -> Carried | None:
        return self.in_hand(Place.MAIN_HAND)

    @property
    def off(self) -> Carried | None:
        return self.in_hand(Place.OFF_HAND)

    @property
    def out(self) -> bool:
        return is_out(self.hp, self.nonlethal)

    @property
    def flat_footed(self) -> bool:
        return not self.has_acted


class AttackMode(IntEnum):
    MELEE = 0
    RANGED = 1
    THROWN = 2


class StrShare(IntEnum):
    """Share of Strength added to damage (digest §7 table)."""

    NONE = 0
    HALF = 1
    FULL = 2
    ONE_AND_HALF = 3


@dataclass(frozen=True)
class Attack:
    """One attack waiting to be resolved (digest §7 pipeline)."""

    attacker: int
    weapon: Weapon
    mode: AttackMode
    str_share: StrShare
    item: int | None = None
    """Index of the carried weapon used (None for fists and improvised strikes)."""
    penalty: int = 0
    off_hand: bool = False
    target: int | None = None
    """The seat attacked: None is the opponent of a duel (`InfiernoState.target_of`)."""
    aimed: bool = False
    """A shot into a melee aimed at the target alone: -4, no stray hits (digest §13.5)."""


@dataclass
class InfiernoState(DuelState):
    ROUND_RELATIVE = ("delayed_round",)
    scenario: Scenario
    options: InfiernoOptions
    fighters: list[Fighter]
    distance: int
    phase: Phase = Phase.ROUND
    shootout_round: int = 0
    order: list[int] = field(default_factory=lambda: [0, 1])
    turn_index: int = 0
    current: int | None = None
    budget: Budget = field(default_factory=Budget)
    duel_repeats: int = 0
    queue: list[Attack] = field(default_factory=list)
    pending_crit: Attack | None = None
    honour_choices: dict[int, Action] = field(default_factory=dict)
    delayed_round: int = -1

    def target_of(self, attack: Attack) -> int:
        """The seat `attack` is aimed at (in a duel, the other seat)."""
        return 1 - attack.attacker if attack.target is None else attack.target

    def range_of(self, attack: Attack) -> int:
        """The range in squares from the attacker to its target (a duel's one distance)."""
        return self.distance

    def teamwork(self, attack: Attack) -> tuple[int, str]:
        """What allies change in the attack's bonus, and a note of it: nothing in a duel
        (a skirmish's flanking and aimed shots into a melee, digest §13.4, §13.5)."""
        return 0, ""

    def exceed_needed(self, attack: Attack) -> bool:
        """Whether the attack must pass the Defense, not only reach it, to hit: never in a
        duel (a skirmish's strict reading of the shot into a melee, digest §13.5)."""
        return False

    def stray_victim(self, attack: Attack, dice: Dice) -> tuple[int | None, str]:
        """On a hit, the seat a shot into a melee hits instead of its target (the
        participant die, digest §13.5), or None, and a note for the narration: never in
        a duel."""
        return None, ""
