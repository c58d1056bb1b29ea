"""What a Vampiro fight of several a side is played from (digest §13): each side's
fighters and where they stand on the line, and the Storyteller's rulings for group
play, loaded from `configs/vampiro/skirmishes.yaml` beside the duel's tables."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from duelo.envs.core.config import SkirmishCatalog, load_skirmishes, packaged_config
from duelo.envs.vampiro.setup import Armour, Character, VampiroOptions, Weapon, load_catalog

MAX_SIDE = 3
"""The most fighters a side: the observation's rows and the action space's slots (§13.1)."""
MAX_POS = 200.0
"""Where a fighter may stand when the fight opens, in metres along the line."""


@dataclass(frozen=True)
class Post:
    """One fighter when the fight opens: its stat block and where it stands (§13.1)."""

    character: str
    pos: float
    """Metres along the line."""


@dataclass(frozen=True)
class GroupOptions(VampiroOptions):
    """The duel's rulings and edition flags and those of group play (digest §13.11),
    each default the digest's ASSUMPTION."""

    multi_opponent_difficulty: Literal["melee", "all", "off"] = "melee"
    """§13.1 G1: +1 difficulty to a fighter's attack and defence rolls per opponent
    beyond the first that declared a melee attack on it this turn ("all": ranged
    attackers count too; "off": none)."""
    team_shared_plan: bool = False
    """§13.2 G2: a fighter sees its allies' declarations whatever the order (off: only
    those made before its own, as for enemies)."""
    retarget_if_out: bool = False
    """§13.3 G4: an action whose target is out or out of reach passes to the nearest
    active opponent it can reach (off: it is lost)."""
    botch_hits_ally: bool = True
    """§13.6 G6: a botched attack hits an active ally of the attacker within 1 m of the
    target, with the attack's base damage, instead of the §7 mishap."""
    flee_is_loss: bool = False
    """§13.9 G9: a side all of whose fallen fled loses (off: a draw, §10 #24)."""


@dataclass(frozen=True)
class GroupScenario:
    """How a fight of several a side opens: side A's fighters and side B's, each where
    it stands on the line (§13.1)."""

    id: str
    description: str
    side_a: tuple[Post, ...]
    side_b: tuple[Post, ...]

    def __post_init__(self) -> None:
        for name, side in (("side_a", self.side_a), ("side_b", self.side_b)):
            if not 1 <= len(side) <= MAX_SIDE:
                raise ValueError(f"{name} has {len(side)} fighters; 1..{MAX_SIDE} a side")
            for post in side:
                if not 0 <= post.pos <= MAX_POS:
                    raise ValueError(f"{name}: pos {post.pos} must lie in 0..{MAX_POS} m")

    @property
    def posts(self) -> tuple[Post, ...]:
        """Every fighter, side A's first: its index is its seat."""
        return self.side_a + self.side_b

    @property
    def fighters(self) -> tuple[str, ...]:
        return tuple(post.character for post in self.posts)


@dataclass(frozen=True)
class GroupCatalog(SkirmishCatalog[Weapon, Character, GroupScenario]):
    """The duel's weapons, armour and characters, and the fights of several a side."""

    armour: dict[str, Armour] = dataclasses.field(default_factory=dict)


def load_group_catalog(
    weapons: str | Path | None = None,
    armour: str | Path | None = None,
    characters: str | Path | None = None,
    skirmishes: str | Path | None = None,
) -> GroupCatalog:
    """Load and cross-check the four files (the first three as for a duel); None takes
    the packaged default."""
    duel = load_catalog(weapons, armour, characters)
    path = Path(skirmishes or packaged_config("vampiro/skirmishes.yaml"))
    table = load_skirmishes(duel.weapons, duel.characters, GroupScenario, path)
    return GroupCatalog(table.weapons, table.characters, table.skirmishes, duel.armour)
