"""`duelo solve` and `duelo exploit`: how far policies stand from the best play.

`solve` walks a duel of perfect information whole (`duelo.evaluation.solver`) and
prints its exact value and, for each policy, its exact score against an optimal
opponent and against the best response to it. `exploit` gives one policy's
exploitability: exact where the solver applies, else a lower bound from a best
response trained by MaskablePPO (`duelo.training.probe`, extra `train`). A duel that hides
information is solved under its system's own models instead (`System.solved`, e.g.
the card duel's `duelo.envs.esgrima.card_models`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import numpy as np

from duelo.agents.registry import make_policy
from duelo.envs.core.system import load_part
from duelo.envs.systems import system
from duelo.evaluation.best_response import hidden_scores
from duelo.evaluation.exploit import exact_scores
from duelo.evaluation.optimal import OptimalPolicy
from duelo.evaluation.solver import (
    NotSolvableError,
    enumerate_duel,
    score_of_a,
    solve,
)

Z99 = 2.5758293035489004
"""The normal quantile of a two-sided 99 % interval."""


def print_solve(
    name: str,
    variant: dict[str, Any],
    policies: list[str],
    max_states: int,
    max_seconds: float,
    check: int,
    out: TextIO,
) -> None:
    entry = system(name)
    ruleset = entry.ruleset(**variant)
    if entry.solved:
        played = {policy: make_policy(policy, name, variant) for policy in policies}
        load_part(entry.solved).print_solve(name, ruleset, variant, played, check, out)
        return
    graph = enumerate_duel(ruleset, max_states, max_seconds)
    optimal = solve(graph)
    value = optimal.value
    where = ", ".join(f"{k} {v}" for k, v in variant.items()) or "default"
    print(
        f"{name} ({where}): {graph.size:,} states, {len(graph.row_action):,} decisions, "
        f"{len(graph.edge_target):,} outcomes; walked in {graph.seconds:.1f} s, "
        f"solved in {optimal.seconds:.2f} s",
        file=out,
    )
    print(f"optimal play: side A scores {value:.6f}, side B {1 - value:.6f}", file=out)
    if check:
        scores = np.array([score_of_a(optimal.play(seed)) for seed in range(check)])
        half = Z99 * scores.std(ddof=1) / np.sqrt(check)
        inside = abs(scores.mean() - value) <= half + 1e-9  # all alike: no spread at all
        print(
            f"Monte Carlo of optimal play, {check:,} duels: side A {scores.mean():.6f} "
            f"± {half:.6f} (99 %): the exact value is {'inside' if inside else 'OUTSIDE'}",
            file=out,
        )
    table = OptimalPolicy(optimal)
    print(
        f"{name}:optimal reads {len(table.moves):,} observations; {table.clashes:,} of the "
        "states behind them call for another move than the one it keeps",
        file=out,
    )
    if not policies:
        return
    width = max(len(p) for p in [*policies, "policy"])
    print(
        f"{'policy':<{width}}  vs optimal  worst as A  worst as B  exploitability",
        file=out,
    )
    for policy_name in policies:
        scores_ = exact_scores(graph, policy_name, make_policy(policy_name, name, variant))
        print(
            f"{policy_name:<{width}}  {scores_.against_optimal:>10.4f}  {scores_.worst_a:>10.4f}  "
            f"{scores_.worst_b:>10.4f}  {scores_.exploitability:>14.4f}",
            file=out,
        )


def print_exploit(
    policy: str,
    name: str,
    variant: dict[str, Any],
    steps: int,
    duels: int,
    folder: Path,
    max_states: int,
    max_seconds: float,
    out: TextIO,
    train: bool = False,
) -> None:
    """The exact figure where the walk ends, else a trained best response's bound;
    `train` trains without walking (where the walk is known not to end, or to check
    the training against an exact figure)."""
    played = make_policy(policy, name, variant)  # an unknown name fails before any work
    if train:
        _print_trained(policy, name, variant, steps, duels, folder, out)
        return
    entry = system(name)
    ruleset = entry.ruleset(**variant)
    if entry.solved and load_part(entry.solved).print_exploit(policy, played, ruleset, duels, out):
        return
    hidden = not ruleset.perfect_information and getattr(ruleset, "hides", None) is not None
    try:
        graph = enumerate_duel(ruleset, max_states, max_seconds, hidden_information=hidden)
    except NotSolvableError as why:
        print(f"no exact answer: {why}", file=out)
        _print_trained(policy, name, variant, steps, duels, folder, out)
        return
    if hidden:  # no optimal play to face here: only the best response, seat by seat
        seen = hidden_scores(graph, policy, played)
        print(
            f"exact, over {graph.size:,} states, against a best response that knows what its "
            f"seat observes: {policy} scores {seen.worst_a:.6f} as side A and "
            f"{seen.worst_b:.6f} as side B; exploitability {seen.exploitability:.6f}",
            file=out,
        )
        return
    scores = exact_scores(graph, policy, played)
    print(
        f"exact, over {graph.size:,} states: {policy} scores {scores.worst_a:.6f} as side A and "
        f"{scores.worst_b:.6f} as side B against its best response; exploitability "
        f"{scores.exploitability:.6f}",
        file=out,
    )


def _print_trained(
    policy: str,
    name: str,
    variant: dict[str, Any],
    steps: int,
    duels: int,
    folder: Path,
    out: TextIO,
) -> None:
    print(f"training a best response to {policy} for {steps:,} steps in {folder}", file=out)
    from duelo.training.probe import probe  # stable-baselines3: the train extra

    found = probe(policy, name, variant, folder, steps, duels)
    print(
        f"the best response scores {found.score:.4f} [{found.low:.4f}, {found.high:.4f}] "
        f"over {found.duels:,} seat-swapped duels: {policy}'s exploitability is at least "
        f"{found.exploitability_at_least:.4f} (brain: {found.brain})",
        file=out,
    )
