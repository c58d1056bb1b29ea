"""Building Infierno duels for rule tests: named fighters, a fixed opening, scripted dice."""

from __future__ import annotations

import dataclasses
from typing import Any

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import Character, Scenario, load_catalog

CATALOG = load_catalog()


def character(name: str, **changes: Any) -> Character:
    """A packaged character, with some stats changed for a test."""
    return dataclasses.replace(CATALOG.characters[name], **changes)


def scenario(
    distance: int,
    staredown: bool = False,
    surprise: str = "none",
    drawn: tuple[bool, bool] = (False, False),
    cover_nearby: tuple[bool, bool] = (True, True),
) -> Scenario:
    return Scenario(
        id="test",
        description="a test setup",
        distance=(distance, distance),
        staredown=staredown,
        surprise=surprise,  # type: ignore[arg-type]
        drawn=drawn,
        cover_nearby=cover_nearby,
        fighters=("gunfighter", "gunfighter"),
    )


def scripted_duel(
    a: Character, b: Character, setup: Scenario, opening_dice: list[int], **options: Any
) -> ScriptedDuel:
    """An Infierno duel of `a` against `b`, driven with scripted dice."""
    return ScriptedDuel(InfiernoRuleset(setup, (a, b), options, CATALOG), opening_dice)
