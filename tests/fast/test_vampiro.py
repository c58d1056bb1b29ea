"""The batched Vampiro duel plays the scalar env's duels, decision for decision
(`helpers.compare`): every scenario, each edition flag and GM option off its default,
and stat blocks no scenario pairs (five Celerity dots and a submachine gun behind
cover, the most declared actions a turn can hold; vampires with Celerity and
Fortitude; a brawl of mortals; one character against itself). The slow suite plays
100,000 decisions in each scenario and 30,000 in each setup off the defaults."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("numba")

import duelo  # noqa: E402,F401  (registers the env ids)
from duelo.envs.vampiro.setup import Scenario, load_catalog  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

ENV_ID = "duelo/Vampiro-v2"
SCENARIOS = ("alley", "elysium", "stakeout", "showdown")
OPTIONS: dict[str, dict[str, Any]] = {
    "revised_celerity_and_willpower": {
        "specialty_mode": "reroll",
        "celerity_dice": True,
        "all_multi_at_end": True,
        "celerity_cost": "per_turn",
        "willpower_cancellable": True,
    },
    "fixed_initiative_public_declarations": {
        "celerity_initiative": False,
        "fixed_initiative": True,
        "ones_cancel_on_damage_soak": False,
        "dodge_ability": "atletismo",
        "public_declarations": True,
    },
    "bullets_bash_walks_short_cap": {
        "bullets_bashing_vs_vampires": True,
        "halve_bashing_vs_vampires": False,
        "walk_with_action": True,
        "round_cap": 3,
    },
}


def setups() -> dict[str, dict[str, Any]]:
    """Stat blocks and scenarios no shipped scenario pairs."""
    catalog = load_catalog()
    speedster = dataclasses.replace(
        catalog.characters["gangrel"],
        id="speedster",
        name="Speedster",
        generation=7,
        celeridad=5,
        armas_fuego=3,
        specialties=("armas_fuego", "pelea"),
        weapon="small_smg",
    )
    rooftop = Scenario("rooftop", "across a rooftop", ("hunter", "ventrue"), 12.0, cover=(2, 1))
    return {
        "speedster_vs_ventrue_in_cover": {
            "scenario": rooftop,
            "fighters": (speedster, "ventrue"),
            "options": {"walk_with_action": True},
        },
        "gangrel_vs_gunman": {"scenario": "stakeout", "fighters": ("gangrel", "gunman")},
        "enforcer_vs_thug": {"scenario": "elysium", "fighters": ("enforcer", "thug")},
        "brujah_vs_brujah": {"scenario": "alley", "fighters": ("brujah", "brujah")},
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 1_000) > 10


@pytest.mark.parametrize("name", OPTIONS)
def test_every_option_off_its_default_matches(name: str) -> None:
    assert compare(ENV_ID, {"scenario": "alley", "options": OPTIONS[name]}, 1_000) > 10


@pytest.mark.parametrize("name", list(setups()))
def test_unusual_fighters_and_scenarios_match(name: str) -> None:
    assert compare(ENV_ID, setups()[name], 1_000) > 10


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_hundred_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 100_000, num_envs=64, seed=2026) > 1_000


@pytest.mark.slow
@pytest.mark.parametrize("name", [*OPTIONS, *setups()])
def test_thirty_thousand_decisions_match_off_the_defaults(name: str) -> None:
    if name in OPTIONS:
        kwargs: dict[str, Any] = {"scenario": "alley", "options": OPTIONS[name]}
    else:
        kwargs = setups()[name]
    assert compare(ENV_ID, kwargs, 30_000, num_envs=64, seed=2027) > 300
