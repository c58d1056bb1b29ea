"""`duelo train`: MaskablePPO against a pool of scripted NPCs and frozen snapshots.

Read top to bottom: settings, seeding, envs, model, callbacks, learn. A run
directory holds the settings, CSV logs, evaluations, snapshots (numpy brains)
and an atomically written checkpoint that `--resume` continues from.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.running_mean_std import RunningMeanStd
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

import duelo  # noqa: F401  (registers the env ids)
from duelo.agents.brain import load_brain
from duelo.agents.registry import make_policy
from duelo.envs.core import bounded_json
from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy, served_by_process
from duelo.envs.core.referee import summary
from duelo.envs.fast import ENGINES
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.duels import run_job
from duelo.evaluation.progress import ProgressLine
from duelo.evaluation.report import Tally, score_of_a, setup_label
from duelo.evaluation.tournament import TournamentSpec, schedule
from duelo.training.export import (
    checkpoint_policy_state,
    copy_brain,
    fsync,
    replace_folder,
    write_brain,
)
from duelo.training.imitate import imitate
from duelo.training.settings import LEARNER, SETTINGS_FILE, TrainSettings, load_settings

CHECKPOINT_DIR = "checkpoint"
"""The model, the normaliser and the loop's state, written together as one folder."""
CHECKPOINT = f"{CHECKPOINT_DIR}/model.zip"
NORMALIZER = f"{CHECKPOINT_DIR}/normalizer.npz"
STATE = f"{CHECKPOINT_DIR}/state.json"
EVALUATIONS = "evaluations.csv"
EVALUATION_HEADER = ("timesteps", "opponent", "duels", "score", "low", "high")
"""evaluations.csv's columns: the learner's score against each opponent (and setup) at
those timesteps, over that many duels, with its 95% Wilson interval."""
EVALUATION_FIELDS = len(EVALUATION_HEADER)
"""An evaluations.csv row: steps, opponent, duels, score, low, high."""
LATEST_BRAIN = "brain"
SNAPSHOTS = "snapshots"
"""Brains of the learner at each evaluation (and `final`), the self-play pool's source."""


class OpponentPool:
    """Scripted NPCs and learner snapshots; each env draws one at every reset."""

    def __init__(self, settings: TrainSettings, rng: np.random.Generator) -> None:
        self.scripted: list[Policy] = [make_policy(n, settings.system) for n in settings.opponents]
        weights = np.asarray(settings.opponent_weights or [1.0] * len(self.scripted), float)
        self.weights = weights / weights.sum()
        self.snapshots: list[Policy] = []
        self.snapshot_names: list[str] = []
        """Folder names under the run's snapshots/ (kept in state.json for --resume)."""
        self.snapshot_share = settings.snapshot_share
        self.max_snapshots = settings.max_snapshots
        self.rng = rng
        self.ally: Policy | None = (
            None if settings.allies == LEARNER else make_policy(settings.allies, settings.system)
        )
        """The learner's allies in a fight of several a side: a named policy, or the
        network in training (`SharedNetwork`, set once the model is made)."""

    def sample(self) -> Policy:
        if self.snapshots and self.rng.random() < self.snapshot_share:
            return self.snapshots[int(self.rng.integers(len(self.snapshots)))]
        return self.scripted[int(self.rng.choice(len(self.scripted), p=self.weights))]

    def add_snapshot(self, folder: Path, system: str) -> None:
        self.snapshots.append(load_brain(folder, system))
        self.snapshot_names.append(folder.name)
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)
            self.snapshot_names.pop(0)


def _normaliser(venv: VecNormalize) -> RunningMeanStd:
    """The observations' running mean and variance: one, the observation being flat."""
    rms = venv.obs_rms
    assert isinstance(rms, RunningMeanStd)  # a dict of them only for Dict observations
    return rms


