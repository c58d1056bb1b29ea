"""The batched Liminal duel and hero-against-a-mob fight play the scalar envs' fights,
decision for decision (`helpers.compare`): every scenario, each GM option off its
default, stat blocks with the defence bonus, the strength talents, two pistols alike
and listed bare hands, cover, high ground and an unseen fighter; the mob armed and
not, played by the learner too, against a hero with Medicine (who tends the fallen
after the fight, rolling dice the next fight's stream goes on from). The slow suite
plays 100,000 decisions in each shipped scenario and 30,000 in each setup off them."""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba")

import duelo  # noqa: E402,F401  (registers the env ids)
from duelo.envs.liminal.setup import Scenario, load_catalog  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

ENV_ID = "duelo/Liminal-v2"
MOB_ID = "duelo/LiminalMob-v2"
SCENARIOS = ("standoff", "brawl", "street", "long_shot")
MOBS: dict[str, dict[str, Any]] = {
    "street_gang": {"scenario": "street_gang"},
    "back_alley": {"scenario": "back_alley"},
    "the_learner_is_the_mob": {"scenario": "back_alley", "learner_seat": 1},
    "a_doctor_tends_the_fallen": {"scenario": "street_gang", "hero": "doctor"},
    "off_the_defaults": {
        "scenario": "back_alley",
        "hero": "brute",
        "options": {
            "crit_choice": "fixed",
            "better_weapon": "tiered",
            "unskilled_no_crit": True,
            "round_cap": 4,
        },
    },
}
OPTIONS: dict[str, dict[str, Any]] = {
    "opposed_fixed_tiered": {
        "initiative_mode": "opposed",
        "crit_choice": "fixed",
        "better_weapon": "tiered",
        "unskilled_no_crit": True,
    },
    "silent_and_strong": {
        "social_action": False,
        "fuerte_bonus": 3,
        "sobrenatural_bonus": 4,
        "withdraw_stake": 1.0,
    },
    "quick_to_yield_short_cap": {"surrender_threshold": 1.0, "round_cap": 3},
}


def setups() -> dict[str, dict[str, Any]]:
    """Stat blocks and places no shipped scenario has."""
    catalog = load_catalog()
    gunman = catalog.characters["gunman"]
    twins = dataclasses.replace(gunman, id="twins", name="Twins", weapons=("pistol", "pistol"))
    boxer = dataclasses.replace(
        catalog.characters["thug"], id="boxer", name="Boxer", weapons=("unarmed", "knife")
    )
    places = Scenario(
        "places",
        "cover, high ground and an unseen side",
        2,
        ("twins", "boxer"),
        cover=(True, False),
        high_ground=(False, True),
        unseen=(False, True),
    )
    return {
        "vampire_vs_doctor": {"scenario": "brawl", "fighters": ("supernatural", "doctor")},
        "gunman_vs_gunman": {"scenario": "street", "fighters": ("gunman", "gunman")},
        "twins_vs_boxer_in_places": {"scenario": places, "fighters": (twins, boxer)},
        "brute_vs_hunter_near": {"scenario": "street", "fighters": ("brute", "hunter")},
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 1_000) > 10


@pytest.mark.parametrize("name", OPTIONS)
def test_every_option_off_its_default_matches(name: str) -> None:
    assert compare(ENV_ID, {"scenario": "street", "options": OPTIONS[name]}, 1_000) > 10


@pytest.mark.parametrize("name", list(setups()))
def test_unusual_fighters_and_places_match(name: str) -> None:
    assert compare(ENV_ID, setups()[name], 1_000) > 10


@pytest.mark.parametrize("name", MOBS)
def test_a_thousand_decisions_against_a_mob_match(name: str) -> None:
    assert compare(MOB_ID, MOBS[name], 1_000) > 10


@pytest.mark.slow
@pytest.mark.parametrize("name", MOBS)
def test_many_decisions_against_a_mob_match(name: str) -> None:
    """100,000 decisions in each shipped scenario, 30,000 in each setup off them."""
    decisions = 100_000 if name in ("street_gang", "back_alley") else 30_000
    assert compare(MOB_ID, MOBS[name], decisions, num_envs=64, seed=2028) > decisions // 100


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_hundred_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 100_000, num_envs=64, seed=2026) > 1_000


@pytest.mark.slow
@pytest.mark.parametrize("name", [*OPTIONS, *setups()])
def test_thirty_thousand_decisions_match_off_the_defaults(name: str) -> None:
    if name in OPTIONS:
        kwargs: dict[str, Any] = {"scenario": "street", "options": OPTIONS[name]}
    else:
        kwargs = setups()[name]
    assert compare(ENV_ID, kwargs, 30_000, num_envs=64, seed=2027) > 300


def test_a_withdrawal_pays_its_stake() -> None:
    """A fighter who steps out past far withdraws (§9, §12): the batch pays the stayer
    `withdraw_stake` and charges the leaver as much, as the scalar env does
    (`Outcome.stake`; `compare` checks every reward against it)."""
    options = {"withdraw_stake": 0.25}
    envs = gym.make_vec(ENV_ID, num_envs=32, scenario="long_shot", options=options)
    _, info = envs.reset(seed=0)
    paid = np.zeros(32)
    for _ in range(6):  # the learner falls back whenever it may: out within a few turns
        masks = info["action_mask"]
        actions = np.where(masks[:, 10], 10, masks.argmax(axis=1))  # RETREAT, else the first
        _, rewards, terminated, truncated, info = envs.step(actions)
        ended = terminated | truncated
        paid[ended] = rewards[ended]
        left = ended & (rewards == -0.25)
        assert (info["winner"][left] == 1 - info["seat"][left]).all()
    assert (paid == -0.25).sum() >= 16
