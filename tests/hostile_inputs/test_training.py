"""Training configs and runs from outside: opponents that abort, exit, read stdin or hang
while built, numbers the trainer cannot run, and resumed legs that once lost their logs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

from duelo.agents import sandbox  # noqa: E402
from duelo.envs.core.config import ConfigError  # noqa: E402
from duelo.training import train as training  # noqa: E402
from duelo.training.settings import load_settings  # noqa: E402
from tests.test_training import short  # noqa: E402

BASE = {
    "n_timesteps": 2048,
    "n_envs": 2,
    "n_steps": 64,
    "batch_size": 64,
    "eval_duels": 20,
    "env_kwargs": {"scenario": "formal_duel"},
}


def _config(tmp_path: Path, **values: object) -> Path:
    path = tmp_path / "train.yaml"
    path.write_text(yaml.safe_dump({"duelo/Infierno-v2": {**BASE, **values}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ("os:abort", "exit status -6|exit status 134"),
        ("builtins:exit", r"without an answer \(exit status 0\)"),
        ("builtins:input", "took more than 1.0 s for a build"),
        ("tests.hostile:BuildHanger", "took more than 1.0 s for a build"),
        ("tests.hostile:BuildExiter", r"exit status 9\)"),
        ("tests.hostile:BuildRaiser", "could not be built: no brain today"),
    ],
)
def test_an_opponent_that_breaks_while_built_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opponent: str, message: str
) -> None:
    monkeypatch.setattr(sandbox, "BUILD_TIME_LIMIT", 1.0)
    path = _config(tmp_path, opponents=[opponent])
    with pytest.raises(ConfigError, match=message) as error:
        load_settings(path)
    assert str(path) in str(error.value) and opponent in str(error.value)


def test_a_teacher_is_checked_as_an_opponent_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "BUILD_TIME_LIMIT", 1.0)
    path = _config(tmp_path, teacher="tests.hostile:BuildExiter", teacher_decisions=100)
    with pytest.raises(ConfigError, match="tests.hostile:BuildExiter"):
        load_settings(path)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"batch_size": 1}, "batch_size 1 must lie in 2.."),
        ({"n_steps": 1, "n_envs": 1}, "n_steps x n_envs = 1"),
        ({"n_steps": 65, "n_envs": 1, "batch_size": 64}, "minibatch of one sample"),
        ({"eval_duels": 200_002}, "eval_duels 200002 must lie in 2..100,000"),
        ({"n_timesteps": 10**30}, "n_timesteps: 1000.* is past the range of any setting"),
        ({"n_timesteps": 10**10}, "n_timesteps 10000000000 must lie in 1..1,000,000,000"),
        ({"n_epochs": 10**6}, "n_epochs 1000000 must lie in 1..100"),
        ({"seed": -1}, "seed -1 must lie in 0.."),
        ({"seed": 2**40}, "seed 1099511627776 must lie in 0.."),
        ({"n_envs": 10**5}, "n_envs 100000 must lie in 1..256"),
        ({"max_snapshots": 10**9}, "max_snapshots .* must lie in 0..64"),
        ({"net_arch": [4096] * 8}, "more than the 4,194,304 a brain may have"),
    ],
)
def test_a_setting_the_trainer_cannot_run_is_refused_naming_it(
    tmp_path: Path, values: dict, message: str
) -> None:
    path = _config(tmp_path, **values)
    with pytest.raises(ConfigError, match=message) as error:
        load_settings(path)
    assert str(path) in str(error.value)


class Stopped(Exception):
    """A leg's process dying between an evaluation and its next checkpoint."""


def test_legs_resumed_from_one_checkpoint_keep_every_log_and_one_row_per_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = short(n_timesteps=1024, eval_every=512, checkpoint_every=1024)
    training.train(settings, tmp_path)
    original = training.TrainingLoop._on_step

    def dies_after_an_evaluation(self: training.TrainingLoop) -> bool:
        alive = original(self)
        if self.num_timesteps >= 1600:  # evaluated at 1536; the checkpoint waits for 2048
            raise Stopped
        return alive

    monkeypatch.setattr(training.TrainingLoop, "_on_step", dies_after_an_evaluation)
    longer = short(n_timesteps=3072)
    for _ in range(2):
        with pytest.raises(Stopped):
            training.train(longer, tmp_path, resume=True)
    monkeypatch.setattr(training.TrainingLoop, "_on_step", original)
    training.train(longer, tmp_path, resume=True)
    legs = sorted(p.name for p in (tmp_path / "logs").iterdir() if p.is_dir())
    assert legs == ["from_1024", "from_1024.2", "from_1024.3"]
    for leg in legs:
        assert (tmp_path / "logs" / leg / "progress.csv").read_text().count("\n") >= 2
    rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()[1:]
    steps = [row.split(",")[0] for row in rows]
    assert steps == ["512", "1024", "1536", "2048", "2560", "3072"]


def test_a_half_written_evaluation_row_is_dropped_on_resume(tmp_path: Path) -> None:
    settings = short(n_timesteps=1024, eval_every=512, checkpoint_every=1024)
    training.train(settings, tmp_path)
    with (tmp_path / training.EVALUATIONS).open("a", encoding="utf-8") as stream:
        stream.write("1536,random,2")  # a kill in the middle of a row
    training.train(short(n_timesteps=1536), tmp_path, resume=True)
    header, *rows = (tmp_path / training.EVALUATIONS).read_text().splitlines()
    assert header.split(",") == list(training.EVALUATION_HEADER)  # kept by the resume
    assert [row.split(",")[0] for row in rows] == ["512", "1024", "1536"]
    assert all(len(row.split(",")) == training.EVALUATION_FIELDS for row in rows)
