"""Measure the figures the docs show, and keep them as data the site renders.

`python docs/measure.py brains [--duels N]` plays each shipped brain against its
system's expert in every setup (each scenario; the card duel's two variants) as `duelo
tournament --system S --scenario SC --policies brain:B expert --duels 2000` does (seed
0), and writes the scores to `docs/measured/brains.json` (about ten minutes on two
cores; `--system S ...` measures those systems' brains again and keeps the other rows).
`python docs/measure.py splits` plays two experts in every setup of every system and
writes side A's score to `docs/measured/splits.json` (a few minutes of one core;
`--system S ...` measures those systems again and keeps the other rows).
`python docs/measure.py dice [--games N] [--system S ...]` plays the expert against the
aggressive NPC over each system's suite with each kind of dice (`--dice stream` and
`--dice keyed`, the same seeds) and writes each pairing's interval width by game
(`stats.game_interval`) to `docs/measured/dice.json`: the variance common random
numbers remove (about ten minutes on two cores at the default 500 games).
`python docs/measure.py exact [--system S ...]` walks every scenario of the
systems of perfect information as `duelo solve S --scenario SC --check 20000` does,
within 500,000 states or 450 s, and writes each one's exact value and each policy's
score against optimal play and exploitability to `docs/measured/exact.json`, or what
the walk reached before its limit (about two hours of one core: run one process per
system in parallel; each row lands in the file as it is done). `docs/hooks.py` renders
them where a page says `<!-- measured: brains -->`, `<!-- measured: splits -->`,
`<!-- measured: dice -->`, `<!-- measured: exact -->` or
`<!-- measured: exact_unsolved -->`. The figures are never typed by hand: after a
rules change or a retrained brain, run this again and commit the file.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import json
import os
import shlex
import tempfile
import time
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from duelo.agents.brain import shipped_brains
from duelo.agents.registry import make_policy, policy_names
from duelo.cli import build_parser, duel_variant
from duelo.envs.core.runner import line_up, play_duel
from duelo.envs.core.system import load_part
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.exploit import exact_scores
from duelo.evaluation.report import Tally, build_report
from duelo.evaluation.report import score_of_a as score_of_record
from duelo.evaluation.solver import TooLargeError, enumerate_duel, score_of_a, solve
from duelo.evaluation.tournament import (
    TournamentSpec,
    canonical_policies,
    default_suite,
    run_tournament,
)
from duelo.yardstick import Z99, print_solve

MEASURED = Path(__file__).parent / "measured"
EXACT_STATES, EXACT_SECONDS, EXACT_CHECK = 500_000, 450.0, 20_000
"""The exact table's bounds: a walk past them is reported as not solved here."""


def setups(system: str) -> list[tuple[str, dict[str, Any]]]:
    """Each setup a brain of `system` is judged in: its label and its variant."""
    entry = SYSTEMS[system]
    if entry.scenarios:
        return [(scenario, {"scenario": scenario}) for scenario in entry.scenarios]
    # no scenarios: its suite's setups, each labelled by the option values it sets
    return [("-".join(map(str, setup["options"].values())), dict(setup)) for setup in entry.suite]


def brain_setups() -> list[tuple[str, str, dict[str, Any], str]]:
    """Each (system, setup label, variant, brain) the brains' table has a row for."""
    return [
        (system, label, variant, brain)
        for system in SYSTEMS
        for label, variant in setups(system)
        for brain in shipped_brains(system, variant)
    ]


def brain_rows(duels: int, workers: int, systems: list[str]) -> list[dict[str, Any]]:
    """One row per shipped brain of `systems` and setup it plays: its score against the
    expert, with its Wilson 95 % interval, and as side A and side B."""
    rows = []
    for system, label, variant, brain in brain_setups():
        if system not in systems:
            continue
        policies = canonical_policies(system, [brain, "expert"], variant)
        spec = TournamentSpec(system, policies, duels=duels, seed=0, variant=variant)
        with tempfile.TemporaryDirectory() as out:
            records = run_tournament(spec, Path(out), workers=workers)
        pairing = build_report(records, list(policies)).pairings[0]
        low, high = pairing.total.interval
        rows.append(
            {
                "system": system,
                "setup": label,
                "brain": brain,
                "duels": pairing.total.duels,
                "score": pairing.total.score,
                "low": low,
                "high": high,
                "as_a": pairing.a_as_seat[0].score,
                "as_b": pairing.a_as_seat[1].score,
            }
        )
    return rows


