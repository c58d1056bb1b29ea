"""Dunwich's data: weapons, characters, scenarios and the GM options.

Loaded from `configs/dunwich/` (or a user's files) and checked on load. Seed
`003_e7f5011670d1317a.txt` ("Coreografía del combate"), digest `rules/dunwich.md`.
Lengths are kept in half metres (the digest's 0.5 m grid, §6), as integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from duelo.envs.core.config import (
    known,
    load_tables,
    require,
    require_fighters,
    require_known,
    require_printable,
)
from duelo.envs.core.state import check_round_cap

HALF_METRES = 2
"""Grid steps per metre (§6: a 0.5 m grid)."""
MAX_ARENA = 30
"""The longest arena a scenario may set, in metres (observations are bounded by it)."""
MAX_CAPACITY = 5
"""Capacities lie in 1..5 (§2, §10 #2)."""
MAX_PV = 3
"""Advantage Points a combatant may hold (§2)."""
MAX_DICE = 6
"""The most damage dice a weapon rolls."""


def half_metres(metres: float, where: str) -> int:
    """`metres` on the 0.5 m grid, as a count of half metres."""
    steps = metres * HALF_METRES
    if steps != int(steps):
        raise ValueError(f"{where} {metres} must be a multiple of 0.5 m")
    return int(steps)


@dataclass(frozen=True)
class Weapon:
    """A weapon (§7, ASSUMPTION table): `dice` d6 of damage, lethal or Non-Lethal; a ranged
    weapon shoots, a firearm's dice turn Non-Lethal against ballistic armour."""

    id: str
    name: str
    dice: int
    lethal: bool = True
    ranged: bool = False
    firearm: bool = False

    def __post_init__(self) -> None:
        require_printable(self.name)
        if not 1 <= self.dice <= MAX_DICE:
            raise ValueError(f"dice {self.dice} must lie in 1..{MAX_DICE}")
        if self.firearm and not self.ranged:
            raise ValueError("a firearm is a ranged weapon: set ranged: true")


@dataclass(frozen=True)
class Character:
    """A stat block (§2): Capacities 1..5, Advantage Points, a melee weapon (fists by
    default) and an optional ranged one."""

    id: str
    name: str
    fisico: int
    lucha: int
    disparo: int = 1
    """The shooting Capacity (§2: a placeholder name, ASSUMPTION)."""
    pv: int = 2
    """Advantage Points at the start (§10 #6: 2 for player-grade, 0 for minions)."""
    melee: str = "unarmed"
    ranged: str | None = None
    ballistic_armour: bool = False
    ini: int | None = None
    """Initiative; default Físico + Lucha (§10 #1)."""

    def __post_init__(self) -> None:
        require_printable(self.name)
        for capacity in ("fisico", "lucha", "disparo"):
            if not 1 <= getattr(self, capacity) <= MAX_CAPACITY:
                raise ValueError(f"{capacity} {getattr(self, capacity)} must lie in 1..5")
        if not 0 <= self.pv <= MAX_PV:
            raise ValueError(f"pv {self.pv} must lie in 0..{MAX_PV}")
        if self.ini is not None and not 1 <= self.ini <= 2 * MAX_CAPACITY:
            raise ValueError(f"ini {self.ini} must lie in 1..{2 * MAX_CAPACITY}")

    @property
    def initiative(self) -> int:
        return self.ini if self.ini is not None else self.fisico + self.lucha


@dataclass(frozen=True)
class Scenario:
    """Where a duel starts (§6, §12): a 1-D arena with walls at 0 and `arena` metres, and
    each side's position on it (side A left of side B)."""

    id: str
    description: str
    fighters: tuple[str, str]
    positions: tuple[float, float]
    arena: float = 12.0
    advantageous_position: bool = False
    """§8.3, seed: "si la situación lo permite, y el GM lo considera adecuado": a place
    with something to climb or use lets a fighter not engaged win a position."""

    def __post_init__(self) -> None:
        if not 4 <= self.arena <= MAX_ARENA:
            raise ValueError(f"arena {self.arena} must lie in 4..{MAX_ARENA} m")
        a, b = (half_metres(p, "positions") for p in self.positions)
        if not 0 <= a < b <= half_metres(self.arena, "arena"):
            raise ValueError(f"positions {list(self.positions)}: need 0 <= A < B <= arena")

    @property
    def grid(self) -> tuple[int, int, int]:
        """The two positions and the arena's length, in half metres."""
        a, b = (half_metres(p, "positions") for p in self.positions)
        return a, b, half_metres(self.arena, "arena")


@dataclass(frozen=True)
class DunwichOptions:
    """GM rulings where the seed is silent; each default is the digest's ASSUMPTION."""

    bank_extra_successes: bool = False
    """§10 #6: the extra successes of a won melee roll become Advantage Points (max 3)."""
    margin_dice: bool = False
    """§10 #9: +1 damage die per extra success of the winning margin."""
    pusher_follows: bool = False
    """§10 #27: the winner of a Desplazar follows the loser (the seed's "lo arrastra")."""
    wound_penalty: bool = True
    """§10 #13: -1 die on every check per 2 crossed Incapacitation boxes."""
    escape_is_loss: bool = False
    """§10 #24: an escape is a draw (default) or a loss for the one who fled."""
    round_cap: int = 40
    """§12: combat turns before the duel is truncated as a draw."""

    def __post_init__(self) -> None:
        check_round_cap(self.round_cap)


@dataclass(frozen=True)
class Catalog:
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
    """The packaged configs, or the given files, checked against each other."""
    files = {"weapons": weapons, "characters": characters, "scenarios": scenarios}
    catalog, paths = load_tables(Catalog, "dunwich", files)
    require("unarmed" in catalog.weapons, str(paths["weapons"]), "the table must define 'unarmed'")
    for key, character in catalog.characters.items():
        check_arms(character, catalog.weapons, f"{paths['characters']}: {key}")
    require_fighters(catalog.scenarios, catalog.characters, paths["scenarios"])
    return catalog


def check_arms(character: Character, weapons: dict[str, Weapon], where: str) -> None:
    """A character's weapons exist, the melee one is not ranged and the ranged one is."""
    require_known(character.melee, weapons, f"{where}.melee", "weapon")
    require(not weapons[character.melee].ranged, f"{where}.melee", "names a ranged weapon")
    if character.ranged is not None:
        require_known(character.ranged, weapons, f"{where}.ranged", "weapon")
        require(weapons[character.ranged].ranged, f"{where}.ranged", "names a melee weapon")
