"""Infierno's data: weapons, characters, scenarios and the GM options.

Everything here is loaded from YAML under `configs/infierno/` (or a user's own
files) and validated on load. `InfiernoOptions` holds every ASSUMPTION of the
digest that a GM could rule otherwise, each defaulting to the digest's value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from duelo.envs.core.config import (
    known,
    load_tables,
    require,
    require_fighters,
    require_known,
    require_printable,
    shown,
)
from duelo.envs.core.state import MAX_ROUND_CAP, check_round_cap


class Category(StrEnum):
    """What kind of weapon a table row is (digest §10.1)."""

    UNARMED = "unarmed"
    MELEE = "melee"
    FIREARM = "firearm"


class Feat(StrEnum):
    """The feats the rules implement (seed: Desenfundado rápido, Esquiva asombrosa,
    Combate con dos armas; digest §4, §8.3, §5 and §8.7)."""

    QUICK_DRAW = "quick_draw"
    UNCANNY_DODGE = "uncanny_dodge"
    TWO_WEAPON_FIGHTING = "two_weapon_fighting"


class Surprise(StrEnum):
    """Who gets a surprise round (digest §4 step 2, §10.4): nobody, a side, or rolled."""

    NONE = "none"
    A = "A"
    B = "B"
    ROLLED = "rolled"


@dataclass(frozen=True)
class Weapon:
    """One row of the weapon table (digest §10.1)."""

    id: str
    name: str
    category: Category
    hands: Literal[1, 2]
    damage: tuple[int, int]
    crit_low: int
    multiplier: Literal[2, 3, 4] = 2
    lethal: bool = True
    throwable: bool = False
    increment: int = 0
    max_increments: int = 0
    draw_modifier: int = 0
    reliability: int = 0
    capacity: int = 0
    melee_profile: str | None = None
    drawable: bool = True

    @property
    def is_firearm(self) -> bool:
        return self.category == Category.FIREARM

    @property
    def max_range(self) -> int:
        """The farthest distance in squares it can attack at (§6)."""
        return self.increment * self.max_increments if self.increment else 1

    def __post_init__(self) -> None:
        count, sides = self.damage
        if not (1 <= count <= 10 and 2 <= sides <= 100):
            raise ValueError(f"damage {list(self.damage)} must be 1..10 dice of 2..100 sides")
        if not -10 <= self.draw_modifier <= 10:
            raise ValueError(f"draw_modifier {self.draw_modifier} must lie in -10..10")
        if not 18 <= self.crit_low <= 20:
            raise ValueError(f"crit_low {self.crit_low} must be 18, 19 or 20")
        if self.increment < 0 or self.max_increments < 0 or self.capacity < 0:
            raise ValueError("increment, max_increments and capacity must be >= 0")
        if (self.is_firearm or self.throwable) and not (self.increment and self.max_increments):
            raise ValueError("a firearm or throwable weapon needs increment and max_increments")
        if self.is_firearm and self.capacity < 1:
            raise ValueError("a firearm needs a capacity of at least 1")
        if self.max_range > 999 or self.capacity > 99 or not -20 <= self.reliability <= 40:
            raise ValueError("max range above 999 squares, capacity above 99 or odd reliability")


STAT_FIELDS = (
    "str_mod",
    "dex_mod",
    "init_bonus",
    "attack_bonus",
    "attack_melee",
    "attack_ranged",
    "reflex",
    "intimidate",
    "craft_mech",
    "deceive",
    "attention",
    "stealth",
    "rd",
)
"""Bonuses kept within -20..40 so observations stay inside their declared bounds."""


MAX_HP = 999
"""The largest hp_max a stat block may have."""
MAX_WEAPONS = 2
"""A stat block's loadout: a primary and a secondary weapon."""


