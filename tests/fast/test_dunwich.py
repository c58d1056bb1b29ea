"""The batched Dunwich duel plays the scalar env's duels, decision for decision
(`helpers.compare`): every scenario, each GM option off its default, a firearm against
ballistic armour, fighters with no Advantage Points, the INI of a stat block, and the
escape task (a draw, or a loss). The slow suite plays 100,000 decisions in each
scenario and 30,000 in each setup off the defaults."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("numba")

import duelo  # noqa: E402,F401  (registers the env ids)
from duelo.envs.dunwich.setup import Scenario, load_catalog  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

ENV_ID = "duelo/Dunwich-v2"
SCENARIOS = ("back_alley", "warehouse", "crossfire", "rooftop", "sparring")
OPTIONS: dict[str, dict[str, Any]] = {
    "banked_margins_followed": {
        "bank_extra_successes": True,
        "margin_dice": True,
        "pusher_follows": True,
    },
    "no_wound_penalty_escape_loses_short_cap": {
        "wound_penalty": False,
        "escape_is_loss": True,
        "round_cap": 3,
    },
}


def setups() -> dict[str, dict[str, Any]]:
    """Stat blocks and arenas no shipped scenario pairs."""
    catalog = load_catalog()
    quick = dataclasses.replace(catalog.characters["thug"], id="quick", name="Quick", ini=10)
    corridor = Scenario(
        "corridor",
        "a long corridor with an exit close behind each",
        ("deputy", "investigator"),
        (0.5, 14.5),
        arena=15,
        advantageous_position=True,
    )
    return {
        "deputy_vs_hunter_crossfire": {"scenario": "crossfire", "fighters": ("hunter", "deputy")},
        "quick_vs_thug_warehouse": {"scenario": "warehouse", "fighters": (quick, "thug")},
        "shooters_in_a_corridor": {"scenario": corridor},
        "same_names_on_the_rooftop": {"scenario": "rooftop", "fighters": ("bruiser", "bruiser")},
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 1_000) > 10


@pytest.mark.parametrize("name", OPTIONS)
def test_every_option_off_its_default_matches(name: str) -> None:
    assert compare(ENV_ID, {"scenario": "back_alley", "options": OPTIONS[name]}, 1_000) > 10


@pytest.mark.parametrize("name", list(setups()))
def test_unusual_fighters_and_arenas_match(name: str) -> None:
    assert compare(ENV_ID, setups()[name], 1_000) > 10


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_hundred_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 100_000, num_envs=64, seed=2026) > 1_000


@pytest.mark.slow
@pytest.mark.parametrize("name", [*OPTIONS, *setups()])
def test_thirty_thousand_decisions_match_off_the_defaults(name: str) -> None:
    if name in OPTIONS:
        kwargs: dict[str, Any] = {"scenario": "back_alley", "options": OPTIONS[name]}
    else:
        kwargs = setups()[name]
    assert compare(ENV_ID, kwargs, 30_000, num_envs=64, seed=2027) > 300
