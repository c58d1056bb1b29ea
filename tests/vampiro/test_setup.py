"""Vampiro's configs: the digest's published tables load, and a bad entry names its file
and key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from duelo.envs.core.config import ConfigError, options_of, packaged_config
from duelo.envs.vampiro.setup import Damage, VampiroOptions, load_catalog

CATALOG = load_catalog()


def test_the_published_tables() -> None:
    """§7: weapon damage, firearm range/rate/clip, armour soak and penalty, blood."""
    sword, shotgun = CATALOG.weapons["sword"], CATALOG.weapons["shotgun"]
    assert (sword.bonus, sword.damage_type) == (2, Damage.LETHAL)
    assert (shotgun.damage, shotgun.range, shotgun.rate, shotgun.clip) == (8, 20, 1, 6)
    assert [(a.rating, a.penalty) for a in CATALOG.armour.values()] == [
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 1),
        (4, 2),
        (5, 3),
    ]
    assert CATALOG.characters["ventrue"].blood == (13, 1)
    assert CATALOG.characters["hunter"].blood == (0, 0)


def edited(tmp_path: Path, name: str, entry: str, changes: dict) -> Path:
    data = yaml.safe_load(packaged_config(f"vampiro/{name}").read_text("utf-8"))
    data[entry].update(changes)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"weapon": "ray_gun"}, r"hunter\.weapon: unknown weapon 'ray_gun'"),
        ({"armour": "plate"}, r"hunter\.armour: unknown armour 'plate'"),
        ({"destreza": 0}, "destreza 0 must lie in 1..5"),
        ({"celeridad": 2}, "a mortal has no Disciplines"),
        ({"specialties": ["cooking"]}, "specialty 'cooking' is not one of"),
        ({"vampire": True, "generation": 4}, "generation 4 must be one of 6..13"),
    ],
)
def test_a_bad_character_names_its_file_and_key(
    tmp_path: Path, changes: dict, message: str
) -> None:
    path = edited(tmp_path, "characters.yaml", "hunter", changes)
    with pytest.raises(ConfigError, match=message) as error:
        load_catalog(characters=path)
    assert str(path) in str(error.value)


def test_a_bad_weapon_names_its_file_and_key(tmp_path: Path) -> None:
    path = edited(tmp_path, "weapons.yaml", "knife", {"burst": True})
    with pytest.raises(ConfigError, match="knife: only a firearm fires bursts"):
        load_catalog(weapons=path)


def test_options_default_to_the_digest_and_are_checked() -> None:
    assert options_of(VampiroOptions, None, "vampiro options") == VampiroOptions()
    with pytest.raises(ConfigError, match="specialty_mode: 'triple' is not one of"):
        options_of(VampiroOptions, {"specialty_mode": "triple"}, "vampiro options")


def test_a_scenario_names_known_fighters(tmp_path: Path) -> None:
    path = edited(tmp_path, "scenarios.yaml", "alley", {"fighters": ["brujah", "lupine"]})
    with pytest.raises(ConfigError, match=r"alley\.fighters\[1\]: unknown character 'lupine'"):
        load_catalog(scenarios=path)
    path = edited(tmp_path, "scenarios.yaml", "alley", {"range": 0.5})
    with pytest.raises(ConfigError, match="range 0.5 must lie in 1..200 m"):
        load_catalog(scenarios=path)
    path = edited(tmp_path, "scenarios.yaml", "alley", {"cover": [0, 4]})
    with pytest.raises(ConfigError, match=r"cover \[0, 4\] must lie in 0..3"):
        load_catalog(scenarios=path)
