"""What a skirmish of Liminal is played from: a party, its enemies and maybe a mob
(digest §13.1, §13.6), loaded from `configs/liminal/skirmishes.yaml` like the duel's
tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from duelo.envs.core import config
from duelo.envs.core.config import load_skirmishes, packaged_config
from duelo.envs.liminal.setup import OUT, Character, LiminalOptions, Weapon, load_catalog

MAX_SIDE = 4
"""The most individuals a side, and the most mob groups (one a hero, §13.6): the
observation's and the action space's slots (§13.1)."""
MAX_POSITION = 20
"""The farthest a fighter may start from position 0 on the track (§13.1)."""
MAX_MOB = 12
"""Digest §2: a mob of 2-12 members."""


@dataclass(frozen=True)
class Post:
    """One individual's place when a skirmish opens: its stat block, its position on
    the half-band track (§13.1) and the scenario's places (§8)."""

    character: str
    pos: int
    in_cover: bool = False
    high_ground: bool = False
    unseen: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.pos <= MAX_POSITION:
            raise ValueError(f"pos {self.pos} must lie in 0..{MAX_POSITION}")


@dataclass(frozen=True)
class MobPost:
    """A mob on the enemy side (§13.6): its size, whether it is armed, and how far its
    groups start from their heroes (the digest's default 3)."""

    members: int
    armed: bool = False
    distance: int = 3

    def __post_init__(self) -> None:
        if not 2 <= self.members <= MAX_MOB:
            raise ValueError(f"members {self.members} must lie in 2..{MAX_MOB}")
        if not 0 <= self.distance < OUT:
            raise ValueError(f"distance {self.distance} must lie in 0..{OUT - 1}")


@dataclass(frozen=True)
class SkirmishOptions(LiminalOptions):
    """The duel's GM rulings and those of fights of several a side (digest §13), each
    default the digest's ASSUMPTION."""

    adjacent_penalty: Literal["any_enemy", "target_only"] = "any_enemy"
    """§13.1: the pistol's -2, and no shot with anything larger, when the shooter stands
    with any active enemy (a brawl next to you spoils a shot at anyone), or only when it
    stands with its target."""
    group_penalty_melee: bool = False
    """§13.3: picking one out of a tight group (-2) applies to melee attacks too (off:
    to shots only; at arm's length you pick your opponent)."""
    taunt_duration: Literal["next_turn", "until_next_attack"] = "next_turn"
    """§13.4: an enemy drawn by "become the next target" must name the critter during
    its next turn, or until it next attacks (a mob group: until its next attack)."""
    rebalance_on_wipe: bool = False
    """§13.6: a group wiped out while its hero stands takes members from the largest
    groups until no group has two more (off: the hero earned the rest)."""
    spill_across_groups: bool = False
    """§13.6: damage left over when a mob group is empty spills to the next group
    (off: it is lost; the groups stand apart, each around its hero)."""


@dataclass(frozen=True)
class SkirmishScenario:
    """How a fight of several a side opens (§13.1): the party (side A, the side that
    rolls initiative, §13.2), the enemy individuals (side B) and a mob on side B."""

    id: str
    description: str
    party: tuple[Post, ...]
    enemies: tuple[Post, ...]
    mob: MobPost | None = None

    def __post_init__(self) -> None:
        for name, side in (("party", self.party), ("enemies", self.enemies)):
            if not 1 <= len(side) <= MAX_SIDE:
                raise ValueError(f"{name} has {len(side)} fighters; 1..{MAX_SIDE} a side")

    @property
    def posts(self) -> tuple[Post, ...]:
        """Every individual, the party's first: its index is its seat."""
        return self.party + self.enemies

    @property
    def fighters(self) -> tuple[str, ...]:
        return tuple(post.character for post in self.posts)


SkirmishCatalog: TypeAlias = config.SkirmishCatalog[Weapon, Character, SkirmishScenario]
"""The duel's weapons and characters, and the fights of several a side."""


def load_skirmish_catalog(
    weapons: str | Path | None = None,
    characters: str | Path | None = None,
    skirmishes: str | Path | None = None,
) -> SkirmishCatalog:
    """Load and cross-check the three files (the weapons and characters as for a duel);
    None takes the packaged default."""
    duel = load_catalog(weapons, characters)
    path = Path(skirmishes or packaged_config("liminal/skirmishes.yaml"))
    return load_skirmishes(duel.weapons, duel.characters, SkirmishScenario, path)