@dataclass(frozen=True)
class Character:
    """A stat block (digest §2, §10.3). Defense = 10 + dodge_bonus + other_def."""

    id: str
    name: str
    str_mod: int
    dex_mod: int
    init_bonus: int
    attack_bonus: int
    defense: int
    hp_max: int
    reflex: int
    intimidate: int
    craft_mech: int
    deceive: int
    attention: int
    stealth: int
    weapons: tuple[str, ...] = ()
    feats: tuple[Feat, ...] = ()
    attack_melee: int | None = None
    attack_ranged: int | None = None
    dodge_bonus: int | None = None
    rd: int = 0

    def __post_init__(self) -> None:
        require_printable(self.name)
        for name in STAT_FIELDS:
            value = getattr(self, name)
            if value is not None and not -20 <= value <= 40:
                raise ValueError(f"{name} {value} is outside -20..40")
        if not 1 <= self.hp_max <= MAX_HP:
            raise ValueError(f"hp_max {self.hp_max} must be between 1 and {MAX_HP}")
        if self.rd < 0:
            raise ValueError(f"rd {self.rd} must be >= 0")
        if not 10 <= self.defense <= 60:
            raise ValueError(f"defense {self.defense} must lie in 10..60 (10 + Dodge + other)")
        if self.dodge_bonus is not None and not 0 <= self.dodge_bonus <= self.defense - 10:
            raise ValueError(f"dodge_bonus {self.dodge_bonus} must lie in 0..defense-10")
        if len(self.weapons) > MAX_WEAPONS:
            raise ValueError(
                f"weapons lists {len(self.weapons)} items; at most {MAX_WEAPONS} "
                "(primary, secondary)"
            )

    @property
    def dodge(self) -> int:
        """Dodge part of Defense; by default all of Defense - 10 (digest §10.2)."""
        return self.defense - 10 if self.dodge_bonus is None else self.dodge_bonus

    @property
    def melee_attack(self) -> int:
        return self.attack_bonus if self.attack_melee is None else self.attack_melee

    @property
    def ranged_attack(self) -> int:
        return self.attack_bonus if self.attack_ranged is None else self.attack_ranged


@dataclass(frozen=True)
class Scenario:
    """How a fight opens (digest §8.1, §8.3, §12)."""

    id: str
    description: str
    distance: tuple[int, int]
    staredown: bool
    surprise: Surprise
    drawn: tuple[bool, bool]
    cover_nearby: tuple[bool, bool]
    fighters: tuple[str, str]

    def __post_init__(self) -> None:
        low, high = self.distance
        if not 1 <= low <= high:
            raise ValueError(f"distance {list(self.distance)} must satisfy 1 <= low <= high")
        if self.staredown and self.surprise != Surprise.NONE:
            raise ValueError("a formal duel (staredown) cannot open with surprise")


