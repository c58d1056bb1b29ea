"""duelo's speed against references measured in the same run (`duelo bench`).

Each figure is a median over repeats, next to the reference it should be read
against, timed on the same machine at the same moment:

- env step through `gymnasium.make` with a random opponent, per env id, against
  CartPole-v1 through `gymnasium.make`, with the default Dict observation and
  with the flat one training uses; one decision through the ruleset alone;
- tournament throughput: scripted-vs-scripted duels per second in one worker;
- brain inference: one numpy-brain decision against the torch policy's `predict`;
- training: MaskablePPO frames per second on each env against PPO on
  CartPole-v1 with the same settings, and the share of wall time spent in env steps;
- the batched engine (`batched.py`, extra `fast`) against the scalar env and CartPole-v1's
  own vector env at the same N, and its tournaments against the Python engine's.

A ratio is the median of ratios of measurements taken in alternation (reference,
subject, reference, subject...), not of two medians taken minutes apart: on a
shared machine a process's speed can change by half between runs, and
alternation keeps both sides of each ratio in the same moment.

Torch parts run only when the `train` extra is installed. No test asserts a
timing: these are measurements to report against `TARGETS`, not pass/fail checks.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

import gymnasium as gym
import numpy as np

import duelo  # noqa: F401  (registers the env ids)
from duelo.agents.brain import load_brain, shipped_brains
from duelo.agents.registry import make_policy
from duelo.benchmarks.batched import batched_figures, render_tournament, tournament_figures
from duelo.benchmarks.batched import render as render_batched
from duelo.benchmarks.serve import render as render_serve
from duelo.benchmarks.serve import serve_latency
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.spaces import flat_space
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.duels import run_job
from duelo.evaluation.tournament import TournamentSpec, schedule

REFERENCE_ENV = "CartPole-v1"
TARGETS: dict[str, tuple[str, float]] = {
    "step_ratio_to_reference": ("<=", 1.0),
    "tournament_duels_per_second": (">=", 5000.0),
    "numpy_us": ("<", 20.0),
    "env_share": ("<", 0.25),
}
"""What each figure should reach: a step no dearer than CartPole's, 5,000 scripted
duels a second a worker (judged on Infierno's formal duel), a brain decision under
20 us, and the env under a quarter of MaskablePPO's training time."""
TOURNAMENT_TARGET_SYSTEM = "infierno"


def meets(figure: str, value: float) -> bool:
    """Whether `value` reaches the target of `figure` (see `TARGETS`)."""
    relation, bound = TARGETS[figure]
    return {"<=": value <= bound, ">=": value >= bound, "<": value < bound}[relation]


def seconds_per_call(run: Callable[[int], object], calls: int) -> float:
    started = time.perf_counter()
    run(calls)
    return (time.perf_counter() - started) / calls


def median_per_call(run: Callable[[int], object], calls: int, repeats: int) -> float:
    """Median over `repeats` of the mean seconds per call of `run(calls)`."""
    return statistics.median(seconds_per_call(run, calls) for _ in range(repeats))


def paired_per_call(
    reference: Callable[[int], None], subject: Callable[[int], None], calls: int, repeats: int
) -> tuple[float, float, float]:
    """Seconds per call of `reference` and of `subject` timed in alternation (medians),
    and the median of the ratios subject / reference of each alternation."""
    pairs = [
        (seconds_per_call(reference, calls), seconds_per_call(subject, calls))
        for _ in range(repeats)
    ]
    return (
        statistics.median(r for r, _ in pairs),
        statistics.median(s for _, s in pairs),
        statistics.median(s / r for r, s in pairs),
    )


def env_stepper(env_id: str, warmup: int, **kwargs: Any) -> Callable[[int], None]:
    """`run(n)`: n steps of a warmed-up env with legal actions (sampled through the mask
    if any), resetting at each episode's end."""
    env = gym.make(env_id, **kwargs)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    masked = "action_mask" in info
    state = {"info": info}

    def run(n: int) -> None:
        info = state["info"]
        for _ in range(n):
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            else:
                action = int(rng.integers(2))
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                _, info = env.reset()
        state["info"] = info

    run(warmup)
    return run


def ruleset_decision_seconds(system: str, calls: int, repeats: int) -> float:
    """Median cost of one decision (mask, observation, random choice, apply) without Gymnasium."""
    ruleset = SYSTEMS[system].ruleset()
    rng = np.random.default_rng(0)
    dice = GeneratorDice(1)
    policy = make_policy("random", system)
    state = {"duel": ruleset.new_duel(dice)}

    def run(n: int) -> None:
        duel = state["duel"]
        for _ in range(n):
            seat = ruleset.to_act(duel)
            if seat is None:
                duel = ruleset.new_duel(dice)
                seat = ruleset.to_act(duel)
            mask = ruleset.legal_actions(duel, seat)
            observation = ruleset.observation_spec.view(ruleset.observe(duel, seat))
            ruleset.apply(duel, seat, policy.act(observation, mask, rng), dice)
        state["duel"] = duel

    return median_per_call(run, calls, repeats)


def tournament_duels_per_second(system: str, duels: int, repeats: int) -> float:
    """Scripted-vs-scripted duels (expert vs aggressive) per second in one worker."""
    spec = TournamentSpec(
        system=system,
        policies=(f"{system}:expert", f"{system}:aggressive"),
        duels=duels,
        move_time_limit=None,
    )
    jobs = list(schedule(spec))
    run_job(jobs[0])  # build the cached ruleset first

    def run(n: int) -> None:
        for job in jobs[:n]:
            run_job(job)

    return 1.0 / median_per_call(run, len(jobs), repeats)


def brain_decision_seconds(system: str, calls: int, repeats: int) -> dict[str, float] | None:
    """One decision of the system's shipped numpy brain, and of the same-shaped torch
    policy's masked `predict` when torch is installed; None without a shipped brain."""
    names = shipped_brains(system)
    if not names:
        return None
    brain = load_brain(names[0].removeprefix("brain:"), system)
    env = gym.make(SYSTEMS[system].env_id)
    observation, info = env.reset(seed=0)
    mask = info["action_mask"]
    rng = np.random.default_rng(0)
    result = {
        "numpy_us": 1e6
        * median_per_call(
            lambda n: [brain.act(observation, mask, rng) for _ in range(n)], calls, repeats
        )
    }
    try:
        import torch
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        return result
    torch.set_num_threads(1)
    policy = MaskableActorCriticPolicy(
        flat_space(brain.spec),
        gym.spaces.Discrete(len(mask)),
        lambda _: 3e-4,
        net_arch=[weight.shape[0] for weight, _ in brain.layers],
    )
    flat = brain.spec.flatten(observation)[None, :]
    result["torch_us"] = 1e6 * median_per_call(
        lambda n: [
            policy.predict(flat, action_masks=mask[None], deterministic=True) for _ in range(n)
        ],
        max(calls // 10, 10),
        repeats,
    )
    return result


def training_frames_per_second(env_id: str, steps: int) -> dict[str, float] | None:
    """MaskablePPO (PPO for CartPole) frames/s with the shipped config's shape, and the
    share of wall time spent in the env."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3 import PPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError:
        return None
    torch.set_num_threads(1)
    env_seconds = [0.0]

    class Timed(gym.Wrapper):
        """Counts the time of everything the learner asks of the env: steps, the resets
        the vec env makes at each episode's end, and the masks MaskablePPO reads."""

        def step(self, action: Any) -> Any:
            started = time.perf_counter()
            out = self.env.step(action)
            env_seconds[0] += time.perf_counter() - started
            return out

        def reset(self, **kwargs: Any) -> Any:
            started = time.perf_counter()
            out = self.env.reset(**kwargs)
            env_seconds[0] += time.perf_counter() - started
            return out

        def action_masks(self) -> np.ndarray:
            started = time.perf_counter()
            duel = self.env.unwrapped
            assert isinstance(duel, DuelEnv)  # a duelo id, made by gym.make
            mask = duel.action_masks()
            env_seconds[0] += time.perf_counter() - started
            return mask

    kwargs = {} if env_id == REFERENCE_ENV else {"flat_observation": True}
    venv = DummyVecEnv([lambda: Timed(gym.make(env_id, **kwargs)) for _ in range(8)])
    algo = PPO if env_id == REFERENCE_ENV else MaskablePPO
    model = algo("MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4, seed=0, device="cpu")
    started = time.perf_counter()
    model.learn(steps)
    wall = time.perf_counter() - started
    return {"frames_per_second": model.num_timesteps / wall, "env_share": env_seconds[0] / wall}


def machine() -> dict[str, str]:
    versions = {}
    for package in ("numpy", "gymnasium", "stable-baselines3", "sb3-contrib", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        **versions,
    }


def party_figures(
    reference: Callable[[int], None], calls: int, repeats: int
) -> dict[str, dict[str, dict[str, float]]]:
    """How a step's cost grows with the party: for each system that fights several a
    side, a learner's step (the other fighters played by `random` inside it) in each of
    its scenarios, against CartPole-v1's step measured beside it."""
    parties: dict[str, dict[str, dict[str, float]]] = {}
    for name, info in SYSTEMS.items():
        if len(info.ruleset().sides) <= 2:
            continue
        parties[name] = {}
        for scenario in info.scenarios:
            stepper = env_stepper(info.env_id, calls // 10, scenario=scenario)
            _, step, ratio = paired_per_call(reference, stepper, calls, repeats)
            fighters = len(info.ruleset(scenario=scenario).sides)
            parties[name][scenario] = {
                "fighters": fighters,
                "step_us": step * 1e6,
                "step_ratio_to_reference": ratio,
            }
    return parties


def run_benchmarks(quick: bool = False) -> dict[str, Any]:
    """Every figure, as a JSON-ready dict; `quick` shrinks each measurement."""
    calls, repeats = (200, 3) if quick else (2000, 15)
    train_steps = 2048 if quick else 32768
    results: dict[str, Any] = {"machine": machine(), "quick": quick, "targets": TARGETS}
    reference = env_stepper(REFERENCE_ENV, calls // 10)
    reference_steps: list[float] = []
    reference_training: list[dict[str, float]] = []
    results["systems"] = {}
    for name, info in SYSTEMS.items():
        reference_step, step, ratio = paired_per_call(
            reference, env_stepper(info.env_id, calls // 10), calls, repeats
        )
        reference_steps.append(reference_step)
        _, flat_step, flat_ratio = paired_per_call(
            reference, env_stepper(info.env_id, calls // 10, flat_observation=True), calls, repeats
        )
        figures: dict[str, Any] = {
            "env_id": info.env_id,
            "step_us": step * 1e6,
            "step_ratio_to_reference": ratio,
            "flat_step_us": flat_step * 1e6,
            "flat_step_ratio_to_reference": flat_ratio,
            "ruleset_decision_us": ruleset_decision_seconds(name, calls, repeats) * 1e6,
            "tournament_duels_per_second": tournament_duels_per_second(
                name, 20 if quick else 1000, repeats if quick else 5
            ),
            "brain": brain_decision_seconds(name, calls, repeats),
        }
        ppo = training_frames_per_second(REFERENCE_ENV, train_steps)  # right before: paired
        training = training_frames_per_second(info.env_id, train_steps)
        if ppo and training:
            reference_training.append(ppo)
            training["ratio_to_reference"] = (
                training["frames_per_second"] / ppo["frames_per_second"]
            )
        figures["training"] = training
        results["systems"][name] = figures
    results["parties"] = party_figures(reference, calls, repeats)
    results["serve"] = serve_latency(200 if quick else 2000)
    results["batched"] = batched_figures(quick)
    results["batched_tournament"] = tournament_figures(quick)
    results["reference"] = {
        "env_id": REFERENCE_ENV,
        "step_us": statistics.median(reference_steps) * 1e6,
        "training": {
            key: statistics.median(run[key] for run in reference_training)
            for key in ("frames_per_second", "env_share")
        }
        if reference_training
        else None,
    }
    return results


def render_table(results: dict[str, Any]) -> str:
    """The figures as an aligned text table, each against its reference and target."""
    reference = results["reference"]
    rows = [
        ("system", "figure", "value", "against", "target"),
        ("reference", f"{REFERENCE_ENV} step", f"{reference['step_us']:.1f} us", "", ""),
    ]
    if reference["training"]:
        training = reference["training"]
        rows.append(
            (
                "reference",
                "PPO frames/s",
                f"{training['frames_per_second']:.0f}",
                f"env {training['env_share']:.0%}",
                "",
            )
        )
    for name, f in results["systems"].items():
        rows.append(
            (
                name,
                "env step",
                f"{f['step_us']:.1f} us",
                f"x{f['step_ratio_to_reference']:.2f} of {REFERENCE_ENV}",
                _target("step_ratio_to_reference", f["step_ratio_to_reference"], "x{:g}"),
            )
        )
        rows.append(
            (
                name,
                "env step, flat obs",
                f"{f['flat_step_us']:.1f} us",
                f"x{f['flat_step_ratio_to_reference']:.2f} of {REFERENCE_ENV}",
                "",
            )
        )
        rows.append((name, "ruleset decision", f"{f['ruleset_decision_us']:.1f} us", "", ""))
        duels = f["tournament_duels_per_second"]
        rows.append(
            (
                name,
                "tournament",
                f"{duels:.0f} duels/s",
                "one worker",
                _target("tournament_duels_per_second", duels, "{:g}/s")
                if name == TOURNAMENT_TARGET_SYSTEM
                else "",
            )
        )
        if f["brain"]:
            torch_us = f["brain"].get("torch_us")
            rows.append(
                (
                    name,
                    "numpy brain",
                    f"{f['brain']['numpy_us']:.1f} us",
                    "" if torch_us is None else f"torch predict {torch_us:.0f} us",
                    _target("numpy_us", f["brain"]["numpy_us"], "{:g} us"),
                )
            )
        if f["training"]:
            training = f["training"]
            ratio = training.get("ratio_to_reference")
            rows.append(
                (
                    name,
                    "MaskablePPO frames/s",
                    f"{training['frames_per_second']:.0f}",
                    ("" if ratio is None else f"x{ratio:.2f} of PPO, ")
                    + f"env {training['env_share']:.0%}",
                    _target("env_share", training["env_share"], "env {:.0%}"),
                )
            )
    rows += render_serve(results.get("serve"))
    rows += render_batched(results.get("batched"))
    rows += render_tournament(results.get("batched_tournament"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return (
        "\n".join(
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
        )
        + "\n"
    )


def _target(figure: str, value: float, style: str) -> str:
    """ "met" or "missed", and the target, e.g. "missed (<= x1)"."""
    relation, bound = TARGETS[figure]
    return f"{'met' if meets(figure, value) else 'missed'} ({relation} {style.format(bound)})"