class SharedNetwork:
    """The network in training, playing the learner's allies in a fight of several a side
    (parameter sharing, the usual way to train a team: one network plays every fighter of
    a side). It samples its current policy, masked, on the observation normalised as the
    learner's; only the learner's own fighter's decisions are learnt from."""

    name = LEARNER
    description = "the network in training, playing an ally of the learner"

    def __init__(self, model: Any, venv: VecNormalize, system: str) -> None:
        self.model = model
        self.venv = venv
        self.spec = SYSTEMS[system].ruleset.observation_spec

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        flat = self.venv.normalize_obs(self.spec.flatten(observation))
        with torch.no_grad():
            tensor = torch.as_tensor(flat, dtype=torch.float32)[None]
            distribution = self.model.policy.get_distribution(tensor).distribution
            logits = distribution.logits[0].numpy().astype(np.float64)
        logits = np.where(action_mask, logits, -np.inf)
        chances = np.exp(logits - logits.max())
        return int(rng.choice(len(chances), p=chances / chances.sum()))


class PoolOpponent(gym.Wrapper):
    """Draws the opponent from the pool before each duel, and seats the pool's ally."""

    def __init__(self, env: gym.Env, pool: OpponentPool) -> None:
        super().__init__(env)
        self.pool = pool

    def reset(self, **kwargs: Any) -> Any:
        duel = self.env.unwrapped
        assert isinstance(duel, DuelEnv)  # a duelo id, made by gym.make
        duel.opponent = self.pool.sample()
        duel.ally = duel.opponent if self.pool.ally is None else self.pool.ally
        return self.env.reset(**kwargs)


def make_env(settings: TrainSettings, pool: OpponentPool, index: int) -> Any:
    """A factory for the index-th training env: flat observations, random seat, pooled
    opponent, and its share of the scenarios."""
    variants = settings.variants

    def build() -> gym.Env:
        env = gym.make(
            settings.env_id,
            opponent=pool.scripted[0],
            flat_observation=True,
            illegal_action="raise" if settings.algo == "maskable_ppo" else "penalize",
            **variants[index % len(variants)],
        )
        return Monitor(PoolOpponent(env, pool))

    return build


def make_venv(settings: TrainSettings, pool: OpponentPool, engine: str) -> Any:
    """The training envs: `n_envs` scalar envs in one process, or the batched engine."""
    if engine == "python":
        return DummyVecEnv([make_env(settings, pool, i) for i in range(settings.n_envs)])
    if engine != "fast":
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if importlib.util.find_spec("numba") is None:
        raise ValueError("--engine fast needs the fast extra: pip install 'duelo[fast]'")
    from duelo.training.fast_vec_env import FastVecEnv

    sandboxed = [policy.name for policy in pool.scripted if served_by_process(policy)]
    if sandboxed:  # refused before any duel, not at the first draw of one
        raise ValueError(
            f"--engine fast plays no policy in a process of its own ({', '.join(sandboxed)}): "
            "train it on the python engine"
        )
    duels = []
    for variant in settings.variants:
        env = gym.make(
            settings.env_id,
            flat_observation=True,
            illegal_action="raise" if settings.algo == "maskable_ppo" else "penalize",
            **variant,
        ).unwrapped
        assert isinstance(env, DuelEnv)  # a duelo id, made by gym.make
        duels.append(env)
    return FastVecEnv(duels, settings.n_envs, draw=pool.sample)


def model_class(settings: TrainSettings) -> Any:
    if settings.algo == "maskable_ppo":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    return PPO


def evaluate(brain_dir: Path, settings: TrainSettings, seed: int) -> dict[str, dict[str, float]]:
    """Seat-swapped duels of the brain against every scripted opponent (masks applied), in
    each setup trained across: keyed by the opponent, or `opponent@setup`."""
    results = {}
    for opponent in settings.opponents:
        for variant in settings.variants:
            spec = TournamentSpec(
                system=settings.system,
                policies=(f"brain:{brain_dir}", opponent),
                duels=settings.eval_duels,
                seed=seed,
                variant=variant,
                move_time_limit=None,
            )
            tally = Tally()
            for job in schedule(spec):
                tally = tally.add(score_of_a(run_job(job)))
            low, high = tally.interval
            several = len(settings.variants) > 1
            key = f"{opponent}@{setup_label(variant)}" if several else opponent
            results[key] = {"duels": tally.duels, "score": tally.score, "low": low, "high": high}
    return results


