"""Smaller inputs: option values past any range, actions past int64, config files too big
to be configs or not files at all."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import pytest

import duelo  # noqa: F401  (registers the ids)
from duelo.cli import main
from duelo.envs.core.config import MAX_CONFIG_BYTES, ConfigError, read_yaml_mapping

HUGE = "9" * 400


@pytest.mark.parametrize(
    ("system", "option"),
    [
        ("liminal", f"withdraw_stake={HUGE}"),
        ("liminal", f"surrender_threshold=-{HUGE}"),
        ("liminal", "withdraw_stake=.inf"),
        ("vampiro", f"round_cap={HUGE}"),
        ("esgrima_duel", f"deck_copies={HUGE}"),
        ("infierno", f"max_duel_repeats={HUGE}"),
        ("infierno", f"stunned_defense_penalty={HUGE}"),
        ("infierno", f"partial_cover_defense=-{HUGE}"),
        ("infierno", f"sequel_penalty={HUGE}"),
        ("infierno", f"speed={HUGE}"),
        ("infierno", f"arena={HUGE}"),
        ("infierno", "speed=50"),
    ],
)
def test_an_option_past_its_range_is_a_short_error(
    system: str, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["duel", system, "--a", "random", "--b", "random", "--option", option]) == 2
    error = capsys.readouterr().err
    key = option.split("=")[0]
    assert error.startswith("duelo: error: ") and key in error and len(error) < 400, error


@pytest.mark.parametrize("engine", ["python", "fast"])
@pytest.mark.parametrize("action", [2**70, -(2**70), 2**63])
def test_an_action_past_int64_is_penalised_like_any_illegal_one(engine: str, action: int) -> None:
    if engine == "fast":
        pytest.importorskip("numba")
    env = gym.make("duelo/Infierno-v2", engine=engine)
    env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step(action)
    assert info["illegal_action"] and reward < 0 and not terminated and not truncated
    env.close()


def test_a_config_past_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("w", encoding="utf-8") as stream:
        stream.write("a:\n")
        stream.writelines(f"  k{i}: [{', '.join(['1'] * 40)}]\n" for i in range(200_000))
    assert path.stat().st_size > 20 * MAX_CONFIG_BYTES
    with pytest.raises(ConfigError, match=f"{path}: more than the {MAX_CONFIG_BYTES} bytes"):
        read_yaml_mapping(path)


def test_a_config_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_yaml_mapping(path)