def split_rows(fights: int, systems: list[str]) -> Iterator[dict[str, Any]]:
    """Two experts in every setup of `systems` (`setups`), side A's score over `fights`
    seeds with its Wilson 95 % interval and the share of fights won: what the seat and
    the stat blocks give by themselves, the suite's test (`System.suite`)."""
    for system in systems:
        suite = SYSTEMS[system].suite
        for label, variant in setups(system):
            ruleset = SYSTEMS[system].ruleset(**variant)
            expert = make_policy("expert", system, variant)
            experts = line_up(ruleset, expert, expert)
            winners = [play_duel(ruleset, experts, seed).outcome.winner for seed in range(fights)]
            tally = Tally()
            for winner in winners:
                tally = tally.add({0: 1.0, 1: 0.0, None: 0.5}[winner])
            low, high = tally.interval
            yield {
                "system": system,
                "setup": label,
                "fights": fights,
                "score": tally.score,
                "low": low,
                "high": high,
                "won": sum(winner is not None for winner in winners) / fights,
                "suite": variant in suite or (not suite and label == setups(system)[0][0]),
            }


def dice_rows(games: int, workers: int, systems: list[str]) -> Iterator[dict[str, Any]]:
    """The expert against the aggressive NPC in each system's suite, `games` games with
    each kind of dice over the same seeds: the 95 % interval's width by game, the
    correlation of the expert's results in a game's two seat orders (the more negative,
    the more of the luck the pair cancels), and the Wilson width over duels."""
    for system in systems:
        suite = default_suite(system, {})
        policies = canonical_policies(system, ["expert", "aggressive"], suite[0] if suite else {})
        row: dict[str, Any] = {"system": system, "games": games}
        for dice in ("stream", "keyed"):
            spec = TournamentSpec(system, policies, duels=2 * games, seed=0, suite=suite, dice=dice)
            with tempfile.TemporaryDirectory() as out:
                records = run_tournament(spec, Path(out), workers=workers)
            pairing = build_report(records, list(policies)).pairings[0]
            by_seat = np.zeros((games, 2))
            for record in records:
                by_seat[record["game"], record["seat_of_a"]] = score_of_record(record)
            low, high = pairing.by_game
            row[dice] = {
                "score": pairing.total.score,
                "width": high - low,
                "wilson": pairing.total.interval[1] - pairing.total.interval[0],
                "correlation": float(np.corrcoef(by_seat.T)[0, 1]),
            }
        row["ratio"] = row["keyed"]["width"] / row["stream"]["width"]
        yield row


def exact_setups(systems: list[str]) -> list[tuple[str, str, str]]:
    """Each (system, scenario, env id) the exact tables have a row for: every scenario
    of a duel of perfect information, one row ("" for its scenario) for a system the
    solver does not walk (`unwalked`); a system solved under its own models
    (`System.solved`) has a table of its own (`solved_duels`)."""
    setups = []
    for name in systems:
        entry = SYSTEMS[name]
        if entry.solved:
            continue
        if unwalked(name):
            setups.append((name, "", entry.env_id))
        else:
            setups += [(name, scenario, entry.env_id) for scenario in entry.scenarios]
    return setups


def unwalked(name: str) -> str:
    """Why the solver does not walk this system's fights, or "" where it does."""
    ruleset = SYSTEMS[name].ruleset()
    if not getattr(ruleset, "perfect_information", False):
        return "hides hands, plans or declarations: not a duel of perfect information"
    if len(ruleset.sides) != 2:
        return "a skirmish of several fighters a side: the solver walks duels"
    return ""


def exact_rows(systems: list[str]) -> Iterator[dict[str, Any]]:
    """One row per setup of `exact_setups`, as it is done: the exact value and each
    policy's (score against optimal, exploitability), or the states and round the walk
    reached before its bounds, or why the solver does not apply."""
    for name, scenario, env_id in exact_setups(systems):
        row: dict[str, Any] = {"system": name, "scenario": scenario, "env_id": env_id}
        if not scenario:
            yield row | {"why": unwalked(name)}
            continue
        variant = {"scenario": scenario}
        began = time.perf_counter()
        try:
            graph = enumerate_duel(SYSTEMS[name].ruleset(**variant), EXACT_STATES, EXACT_SECONDS)
        except TooLargeError as stop:
            reached = {"walked": stop.states, "round": stop.round, "limit": stop.limit}
            yield row | reached | {"seconds": round(stop.seconds)}
            continue
        optimal = solve(graph)
        scores = np.array([score_of_a(optimal.play(seed)) for seed in range(EXACT_CHECK)])
        half = Z99 * scores.std(ddof=1) / np.sqrt(EXACT_CHECK)
        policies = {}
        for policy in [*policy_names(name), *shipped_brains(name, variant)]:
            exact = exact_scores(graph, policy, make_policy(policy, name, variant))
            policies[policy] = [exact.against_optimal, exact.exploitability]
        yield row | {
            "states": graph.size,
            "seconds": round(time.perf_counter() - began),
            "value": optimal.value,
            "check": [EXACT_CHECK, float(scores.mean()), float(half)],
            "policies": policies,
        }


