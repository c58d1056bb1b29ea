"""What an Esgrima fight of several a side is played from (digest §13): a zone line
with its terrain objects, each side's fighters and where they stand, and the GM's
mid-combat ammunition check, loaded from `configs/esgrima/skirmishes.yaml` like the
one-on-one skirmish's layouts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from duelo.envs.core.config import SkirmishCatalog, load_skirmishes, packaged_config
from duelo.envs.esgrima.setup import (
    MAX_OBJECTS,
    MAX_ZONES,
    Character,
    EsgrimaOptions,
    TerrainObject,
    Weapon,
    load_catalog,
)

MAX_SIDE = 3
"""The most fighters a side: the observation's rows and the action space's slots (§13.1)."""


@dataclass(frozen=True)
class Post:
    """One fighter when the fight opens: its stat block and its zone (§13.1)."""

    character: str
    zone: int


@dataclass(frozen=True)
class AmmoEvent:
    """§13.7: the GM asks one PJ for an ammunition check at the start of `round`; its
    side's Karma pool gains 1 PK whatever the result."""

    round: int
    fighter: int
    """The fighter's seat: side A's posts first, then side B's."""


@dataclass(frozen=True)
class GroupOptions(EsgrimaOptions):
    """The one-on-one skirmish's GM rulings and those of group play (digest §13.9), each
    default the digest's ASSUMPTION."""

    pj_tie: Literal["roll", "agree"] = "roll"
    """§13.2 G1: PJs tied at initiative roll 1d6 off, kept for the combat; or agree, the
    lower seat first."""
    handover_in_hand: bool = False
    """§13.4 G4: a weapon handed over arrives stowed (a Draw to hold it), or in hand."""
    suppress_timing: Literal["before", "after"] = "before"
    """§13.6 G6: the Shot at an enemy acting in a suppressed zone comes before its
    Action takes effect, or after it."""
    bodies_block: bool = False
    """§13.1 G8: a zone holding an active enemy and no active ally of the mover cannot be
    passed through (off: fighters are no obstacles)."""


@dataclass(frozen=True)
class GroupScenario:
    """How a fight of several a side opens: the zone line and its objects (§6, §8.3),
    side A's fighters and side B's (§13.1), and the GM's mid-combat ammunition check."""

    id: str
    description: str
    zones: int
    side_a: tuple[Post, ...]
    side_b: tuple[Post, ...]
    objects: tuple[TerrainObject, ...] = ()
    ammo_event: AmmoEvent | None = None

    def __post_init__(self) -> None:
        if not 2 <= self.zones <= MAX_ZONES:
            raise ValueError(f"zones {self.zones} must lie in 2..{MAX_ZONES}")
        for name, side in (("side_a", self.side_a), ("side_b", self.side_b)):
            if not 1 <= len(side) <= MAX_SIDE:
                raise ValueError(f"{name} has {len(side)} fighters; 1..{MAX_SIDE} a side")
            for post in side:
                if not 0 <= post.zone < self.zones:
                    raise ValueError(f"{name}: zone {post.zone} must lie in 0..{self.zones - 1}")
        if len(self.objects) > MAX_OBJECTS:
            raise ValueError(f"at most {MAX_OBJECTS} terrain objects")
        for obj in self.objects:
            if not 0 <= obj.zone < self.zones:
                raise ValueError(f"object zone {obj.zone} must lie in 0..{self.zones - 1}")
        event = self.ammo_event
        if event is not None and not 0 <= event.fighter < len(self.posts):
            raise ValueError(f"ammo_event.fighter {event.fighter} is not a seat of this fight")
        if event is not None and not 1 <= event.round <= 99:
            raise ValueError(f"ammo_event.round {event.round} must lie in 1..99")

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
    path = Path(skirmishes or packaged_config("esgrima/skirmishes.yaml"))
    return load_skirmishes(duel.weapons, duel.characters, GroupScenario, path)
