"""What a Dunwich fight of several a side is played from (digest §13): the arena line,
each side's fighters and where they stand, and the GM's rulings for group play, loaded
from `configs/dunwich/skirmishes.yaml` like the duel's tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from duelo.envs.core.config import SkirmishCatalog, load_skirmishes, packaged_config
from duelo.envs.dunwich.setup import (
    MAX_ARENA,
    Character,
    DunwichOptions,
    Weapon,
    half_metres,
    load_catalog,
)

MAX_SIDE = 3
"""The most fighters a side: the observation's rows and the action space's slots (§13.1)."""


@dataclass(frozen=True)
class Post:
    """One fighter when the fight opens: its stat block and where it stands (§13.1)."""

    character: str
    pos: float
    """Metres from the left wall, on the 0.5 m grid."""


@dataclass(frozen=True)
class GroupOptions(DunwichOptions):
    """The duel's GM rulings and those of group play (digest §13.9), each default the
    digest's ASSUMPTION."""

    reaction_penalty: bool = False
    """§13.3 G1: -1 die to a target's pool per earlier pairing it took part in this turn
    (off: every reaction rolls its full pool)."""
    gang_bonus: bool = False
    """§13.3 G3: +1 die to an initiator per other active ally of its engaged with the
    target (off: "emparejamiento entre dos oponentes", allies add nothing)."""
    fire_into_melee: bool = False
    """§13.4 G5: -1 die to a shot at a target engaged with an ally of the shooter (off:
    no penalty)."""
    tie_break: Literal["roll", "id"] = "roll"
    """§13.2 G9: fighters tied in bid, INI and Lucha roll 1d6 off each turn, or the lower
    seat goes first."""
    team_shared_plan: bool = False
    """§13.6 G7: a fighter choosing its plan sees the plans its allies have chosen this
    turn (off: sealed from allies too)."""


@dataclass(frozen=True)
class GroupScenario:
    """How a fight of several a side opens: the arena (§6, 16 m suggested for three a
    side, §13.1), side A's fighters and side B's, and whether the place lets a fighter
    win an advantageous position (§8.3)."""

    id: str
    description: str
    side_a: tuple[Post, ...]
    side_b: tuple[Post, ...]
    arena: float = 12.0
    advantageous_position: bool = False

    def __post_init__(self) -> None:
        if not 4 <= self.arena <= MAX_ARENA:
            raise ValueError(f"arena {self.arena} must lie in 4..{MAX_ARENA} m")
        length = half_metres(self.arena, "arena")
        for name, side in (("side_a", self.side_a), ("side_b", self.side_b)):
            if not 1 <= len(side) <= MAX_SIDE:
                raise ValueError(f"{name} has {len(side)} fighters; 1..{MAX_SIDE} a side")
            for post in side:
                if not 0 <= half_metres(post.pos, f"{name} pos") <= length:
                    raise ValueError(f"{name}: pos {post.pos} must lie in 0..{self.arena} m")

    @property
    def posts(self) -> tuple[Post, ...]:
        """Every fighter, side A's first: its index is its seat."""
        return self.side_a + self.side_b

    @property
    def fighters(self) -> tuple[str, ...]:
        return tuple(post.character for post in self.posts)


GroupCatalog: TypeAlias = SkirmishCatalog[Weapon, Character, GroupScenario]
"""The duel's weapons and characters, and the fights of several a side."""


def load_group_catalog(
    weapons: str | Path | None = None,
    characters: str | Path | None = None,
    skirmishes: str | Path | None = None,
) -> GroupCatalog:
    """Load and cross-check the three files (the weapons and characters as for a duel);
    None takes the packaged default."""
    duel = load_catalog(weapons, characters)
    path = Path(skirmishes or packaged_config("dunwich/skirmishes.yaml"))
    return load_skirmishes(duel.weapons, duel.characters, GroupScenario, path)
