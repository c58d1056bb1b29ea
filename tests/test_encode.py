"""Encoding a game state by entry names: what an engine does to ask a brain."""

from __future__ import annotations

import json

import numpy as np
import pytest

from duelo.agents import encode, entries, load_brain
from duelo.cli import main
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.systems import SYSTEMS


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_a_named_situation_encodes_to_the_rulesets_vector(system: str) -> None:
    ruleset = SYSTEMS[system].ruleset()
    state = ruleset.new_duel(GeneratorDice(4))
    seat = ruleset.to_act(state)
    flat = ruleset.observe(state, seat)
    situation = {row["name"]: float(flat[row["index"]]) for row in entries(system)}
    assert np.array_equal(encode(system, situation), flat)


def test_a_brain_decides_the_same_on_the_encoded_vector() -> None:
    ruleset = SYSTEMS["dunwich"].ruleset()
    state = ruleset.new_duel(GeneratorDice(1))
    flat = ruleset.observe(state, 0)
    mask = ruleset.legal_actions(state, 0)
    situation = {row["name"]: float(flat[row["index"]]) for row in entries("dunwich")}
    brain = load_brain("dunwich")
    rng = np.random.default_rng(0)
    assert brain.act(encode("dunwich", situation), mask, rng) == brain.act(flat, mask, rng)


def test_bad_situations_are_named() -> None:
    rows = entries("infierno")
    situation = {row["name"]: row["low"] for row in rows}
    with pytest.raises(ValueError, match="no observation entry named 'mana'"):
        encode("infierno", {**situation, "mana": 3})
    with pytest.raises(ValueError, match=r"lacks 1 entries: range"):
        encode("infierno", {k: v for k, v in situation.items() if k != "range"})
    with pytest.raises(ValueError, match=r"range = -5 lies outside"):
        encode("infierno", {**situation, "range": -5})
    with pytest.raises(ValueError, match="range must be a number"):
        encode("infierno", {**situation, "range": "far"})
    with pytest.raises(ValueError, match="unknown system 'chess'"):
        encode("chess", situation)


def test_systems_json_names_every_entry_and_action(capsys: pytest.CaptureFixture) -> None:
    assert main(["systems", "--json"]) == 0
    listed = {item["id"]: item for item in json.loads(capsys.readouterr().out)}
    assert list(listed) == list(SYSTEMS)
    for name, info in SYSTEMS.items():
        ruleset = info.ruleset()
        rows = listed[name]["observation"]
        assert [row["index"] for row in rows] == list(range(ruleset.observation_spec.size))
        assert [a["name"] for a in listed[name]["actions"]] == [a.name for a in ruleset.actions]
    assert listed["infierno"]["observation"][0]["meaning"]
