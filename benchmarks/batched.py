"""The batched engine's figures (`duelo bench`, extra `fast`), each against references
timed in the same run:

- decisions per second at N = 1, 64, 1,024 and 16,384 duels stepped together, against
  the scalar env (`gymnasium.make`) and CartPole-v1 in Gymnasium's own batched vector
  env (its vector entry point) at the same N, all with random-legal actions;
- one step of `gymnasium.make(id, engine="fast")` (flat observations: a Box, as
  CartPole's) against CartPole-v1's `gymnasium.make` step, and one step of the vector
  env at N = 1;
- the first call's compile time, and the same start with numba's cache warm;
- MaskablePPO on the batched engine (`duelo train --engine fast`): frames per second and
  the env's share of the wall time;
- tournament duels a second on one core with `--engine fast` against `--engine python`,
  for pairings that decide in the kernels, in brain batches and row by row.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from duelo.envs.systems import SYSTEMS, batched_systems

SIZES = (1, 64, 1024, 16384)
ENV_IDS = tuple(env_id for name in batched_systems() for env_id in SYSTEMS[name].env_ids)
"""Every batched id, at its default scenario."""
COMPILED_ONCE = {env_id for name in batched_systems() for env_id in list(SYSTEMS[name].env_ids)[1:]}
"""Ids whose kernels their system's first id compiles already (a system's named variants)."""
GOAL = 2_000_000
"""Decisions a second on one core at N = 1,024 every batched id should reach."""
LAYER_GOAL = 0.9
"""The share of its kernels' speed the vector env should keep at N >= 1,024."""
START = """
import time
started = time.perf_counter()
import gymnasium as gym, numpy as np, duelo
env = gym.make_vec({env_id!r}, num_envs=4)
_, info = env.reset(seed=0)
env.step(np.argmax(info["action_mask"], axis=1))
print(time.perf_counter() - started)
"""
"""A fresh process's first batched step, imports included (the compile falls here)."""


def vector_decisions_per_second(env: Any, seconds: float, masked: bool) -> float:
    """Decisions a second of `env` (a vector env) with random-legal actions drawn in numpy
    (uniform actions without a mask), after one untimed step (numba's first call)."""
    _, info = env.reset(seed=0)
    noise, shown = _noise(env), {"info": info}

    def step(k: int) -> None:
        weights = noise[k % 16] * shown["info"]["action_mask"] if masked else noise[k % 16]
        shown["info"] = env.step(np.argmax(weights, axis=1))[-1]

    return env.num_envs * _steps_per_second(step, seconds)


def kernel_decisions_per_second(env: Any, seconds: float) -> float:
    """`vector_decisions_per_second` of a batched vector env's kernels alone: its
    `BatchedDuels` advanced with actions drawn as there, no Gymnasium layer around it."""
    env.reset(seed=0)
    engine, noise = env.unwrapped.engine, _noise(env)

    def step(k: int) -> None:
        engine.advance(np.argmax(noise[k % 16] * engine.masks, axis=1))

    return env.num_envs * _steps_per_second(step, seconds)


def _noise(env: Any) -> np.ndarray:
    """Sixteen steps' random weights of every row's actions, drawn once."""
    return np.random.default_rng(0).random((16, env.num_envs, env.single_action_space.n))


def _steps_per_second(step: Callable[[int], None], seconds: float) -> float:
    """`step(k)` for k = 0, 1, ... for `seconds`, after one untimed call."""
    step(0)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        step(steps)
        steps += 1
    return steps / (time.perf_counter() - started)


def layer_share(env_id: str, n: int, seconds: float) -> float:
    """What the vector env keeps of its kernels' decisions a second at `n` rows (goal
    `LAYER_GOAL`): the median of three alternating pairs, both drawing their actions
    in numpy alike."""
    env = gym.make_vec(env_id, num_envs=n)
    pairs = [
        (
            vector_decisions_per_second(env, seconds / 3, True),
            kernel_decisions_per_second(env, seconds / 3),
        )
        for _ in range(3)
    ]
    return statistics.median(layer / kernels for layer, kernels in pairs)


def scalar_decisions_per_second(env_id: str, seconds: float) -> float:
    env = gym.make(env_id)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(legal.size)]))
        if terminated or truncated:
            _, info = env.reset()
        steps += 1
    return steps / (time.perf_counter() - started)


def start_seconds(env_id: str) -> dict[str, float]:
    """A fresh process's first step with numba's cache empty (compile), then warm (cached)."""
    with tempfile.TemporaryDirectory() as cache:
        environ = {**os.environ, "NUMBA_CACHE_DIR": cache}
        code = START.format(env_id=env_id)

        def run() -> float:
            out = subprocess.run(
                [sys.executable, "-c", code],
                env=environ,
                capture_output=True,
                text=True,
                check=True,
            )
            return float(out.stdout.strip().splitlines()[-1])

        return {"cold_s": run(), "cached_s": run()}


