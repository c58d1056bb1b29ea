"""`duelo train --engine fast`: MaskablePPO learns on the batched engine, through SB3's
own VecEnv interface, against the whole opponent pool (scripted NPCs and the learner's
snapshots) and across several scenarios."""

from __future__ import annotations

import json
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
    venv = FastVecEnv([make_env("esgrima_duel", flat_observation=True)], 4)
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


def test_the_pool_and_its_snapshots_play_on_the_batch() -> None:
    """Every env draws its opponent for each duel from the pool, snapshots included once
    promoted; each scenario is a batch of its own, its envs in turn as `DummyVecEnv`
    gives them."""
    changes = {
        "env_id": "duelo/Dunwich-v2",
        "scenarios": ("back_alley", "warehouse", "rooftop"),
        "opponents": ("dunwich:random", "dunwich:aggressive", "dunwich:expert"),
        "self_play": True,
        "snapshot_share": 0.5,
        "n_envs": 8,
    }
    train_settings = settings(**changes)
    pool = training.OpponentPool(train_settings, np.random.default_rng(0))
    venv = training.make_venv(train_settings, pool, "fast")
    assert [engine.num_envs for engine in venv.engines] == [3, 3, 2]
    assert len({engine.rules.tobytes() for engine in venv.engines}) == 3  # three setups
    venv.seed(0)
    venv.reset()
    pool.add_snapshot(Path("brains/dunwich"), "dunwich")
    rng = np.random.default_rng(1)
    played: set[str] = set()
    for _ in range(400):
        masks = venv.action_masks()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        venv.step_wait()
        for engine in venv.engines:
            played.update(engine.policies[i].name for i in engine.playing)
    assert played == {"random", "aggressive", "expert", "brain:dunwich"}


def test_a_fast_run_trains_against_the_pool_across_scenarios(tmp_path: Path) -> None:
    changes = {
        "env_id": "duelo/Dunwich-v2",
        "scenarios": ("back_alley", "warehouse"),
        "opponents": ("dunwich:aggressive", "dunwich:expert"),
        "self_play": True,
        "promote_score": 0.0,  # every snapshot joins the pool
        "n_timesteps": 8192,
        "eval_every": 4096,
        "eval_duels": 10,
        "checkpoint_every": 4096,
    }
    run = tmp_path / "run"
    training.train(settings(**changes), run, engine="fast")
    state = json.loads((run / training.STATE).read_text(encoding="utf-8"))
    assert state["snapshots"]  # promoted into the pool the batch draws from
    evaluated = (run / training.EVALUATIONS).read_text(encoding="utf-8")
    assert "aggressive@" in evaluated and "expert@" in evaluated


def test_a_sandboxed_opponent_is_refused_before_any_duel(tmp_path: Path) -> None:
    changes = {"opponents": ("esgrima_duel:random", "tests.hostile:Raiser")}
    with pytest.raises(ValueError, match=r"process of its own \(tests.hostile:Raiser\)"):
        training.train(settings(**changes), tmp_path / "run", engine="fast")
