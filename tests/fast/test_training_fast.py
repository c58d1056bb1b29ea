"""`duelo train --engine fast`: MaskablePPO learns on the batched engine, through SB3's
own VecEnv interface, and the engine refuses settings it cannot play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

from duelo.evaluation.duels import run_job  # noqa: E402
from duelo.evaluation.report import Tally, score_of_a  # noqa: E402
from duelo.evaluation.tournament import TournamentSpec, schedule
from duelo.registration import make_env  # noqa: E402
from duelo.training import train as training  # noqa: E402
from duelo.training.fast_vec_env import FastVecEnv  # noqa: E402
from duelo.training.settings import TrainSettings  # noqa: E402


def settings(**changes: object) -> TrainSettings:
    base = TrainSettings(
        env_id="duelo/EsgrimaDuel-v2",
        n_timesteps=16_384,
        n_envs=16,
        n_steps=128,
        batch_size=512,
        net_arch=(32, 32),
        opponents=("random",),
        self_play=False,
        eval_every=8192,
        eval_duels=20,
        checkpoint_every=8192,
    )
    return base.with_overrides(**changes)


def test_a_fast_run_learns_to_beat_random(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    training.train(settings(), run, engine="fast")
    monkeypatch.chdir(tmp_path)  # a policy name free of the temporary path: the same duels
    spec = TournamentSpec(
        system="esgrima_duel",
        policies=("brain:./run/brain", "esgrima_duel:random"),
        duels=400,
        seed=5,
    )
    tally = Tally()
    for job in schedule(spec):
        tally = tally.add(score_of_a(run_job(job)))
    low, _ = tally.interval
    assert low > 0.5, tally  # random against random scores 0.5 by symmetry


def test_the_vec_env_gives_sb3_what_dummy_vec_env_gives() -> None:
    """Same-step autoreset: `terminal_observation`, Monitor's `episode`, and the masks."""
    venv = FastVecEnv(make_env("esgrima_duel", flat_observation=True), 4)
    venv.seed(1)
    observations = venv.reset()
    assert observations.shape == (4, venv.observation_space.shape[0])
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(200):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        observations, rewards, dones, infos = venv.step_wait()
        for row in np.flatnonzero(dones):
            assert infos[row]["episode"]["r"] in (-1.0, 0.0, 1.0)
            assert infos[row]["terminal_observation"].shape == observations[row].shape
            finished += 1
    assert finished > 0
    assert venv.has_attr("action_masks") and venv.get_attr("render_mode") == [None] * 4


def test_settings_the_engine_cannot_play_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"opponents: \[random\].*self_play: false"):
        training.train(
            settings(opponents=("esgrima_duel:expert",), self_play=True), tmp_path, engine="fast"
        )
