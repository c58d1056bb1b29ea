"""Config files are validated on load: each mistake names the file, the key and the value."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from duelo.envs.core.config import ConfigError, options_of, packaged_config, read_yaml_mapping
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import Category, Feat, InfiernoOptions, Surprise, load_catalog


def write_characters(tmp_path: Path, change: dict) -> Path:
    characters = read_yaml_mapping(packaged_config("infierno/characters.yaml"))
    characters["gunfighter"].update(change)
    path = tmp_path / "characters.yaml"
    path.write_text(yaml.safe_dump(characters), encoding="utf-8")
    return path


def test_packaged_configs_load_with_every_seed_character() -> None:
    catalog = load_catalog()
    for name in ("johny", "guard", "judge_turner", "outlaw", "tommy_dos_pistolas", "drunk"):
        assert name in catalog.characters
    assert {"formal_duel", "brawl", "ambush"} <= set(catalog.scenarios)


def test_unknown_weapon_names_file_key_and_value(tmp_path: Path) -> None:
    path = write_characters(tmp_path, {"weapons": ["revolver", "colt_peacemaker"]})
    with pytest.raises(ConfigError) as error:
        load_catalog(characters=path)
    message = str(error.value)
    assert str(path) in message and "gunfighter.weapons[1]" in message
    assert "'colt_peacemaker'" in message


def test_negative_hp_is_an_error(tmp_path: Path) -> None:
    path = write_characters(tmp_path, {"hp_max": -3})
    with pytest.raises(ConfigError, match=r"gunfighter: hp_max -3 must be between 1 and 999"):
        load_catalog(characters=path)


def test_misspelt_key_is_an_error(tmp_path: Path) -> None:
    path = write_characters(tmp_path, {"atack_bonus": 5})
    with pytest.raises(
        ConfigError, match=r"characters.yaml: gunfighter: unknown key 'atack_bonus'"
    ):
        load_catalog(characters=path)


def test_wrong_type_is_an_error(tmp_path: Path) -> None:
    path = write_characters(tmp_path, {"defense": "high"})
    with pytest.raises(ConfigError, match=r"gunfighter.defense: expected an integer, got 'high'"):
        load_catalog(characters=path)


def test_corrupt_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "weapons.yaml"
    path.write_text("revolver: [unclosed", encoding="utf-8")
    with pytest.raises(ConfigError, match="weapons.yaml: not valid YAML"):
        load_catalog(weapons=path)


def test_bad_weapon_row(tmp_path: Path) -> None:
    weapons = read_yaml_mapping(packaged_config("infierno/weapons.yaml"))
    weapons["revolver"]["crit_low"] = 12
    path = tmp_path / "weapons.yaml"
    path.write_text(yaml.safe_dump(weapons), encoding="utf-8")
    with pytest.raises(ConfigError, match="revolver: crit_low 12 must be 18, 19 or 20"):
        load_catalog(weapons=path)


def test_options_are_checked_like_config() -> None:
    with pytest.raises(ConfigError, match="infierno options: unknown key 'round_kap'"):
        options_of(InfiernoOptions, {"round_kap": 5}, "infierno options")
    with pytest.raises(ConfigError, match=r"staredown_penalty: 'D' is not one of 'A', 'B', 'C'"):
        options_of(InfiernoOptions, {"staredown_penalty": "D"}, "infierno options")
    assert options_of(InfiernoOptions, {"round_cap": 5}, "infierno options").round_cap == 5


def test_unknown_character_and_scenario_names() -> None:
    with pytest.raises(ConfigError, match="unknown character 'billy'"):
        InfiernoRuleset(fighters=("billy", "outlaw"))
    with pytest.raises(ConfigError, match="unknown scenario 'siege'"):
        InfiernoRuleset(scenario="siege")


def test_game_concepts_load_as_enums(tmp_path: Path) -> None:
    """Code branches on members (a typo in code fails at import); YAML names their values."""
    catalog = load_catalog()
    assert catalog.weapons["revolver"].category is Category.FIREARM
    assert catalog.scenarios["ambush"].surprise is Surprise.A
    assert Feat.QUICK_DRAW in catalog.characters["quick_draw_artist"].feats
    path = tmp_path / "characters.yaml"
    data = read_yaml_mapping(packaged_config("infierno/characters.yaml"))
    data["outlaw"]["feats"] = ["quick_drw"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"outlaw.feats\[0\]: 'quick_drw' is not one of"):
        load_catalog(characters=path)
