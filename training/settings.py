"""One documented settings dataclass per training run, loaded from YAML.

The YAML file is laid out as rl-zoo3 lays out its own (a top-level env id whose
mapping holds the settings), but its keys are duelo's: rl-zoo3 itself reads
`configs/rl_zoo3/ppo.yml`. Unknown keys are errors; the settings are saved with every run.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from duelo.agents.brain import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, network_parameters
from duelo.agents.registry import check_policy
from duelo.envs.core.config import ConfigError, build, read_yaml_mapping, shown
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.tournament import MAX_DUELS, default_suite

SETTINGS_FILE = "settings.yaml"
LEARNER = "learner"
"""`allies`: the network in training plays the learner's allies."""
INTEGER_BOUNDS = {
    "n_timesteps": (1, 10**9),
    "seed": (0, 2**32 - 1),  # numpy's legacy global seed, which SB3 sets
    "n_envs": (1, 256),
    "n_steps": (1, 1 << 16),
    "batch_size": (2, 1 << 16),  # one sample's normalised advantage is NaN
    "n_epochs": (1, 100),
    "eval_every": (1, 10**9),
    "eval_duels": (2, MAX_DUELS),
    "checkpoint_every": (1, 10**9),
    "torch_threads": (1, 256),
    "max_snapshots": (0, 64),
    "teacher_decisions": (0, 10**8),
}
"""What each integer setting may be: bounds a run can finish within (10^9 steps is some
days at the engine's speed; an update of 100 epochs is far past what PPO uses)."""