def _scored(against: dict[str, Any]) -> str:
    return f", last evaluation {np.mean([r['score'] for r in against.values()]):.2f}"


class TrainingLoop(BaseCallback):
    """Evaluation, self-play promotion, checkpoints and the progress line."""

    def __init__(
        self,
        settings: TrainSettings,
        run: Path,
        pool: OpponentPool,
        venv: VecNormalize,
        state: dict[str, Any],
    ) -> None:
        super().__init__()
        self.settings = settings
        self.run = run
        self.pool = pool
        self.venv = venv
        self.state = state
        self.progress = ProgressLine("train", "steps") if sys.stderr.isatty() else None
        latest = state.get("last_evaluation")  # a resumed run's, until its next evaluation
        self.scored = _scored(latest["against"]) if latest else ""
        """The progress line's tail: the last evaluation's mean score."""

    def _on_step(self) -> bool:
        steps = self.num_timesteps
        if steps >= self.state["next_eval"]:
            self.state["next_eval"] += self.settings.eval_every
            self.evaluate_and_promote(steps)
        if steps >= self.state["next_checkpoint"]:
            self.state["next_checkpoint"] += self.settings.checkpoint_every
            self.checkpoint()
        if self.progress is not None:  # every step: the line itself redraws at most 5 a second
            total = self.settings.n_timesteps
            self.progress(min(steps, total), total, self.scored)
        return True

    def export(self, out: Path, evaluation: dict[str, Any]) -> Path:
        """The learner as it is now, as a brain folder."""
        rms = _normaliser(self.venv)
        state = self.model.policy.state_dict()
        return write_brain(out, state, rms.mean, rms.var, self.settings, evaluation, name=out.name)

    def evaluate_and_promote(self, steps: int) -> None:
        snapshot = self.export(self.run / SNAPSHOTS / f"step_{steps}", {})
        results = evaluate(snapshot, self.settings, seed=self.settings.seed + steps)
        self.state["last_evaluation"] = {"timesteps": steps, "against": results}
        with (self.run / EVALUATIONS).open("a", newline="", encoding="utf-8") as stream:
            writer = csv.writer(stream)
            if not stream.tell():
                writer.writerow(EVALUATION_HEADER)
            for opponent, r in results.items():
                writer.writerow(
                    [
                        steps,
                        opponent,
                        r["duels"],
                        f"{r['score']:.4f}",
                        f"{r['low']:.4f}",
                        f"{r['high']:.4f}",
                    ]
                )
        mean_score = float(np.mean([r["score"] for r in results.values()]))
        self.scored = _scored(results)
        self.logger.record("eval/mean_score", mean_score)
        scores = ", ".join(f"{name} {r['score']:.2f}" for name, r in results.items())
        start = "\r\033[K" if sys.stderr.isatty() else ""  # clear the progress line first
        print(
            f"{start}evaluation at {steps} steps: mean score {mean_score:.2f} ({scores})",
            file=sys.stderr,
            flush=True,
        )
        self.remember_if_best(snapshot, self.state["last_evaluation"], mean_score)
        if self.settings.self_play and mean_score >= self.settings.promote_score:
            self.pool.add_snapshot(snapshot, self.settings.system)
            self.state["snapshots"] = list(self.pool.snapshot_names)

    def remember_if_best(self, brain: Path, evaluation: dict[str, Any], mean_score: float) -> None:
        """Track the best-evaluated brain (rl-zoo3's best model): `duelo export --best`."""
        if mean_score > self.state["best"].get("mean_score", -1.0):
            self.state["best"] = {
                "snapshot": brain.name,
                "mean_score": mean_score,
                "evaluation": evaluation,
            }

    def checkpoint(self) -> None:
        """Model, normaliser and loop state as one group: written and flushed to disk in a
        new folder, which then takes the old one's place (a kill at any moment leaves one
        whole checkpoint: `recover_checkpoint`)."""
        self.state["timesteps"] = self.model.num_timesteps
        fresh = self.run / f"{CHECKPOINT_DIR}.new"
        if fresh.exists():
            shutil.rmtree(fresh)
        fresh.mkdir()
        self.model.save(fresh / Path(CHECKPOINT).name)
        rms = _normaliser(self.venv)
        with (fresh / Path(NORMALIZER).name).open("wb") as stream:
            np.savez(stream, mean=rms.mean, var=rms.var, count=np.array(rms.count))
        (fresh / Path(STATE).name).write_text(json.dumps(self.state, indent=2), encoding="utf-8")
        replace_folder(fresh, self.run / CHECKPOINT_DIR, self.run / f"{CHECKPOINT_DIR}.old")


