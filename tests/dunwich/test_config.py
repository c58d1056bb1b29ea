"""Dunwich's configs are checked on load: a clear error naming the file, entry and key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from duelo.envs.core.config import ConfigError, packaged_config
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.dunwich.setup import load_catalog


def edited(tmp_path: Path, name: str, entry: str, changes: dict) -> Path:
    """A copy of the packaged `name` file with `entry` changed."""
    data = yaml.safe_load(packaged_config(f"dunwich/{name}").read_text("utf-8"))
    data[entry].update(changes)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"melee": "ray_gun"}, r"marked\.melee: unknown weapon 'ray_gun' \(known: "),
        ({"melee": "pistol"}, r"marked\.melee: names a ranged weapon"),
        ({"ranged": "knife"}, r"marked\.ranged: names a melee weapon"),
        ({"lucha": 6}, "marked: lucha 6 must lie in 1..5"),
        ({"pv": 4}, "marked: pv 4 must lie in 0..3"),
        ({"fisico": "strong"}, r"marked\.fisico: expected an integer"),
    ],
)
def test_a_bad_character_names_its_file_and_key(
    tmp_path: Path, changes: dict, message: str
) -> None:
    path = edited(tmp_path, "characters.yaml", "marked", changes)
    with pytest.raises(ConfigError, match=message) as error:
        load_catalog(characters=path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"positions": [3.2, 9]}, "must be a multiple of 0.5 m"),
        ({"positions": [9, 3]}, r"need 0 <= A < B <= arena"),
        ({"positions": [3, 13]}, r"need 0 <= A < B <= arena"),
        ({"arena": 50}, "arena 50.0 must lie in 4..30 m"),
        ({"fighters": ["bruiser", "shoggoth"]}, r"fighters\[1\]: unknown character 'shoggoth'"),
    ],
)
def test_a_bad_scenario_names_its_file_and_key(tmp_path: Path, changes: dict, message: str) -> None:
    path = edited(tmp_path, "scenarios.yaml", "back_alley", changes)
    with pytest.raises(ConfigError, match=message) as error:
        load_catalog(scenarios=path)
    assert str(path) in str(error.value)


def test_weapons_are_checked(tmp_path: Path) -> None:
    path = edited(tmp_path, "weapons.yaml", "knife", {"dice": 9})
    with pytest.raises(ConfigError, match="knife: dice 9 must lie in 1..6"):
        load_catalog(weapons=path)
    path = edited(tmp_path, "weapons.yaml", "knife", {"firearm": True})
    with pytest.raises(ConfigError, match="knife: a firearm is a ranged weapon"):
        load_catalog(weapons=path)


def test_a_fighter_given_whole_must_carry_known_weapons() -> None:
    character = load_catalog().characters["marked"]
    armed = dataclasses.replace(character, melee="ray_gun")
    with pytest.raises(ConfigError, match=r"marked\.melee: unknown weapon 'ray_gun'"):
        DunwichRuleset(fighters=(armed, character))


def test_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="dunwich options: unknown key 'hazards'"):
        DunwichRuleset(options={"hazards": True})
    with pytest.raises(ConfigError, match="round_cap 0 must lie in"):
        DunwichRuleset(options={"round_cap": 0})