def training_share(env_id: str, steps: int) -> dict[str, float] | None:
    """MaskablePPO frames/s on the batched engine, and the share of wall time in the env."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError:
        return None
    from duelo.envs.core.duel_env import DuelEnv
    from duelo.registration import make_env
    from duelo.training.fast_vec_env import FastVecEnv

    torch.set_num_threads(1)
    env_seconds = [0.0]

    class Timed(FastVecEnv):
        """Counts what the learner asks of the env: steps, resets and masks."""

        def reset(self) -> np.ndarray:
            started = time.perf_counter()
            out = super().reset()
            env_seconds[0] += time.perf_counter() - started
            return out

        def step_wait(self) -> Any:
            started = time.perf_counter()
            out = super().step_wait()
            env_seconds[0] += time.perf_counter() - started
            return out

        def env_method(self, method_name: str, *args: Any, **kwargs: Any) -> list[Any]:
            started = time.perf_counter()
            out = super().env_method(method_name, *args, **kwargs)
            env_seconds[0] += time.perf_counter() - started
            return out

    system = gym.spec(env_id).kwargs["system"]
    fixed = gym.spec(env_id).kwargs.get("fixed_options")
    duel = make_env(system, fixed_options=fixed, flat_observation=True)
    assert isinstance(duel, DuelEnv)  # the python engine's: the scalar env itself
    venv = Timed([duel], 8)
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4, seed=0)
    started = time.perf_counter()
    model.learn(steps)
    wall = time.perf_counter() - started
    return {"frames_per_second": model.num_timesteps / wall, "env_share": env_seconds[0] / wall}


def batched_figures(quick: bool = False) -> dict[str, Any] | None:
    """Every figure of the batched engine, or None without the `fast` extra; `quick`
    leaves out the compile times (two fresh processes each) and the large batches."""
    if importlib.util.find_spec("numba") is None:
        return None
    seconds = 0.05 if quick else 0.5
    sizes = SIZES[:2] if quick else SIZES
    figures: dict[str, Any] = {}
    for env_id in ENV_IDS:
        skip = quick or env_id in COMPILED_ONCE
        start = {"cold_s": None, "cached_s": None} if skip else start_seconds(env_id)
        scalar = scalar_decisions_per_second(env_id, seconds)
        by_size = {}
        for n in sizes:
            cartpole = gym.make_vec(
                "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"
            )
            reference = vector_decisions_per_second(cartpole, seconds, masked=False)
            fast = vector_decisions_per_second(gym.make_vec(env_id, num_envs=n), seconds, True)
            by_size[n] = {
                "decisions_per_second": fast,
                "ratio_to_scalar": fast / scalar,
                "cartpole_vector_per_second": reference,
                "ratio_to_cartpole": fast / reference,
                "layer_share": layer_share(env_id, n, seconds),
            }
        flat = gym.make_vec(env_id, num_envs=1, flat_observation=True)  # a Box, as CartPole's
        figures[env_id] = {
            **start,
            "scalar_decisions_per_second": scalar,
            "by_size": by_size,
            **single_step(env_id, seconds),
            "vector_single_step_us": 1e6 / vector_decisions_per_second(flat, seconds, True),
            "training": training_share(env_id, 2048 if quick else 32768),
        }
    return figures


def single_step(env_id: str, seconds: float) -> dict[str, float]:
    """`gymnasium.make(env_id, engine="fast")`'s step with flat observations against
    CartPole-v1's, both with `gymnasium.make`'s wrappers and only the step timed (the
    action is chosen outside); the median of three alternating pairs."""
    cartpole = gym.make("CartPole-v1")
    fast = gym.make(env_id, engine="fast", flat_observation=True)
    pairs = [(_step_us(fast, seconds / 3), _step_us(cartpole, seconds / 3)) for _ in range(3)]
    ratio = statistics.median(ours / theirs for ours, theirs in pairs)
    return {
        "single_step_us": statistics.median(ours for ours, _ in pairs),
        "cartpole_step_us": statistics.median(theirs for _, theirs in pairs),
        "single_step_ratio_to_cartpole": ratio,
    }


def _step_us(env: gym.Env, seconds: float) -> float:
    """Microseconds an `env.step`, the first legal action (any action for CartPole)."""
    _, info = env.reset(seed=0)
    steps, spent, started = 0, 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        action = int(info["action_mask"].argmax()) if "action_mask" in info else steps % 2
        before = time.perf_counter_ns()
        _, _, terminated, truncated, info = env.step(action)
        spent += time.perf_counter_ns() - before
        steps += 1
        if terminated or truncated:
            _, info = env.reset()
    return spent / steps / 1e3


TOURNAMENT_PAIRINGS = (
    ("infierno", "infierno:random", "brain:infierno"),
    ("infierno", "brain:infierno", "infierno:expert"),
    ("infierno", "infierno:expert", "infierno:aggressive"),
    ("esgrima_duel", "esgrima_duel:random", "brain:esgrima_duel"),
    ("esgrima_duel", "esgrima_duel:expert", "esgrima_duel:aggressive"),
    ("liminal", "liminal:random", "brain:liminal"),
    ("liminal", "liminal:expert", "liminal:aggressive"),
    ("dunwich", "dunwich:random", "brain:dunwich"),
    ("dunwich", "dunwich:expert", "dunwich:aggressive"),
    ("vampiro", "vampiro:random", "brain:vampiro"),
    ("vampiro", "vampiro:expert", "vampiro:aggressive"),
)
"""Random decides in the kernels, a brain and Infierno's NPCs in one call a batch, the
experts of the fencing duel, Liminal, Dunwich and Vampiro row by row."""


def tournament_figures(quick: bool = False) -> dict[str, Any] | None:
    """Duels a second of one worker on each engine (the records compared: the same), or
    None without the `fast` extra."""
    if importlib.util.find_spec("numba") is None:
        return None
    from duelo.evaluation.tournament import TournamentSpec, schedule
    from duelo.evaluation.workers import play_jobs

    figures = {}
    for system_name, a, b in TOURNAMENT_PAIRINGS:
        spec = TournamentSpec(  # the batched engine rolls a stream a duel
            system_name, (a, b), duels=256 if quick else 2048, seed=0, dice="stream"
        )
        jobs = list(schedule(spec))
        play_jobs(jobs[:2], "fast")  # numba's cache loaded, the brain read
        rates, records = {}, {}
        for engine, count in (("python", len(jobs) // 8), ("fast", len(jobs))):
            started = time.perf_counter()
            records[engine] = play_jobs(jobs[:count], engine)
            rates[engine] = count / (time.perf_counter() - started)
        if records["fast"][: len(records["python"])] != records["python"]:
            raise RuntimeError(f"{a} vs {b}: the engines' records differ")
        figures[f"{a} vs {b}"] = {
            "python_duels_per_second": rates["python"],
            "fast_duels_per_second": rates["fast"],
            "ratio": rates["fast"] / rates["python"],
        }
    return figures


def render_tournament(figures: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    """Rows of `duelo bench`'s table for `tournament_figures` (none without the extra)."""
    return [
        (
            "tournament",
            f"--engine fast, {pairing}",
            f"{f['fast_duels_per_second']:,.0f} duels/s",
            f"x{f['ratio']:.1f} of --engine python ({f['python_duels_per_second']:,.0f}/s)",
            "",
        )
        for pairing, f in (figures or {}).items()
    ]