def train(settings: TrainSettings, run: Path, resume: bool = False, engine: str = "python") -> Path:
    """Train, checkpoint, evaluate; return the path of the final brain.

    `engine` "fast" steps the envs in the batched engine (`make_venv` says what it serves);
    the evaluations play the Python rules either way.

    With `resume`, the run continues from its last checkpoint with the settings it was
    started with, except `n_timesteps`, which may grow: a finished run resumed with more
    timesteps trains on. A Ctrl-C checkpoints before it stops the run.
    """
    run.mkdir(parents=True, exist_ok=True)
    recover_checkpoint(run)
    settings_path = run / SETTINGS_FILE
    if resume:
        if not (run / CHECKPOINT).exists():
            raise FileNotFoundError(f"{run / CHECKPOINT}: no checkpoint to resume from")
        saved = load_settings(settings_path)
        settings = saved.with_overrides(n_timesteps=max(saved.n_timesteps, settings.n_timesteps))
    elif (run / CHECKPOINT).exists():
        raise FileExistsError(f"{run} holds a run already: pass --resume, or choose another --out")
    settings_path.write_text(settings.to_yaml(), encoding="utf-8")

    # --- seeding: python, numpy and torch; one torch thread ---
    set_random_seed(settings.seed)
    torch.set_num_threads(settings.torch_threads)
    state: dict[str, Any] = {
        "timesteps": 0,
        "next_eval": settings.eval_every,
        "next_checkpoint": settings.checkpoint_every,
        "snapshots": [],
        "last_evaluation": {},
        "best": {},
    }
    if resume:
        state.update(read_state(run))
        forget_evaluations_after(run, state["timesteps"])

    # --- envs: n_envs in one process, observations normalised ---
    pool = OpponentPool(settings, np.random.default_rng([settings.seed, state["timesteps"]]))
    for name in state["snapshots"]:
        pool.add_snapshot(snapshot_folder(run, name), settings.system)
    venv = VecNormalize(
        make_venv(settings, pool, engine),
        norm_obs=True,
        norm_reward=False,
        clip_obs=10.0,
    )
    venv.seed(settings.seed + state["timesteps"])
    if resume:
        normaliser, stored = _normaliser(venv), read_normalizer(run)
        normaliser.mean, normaliser.var = stored["mean"], stored["var"]
        normaliser.count = float(stored["count"])

    # --- model ---
    algo = model_class(settings)
    if resume:
        try:
            model = algo.load(run / CHECKPOINT, env=venv, device="cpu")
        except Exception as error:  # SB3's loader raises many kinds for a damaged file
            raise ValueError(f"{run / CHECKPOINT}: not a loadable checkpoint ({error})") from None
    else:
        model = algo(
            "MlpPolicy",
            venv,
            n_steps=settings.n_steps,
            batch_size=settings.batch_size,
            n_epochs=settings.n_epochs,
            learning_rate=settings.learning_rate,
            gamma=settings.gamma,
            gae_lambda=settings.gae_lambda,
            ent_coef=settings.ent_coef,
            clip_range=settings.clip_range,
            policy_kwargs={
                "net_arch": list(settings.net_arch),
                "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[
                    settings.activation
                ],
            },
            seed=settings.seed,
            device="cpu",
        )
    if settings.allies == LEARNER:
        pool.ally = SharedNetwork(model, venv, settings.system)
    formats = ["csv"]
    try:
        import tensorboard  # noqa: F401

        formats.append("tensorboard")
    except ImportError:
        pass
    logger = configure(str(leg_logs(run, state["timesteps"]) if resume else run / "logs"), formats)
    model.set_logger(logger)

    # --- imitation: a warm start from a teacher, before the first checkpoint ---
    if settings.teacher and not resume:
        variants = settings.variants  # env i plays variants[i mod n]: so does its teacher
        teachers = [
            make_policy(settings.teacher, settings.system, variants[i % len(variants)])
            for i in range(settings.n_envs)
        ]
        spec = SYSTEMS[settings.system].ruleset.observation_spec
        copied = imitate(
            model, venv, teachers, spec, settings.teacher_decisions, settings.gamma, settings.seed
        )
        print(
            f"imitated {settings.teacher} over {copied.decisions:,} decisions; the learner "
            f"agreed with it on {copied.agreement:.1%} of the last round's",
            file=sys.stderr,
            flush=True,
        )

    # --- learn ---
    loop = TrainingLoop(settings, run, pool, venv, state)
    loop.init_callback(model)  # the loop exports the model even when nothing is left to learn
    if not resume:
        loop.checkpoint()  # step 0: a run killed before its first scheduled checkpoint resumes
    remaining = settings.n_timesteps - state["timesteps"]
    try:
        if remaining > 0:
            model.learn(remaining, callback=loop, reset_num_timesteps=not resume)
    except KeyboardInterrupt:
        loop.checkpoint()  # Ctrl-C: keep what was learnt, then stop
        raise
    finally:
        logger.close()  # the log files, also when a run in this process resumes this one
    final = loop.export(run / SNAPSHOTS / "final", {})
    results = evaluate(final, settings, seed=settings.seed + 1)
    state["last_evaluation"] = {"timesteps": model.num_timesteps, "against": results}
    loop.remember_if_best(
        final, state["last_evaluation"], float(np.mean([r["score"] for r in results.values()]))
    )
    loop.checkpoint()
    return export_run(run, run / LATEST_BRAIN)


