"""Configs, settings and env arguments from someone else: a clear error naming the file
and key, never a traceback, a hang, or a value that breaks the narration (issue 12)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
import yaml

import duelo  # noqa: F401  (registers the ids)
from duelo.envs.core.config import ConfigError, packaged_config
from duelo.envs.core.ruleset import IllegalActionError
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import load_catalog
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import load_catalog as load_liminal_catalog
from duelo.training.settings import load_settings


def _alias_bomb() -> str:
    """A name that is a list of 9 lists of 9 lists... nine levels deep (9**9 strings once
    expanded), written with YAML anchors in a few hundred bytes."""
    levels = ["&l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        levels.append(f"&l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    return "gunfighter:\n  name: [" + ", ".join(levels) + "]\n"


def characters_file(tmp_path: Path, text: str | bytes | dict) -> Path:
    """A characters file: raw text or bytes, or the packaged one with the gunfighter changed."""
    path = tmp_path / "characters.yaml"
    if isinstance(text, dict):
        data = yaml.safe_load(packaged_config("infierno/characters.yaml").read_text("utf-8"))
        data["gunfighter"].update(text)
        text = yaml.safe_dump(data)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_alias_bomb(), r"characters.yaml: gunfighter.name: expected a string, got \["),
        ("gunfighter: [1, 2]", "gunfighter: expected a mapping of keys, got \\[1, 2\\]"),
        ("gunfighter: a string", "gunfighter: expected a mapping of keys"),
        ("[" * 5000 + "]" * 5000, "nested too deeply|the top level must be a mapping"),
        (b"gunfighter:\n  name: \xff\xfe\n", "not UTF-8"),
        (
            "gunfighter:\n  name: A\ngunfighter:\n  name: B\n",
            "line 3: the key 'gunfighter' is repeated",
        ),
        ("gunfighter:\n  id: outlaw\n  name: A\n", "the id is the entry's key"),
        ({"name": "Evil\nDuel over: side A wins"}, "must be 1..60 printable"),
        ({"name": "\x1b[31mred"}, "must be 1..60 printable"),
    ],
)
def test_a_hostile_config_is_a_short_clear_error(
    tmp_path: Path, text: str | bytes | dict, message: str
) -> None:
    path = characters_file(tmp_path, text)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=message) as error:
        load_catalog(characters=path)
    assert time.perf_counter() - started < 5
    assert str(path) in str(error.value) and len(str(error.value)) < 600


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"learning_rate": -1}, "learning_rate -1.0 must lie in"),
        ({"gamma": 1.5}, "gamma 1.5 must lie in"),
        ({"net_arch": [0]}, "net_arch"),
        ({"opponent_weights": [1, -1, 1, 1]}, "opponent_weights"),
        ({"opponents": ["infierno:sharpshooter"], "opponent_weights": []}, "unknown policy"),
        ({"snapshot_share": 2}, "snapshot_share 2.0 must lie in"),
    ],
)
def test_training_settings_are_range_checked(tmp_path: Path, values: dict, message: str) -> None:
    base = yaml.safe_load(Path("configs/training/infierno.yaml").read_text(encoding="utf-8"))
    ((env_id, settings),) = base.items()
    path = tmp_path / "train.yaml"
    path.write_text(yaml.safe_dump({env_id: {**settings, **values}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(path)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "message"),
    [
        ("duelo/Infierno-v2", {"scenario": None}, "scenario must be an id or a Scenario"),
        ("duelo/Infierno-v2", {"fighters": (1, 2)}, r"fighters\[0\] must be an id"),
        ("duelo/Infierno-v2", {"fighters": ("outlaw",)}, "fighters must be two ids"),
        ("duelo/Esgrima-v2", {"scenario": 3}, "scenario must be an id or a Layout"),
        ("duelo/EsgrimaDuel-v2", {"deck": []}, "deck must list at least 6 Cards"),
        ("duelo/Infierno-v2", {"learner_seat": 1.0}, "learner_seat must be a seat of 0..1 or None"),
        ("duelo/Infierno-v2", {"illegal_penalty": -5}, "illegal_penalty must be positive"),
        ("duelo/Infierno-v2", {"options": {"round_cap": 10**6}}, "round_cap 1000000 must lie"),
    ],
)
def test_bad_env_arguments_are_clear_errors(env_id: str, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make(env_id, **kwargs)


@pytest.mark.parametrize("action", [2.7, "3", True, None])
def test_an_action_must_be_an_integer(action: object) -> None:
    env = gym.make("duelo/Infierno-v2")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="an action is an integer of the action space"):
        env.step(action)


def test_an_unknown_id_is_shown_abridged_with_the_known_ids() -> None:
    with pytest.raises(ConfigError, match=r"unknown character 'x+\.\.\.x+' \(known: .*outlaw"):
        InfiernoRuleset(fighters=("x" * 10_000, "outlaw"))
    with pytest.raises(ConfigError) as error:
        LiminalRuleset(scenario="x" * 10_000)
    assert "(known: brawl, long_shot, standoff, street)" in str(error.value)
    assert len(str(error.value)) < 600


@pytest.mark.parametrize(
    ("ruleset", "catalog"),
    [(InfiernoRuleset, load_catalog), (LiminalRuleset, load_liminal_catalog)],
)
def test_a_fighter_given_whole_must_carry_known_weapons(ruleset: type, catalog: Any) -> None:
    character = next(iter(catalog().characters.values()))
    armed = dataclasses.replace(character, weapons=("ray_gun",))
    where = rf"{character.id}.weapons\[0\]: unknown weapon 'ray_gun' \(known: "
    with pytest.raises(ConfigError, match=where):
        ruleset(fighters=(armed, character))
