"""The actions of an Infierno skirmish and the state they act on (digest §13).

A skirmish is the duel's state with several fighters a side on one line of squares:
each fighter's square, its side, and whether it left the fight by surrendering or
fleeing. What the duel's attack pipeline asks of a fight (`InfiernoState.target_of`,
`range_of`, `teamwork`, `stray_victim`) is answered here for many: the range between
two fighters, flanking and the shot into a melee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from duelo.envs.core.dice import Dice
from duelo.envs.infierno.skirmish_setup import MAX_SIDE, SkirmishOptions
from duelo.envs.infierno.state import Action, Attack, AttackMode, InfiernoState

UNTARGETED = (
    ("END_TURN", Action.END_TURN, "end your turn"),
    ("DRAW_PRIMARY", Action.DRAW_PRIMARY, "draw your primary weapon"),
    ("DRAW_SECONDARY", Action.DRAW_SECONDARY, "draw your secondary weapon"),
    ("HOLSTER_MAIN", Action.HOLSTER_MAIN, "holster the weapon in your main hand"),
    ("RETREAT", Action.RETREAT, "move toward your home edge (a move action; off it: flee)"),
    ("STEP_BACK", Action.STEP_OUT, "take a 1.5 m step toward your home edge"),
    ("STEP_FORWARD", Action.STEP_IN, "take a 1.5 m step toward the enemy's edge"),
    ("RUN_HOME", Action.RUN_OUT, "run toward your home edge (full round; off it: flee)"),
    ("TAKE_COVER", Action.TAKE_COVER, "get behind the cover nearby"),
    ("CLEAR_JAM", Action.CLEAR_JAM, "clear your jammed firearm"),
    ("RELOAD", Action.RELOAD, "reload your firearm (full round)"),
    ("PRONE_TOGGLE", Action.PRONE_TOGGLE, "drop prone, or stand up"),
    ("SURRENDER", Action.SURRENDER, "surrender: you leave the fight"),
    ("CRIT_MULTIPLY", Action.CRIT_MULTIPLY, "critical: multiply the damage"),
    ("CRIT_MAXIMUM", Action.CRIT_MAXIMUM, "critical: maximum damage"),
    ("CRIT_IGNORE_RD", Action.CRIT_IGNORE_RD, "critical: ignore the damage reduction"),
    ("CRIT_SEQUEL", Action.CRIT_SEQUEL, "critical: leave a Sequel (-2 to their rolls)"),
    ("CRIT_LETHAL", Action.CRIT_LETHAL, "critical: make the nonlethal damage lethal"),
)
"""The actions without a target: name, the duel's action it is, meaning (§13.1 moves)."""
AT_ENEMY = (
    ("ATTACK_MAIN", Action.ATTACK_MAIN, False, "attack {} with the weapon in your main hand"),
    ("ATTACK_MAIN_AIMED", Action.ATTACK_MAIN, True, "fire at {} in a melee, aimed (-4)"),
    ("ATTACK_UNARMED", Action.ATTACK_UNARMED, False, "punch or kick {} (adjacent)"),
    ("PISTOL_WHIP", Action.PISTOL_WHIP, False, "strike {} with your firearm's butt"),
    ("THROW_MAIN", Action.THROW_MAIN, False, "throw the weapon in your main hand at {}"),
    ("THROW_MAIN_AIMED", Action.THROW_MAIN, True, "throw at {} in a melee, aimed (-4)"),
    ("TWO_WEAPON_ATTACK", Action.TWO_WEAPON_ATTACK, False, "attack {} with both hands"),
    ("TWO_WEAPON_AIMED", Action.TWO_WEAPON_ATTACK, True, "both hands at {}, shots aimed (-4)"),
    ("ADVANCE", Action.ADVANCE, False, "move toward {} (a move action)"),
    ("RUN_TO", Action.RUN_IN, False, "run toward {} (full round)"),
    ("FEINT", Action.FEINT, False, "feint against {}: your next attack is a sneak attack"),
)
"""The actions at an enemy, one copy per enemy slot (§13.3); aimed: the shot into a
melee that only the target can take (§13.5)."""
ALLY_SLOTS = MAX_SIDE - 1
"""The others of one's own side: the observation's rows 1..3."""