def render(figures: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    """Rows of `duelo bench`'s table."""
    if figures is None:
        return [("batched", "engine", "not installed", "pip install 'duelo[fast]'", "")]
    rows = []
    for env_id, f in figures.items():
        name = env_id.removeprefix("duelo/")
        if f["cold_s"] is not None:
            rows.append(
                (
                    name,
                    "first step, new process",
                    f"{f['cold_s']:.2f} s compiling",
                    f"{f['cached_s']:.2f} s from numba's cache",
                    "",
                )
            )
        rows.append(
            (
                name,
                "scalar env",
                f"{f['scalar_decisions_per_second']:,.0f}/s",
                "gymnasium.make, random-legal",
                "",
            )
        )
        for n, s in f["by_size"].items():
            goal = ""
            if int(n) == 1024:
                met = s["decisions_per_second"] >= GOAL
                goal = f"{'met' if met else 'missed'} (>= {GOAL:,}/s)"
            rows.append(
                (
                    name,
                    f"batched N={n}",
                    f"{s['decisions_per_second']:,.0f}/s",
                    f"x{s['ratio_to_scalar']:.1f} of scalar, x{s['ratio_to_cartpole']:.2f} of "
                    f"CartPole vector ({s['cartpole_vector_per_second']:,.0f}/s)",
                    goal,
                )
            )
            if "layer_share" in s:  # a bench JSON from before it was measured has none
                kept = s["layer_share"]
                verdict = ""
                if int(n) >= 1024:
                    verdict = f"{'met' if kept >= LAYER_GOAL else 'missed'} (>= {LAYER_GOAL})"
                rows.append((name, f"vector env N={n}", f"{kept:.2f} of its kernels", "", verdict))
        rows.append(
            (
                name,
                "make(engine='fast') step, flat obs",
                f"{f['single_step_us']:.2f} us",
                f"x{f['single_step_ratio_to_cartpole']:.2f} of CartPole's gymnasium.make step "
                f"({f['cartpole_step_us']:.2f} us)",
                f"{'met' if f['single_step_ratio_to_cartpole'] <= 1 else 'missed'} (<= x1)",
            )
        )
        rows.append(
            (
                name,
                "vector env step, N=1, flat obs",
                f"{f['vector_single_step_us']:.1f} us",
                "actions drawn in numpy included",
                "",
            )
        )
        if f["training"]:
            t = f["training"]
            share = t["env_share"]
            rows.append(
                (
                    name,
                    "MaskablePPO --engine fast",
                    f"{t['frames_per_second']:.0f} frames/s",
                    f"env {share:.0%}",
                    f"{'met' if share < 0.10 else 'missed'} (< 10%)",
                )
            )
    return rows