@dataclass(frozen=True)
class InfiernoOptions:
    """GM rulings where the seed is silent; each default is the digest's ASSUMPTION."""

    staredown_penalty: Literal["A", "B", "C"] = "A"
    """§8.1 readings of the loser's -2: A initiative, B Intimidate margin, C next staredown."""
    both_miss: Literal["decide", "continue", "always_repeat"] = "decide"
    """§8.1: after a round-1 double miss, ask both duelists, fight on, or repeat."""
    max_duel_repeats: int = 2
    """§8.1: repeats allowed before a further double miss is a settled draw."""
    crit_mode: Literal["reroll", "multiply_total"] = "reroll"
    """§7.1 C1: roll the dice m times (rule text) or multiply one roll (seed example)."""
    crit_choice: Literal["auto_best", "always_c1", "agent"] = "auto_best"
    """§7.1: who picks the critical effect; "agent" makes it the attacker's decision."""
    stun_duration: Literal["start_of_next_turn", "end_of_round"] = "start_of_next_turn"
    """§7, §10.2: how long a fumble's stun lasts."""
    stunned_defense_penalty: int = 0
    """§8.7: d20's optional extra Defense penalty while stunned (off: 0)."""
    quick_draw_free: bool = True
    """§4 step 9: Quick Draw makes drawing a free action (else it costs nothing less)."""
    track_ammo: bool = True
    """§10.1: count cartridges; reloading refills (spares unlimited)."""
    allow_prone: bool = True
    """§10.2: dropping prone and standing up are available."""
    lighting: Literal["clear", "partial_concealment", "total_concealment"] = "clear"
    """§8.5: scene lighting; concealment gives a miss chance and sneak attacks."""
    partial_concealment_miss: int = 20
    total_concealment_miss: int = 50
    """§8.5: d100 miss chances (percent) after a hit."""
    partial_cover_defense: int = 4
    """§8.4 (seed): Defense bonus of partial cover."""
    sequel_penalty: int = 2
    """§10.2: penalty per moderate Sequel on attacks and every d20 test."""
    speed: int = 6
    """§6: squares per move action (9 m)."""
    arena: int = 40
    """§6: arena length in squares; retreating past it is flight."""
    range_increments: Literal["digest", "literal"] = "digest"
    """§6: "each full increment gives -2": the first increment including its end point
    (digest), or literally, -2 already at exactly one increment (the formal duel's 15 m)."""
    round_cap: int = 20
    """§9: rounds before the duel is truncated as a draw."""

    def __post_init__(self) -> None:
        for name, (low, high) in OPTION_BOUNDS.items():
            if not low <= getattr(self, name) <= high:
                raise ValueError(f"{name} {shown(getattr(self, name))} must lie in {low}..{high}")
        if self.speed > self.arena:
            raise ValueError(f"speed {self.speed} must not pass the arena's {self.arena} squares")
        check_round_cap(self.round_cap)


OPTION_BOUNDS = {
    "max_duel_repeats": (0, MAX_ROUND_CAP),  # at most one repeat a round
    "stunned_defense_penalty": (0, 50),  # Defense is 10..60 (§3)
    "partial_cover_defense": (0, 50),
    "sequel_penalty": (0, 20),  # a d20 test's whole range
    "partial_concealment_miss": (0, 100),  # percentages
    "total_concealment_miss": (0, 100),
    "speed": (1, 999),
    "arena": (2, 999),  # the observation's range entry reaches 999 squares
}
"""The integer options' ranges: a value past them has no reading at the table."""


@dataclass(frozen=True)
class Catalog:
    """The weapons, characters and scenarios a ruleset can draw on."""

    weapons: dict[str, Weapon]
    characters: dict[str, Character]
    scenarios: dict[str, Scenario] = field(default_factory=dict)

    def character(self, name: str) -> Character:
        return known(self.characters, name, "character")

    def scenario(self, name: str) -> Scenario:
        return known(self.scenarios, name, "scenario")


def load_catalog(
    weapons: str | Path | None = None,
    characters: str | Path | None = None,
    scenarios: str | Path | None = None,
) -> Catalog:
    """Load and cross-check the three files; None takes the packaged default."""
    files = {"weapons": weapons, "characters": characters, "scenarios": scenarios}
    catalog, paths = load_tables(Catalog, "infierno", files)
    weapon_table = catalog.weapons
    require("fists" in weapon_table, str(paths["weapons"]), "the table must define 'fists'")
    for weapon in weapon_table.values():
        if weapon.melee_profile is not None:
            where = f"{paths['weapons']}: {weapon.id}.melee_profile"
            require_known(weapon.melee_profile, weapon_table, where, "weapon")
    for character in catalog.characters.values():
        for i, weapon_id in enumerate(character.weapons):
            where = f"{paths['characters']}: {character.id}.weapons[{i}]"
            require_known(weapon_id, weapon_table, where, "weapon")
            require(weapon_table[weapon_id].drawable, where, f"{weapon_id!r} cannot be carried")
    require_fighters(catalog.scenarios, catalog.characters, paths["scenarios"])
    return catalog
