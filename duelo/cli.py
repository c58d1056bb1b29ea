"""The `duelo` command: list the systems, watch a narrated duel."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.runner import play_duel
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
    args = parser.parse_args(argv)
    try:
        if args.command == "systems":
            print_systems()
        else:
            print_duel(args.system, args.a, args.b, args.seed, args.scenario, args.fighters)
    except ValueError as error:  # bad names and configs: a message, not a traceback
        print(f"duelo: error: {error}", file=sys.stderr)
        return 2
    return 0


def print_systems() -> None:
    for info in SYSTEMS.values():
        ruleset = info.ruleset()
        print(f"{info.id}: {info.game}")
        print(f"  env id:    {info.env_id}")
        print(f"  scenarios: {', '.join(info.scenarios)}")
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
    variants: dict[str, object] = {"scenario": scenario or info.scenarios[0]}
    if fighters:
        variants["fighters"] = tuple(fighters)
    ruleset = info.ruleset(**variants)
    policies = (make_policy(policy_a, name), make_policy(policy_b, name))
    result = play_duel(ruleset, policies, np.random.default_rng(seed))
    for event in ruleset.events(result.state):
        print(event.text)
    outcome = result.outcome
    winner = "draw" if outcome.winner is None else f"side {'AB'[outcome.winner]} wins"
    print(f"Result: {winner} ({outcome.reason}) after {result.decisions} decisions")


if __name__ == "__main__":
    raise SystemExit(main())
