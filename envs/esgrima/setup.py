"""Esgrima's data: weapons, characters, terrain layouts and the GM options.

Loaded from `configs/esgrima/*.yaml` (or a user's files) and validated on load.
`EsgrimaOptions` holds the digest's ASSUMPTIONS that a GM could rule otherwise.
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


class WeaponClass(StrEnum):
    """Seed (Tipos de armas): a weapon's class sets its reach and damage."""

    LIGHT_MELEE = "light_melee"
    HEAVY_MELEE = "heavy_melee"
    LIGHT_RANGED = "light_ranged"
    HEAVY_RANGED = "heavy_ranged"


class Armour(StrEnum):
    """Seed (Tipos de armaduras)."""

    NONE = "none"
    LIGHT = "light"
    HEAVY = "heavy"


class Role(StrEnum):
    """A player character rolls its initiative; a PNJ keeps 7.5 (seed: Establecer la
    iniciativa)."""

    PJ = "pj"
    PNJ = "pnj"


class Trait(StrEnum):
    """The only traits the seed allows in a fencing duel (Duelo de esgrima)."""

    AFORTUNADO = "afortunado"
    APRENDER_DE_LOS_ERRORES = "aprender_de_los_errores"
    ARTISTA_MARCIAL = "artista_marcial"
    BERSERKER = "berserker"
    BESTIA_HERIDA = "bestia_herida"
    DIFICIL_DE_MATAR = "dificil_de_matar"
    ESGRIMA_ELEGANTE = "esgrima_elegante"
    GARRAS_DE_LA_BESTIA = "garras_de_la_bestia"
    VIGILANTE = "vigilante"


RATINGS = (
    "agresividad",
    "punteria",
    "tecnica",
    "instinto",
    "discrecion",
    "talento",
    "defensa",
    "reflejos",
    "suerte",
)
"""The attribute and save ratings the rules roll against (digest §2, §10 #3)."""
MELEE_CLASSES = frozenset({WeaponClass.LIGHT_MELEE, WeaponClass.HEAVY_MELEE})
HEAVY_CLASSES = frozenset({WeaponClass.HEAVY_MELEE, WeaponClass.HEAVY_RANGED})
"""Seed (Tipos de armas): heavy weapons deal 2 PG, light ones 1."""
ARMOUR_POINTS = {Armour.NONE: 0, Armour.LIGHT: 3, Armour.HEAVY: 5}
"""Seed (Tipos de armaduras): light armour 3 points, heavy 5."""


@dataclass(frozen=True)
class Weapon:
    """A weapon: its class sets reach and damage (seed: Tipos de armas; digest §6)."""

    id: str
    name: str
    cls: WeaponClass

    @property
    def melee(self) -> bool:
        return self.cls in MELEE_CLASSES

    @property
    def heavy(self) -> bool:
        return self.cls in HEAVY_CLASSES

    @property
    def damage(self) -> int:
        """Light weapons 1 PG, heavy weapons 2 PG (seed)."""
        return 2 if self.heavy else 1


@dataclass(frozen=True)
class Character:
    """A combatant: ratings 1-5, PG, armour, weapons (first in hand), traits."""

    id: str
    name: str
    role: Role = Role.PNJ
    pg_max: int = 5
    armour: Armour = Armour.NONE
    shield: bool = False
    weapons: tuple[str, ...] = ()
    mastered: str | None = None
    """The Arma Dominada: the weapon a fencing duel is fought with."""
    traits: tuple[Trait, ...] = ()
    agresividad: int = 3
    punteria: int = 3
    tecnica: int = 3
    instinto: int = 3
    discrecion: int = 3
    talento: int = 3
    defensa: int = 3
    reflejos: int = 3
    suerte: int = 3

    def __post_init__(self) -> None:
        require_printable(self.name)
        for rating in RATINGS:
            if not 1 <= getattr(self, rating) <= 5:
                raise ValueError(f"{rating} {getattr(self, rating)} must lie in 1..5")
        if not 1 <= self.pg_max <= 10:
            raise ValueError(f"pg_max {self.pg_max} must lie in 1..10")
        if not self.weapons:
            raise ValueError("weapons must list at least one weapon (the first is in hand)")
        if len(self.weapons) > 3:
            raise ValueError(f"weapons lists {len(self.weapons)} items; at most 3")

    @property
    def melee_rating(self) -> int:
        """Agresividad, or Técnica with the trait Esgrima elegante (seed)."""
        return self.tecnica if Trait.ESGRIMA_ELEGANTE in self.traits else self.agresividad