@dataclass(frozen=True)
class Decoded:
    """What a skirmish action is: the duel's action, at whom, aimed or not."""

    action: Action
    enemy: int | None = None
    """The enemy slot it is aimed at."""
    ally: int | None = None
    """The ally slot (1..3) it names: a delay after that ally."""
    aimed: bool = False
    delay_enemy: bool = False


def _catalogue() -> tuple[list[str], list[Decoded], list[str]]:
    names, decoded, meanings = [], [], []
    for name, action, meaning in UNTARGETED:
        names.append(name)
        decoded.append(Decoded(action))
        meanings.append(meaning)
    for name, action, aimed, meaning in AT_ENEMY:
        for slot in range(MAX_SIDE):
            names.append(f"{name}_E{slot}")
            decoded.append(Decoded(action, enemy=slot, aimed=aimed))
            meanings.append(meaning.format(f"enemy {slot}"))
    for slot in range(1, ALLY_SLOTS + 1):
        names.append(f"DELAY_AFTER_A{slot}")
        decoded.append(Decoded(Action.DELAY, ally=slot))
        meanings.append(f"delay: from now on, act right after ally {slot}")
    for slot in range(MAX_SIDE):
        names.append(f"DELAY_AFTER_E{slot}")
        decoded.append(Decoded(Action.DELAY, enemy=slot, delay_enemy=True))
        meanings.append(f"delay: from now on, act right after enemy {slot}")
    return names, decoded, meanings


_NAMES, DECODED, _MEANINGS = _catalogue()
SkirmishAction = IntEnum("SkirmishAction", [(n, i) for i, n in enumerate(_NAMES)])  # type: ignore[misc]  # built from the tables above
"""Every decision of an Infierno skirmish (digest §13.3): the duel's untargeted actions,
each action at an enemy once per enemy slot, and a delay after each other fighter."""
ACTION_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
"""Each action's id by name (what the NPCs look up: the enum is built, not written)."""
MEANINGS: dict[int, str] = dict(enumerate(_MEANINGS))
"""Each action in words (digest §13.3)."""


class Gone(IntEnum):
    """Whether a fighter left the fight of its own will (§13.8)."""

    STAYS = 0
    SURRENDERED = 1
    FLED = 2


