"""Building esgrima skirmishes and duels for rule tests, driven with scripted dice."""

from __future__ import annotations

import dataclasses
from typing import Any

from duelo.envs.core.dice import ScriptedDice
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.setup import Character, Layout, TerrainObject, load_catalog
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset

CATALOG = load_catalog()


def character(name: str, **changes: Any) -> Character:
    return dataclasses.replace(CATALOG.characters[name], **changes)


def layout(start: tuple[int, int], *objects: TerrainObject, zones: int = 5) -> Layout:
    return Layout(id="test", description="a test map", zones=zones, start=start, objects=objects)


class Driven:
    """A ruleset and its state, each decision fed exactly the faces it must roll."""

    def __init__(self, rules: Any, opening: list[int]) -> None:
        self.rules = rules
        self.dice = ScriptedDice(opening)
        self.state = rules.new_duel(self.dice)
        assert self.dice.remaining == 0, "the opening used fewer dice than scripted"

    def act(self, action: int, *faces: int) -> None:
        seat = self.rules.to_act(self.state)
        assert seat is not None, "the fight is over"
        assert self.rules.legal_actions(self.state, seat)[action], f"{action} is illegal now"
        self.dice = ScriptedDice(faces)
        self.rules.apply(self.state, seat, action, self.dice)
        assert self.dice.remaining == 0, "the action used fewer dice than scripted"

    @property
    def seat(self) -> int | None:
        return self.rules.to_act(self.state)

    def log(self) -> str:
        return "\n".join(event.text for event in self.state.log)


def skirmish(
    a: Character, b: Character, where: Layout, opening: list[int], **options: Any
) -> Driven:
    return Driven(EsgrimaSkirmishRuleset(where, (a, b), options, CATALOG), opening)


def duel(
    a: Character, b: Character, deck: list[Card], opening: list[int], **options: Any
) -> Driven:
    return Driven(EsgrimaDuelRuleset((a, b), options, deck, CATALOG), opening)
