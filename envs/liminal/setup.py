"""Liminal's data: weapons, characters, scenarios and the GM options.

Loaded from `configs/liminal/` (or a user's files) and checked on load. Seed
`001_3a3a9868b83ae6e2.txt` ("COMBATE"), digest `rules/liminal.md`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
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


class Band(IntEnum):
    """The seed's four distances (digest §6)."""

    ADJACENT = 0
    NEAR = 1
    MEDIUM = 2
    FAR = 3


TRACK = (Band.ADJACENT, Band.NEAR, Band.MEDIUM, Band.MEDIUM, Band.FAR, Band.FAR)
"""The band of each step of the half-band distance track, d = 0..5 (digest §6);
d = 6 is out of the fight."""
OUT = len(TRACK)
"""The track's end: a combatant whose own move reaches it has withdrawn (digest §9)."""


class Kind(StrEnum):
    MELEE = "melee"
    RANGED = "ranged"


class Strength(StrEnum):
    """The melee damage talents (seed: Fuerte, Fuerza sobrenatural; digest §7)."""

    NONE = "none"
    FUERTE = "fuerte"
    SOBRENATURAL = "sobrenatural"


@dataclass(frozen=True)
class Weapon:
    """A weapon profile: 1d6 + `bonus` damage (digest §7 table), the bands it works at."""

    id: str
    name: str
    kind: Kind
    bonus: int
    bands: tuple[bool, bool, bool, bool]
    """Usable at adjacent, near, medium, far (digest §6 weapon band table)."""
    adjacent_penalty: int = 0
    """Seed: a pistol fired at an adjacent rival takes -2."""
    tier: int = 0
    """Melee tier, for the optional tiered better-weapon rule (digest §8)."""

    def __post_init__(self) -> None:
        require_printable(self.name)
        if not 0 <= self.bonus <= 10 or not 0 <= self.tier <= 5:
            raise ValueError(f"bonus {self.bonus} must lie in 0..10 and tier {self.tier} in 0..5")
        if self.kind == Kind.MELEE and self.bands != (True, False, False, False):
            raise ValueError(
                "a melee weapon reaches adjacent only: bands [true, false, false, false]"
            )
        if not any(self.bands):
            raise ValueError("a weapon must be usable at some band")
        if not -4 <= self.adjacent_penalty <= 0:
            raise ValueError(f"adjacent_penalty {self.adjacent_penalty} must lie in -4..0")


SKILLS = ("melee", "shoot", "athletics", "perception", "social", "conviction")
"""The skills the duel rolls (digest §2)."""


@dataclass(frozen=True)
class Character:
    """A stat block (digest §2, §10 #4): skills 0..4, Endurance, talents, weapons (the first
    in hand)."""

    id: str
    name: str
    weapons: tuple[str, ...]
    melee: int = 0
    shoot: int = 0
    athletics: int = 0
    perception: int = 0
    social: int = 0
    conviction: int = 0
    medicine: int = 0
    """Only for saving downed mob members after the fight (digest §2, §8), so not observed."""
    endurance: int | None = None
    """Endurance; default 8 + Athletics (digest §10 #1)."""
    strength: Strength = Strength.NONE
    defence_bonus: int = 0
    """+2 to the CL of attacks against it (a trait like Quick Reflexes; digest §2)."""

    def __post_init__(self) -> None:
        require_printable(self.name)
        for skill in (*SKILLS, "medicine"):
            if not 0 <= getattr(self, skill) <= 4:
                raise ValueError(f"{skill} {getattr(self, skill)} must lie in 0..4")
        if self.endurance is not None and not 1 <= self.endurance <= 30:
            raise ValueError(f"endurance {self.endurance} must lie in 1..30")
        if self.defence_bonus not in (0, 2):
            raise ValueError(f"defence_bonus {self.defence_bonus} must be 0 or 2")
        if not 1 <= len(self.weapons) <= 2:
            raise ValueError("weapons must list one or two weapons (the first is in hand)")

    @property
    def endurance_max(self) -> int:
        return self.endurance if self.endurance is not None else 8 + self.athletics


@dataclass(frozen=True)
class Scenario:
    """Where a duel starts: the distance step and the places each side holds (digest §8)."""

    id: str
    description: str
    distance: int
    fighters: tuple[str, str]
    cover: tuple[bool, bool] = (False, False)
    """Ranged attacks against a side in cover take +2 CL (unless the shooter has cover)."""
    high_ground: tuple[bool, bool] = (False, False)
    """A side on high ground adds +2 to its melee attacks."""
    unseen: tuple[bool, bool] = (False, False)
    """Attacks against an unseen side take -2."""

    def __post_init__(self) -> None:
        if not 0 <= self.distance < OUT:
            raise ValueError(f"distance {self.distance} must lie in 0..{OUT - 1}")


@dataclass(frozen=True)
class LiminalOptions:
    """GM rulings where the seed is silent; each default is the digest's ASSUMPTION."""

    initiative_mode: Literal["roller", "opposed"] = "roller"
    """§10 #7: a random side rolls Perception against the other (default), or both roll
    and the higher total acts first."""
    crit_choice: Literal["agent", "fixed"] = "agent"
    """§12: the attacker (and the defender of a critical stance) decides the critical's
    effect, or the fixed preference of §10 #18 decides."""
    better_weapon: Literal["armed_vs_unarmed", "tiered"] = "armed_vs_unarmed"
    """§8: +2 in melee with a weapon against a rival holding none, or whenever the
    attacker's weapon tier is higher."""
    social_action: bool = True
    """§10 #14: the demand-surrender test is available."""
    surrender_threshold: float = 0.5
    """§10 #14, #22: a social success forces surrender at Endurance <= this share of max."""
    unskilled_no_crit: bool = False
    """§10 #6: an unskilled roll (skill 0) can never be a critical."""
    fuerte_bonus: int = 1
    sobrenatural_bonus: int = 2
    """§10 #3: melee damage of the strength talents (they do not stack)."""
    withdraw_stake: float = 0.5
    """§12: what a withdrawal is worth: the stayer +0.5, the one who fled -0.5."""
    round_cap: int = 30

    def __post_init__(self) -> None:
        if not 0 < self.surrender_threshold <= 1:
            raise ValueError(f"surrender_threshold {self.surrender_threshold} must lie in (0, 1]")
        if not (0 <= self.fuerte_bonus <= 4 and 0 <= self.sobrenatural_bonus <= 4):
            raise ValueError("the strength bonuses must lie in 0..4")
        if not 0 < self.withdraw_stake <= 1:
            raise ValueError(f"withdraw_stake {self.withdraw_stake} must lie in (0, 1]")
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
    catalog, paths = load_tables(Catalog, "liminal", files)
    weapon_table = catalog.weapons
    require("unarmed" in weapon_table, str(paths["weapons"]), "the table must define 'unarmed'")
    for key, character in catalog.characters.items():
        for i, weapon_id in enumerate(character.weapons):
            where = f"{paths['characters']}: {key}.weapons[{i}]"
            require_known(weapon_id, weapon_table, where, "weapon")
    require_fighters(catalog.scenarios, catalog.characters, paths["scenarios"])
    return catalog