@dataclass
class SkirmishState(InfiernoState):
    positions: list[int] = field(default_factory=list)
    """Each fighter's square (§13.1)."""
    sides: tuple[int, ...] = ()
    gone: list[Gone] = field(default_factory=list)
    present: list[bool] = field(default_factory=list)
    """Who has come into the fight: a fighter arriving mid-fight holds its slot, absent,
    until its round (§13.2)."""
    delayed: list[bool] = field(default_factory=list)
    """Who has delayed this round: once a round each (§13.2 ASSUMPTION, as the duel's
    §4 step 5), or two fighters could delay after each other for ever."""
    aim: tuple[int, bool] = (-1, False)
    """The target seat and the aimed flag of the action being resolved."""

    def active(self, seat: int) -> bool:
        """In the fight: arrived (§13.2), not out (§9), not surrendered, not fled (§13.8)."""
        return self.present[seat] and not self.fighters[seat].out and self.gone[seat] == Gone.STAYS

    def between(self, one: int, other: int) -> int:
        """§13.1: range(i, j) = max(1, |pos_i - pos_j|)."""
        return max(1, abs(self.positions[one] - self.positions[other]))

    def adjacent(self, one: int, other: int) -> bool:
        """§13.1: within one square, the same square included."""
        return abs(self.positions[one] - self.positions[other]) <= 1

    def allies(self, seat: int) -> list[int]:
        """The other fighters of `seat`'s side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side == self.sides[seat] and s != seat]

    def enemies(self, seat: int) -> list[int]:
        """The fighters of the other side, in slot order."""
        return [s for s, side in enumerate(self.sides) if side != self.sides[seat]]

    def range_of(self, attack: Attack) -> int:
        return self.between(attack.attacker, self.target_of(attack))

    @property
    def rulings(self) -> SkirmishOptions:
        """The options, with the skirmish's own (`options` is typed as the duel's)."""
        assert isinstance(self.options, SkirmishOptions)  # a skirmish ruleset sets them
        return self.options

    def flanked(self, attacker: int, target: int) -> bool:
        """§13.4: the attacker is adjacent to the target, and so is another ally of its
        that fights (active, and not stunned unless `flank_counts_stunned`)."""
        if not self.adjacent(attacker, target):
            return False
        stunned_count = self.rulings.flank_counts_stunned
        return any(
            self.active(ally)
            and (stunned_count or not self.fighters[ally].stunned)
            and self.adjacent(ally, target)
            for ally in self.allies(attacker)
        )

    def in_melee(self, shooter: int, target: int) -> bool:
        """§13.5: the target is adjacent to an active ally of the shooter (the shooter
        itself never counts): a shot at it is a shot into a melee."""
        return any(
            self.active(ally) and self.adjacent(ally, target) for ally in self.allies(shooter)
        )

    def participants(self, shooter: int, target: int) -> list[int]:
        """§13.5 "los implicados" of a shot into a melee: the target, then each active
        ally of the shooter adjacent to it, in slot order (never the shooter); with
        `melee_participants` "all_adjacent" also the target's active allies adjacent to
        it and the shooter's allies adjacent to those. The target alone where the shot
        is not into a melee."""
        if not self.in_melee(shooter, target):
            return [target]
        mine = [a for a in self.allies(shooter) if self.active(a)]
        beside = [a for a in mine if self.adjacent(a, target)]
        if self.rulings.melee_participants == "all_adjacent":
            theirs = [e for e in self.allies(target) if self.active(e) and self.adjacent(e, target)]
            beside += [
                a for a in mine if a not in beside and any(self.adjacent(a, e) for e in theirs)
            ]
            beside += theirs
        return [target, *sorted(beside)]

    def exceed_needed(self, attack: Attack) -> bool:
        """§13.5 option `stray_needs_exceed`: an unaimed shot into a melee must pass the
        target's Defense."""
        return (
            self.rulings.stray_needs_exceed
            and not attack.aimed
            and attack.mode != AttackMode.MELEE
            and self.in_melee(attack.attacker, self.target_of(attack))
        )

    def teamwork(self, attack: Attack) -> tuple[int, str]:
        bonus, notes = 0, []
        if self.flanked(attack.attacker, self.target_of(attack)):
            bonus += FLANK_BONUS
            notes.append(f"flanking +{FLANK_BONUS}")
        if attack.aimed:
            bonus -= AIMED_PENALTY
            notes.append(f"aimed into the melee -{AIMED_PENALTY}")
        return bonus, ", ".join(notes)

    def stray_victim(self, attack: Attack, dice: Dice) -> tuple[int | None, str]:
        """§13.5: an unaimed shot that hits rolls 1dN over the participants; face 1 is
        the target (None), face k the k-th participant."""
        if attack.aimed or attack.mode == AttackMode.MELEE:
            return None, ""
        target = self.target_of(attack)
        participants = self.participants(attack.attacker, target)
        if len(participants) == 1:
            return None, ""
        face = dice.roll(len(participants), "participant")
        victim = participants[face - 1]
        note = f" into the melee, d{len(participants)} {face}: {self.fighters[victim].name}"
        return (None if victim == target else victim), note


FLANK_BONUS = 2
"""Seed FLANQUEAR: +2 to the attack of each fighter flanking the same opponent."""
AIMED_PENALTY = 4
"""Seed DISPARO AL COMBATE: -4 to aim at the rival alone."""
