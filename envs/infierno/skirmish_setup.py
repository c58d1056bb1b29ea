"""What a skirmish of Infierno is played from: its scenarios, several fighters a side
(digest §13.1), loaded from `configs/infierno/skirmishes.yaml` like the duel's tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from duelo.envs.core import config
from duelo.envs.core.config import load_skirmishes, packaged_config
from duelo.envs.infierno.setup import Character, InfiernoOptions, Weapon, load_catalog

MAX_SIDE = 4
"""The most fighters a side (the observation's and the action space's slots, §13.1)."""


@dataclass(frozen=True)
class Post:
    """One fighter's place when a skirmish opens: its stat block and square (§13.1)."""

    character: str
    pos: int
    """The square on the line 0..arena (side A's home edge is 0, side B's the arena's)."""
    drawn: bool = False
    """It starts with its primary weapon in hand."""
    aware: bool = True
    """It knows the enemy is there: if some fighters are not, the aware get a surprise
    round (seed SORPRESA, §13.2)."""
    cover_nearby: bool = False
    arrives: int = 0
    """The round it comes into the fight (seed: «Si un personaje aparece en escena en
    mitad de la acción...», §13.2); 0: there from the start."""
    arrives_before: int = -1
    """The seat (side A's fighters first) before whose turn in that round it appears,
    one there from the start; -1: at the top of the round, before anyone's turn."""

    def __post_init__(self) -> None:
        if not 0 <= self.pos <= MAX_SQUARE:
            raise ValueError(f"pos {self.pos} must lie in 0..{MAX_SQUARE}")
        if not 0 <= self.arrives <= MAX_ROUND:
            raise ValueError(f"arrives {self.arrives} must lie in 0..{MAX_ROUND}")
        if self.arrives_before != -1 and not self.arrives:
            raise ValueError("arrives_before needs arrives: the round it comes in")


MAX_SQUARE = 999
"""The farthest square a fighter may stand on (the arena option bounds the line)."""
MAX_ROUND = 99
"""The latest round an arrival may be set for (the round cap ends most fights sooner)."""


@dataclass(frozen=True)
class SkirmishOptions(InfiernoOptions):
    """The duel's GM rulings and those of fights of several a side (digest §13), each
    default the digest's ASSUMPTION."""

    flank_counts_stunned: bool = False
    """§13.4: a stunned ally still gives the flanking bonus (off: it takes no actions and
    supports nobody)."""
    melee_participants: Literal["allies", "all_adjacent"] = "allies"
    """§13.5: who a shot into a melee may hit: the target and the shooter's allies beside
    it, or also the target's allies beside it and the shooter's allies beside those."""
    stray_needs_exceed: bool = False
    """§13.5 «si superas la Defensa»: an unaimed shot into a melee must pass the target's
    Defense (a tie misses), where every other attack hits on a tie (off: a tie hits)."""


@dataclass(frozen=True)
class SkirmishScenario:
    """How a fight of several a side opens (§13)."""

    id: str
    description: str
    side_a: tuple[Post, ...]
    side_b: tuple[Post, ...]

    def __post_init__(self) -> None:
        for name, side in (("side_a", self.side_a), ("side_b", self.side_b)):
            if not 1 <= len(side) <= MAX_SIDE:
                raise ValueError(f"{name} has {len(side)} fighters; 1..{MAX_SIDE} a side")
            if all(post.arrives for post in side):
                raise ValueError(f"{name}: at least one fighter is there from the start")
        posts = self.posts
        for seat, post in enumerate(posts):
            before = post.arrives_before
            if before != -1 and not (0 <= before < len(posts) and not posts[before].arrives):
                raise ValueError(
                    f"fighter {seat}: arrives_before {before} must be the seat of a fighter "
                    f"there from the start, 0..{len(posts) - 1} (side A's first)"
                )

    @property
    def posts(self) -> tuple[Post, ...]:
        """Every fighter, side A's first: its index is its seat."""
        return self.side_a + self.side_b

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
    path = Path(skirmishes or packaged_config("infierno/skirmishes.yaml"))
    return load_skirmishes(duel.weapons, duel.characters, SkirmishScenario, path)
