"""Vampiro's data: weapons, armour, characters and the GM options.

Loaded from `configs/vampiro/` (or a user's files) and checked on load. Seed
`004_28b7eda06dabcb9d.txt` ("Sistemas de Combate"), digest `rules/vampiro.md`.
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
)
from duelo.envs.core.state import check_round_cap

MAX_DOTS = 5
"""Attributes, Abilities and Disciplines lie in 0..5 (Attributes 1..5; §2)."""
HEALTH_LEVELS = 7
"""Bruised, Hurt, Injured, Wounded, Mauled, Crippled, Incapacitated (§7, published)."""
GENERATIONS = {
    13: (10, 1),
    12: (11, 1),
    11: (12, 1),
    10: (13, 1),
    9: (14, 2),
    8: (15, 3),
    7: (20, 4),
    6: (30, 6),
}
"""§7 (published): a generation's blood pool and the blood it may spend a turn."""


class Damage(StrEnum):
    """§7 (seed): bashing, lethal, aggravated."""

    BASHING = "bashing"
    LETHAL = "lethal"
    AGGRAVATED = "aggravated"


class Kind(StrEnum):
    BRAWL = "brawl"
    MELEE = "melee"
    FIREARM = "firearm"
    THROWN = "thrown"


@dataclass(frozen=True)
class Weapon:
    """A weapon (§7 tables, published): damage Strength + `bonus` for muscle-powered ones,
    or a fixed `damage` for guns; a gun's range (m), rate, clip and fire modes."""

    id: str
    name: str
    kind: Kind
    damage_type: Damage
    bonus: int = 0
    damage: int = 0
    range: int = 0
    rate: int = 0
    clip: int = 0
    burst: bool = False
    auto: bool = False

    def __post_init__(self) -> None:
        require_printable(self.name)
        ranged = self.kind in (Kind.FIREARM, Kind.THROWN)
        if ranged and not (1 <= self.damage <= 12 and 1 <= self.range <= 500):
            raise ValueError("a ranged weapon needs damage 1..12 and range 1..500 m")
        if self.kind == Kind.FIREARM and not (1 <= self.rate <= 10 and 1 <= self.clip <= 100):
            raise ValueError("a firearm needs rate 1..10 and clip 1..100")
        if not ranged and not 0 <= self.bonus <= 5:
            raise ValueError(f"bonus {self.bonus} must lie in 0..5")
        if (self.burst or self.auto) and self.kind != Kind.FIREARM:
            raise ValueError("only a firearm fires bursts or full auto")


@dataclass(frozen=True)
class Armour:
    """§7 (published): soak against bashing and lethal, and a Dexterity penalty."""

    id: str
    name: str
    rating: int
    penalty: int

    def __post_init__(self) -> None:
        require_printable(self.name)
        if not 0 <= self.rating <= 5 or not 0 <= self.penalty <= 3:
            raise ValueError("rating must lie in 0..5 and penalty in 0..3")


ABILITIES = ("pelea", "esquivar", "atletismo", "armas_cc", "armas_fuego")
"""Brawl, Dodge and Athletics are Talents; Melee and Firearms are Skills (§2, §3)."""
ATTRIBUTES = ("fuerza", "destreza", "resistencia", "astucia", "percepcion")


@dataclass(frozen=True)
class Character:
    """A stat block (§2): Attributes 1..5, Abilities and Disciplines 0..5, Willpower,
    a vampire's generation, a weapon in hand and armour."""

    id: str
    name: str
    fuerza: int
    destreza: int
    resistencia: int
    astucia: int
    percepcion: int = 2
    pelea: int = 0
    esquivar: int = 0
    atletismo: int = 0
    armas_cc: int = 0
    armas_fuego: int = 0
    specialties: tuple[str, ...] = ()
    """Abilities whose rolls count a 10 twice (seed), e.g. ["armas_cc"]."""
    willpower: int = 3
    vampire: bool = False
    generation: int = 13
    celeridad: int = 0
    fortaleza: int = 0
    potencia: int = 0
    weapon: str = "fists"
    armour: str = "none"

    def __post_init__(self) -> None:
        require_printable(self.name)
        for name in ATTRIBUTES:
            if not 1 <= getattr(self, name) <= MAX_DOTS:
                raise ValueError(f"{name} {getattr(self, name)} must lie in 1..5")
        for name in (*ABILITIES, "celeridad", "fortaleza", "potencia"):
            if not 0 <= getattr(self, name) <= MAX_DOTS:
                raise ValueError(f"{name} {getattr(self, name)} must lie in 0..5")
        if not 1 <= self.willpower <= 10:
            raise ValueError(f"willpower {self.willpower} must lie in 1..10")
        unknown = [s for s in self.specialties if s not in ABILITIES]
        if unknown:
            raise ValueError(f"specialty {unknown[0]!r} is not one of {', '.join(ABILITIES)}")
        if self.vampire and self.generation not in GENERATIONS:
            raise ValueError(f"generation {self.generation} must be one of 6..13")
        if not self.vampire and (self.celeridad or self.fortaleza or self.potencia):
            raise ValueError("a mortal has no Disciplines")

    @property
    def blood(self) -> tuple[int, int]:
        """The blood pool and the spendable per turn (§7); a mortal has none."""
        return GENERATIONS[self.generation] if self.vampire else (0, 0)