@dataclass(frozen=True)
class TerrainObject:
    """A terrain object in a zone and the special actions it allows (seed: Objetos del terreno)."""

    zone: int
    cover: bool = False
    hide: bool = False
    interact: bool = False


MAX_OBJECTS = 4
"""Terrain objects a layout may hold (the observation has a slot for each)."""
MAX_ZONES = 9
"""Zones a layout may have (the observation has a flag per boundary)."""


@dataclass(frozen=True)
class Layout:
    """A skirmish map: zones on a line, where each side starts, and the terrain objects."""

    id: str
    description: str
    zones: int
    start: tuple[int, int]
    objects: tuple[TerrainObject, ...] = ()
    fighters: tuple[str, str] = ("duelist", "pirate")

    def __post_init__(self) -> None:
        if not 2 <= self.zones <= MAX_ZONES:
            raise ValueError(f"zones {self.zones} must lie in 2..{MAX_ZONES}")
        if not all(0 <= z < self.zones for z in self.start):
            raise ValueError(f"start zones {list(self.start)} must lie in 0..{self.zones - 1}")
        if len(self.objects) > MAX_OBJECTS:
            raise ValueError(f"at most {MAX_OBJECTS} terrain objects")
        for obj in self.objects:
            if not 0 <= obj.zone < self.zones:
                raise ValueError(f"object zone {obj.zone} must lie in 0..{self.zones - 1}")


MAX_DECK_COPIES = 20
"""The most copies of each card a deck may hold (option `deck_copies`)."""


@dataclass(frozen=True)
class EsgrimaOptions:
    """GM rulings where the seed is silent; each default is the digest's ASSUMPTION."""

    light_reload: Literal["auto", "action"] = "auto"
    """§5, §10 #24: light ranged weapons reload by themselves, or need a Reload Action."""
    npc_initiative: Literal["pair_rolls", "fixed", "roll"] = "pair_rolls"
    """§4, §10 #8: a PNJ keeps 7.5 against a PJ, and two PNJs both roll 2d6 (digest);
    every PNJ keeps 7.5, two of them ordered by a 1d6 roll-off ("fixed"); or every PNJ
    rolls 2d6 like a PJ ("roll")."""
    delay: Literal["pj", "all"] = "pj"
    """§4 step 5: the seed gives Retrasar el turno to the players (PJ); "all" lets a PNJ
    delay too."""
    duel_variant: Literal["symmetric", "faithful"] = "symmetric"
    """§8.1: both sides hold hands (item 14), or the PNJ plays the deck's top card."""
    duel_end: Literal["ko", "first_blood"] = "ko"
    """§8.1 item 12: fight to the end, or the first to inflict 1 PG wins."""
    deck_copies: int = 6
    """§10 #11: copies of each of the six cards in the shared duel deck."""
    round_cap: int = 30
    """§12: skirmish rounds before truncation."""
    exchange_cap: int = 60
    """§12: duel exchanges before truncation."""

    def __post_init__(self) -> None:
        if not 2 <= self.deck_copies <= MAX_DECK_COPIES:  # 12 cards keep two hands and a draw going
            raise ValueError(f"deck_copies {self.deck_copies} must lie in 2..{MAX_DECK_COPIES}")
        check_round_cap(self.round_cap)
        check_round_cap(self.exchange_cap, "exchange_cap")


@dataclass(frozen=True)
class Catalog:
    weapons: dict[str, Weapon]
    characters: dict[str, Character]
    layouts: dict[str, Layout] = field(default_factory=dict)

    def character(self, name: str) -> Character:
        return known(self.characters, name, "character")

    def layout(self, name: str) -> Layout:
        return known(self.layouts, name, "layout")


def load_catalog(
    weapons: str | Path | None = None,
    characters: str | Path | None = None,
    layouts: str | Path | None = None,
) -> Catalog:
    """Load and cross-check the three files; None takes the packaged default."""
    files = {"weapons": weapons, "characters": characters, "layouts": layouts}
    catalog, paths = load_tables(Catalog, "esgrima", files)
    for key, character in catalog.characters.items():
        where = f"{paths['characters']}: {key}"
        for i, weapon_id in enumerate(character.weapons):
            require_known(weapon_id, catalog.weapons, f"{where}.weapons[{i}]", "weapon")
        require(
            character.mastered is None or character.mastered in character.weapons,
            f"{where}.mastered",
            f"{character.mastered!r} is not one of its weapons",
        )
    require_fighters(catalog.layouts, catalog.characters, paths["layouts"])
    return catalog
