"""Building Infierno duels for rule tests: named fighters, a fixed opening, scripted dice."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from duelo.envs.core.dice import ScriptedDice
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import Character, Scenario, load_catalog
from duelo.envs.infierno.state import Action, DuelState

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


class Duel:
    """A ruleset and a state driven with scripted dice, one decision at a time."""

    def __init__(
        self,
        a: Character,
        b: Character,
        setup: Scenario,
        opening_dice: list[int],
        **options: Any,
    ) -> None:
        self.rules = InfiernoRuleset(setup, (a, b), options, CATALOG)
        self.dice = ScriptedDice(opening_dice)
        self.state: DuelState = self.rules.new_duel(self.dice)
        assert self.dice.remaining == 0, "the opening used fewer dice than scripted"

    def act(self, action: Action, *faces: int) -> None:
        """The seat to act takes `action`, consuming exactly `faces`."""
        seat = self.rules.to_act(self.state)
        assert seat is not None, "the duel is over"
        mask = self.rules.legal_actions(self.state, seat)
        assert mask[action], f"{action.name} is illegal now"
        self.dice = ScriptedDice(faces)
        self.rules.apply(self.state, seat, action, self.dice)
        assert self.dice.remaining == 0, f"{action.name} used fewer dice than scripted"

    @property
    def seat(self) -> int | None:
        return self.rules.to_act(self.state)

    def mask(self) -> np.ndarray:
        seat = self.seat
        assert seat is not None
        return self.rules.legal_actions(self.state, seat)

    def log(self) -> str:
        return "\n".join(event.text for event in self.state.log)
