"""The `duelo` command as a user types it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from duelo.cli import main
from duelo.envs.infierno import Action, InfiernoRuleset


def test_systems_lists_ids_actions_and_observations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert "duelo/Infierno-v0" in out
    assert all(action.name in out for action in Action)
    spec = InfiernoRuleset.observation_spec
    assert all(f"`{key.name}`" in out for key in spec.keys)


def test_duel_with_fighters_prints_every_die(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "duel",
        "infierno",
        "--a",
        "random",
        "--b",
        "infierno:random",
        "--seed",
        "4",
        "--scenario",
        "brawl",
        "--fighters",
        "johny",
        "drunk",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Scenario brawl: Johny vs the drunk")
    assert "Initiative: Johny d20" in out and out.rstrip().splitlines()[-1].startswith("Result:")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["duel", "infierno", "--a", "sharpshooter"], "unknown policy 'sharpshooter'"),
        (["duel", "infierno", "--fighters", "billy", "drunk"], "unknown character 'billy'"),
        (["duel", "infierno", "--scenario", "siege"], "unknown scenario 'siege'"),
    ],
)
def test_bad_names_are_clear_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_console_script_runs() -> None:
    exe = shutil.which("duelo")
    assert exe is not None, "the duelo console script is not installed"
    done = subprocess.run(
        [exe, "duel", "infierno", "--seed", "216"], capture_output=True, text=True, check=True
    )
    assert "Result: side B wins" in done.stdout


def test_tournament_prints_tables_and_writes_files(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tournament", "--duels", "4", "--workers", "1", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Bradley-Terry ratings" in out and "expert" in out and "95 % interval" in out
    for name in ("report.md", "pairings.csv", "ratings.csv", "summary.json"):
        assert (tmp_path / name).exists()
    pairings = 10  # four scripted NPCs and the shipped brain
    assert (tmp_path / "infierno" / "results.jsonl").read_text().count("\n") == pairings * 4
    assert main(argv) == 2  # results exist: no silent overwrite
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0


def test_duel_accepts_any_registered_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "infierno", "--a", "expert", "--b", "infierno:cautious"]) == 0
    assert "Result:" in capsys.readouterr().out