@dataclass(frozen=True)
class Scenario:
    """Where a fight starts (§10 #21): the two combatants and the metres between them."""

    id: str
    description: str
    fighters: tuple[str, str]
    range: float = 5.0
    cover: tuple[int, int] = (0, 0)
    """Difficulty each side's cover adds to shots at it (§6, published: +1 light cover,
    +2 good cover, +3 only the head showing)."""

    def __post_init__(self) -> None:
        if not 1 <= self.range <= 200:
            raise ValueError(f"range {self.range} must lie in 1..200 m")
        if not all(0 <= c <= 3 for c in self.cover):
            raise ValueError(f"cover {list(self.cover)} must lie in 0..3")


@dataclass(frozen=True)
class VampiroOptions:
    """GM rulings and edition flags; each default is the digest's (§10)."""

    specialty_mode: Literal["double", "reroll"] = "double"
    """§8.5, §10 #1: a specialty 10 counts twice (the seed, V20) or is rolled again (Revised)."""
    celerity_initiative: bool = True
    """§4, §10 #1: unused Celerity dots add to initiative (the seed)."""
    celerity_dice: bool = False
    """§8.3 (V20, optional): unused Celerity dots also add a die each to Dexterity pools."""
    fixed_initiative: bool = False
    """§4: Dexterity + Wits + 6, no die (the seed's optional rule)."""
    ones_cancel_on_damage_soak: bool = True
    """§3, §10 #3."""
    all_multi_at_end: bool = False
    """§4, §10 #5: the first of several actions waits for the end of the turn too."""
    celerity_cost: Literal["per_action", "per_turn"] = "per_action"
    """§8.3, §10 #6: 1 blood per extra action (V20), or 1 a turn (Revised)."""
    dodge_ability: Literal["esquivar", "atletismo"] = "esquivar"
    """§5: Dodge rolls Dex + Dodge (Revised) or Dex + Athletics (V20)."""
    bullets_bashing_vs_vampires: bool = False
    """§7, §10 #9."""
    halve_bashing_vs_vampires: bool = True
    """§7, §10 #10 (published)."""
    willpower_cancellable: bool = False
    """§10 #26: the Willpower success may be cancelled by 1s (the Revised reading)."""
    public_declarations: bool = False
    """§12, §10 #30: a declaration is seen only by who declares after it, for the whole
    turn (the digest); True: by both sides once made (a full tie still declares blind,
    §10 #29), the reading that a declaration is public once spoken."""
    walk_with_action: bool = False
    """§6, §10 #15: a melee attack declared out of reach walks in first, up to 7 m (less
    when wounded), as the digest lets a walk accompany one action; False: §12's mask, a
    blow only within reach (a Close is the whole action), the default."""
    round_cap: int = 20
    """§12: turns before the fight is truncated as a draw."""

    def __post_init__(self) -> None:
        check_round_cap(self.round_cap)


@dataclass(frozen=True)
class Catalog:
    weapons: dict[str, Weapon]
    armour: dict[str, Armour]
    characters: dict[str, Character] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)

    def character(self, name: str) -> Character:
        return known(self.characters, name, "character")

    def scenario(self, name: str) -> Scenario:
        return known(self.scenarios, name, "scenario")


def load_catalog(
    weapons: str | Path | None = None,
    armour: str | Path | None = None,
    characters: str | Path | None = None,
    scenarios: str | Path | None = None,
) -> Catalog:
    """The packaged configs, or the given files, checked against each other."""
    files = {"weapons": weapons, "armour": armour, "characters": characters}
    catalog, paths = load_tables(Catalog, "vampiro", {**files, "scenarios": scenarios})
    require("fists" in catalog.weapons, str(paths["weapons"]), "the table must define 'fists'")
    require("none" in catalog.armour, str(paths["armour"]), "the table must define 'none'")
    for key, character in catalog.characters.items():
        where = f"{paths['characters']}: {key}"
        require_known(character.weapon, catalog.weapons, f"{where}.weapon", "weapon")
        require_known(character.armour, catalog.armour, f"{where}.armour", "armour")
    require_fighters(catalog.scenarios, catalog.characters, paths["scenarios"])
    return catalog
