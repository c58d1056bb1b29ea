"""The `duelo` command: list the systems, watch a narrated duel, run a tournament."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from duelo.agents.brain import shipped_brains
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.config import ConfigError
from duelo.envs.core.runner import play_duel
from duelo.evaluation.report import build_report, render, write_outputs
from duelo.evaluation.tournament import TournamentSpec, canonical_policies, run_tournament
from duelo.registration import SYSTEMS, system


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="duelo", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "systems", help="list the combat systems, env ids, actions and observations"
    )
    duel = commands.add_parser("duel", help="print one narrated duel, every die shown")
    duel.add_argument("system", choices=sorted(SYSTEMS))
    duel.add_argument("--a", default="random", help="policy of side A (seat 0)")
    duel.add_argument("--b", default="random", help="policy of side B (seat 1)")
    duel.add_argument("--seed", type=int, default=0)
    duel.add_argument("--scenario", help="the system's scenario (default: its first)")
    duel.add_argument("--fighters", nargs=2, metavar=("A", "B"), help="character ids")
    tournament = commands.add_parser(
        "tournament", help="round-robin of policies with Wilson intervals and Elo ratings"
    )
    tournament.add_argument("--system", nargs="+", choices=sorted(SYSTEMS), help="default: all")
    tournament.add_argument(
        "--policies", nargs="+", help="policy names (default: every scripted NPC of the system)"
    )
    tournament.add_argument("--duels", type=int, default=2000, help="per pairing, seats swapped")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    tournament.add_argument("--out", type=Path, default=Path("duelo-tournament"))
    tournament.add_argument("--resume", action="store_true", help="continue an interrupted run")
    tournament.add_argument("--scenario", help="a scenario of the system (default: its first)")
    tournament.add_argument("--move-time-limit", type=float, default=1.0, help="seconds")
    tournament.add_argument("--quiet", action="store_true", help="no progress bar")
    train = commands.add_parser("train", help="train a brain with MaskablePPO (extra: train)")
    train.add_argument("--config", type=Path, required=True, help="configs/training/SYSTEM.yaml")
    train.add_argument("--timesteps", type=int, help="override n_timesteps")
    train.add_argument("--seed", type=int, help="override the seed")
    train.add_argument("--out", type=Path, default=Path("runs/latest"), help="run directory")
    train.add_argument(
        "--resume", action="store_true", help="continue a killed run in --out, with its settings"
    )
    export = commands.add_parser("export", help="turn a training run into a brain folder")
    export.add_argument("run", type=Path, help="the run directory of duelo train")
    export.add_argument("--out", type=Path, required=True, help="e.g. brains/NAME")
    export.add_argument(
        "--best", action="store_true", help="the best-evaluated brain of the run, not the last"
    )
    bench = commands.add_parser("bench", help="speed against references timed in the same run")
    bench.add_argument("--quick", action="store_true", help="tiny measurements (CI smoke run)")
    bench.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    try:
        if args.command == "systems":
            print_systems()
        elif args.command == "duel":
            print_duel(args.system, args.a, args.b, args.seed, args.scenario, args.fighters)
        elif args.command == "tournament":
            run_tournaments(args)
        elif args.command == "train":
            from duelo.training.settings import load_settings
            from duelo.training.train import train as run_training

            settings = load_settings(args.config).with_overrides(
                n_timesteps=args.timesteps, seed=args.seed
            )
            print(f"wrote {run_training(settings, args.out, resume=args.resume)}")
        elif args.command == "export":
            from duelo.training.train import export_run

            print(f"wrote {export_run(args.run, args.out, best=args.best)}")
        else:
            from duelo.benchmarks.suite import render_table, run_benchmarks

            results = run_benchmarks(quick=args.quick)
            print(render_table(results), end="")
            if args.out:
                args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
                print(f"wrote {args.out}")
    except (ValueError, ConfigError, FileExistsError, FileNotFoundError) as error:
        print(f"duelo: error: {error}", file=sys.stderr)
        return 2
    return 0


def print_systems() -> None:
    for info in SYSTEMS.values():
        ruleset = info.ruleset()
        print(f"{info.id}: {info.game}")
        print(f"  env id:    {info.env_id}")
        print(f"  scenarios: {', '.join(info.scenarios) or '-'}")
        print(f"  policies:  {', '.join(policy_names(info.id))}")
        print("  actions:   " + ", ".join(f"{a.value} {a.name}" for a in ruleset.actions))
        print("  observation:")
        for line in ruleset.observation_spec.markdown_table().splitlines():
            print(f"    {line}")
        print()


def print_duel(
    name: str,
    policy_a: str,
    policy_b: str,
    seed: int,
    scenario: str | None,
    fighters: list[str] | None,
) -> None:
    info = system(name)
    variants: dict[str, object] = {}
    if scenario or info.scenarios:
        variants["scenario"] = scenario or info.scenarios[0]
    if fighters:
        variants["fighters"] = tuple(fighters)
    ruleset = info.ruleset(**variants)
    policies = (make_policy(policy_a, name), make_policy(policy_b, name))
    result = play_duel(ruleset, policies, seed)
    for event in result.state.log:
        print(event.text)
    outcome = result.outcome
    winner = "draw" if outcome.winner is None else f"side {'AB'[outcome.winner]} wins"
    print(f"Result: {winner} ({outcome.reason}) after {result.decisions} decisions")


def run_tournaments(args: argparse.Namespace) -> None:
    """One tournament per system, then the combined report files."""
    reports = []
    for name in args.system or list(SYSTEMS):
        info = system(name)
        policies = canonical_policies(
            name, args.policies or [*policy_names(name), *shipped_brains(name)]
        )
        spec = TournamentSpec(
            system=name,
            policies=policies,
            duels=args.duels,
            seed=args.seed,
            variant=(
                {"scenario": args.scenario or info.scenarios[0]}
                if args.scenario or info.scenarios
                else {}
            ),
            move_time_limit=args.move_time_limit,
        )
        progress = None if args.quiet or not sys.stderr.isatty() else progress_bar(name)
        records = run_tournament(spec, args.out / name, args.workers, args.resume, progress)
        report = build_report(records, list(policies), seed=args.seed)
        print(render(report))
        reports.append(report)
    for path in write_outputs(reports, args.out):
        print(f"wrote {path}")


def progress_bar(label: str, width: int = 30) -> Callable[[int, int], None]:
    """A one-line progress bar on stderr."""
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        if done != total and done % 200:
            return
        filled = width * done // max(total, 1)
        elapsed = time.perf_counter() - started
        bar = "#" * filled + "." * (width - filled)
        end = "\n" if done == total else ""
        print(
            f"\r{label} [{bar}] {done}/{total} duels {elapsed:.1f} s",
            end=end,
            file=sys.stderr,
            flush=True,
        )

    return show


if __name__ == "__main__":
    raise SystemExit(main())
