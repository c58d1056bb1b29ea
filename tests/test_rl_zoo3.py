"""rl-zoo3 trains a duelo env id unchanged, from `configs/rl_zoo3/ppo.yaml`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from duelo.envs.systems import SYSTEMS

ZOO_FILE = Path(__file__).parent.parent / "configs" / "rl_zoo3" / "ppo.yaml"


def test_the_zoo_file_holds_every_env_id() -> None:
    entries = yaml.safe_load(ZOO_FILE.read_text(encoding="utf-8"))
    assert set(entries) == {env_id for info in SYSTEMS.values() for env_id in info.env_ids}
    assert all(entry["policy"] == "MultiInputPolicy" for entry in entries.values())


@pytest.mark.slow
def test_rl_zoo3_trains_a_duelo_env(tmp_path: Path) -> None:
    pytest.importorskip("rl_zoo3")
    command = [
        sys.executable,
        "-m",
        "rl_zoo3.train",
        *("--algo", "ppo", "--env", "duelo/Dunwich-v2", "--gym-packages", "duelo"),
        *("--conf-file", str(ZOO_FILE), "-n", "2048", "--eval-freq", "-1"),
        *("-f", str(tmp_path), "--seed", "0"),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert (tmp_path / "ppo" / "duelo-Dunwich-v2_1" / "duelo-Dunwich-v2.zip").is_file()
    enjoy = [  # the documented replay of what it trained
        sys.executable,
        "-m",
        "rl_zoo3.enjoy",
        *("--algo", "ppo", "--env", "duelo/Dunwich-v2", "--gym-packages", "duelo"),
        *("-f", str(tmp_path), "--exp-id", "1", "--no-render", "-n", "300"),
    ]
    run = subprocess.run(enjoy, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Mean reward" in run.stdout
