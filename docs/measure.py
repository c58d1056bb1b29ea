"""Measure the figures the docs show, and keep them as data the site renders.

`python docs/measure.py [--duels N]` plays each shipped brain against its system's
expert in every setup (each scenario; the card duel's two variants) as `duelo
tournament --system S --scenario SC --policies brain:B expert --duels 2000` does (seed
0), and writes the scores to `docs/measured/brains.json`; `docs/hooks.py` renders them
where a page says `<!-- measured: brains -->`. The figures are never typed by hand:
after a rules change or a retrained brain, run this again (about ten minutes on two
cores) and commit the file.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from duelo.agents.brain import shipped_brains
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.report import build_report
from duelo.evaluation.tournament import TournamentSpec, canonical_policies, run_tournament

MEASURED = Path(__file__).parent / "measured"


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


def brain_rows(duels: int, workers: int) -> list[dict[str, Any]]:
    """One row per shipped brain and setup it plays: its score against the expert, with
    its Wilson 95 % interval, and as side A and side B."""
    rows = []
    for system, label, variant, brain in brain_setups():
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duels", type=int, default=2000, help="per row, seats swapped")
    parser.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="the same duels"
    )
    args = parser.parse_args()
    MEASURED.mkdir(exist_ok=True)
    rows = brain_rows(args.duels, args.workers)
    path = MEASURED / "brains.json"
    path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"{path.relative_to(Path(__file__).parents[1])}: {len(rows)} rows")


if __name__ == "__main__":
    main()
