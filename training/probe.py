"""A lower bound on a policy's exploitability where the exact solver does not reach: a
best response trained by MaskablePPO against the fixed policy for a budget of steps,
and its score with a Wilson interval (`duelo exploit`; the exact figures are
`duelo.evaluation.exploit`'s)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duelo.envs.core.config import packaged_config
from duelo.evaluation.report import score_of_a
from duelo.evaluation.stats import wilson_interval
from duelo.evaluation.tournament import TournamentSpec, run_tournament
from duelo.training.settings import load_settings
from duelo.training.train import CHECKPOINT, export_run, train


@dataclass(frozen=True)
class ProbeResult:
    """A trained best response's score against a fixed policy."""

    policy: str
    steps: int
    duels: int
    score: float
    low: float
    high: float
    brain: Path

    @property
    def exploitability_at_least(self) -> float:
        """The Wilson lower bound's excess over an even split (0 when it shows none)."""
        return max(0.0, self.low - 0.5)


def probe(
    policy: str,
    system_name: str,
    variant: dict[str, Any],
    out: Path,
    steps: int = 500_000,
    duels: int = 2000,
    seed: int = 0,
) -> ProbeResult:
    """Train a best response to `policy` (the system's training config, against `policy`
    alone, no self-play, no teacher) for `steps`, then play it `duels` seat-swapped
    duels. Run again on the same `out`, an interrupted probe picks up its training and
    its duels.

    No teacher: a config's teacher is often the very policy probed (the expert), and a
    learner that starts as its copy scores 0.5 against it and, its moves near
    deterministic, explores too little for PPO to leave it (a probe of
    `liminal:expert` so warm-started stayed at 0.500 over 500,000 steps in the
    standoff, where the exact exploitability on v1 was 0.090)."""
    base = load_settings(packaged_config(f"training/{system_name}.yaml"))
    settings = base.with_overrides(
        opponents=(policy,),
        opponent_weights=(),
        self_play=False,
        scenarios=(),
        env_kwargs={**base.env_kwargs, **variant},
        n_timesteps=steps,
        eval_every=steps,
        checkpoint_every=max(steps // 10, 1),
        seed=seed,
        teacher="",
        teacher_decisions=0,
    )
    run = out / "run"
    train(settings, run, resume=(run / CHECKPOINT).exists())  # an interrupted probe resumes
    brain = export_run(run, out / "brain")
    spec = TournamentSpec(
        system_name, (f"brain:{brain}", policy), duels=duels, seed=seed, variant=variant
    )
    records = run_tournament(spec, out / "tournament", resume=(out / "tournament").exists())
    won = sum(score_of_a(r) if r["a"] == spec.policies[0] else 1 - score_of_a(r) for r in records)
    low, high = wilson_interval(won, len(records))
    return ProbeResult(policy, steps, len(records), won / len(records), low, high, brain)