def solved_duels(systems: list[str]) -> dict[str, tuple[str, list[str]]]:
    """The duels solved under their system's own models that the page shows, by label:
    (system, `duelo solve` flags), as each of `systems` with such models
    (`System.solved`) lists them in its `SOLVES_SHOWN`."""
    return {
        label: (name, flags)
        for name in systems
        if SYSTEMS[name].solved
        for label, flags in load_part(f"{SYSTEMS[name].solved}:SOLVES_SHOWN").items()
    }


def solved_rows(systems: list[str]) -> Iterator[dict[str, Any]]:
    """`duelo solve`'s printout for each of `solved_duels`, with every scripted policy and
    shipped brain and a check of `EXACT_CHECK` duels, as it is done."""
    for label, (name, flags) in solved_duels(systems).items():
        args = build_parser(cores=1).parse_args(["solve", name, *flags])
        variant = duel_variant(name, args.scenario, args.fighters, args.option)
        policies = [*policy_names(name), *shipped_brains(name, variant)]
        command = shlex.join(
            ["duelo", "solve", name, *flags, "--check", str(EXACT_CHECK), "--policies", *policies]
        )
        out = io.StringIO()
        print_solve(name, variant, policies, args.max_states, args.max_seconds, EXACT_CHECK, out)
        row = {"system": name, "scenario": label, "env_id": SYSTEMS[name].env_id}
        yield row | {"command": command, "printed": out.getvalue()}


def scenario_order(row: dict[str, Any]) -> int:
    """Where the row's scenario stands in its system's list (a system's one row first)."""
    shown = solved_duels([row["system"]])
    if row["scenario"] in shown:
        return list(shown).index(row["scenario"])
    scenarios = list(SYSTEMS[row["system"]].scenarios)
    return scenarios.index(row["scenario"]) if row["scenario"] in scenarios else -1


def land_row(path: Path, row: dict[str, Any]) -> None:
    """Put `row` into the rows at `path` in place of its scenario's old one, holding a
    lock on the file: parallel processes of `exact` each land rows in it."""
    with open(path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        text = path.read_text(encoding="utf-8")
        rows = json.loads(text) if text else []
        key = (row["system"], row["scenario"])
        rows = [old for old in rows if (old["system"], old["scenario"]) != key] + [row]
        rows.sort(key=lambda r: (list(SYSTEMS).index(r["system"]), scenario_order(r)))
        path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tables = parser.add_subparsers(dest="table", required=True)
    brains = tables.add_parser("brains", help="each shipped brain against its expert")
    brains.add_argument("--duels", type=int, default=2000, help="per row, seats swapped")
    brains.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="the same duels"
    )
    brains.add_argument(
        "--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS), help="only these"
    )
    splits = tables.add_parser("splits", help="two experts' side A score in every setup")
    splits.add_argument("--fights", type=int, default=2000, help="per setup")
    splits.add_argument(
        "--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS), help="only these"
    )
    dice = tables.add_parser("dice", help="interval widths with stream and keyed dice")
    dice.add_argument("--games", type=int, default=500, help="per kind of dice, seats swapped")
    dice.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="the same duels"
    )
    dice.add_argument(
        "--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS), help="only these"
    )
    exact = tables.add_parser("exact", help="the solver's values and exploitabilities")
    exact.add_argument("--system", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    args = parser.parse_args()
    MEASURED.mkdir(exist_ok=True)
    if args.table == "brains":
        path = MEASURED / "brains.json"
        kept = [r for r in json.loads(path.read_text()) if r["system"] not in args.system]
        rows = brain_rows(args.duels, args.workers, args.system) + kept
        rows.sort(key=lambda r: list(SYSTEMS).index(r["system"]))  # stable: setups in order
        path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        print(f"{path.relative_to(Path(__file__).parents[1])}: {len(rows)} rows")
        return
    if args.table == "splits":
        path = MEASURED / "splits.json"
        kept = [r for r in json.loads(path.read_text()) if r["system"] not in args.system]
        rows = list(split_rows(args.fights, args.system)) + kept
        rows.sort(key=lambda r: list(SYSTEMS).index(r["system"]))  # stable: setups in order
        path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        print(f"{path.relative_to(Path(__file__).parents[1])}: {len(rows)} rows")
        return
    if args.table == "dice":
        path = MEASURED / "dice.json"
        kept = [r for r in json.loads(path.read_text()) if r["system"] not in args.system]
        for row in dice_rows(args.games, args.workers, args.system):
            kept = [r for r in kept if r["system"] != row["system"]] + [row]
            kept.sort(key=lambda r: list(SYSTEMS).index(r["system"]))
            path.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
            print(json.dumps(row), flush=True)
        return
    for row in chain(exact_rows(args.system), solved_rows(args.system)):
        land_row(MEASURED / "exact.json", row)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
