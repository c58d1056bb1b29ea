"""Building esgrima skirmishes and duels for rule tests, driven with scripted dice."""

from __future__ import annotations

import dataclasses
from typing import Any

from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.setup import Character, Layout, TerrainObject, load_catalog
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset

CATALOG = load_catalog()


def character(name: str, **changes: Any) -> Character:
    return dataclasses.replace(CATALOG.characters[name], **changes)


def layout(start: tuple[int, int], *objects: TerrainObject, zones: int = 5) -> Layout:
    return Layout(id="test", description="a test map", zones=zones, start=start, objects=objects)


def skirmish(
    a: Character, b: Character, where: Layout, opening: list[int], **options: Any
) -> ScriptedDuel:
    return ScriptedDuel(EsgrimaSkirmishRuleset(where, (a, b), options, CATALOG), opening)


def duel(
    a: Character, b: Character, deck: list[Card], opening: list[int], **options: Any
) -> ScriptedDuel:
    return ScriptedDuel(EsgrimaDuelRuleset((a, b), options, deck, CATALOG), opening)
