"""`duelo solve` and `duelo exploit` as a user types them."""

from __future__ import annotations

import csv
import importlib.util
import re
from pathlib import Path

import pytest

from duelo.cli import main
from duelo.envs.systems import SYSTEMS

SMALL = ["--scenario", "brawl", "--fighters", "gunman", "thug", "--option", "round_cap=1"]
"""Liminal's brawl, a gunman against a thug, cut to one round: solved in a second."""


def test_solve_prints_the_value_the_check_and_each_policy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["solve", "liminal", *SMALL, "--check", "400", "--policies", "random", "expert"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    value = float(re.search(r"side A scores (\d\.\d+)", out).group(1))
    assert 0.5 < value < 1  # the gunman, side A, has the edge
    assert "the exact value is inside" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[-2:]}
    assert set(rows) == {"random", "expert"}
    assert float(rows["random"][-1]) > float(rows["expert"][-1]) >= 0  # exploitability


def test_solve_says_why_a_duel_cannot_be_solved(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "dunwich"]) == 2
    assert "needs a duel of perfect information" in capsys.readouterr().err
    assert main(["solve", "liminal", "--max-states", "20"]) == 2
    assert "not solvable here: over 20 states" in capsys.readouterr().err


def test_exploit_is_exact_where_the_solver_applies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["exploit", "liminal:cautious", "--system", "liminal", *SMALL]) == 0
    out = capsys.readouterr().out
    found = re.search(r"exploitability (\d\.\d+)", out)
    assert out.startswith("exact, over") and found and float(found.group(1)) > 0


@pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None, reason="needs the train extra")
def test_exploit_trains_a_best_response_elsewhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Where the walk stops short (Dunwich's suite, a second of walking here), a best
    response is trained (a token budget here) and played against the policy in every
    setup of the suite, each in a folder of its own; the report names each setup, its
    score and the brain. A scenario named is probed alone; `--train` trains without a
    walk, even where the walk would end (sparring, one turn)."""
    out_dir = tmp_path / "probe"
    argv = ["exploit", "dunwich:random", "--system", "dunwich", "--steps", "2048"]
    argv += ["--max-seconds", "1"]
    assert main([*argv, "--duels", "20", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "no exact answer" in out and "time limit reached" in out
    setups = [s["scenario"] for s in SYSTEMS["dunwich"].suite]
    assert re.findall(r"== dunwich: (\w+)", out) == setups
    scores = re.findall(r"best response scores (\d\.\d+) \[(\d\.\d+), (\d\.\d+)\]", out)
    assert len(scores) == len(setups)
    assert all(float(low) <= float(score) <= float(high) for score, low, high in scores)
    for setup in setups:
        assert (out_dir / setup / "brain" / "manifest.json").exists()
        results = out_dir / setup / "tournament" / "results.jsonl"
        assert len(results.read_text().splitlines()) == 20
    one = tmp_path / "one"
    argv += ["--scenario", "sparring", "--option", "round_cap=1", "--train"]
    assert main([*argv, "--duels", "20", "--out", str(one)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("training a best response") and "exact" not in out
    assert "== dunwich" not in out
    assert (one / "brain" / "manifest.json").exists()


def test_the_tournament_adds_exact_figures_where_it_can(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--exact`: each pairing's exact score beside the measured one, each policy's gap to
    optimal in the ratings, in the printed report and the CSV files; `optimal` plays too."""
    argv = ["tournament", "--system", "liminal", "--scenario", "brawl", "--option", "round_cap=1"]
    argv += ["--policies", "optimal", "expert", "random", "--duels", "200", "--exact"]
    assert main([*argv, "--workers", "1", "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "exact figures over 91 states" in out and "gap to optimal" in out
    ratings = list(csv.DictReader((tmp_path / "ratings.csv").open()))
    gaps = {row["policy"]: float(row["gap_to_optimal"]) for row in ratings}
    assert gaps["liminal:optimal"] == pytest.approx(0, abs=1e-12)
    assert gaps["liminal:random"] > gaps["liminal:expert"] >= 0
    pairings = list(csv.DictReader((tmp_path / "pairings.csv").open()))
    for row in pairings:
        assert 0 <= float(row["exact_score"]) <= 1
    assert (
        main(
            [
                "tournament",
                "--system",
                "dunwich",
                "--policies",
                "random",
                "expert",
                "--duels",
                "2",
                "--exact",
                "--quiet",
                "--out",
                str(tmp_path / "d"),
            ]
        )
        == 0
    )
    assert "no exact figures" in capsys.readouterr().out


def test_solve_and_exploit_the_card_duel(capsys: pytest.CaptureFixture[str]) -> None:
    """Each variant under its own model: the value, its Monte Carlo check, and each
    policy in the real duel; in the faithful duel, exploitability is half the gap."""
    short = ["--option", "exchange_cap=4", "--option", "duel_end=first_blood"]
    faithful = [*short, "--option", "duel_variant=faithful"]
    argv = ["solve", "esgrima_duel", *faithful, "--check", "2000", "--policies", "random"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    value = float(re.search(r"the PJ scores (\d\.\d+)", out).group(1))
    assert 0 < value < 1 and "the exact value is inside" in out
    random_row = out.splitlines()[-1].split()
    assert random_row[0] == "random" and float(random_row[-1]) > 0.1  # far below optimal
    uneven = ["--fighters", "apprentice", "pirate"]
    argv = ["solve", "esgrima_duel", *short, *uneven, "--check", "2000", "--policies", "random"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "the exact value is inside" in out
    assert float(out.splitlines()[-1].split()[1]) < 0.5  # random loses to the equilibrium
    argv = ["exploit", "random", "--system", "esgrima_duel", *faithful, "--duels", "400"]
    assert main(argv) == 0
    found = re.search(r"exploitability, half the gap, is about (\d\.\d+)", capsys.readouterr().out)
    assert found and float(found.group(1)) > 0.05