@dataclass(frozen=True)
class TrainSettings:
    env_id: str
    """A duelo env id, e.g. "duelo/Infierno-v2"."""
    algo: Literal["maskable_ppo", "ppo"] = "maskable_ppo"
    """sb3-contrib's MaskablePPO (masks), or plain PPO with illegal actions as penalised no-ops."""
    n_timesteps: int = 300_000
    """Learner decisions to train for."""
    seed: int = 0
    """Seeds torch, numpy, the envs and the opponent sampling."""
    n_envs: int = 8
    """Envs stepped together in one process (DummyVecEnv)."""
    n_steps: int = 256
    """Steps per env between updates."""
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    net_arch: tuple[int, ...] = (64, 64)
    """Hidden layer widths of the policy (and value) network."""
    activation: Literal["tanh", "relu"] = "tanh"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """The system's variants (scenario, fighters, options...), passed to gymnasium.make
    and to the evaluation tournaments alike; checked when the settings are read."""
    scenarios: tuple[str, ...] = ()
    """Scenarios to train across: env i plays `scenarios[i % len]`, and every evaluation
    plays each of them (a brain is judged in every scenario its system ships). Empty:
    the one scenario of `env_kwargs`, or the system's default."""
    suite: bool = False
    """Train across the system's tournament suite (`System.suite`, `env_kwargs` laid over
    each setup, as `duelo tournament` plays it) instead of `scenarios`: env i plays setup
    i % n, and every evaluation plays each of them. For a system whose suite varies more
    than the scenario (the fencing duel's symmetric and faithful variants)."""
    opponents: tuple[str, ...] = ("random",)
    """Scripted policies sampled as the opponent at each reset (in a fight of several a
    side, it plays every enemy)."""
    allies: str = LEARNER
    """Who plays the learner's allies in a fight of several a side: "learner", the network
    in training itself (parameter sharing: one network plays every fighter of its side,
    and each episode it learns from the decisions of one fighter, drawn at reset), or a
    policy name. A duel has no allies."""
    opponent_weights: tuple[float, ...] = ()
    """Sampling weights of `opponents` (default: equal)."""
    self_play: bool = True
    """Add frozen snapshots of the learner to the pool when they pass the gate."""
    promote_score: float = 0.55
    """Gate: mean score against the scripted opponents a snapshot must reach."""
    snapshot_share: float = 0.2
    """Chance that an episode's opponent is a snapshot, once there are any."""
    max_snapshots: int = 4
    """Snapshots kept in the pool (the oldest leaves first)."""
    teacher: str = ""
    """A policy the learner imitates before it learns by reward (DAgger, `training/imitate.py`),
    e.g. "esgrima_duel:optimal", made for each env's scenario; empty: none."""
    teacher_decisions: int = 0
    """Decisions the teacher labels for the imitation (with `teacher`)."""
    eval_every: int = 50_000
    """Learner steps between evaluations against every scripted opponent."""
    eval_duels: int = 200
    """Seat-swapped duels per scripted opponent in each evaluation."""
    checkpoint_every: int = 50_000
    """Learner steps between checkpoints (written atomically)."""
    torch_threads: int = 1
    """torch.set_num_threads: one thread is fastest for these small networks."""

    def __post_init__(self) -> None:
        if self.env_id not in {info.env_id for info in SYSTEMS.values()}:
            raise ValueError(f"env_id {self.env_id!r} is not a duelo env id")
        if self.opponent_weights and len(self.opponent_weights) != len(self.opponents):
            raise ValueError("opponent_weights needs one weight per opponent")
        for name, (low, high) in INTEGER_BOUNDS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} {shown(value)} must lie in {low}..{high:,}")
        if self.eval_duels % 2:
            raise ValueError("eval_duels must be even (seats are swapped)")
        rollout = self.n_steps * self.n_envs
        if rollout < 2 or rollout % self.batch_size == 1:  # one sample: its advantage is NaN
            raise ValueError(
                f"n_steps x n_envs = {rollout} would leave a minibatch of one sample, whose "
                "normalised advantage is NaN: choose a batch_size that divides it"
            )
        SYSTEMS[self.system].check_variant(self.env_kwargs, "env_kwargs")
        if self.suite and self.scenarios:
            raise ValueError("train across scenarios or across the suite (suite: true), not both")
        if self.suite and len(self.variants) < 2:
            raise ValueError(f"{self.system}'s suite has one setup here: drop suite: true")
        if self.scenarios:
            if "scenario" in self.env_kwargs:
                raise ValueError("name the scenario in env_kwargs or in scenarios, not both")
            if len(set(self.scenarios)) != len(self.scenarios):
                raise ValueError(f"scenarios {list(self.scenarios)} repeats a scenario")
            for scenario in self.scenarios:
                SYSTEMS[self.system].check_variant(self.variant(scenario), "scenarios")
        bounds = {  # name: (lowest, highest, whether the lowest itself is allowed)
            "learning_rate": (0.0, 1.0, False),
            "gamma": (0.0, 1.0, False),
            "gae_lambda": (0.0, 1.0, False),
            "clip_range": (0.0, 10.0, False),
            "ent_coef": (0.0, 10.0, True),
            "promote_score": (0.0, 1.0, True),
            "snapshot_share": (0.0, 1.0, True),
        }
        for name, (floor, ceiling, floor_allowed) in bounds.items():
            value = getattr(self, name)
            above = value >= floor if floor_allowed else value > floor
            if not (math.isfinite(value) and above and value <= ceiling):
                bracket = "[" if floor_allowed else "("
                raise ValueError(f"{name} {value} must lie in {bracket}{floor}, {ceiling}]")
        if not 1 <= len(self.net_arch) <= MAX_LAYERS or not all(
            1 <= w <= MAX_WIDTH for w in self.net_arch
        ):
            raise ValueError(
                f"net_arch {shown(list(self.net_arch))}: 1 to {MAX_LAYERS} widths in 1..{MAX_WIDTH}"
            )
        ruleset = SYSTEMS[self.system].ruleset
        widths = [ruleset.observation_spec.size, *self.net_arch, len(ruleset.actions)]
        if network_parameters(widths) > MAX_PARAMETERS:
            raise ValueError(
                f"net_arch {list(self.net_arch)}: {network_parameters(widths):,} parameters, "
                f"more than the {MAX_PARAMETERS:,} a brain may have"
            )
        if any(not math.isfinite(w) or w < 0 for w in self.opponent_weights) or (
            self.opponent_weights and sum(self.opponent_weights) <= 0
        ):
            raise ValueError("opponent_weights must be finite, non-negative, and not all 0")
        if not self.opponents:
            raise ValueError("opponents must name at least one policy")
        for name in self.opponents:
            check_policy(name, self.system)  # an unknown name fails here, not mid-run
        if self.allies != LEARNER:
            check_policy(self.allies, self.system)
        if bool(self.teacher) != (self.teacher_decisions > 0):
            raise ValueError("teacher and teacher_decisions come together, or neither")
        if self.teacher:
            check_policy(self.teacher, self.system, self.variants[0])

    @property
    def system(self) -> str:
        return next(name for name, info in SYSTEMS.items() if info.env_id == self.env_id)

    @property
    def variants(self) -> tuple[dict[str, Any], ...]:
        """The variants trained and evaluated in: the suite's setups, one per scenario, or
        `env_kwargs` alone."""
        if self.suite:
            return default_suite(self.system, self.env_kwargs) or (self.env_kwargs,)
        return tuple(self.variant(s) for s in self.scenarios) or (self.env_kwargs,)

    def variant(self, scenario: str) -> dict[str, Any]:
        return {**self.env_kwargs, "scenario": scenario}

    def with_overrides(self, **overrides: Any) -> TrainSettings:
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def to_yaml(self) -> str:
        values = asdict(self)
        env_id = values.pop("env_id")
        values = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
        return yaml.safe_dump({env_id: values}, sort_keys=False)


def load_settings(path: str | Path) -> TrainSettings:
    """Settings from a YAML file holding one env id and its settings."""
    data = read_yaml_mapping(path)
    if len(data) != 1:
        raise ConfigError(f"{path}: expected one env id at the top level, found {list(data)}")
    ((env_id, values),) = data.items()
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: {env_id}: expected a mapping of hyperparameters")
    return build(TrainSettings, {"env_id": env_id, **values}, f"{path}: {env_id}")