def leg_logs(run: Path, timesteps: int) -> Path:
    """A folder of its own for the logs of a leg resumed at `timesteps` (SB3's CSV writer
    starts its file afresh): `logs/from_N`, or `from_N.2`... where a leg resumed from that
    checkpoint before, and was stopped before its next one, logged already."""
    logs = run / "logs" / f"from_{timesteps}"
    leg = 1
    while logs.exists():
        leg += 1
        logs = run / "logs" / f"from_{timesteps}.{leg}"
    return logs


def forget_evaluations_after(run: Path, timesteps: int) -> None:
    """Drop the rows of `evaluations.csv` a leg wrote after the checkpoint it is resumed
    from (it was stopped before its next one; the resumed leg evaluates those steps again),
    so each evaluation is one row; a row half-written by a kill goes too. Written aside
    and renamed: a kill leaves one whole file."""
    path = run / EVALUATIONS
    if not path.exists():
        return
    with path.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    kept = [list(EVALUATION_HEADER)] + [
        row for row in rows if len(row) == EVALUATION_FIELDS and _at_most(row[0], timesteps)
    ]
    if kept == rows:
        return
    fresh = path.with_name(f".{EVALUATIONS}.new")
    with fresh.open("w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows(kept)
    fsync(fresh)
    os.replace(fresh, path)


def _at_most(steps: str, timesteps: int) -> bool:
    return steps.isdigit() and int(steps) <= timesteps


MAX_STATE_BYTES = 1 << 20
"""A loop state is a few kB: the snapshots' names and two evaluations."""
STATE_FIELDS = {
    "timesteps": int,
    "next_eval": int,
    "next_checkpoint": int,
    "snapshots": list,
    "last_evaluation": dict,
    "best": dict,
}
"""The loop state's fields and their types, checked when a run is resumed or exported."""


def read_state(run: Path) -> dict[str, Any]:
    """The loop state of a checkpoint, or a ValueError naming the file."""
    path = run / STATE
    try:
        state = bounded_json.loads(path.read_bytes(), str(path), MAX_STATE_BYTES)
    except OSError as error:
        raise ValueError(f"{path}: not a readable loop state ({error.strerror})") from None
    if not isinstance(state, dict) or not isinstance(state.get("timesteps"), int):
        raise ValueError(f"{path}: not a loop state (no timesteps)")
    for key, kind in STATE_FIELDS.items():
        if key in state and (not isinstance(state[key], kind) or isinstance(state[key], bool)):
            raise ValueError(f"{path}: {key} is {summary(repr(state[key]))}")
    return state


def read_normalizer(run: Path) -> dict[str, np.ndarray]:
    """The observation normaliser of a checkpoint, or a ValueError naming the file."""
    path = run / NORMALIZER
    try:
        with np.load(path, allow_pickle=False) as saved:
            arrays = {
                name: np.asarray(saved[name], np.float64) for name in ("mean", "var", "count")
            }
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a readable normaliser ({error})") from None
    if not all(np.all(np.isfinite(a)) for a in arrays.values()) or np.any(arrays["var"] < 0):
        raise ValueError(f"{path}: the normaliser holds NaN, infinite or negative values")
    return arrays


def recover_checkpoint(run: Path) -> None:
    """Put the last whole checkpoint back in place after a kill between the two renames of
    `TrainingLoop.checkpoint` (a half-written new one is dropped)."""
    current, old = run / CHECKPOINT_DIR, run / f"{CHECKPOINT_DIR}.old"
    if old.exists():
        if current.exists():
            shutil.rmtree(old)
        else:
            os.replace(old, current)
    fresh = run / f"{CHECKPOINT_DIR}.new"
    if fresh.exists():
        shutil.rmtree(fresh)


def export_run(run: Path, out: Path, best: bool = False) -> Path:
    """The run's latest checkpoint as a brain folder, with its last evaluation; or, with
    `best`, the brain that scored best in the run's evaluations."""
    recover_checkpoint(run)
    if not (run / CHECKPOINT).exists():
        raise FileNotFoundError(f"{run / CHECKPOINT}: no checkpoint in this run directory")
    state = read_state(run)
    if best:
        kept = state.get("best")
        if not kept:
            raise FileNotFoundError(f"{run / STATE}: no evaluation has been recorded yet")
        if not isinstance(kept.get("evaluation"), dict):  # `best` itself: a dict (read_state)
            raise ValueError(f"{run / STATE}: best is not a recorded evaluation")
        return copy_brain(snapshot_folder(run, kept.get("snapshot")), out, kept["evaluation"])
    evaluation = state.get("last_evaluation")
    if not isinstance(evaluation, dict):
        raise ValueError(f"{run / STATE}: last_evaluation is not a recorded evaluation")
    settings = load_settings(run / SETTINGS_FILE)
    policy_state = checkpoint_policy_state(run / CHECKPOINT)  # no unpickling: weights only
    saved = read_normalizer(run)
    mean, var = saved["mean"], saved["var"]
    return write_brain(
        out, policy_state, mean, var, settings, evaluation, out.name, source=run / CHECKPOINT
    )


def snapshot_folder(run: Path, name: Any) -> Path:
    """The run's snapshot called `name` in its state: a folder name under `snapshots/`,
    never a path that leads out of the run."""
    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name:
        raise ValueError(
            f"{run / STATE}: snapshot {summary(repr(name))} is not the name of a snapshot folder"
        )
    return run / SNAPSHOTS / name
