"""The `duelo` command as a user types it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from duelo import cli
from duelo.cli import TRAIN_MODULES, main
from duelo.envs.infierno import Action, InfiernoRuleset
from duelo.evaluation.solver import enumerate_duel


def test_systems_lists_ids_actions_and_observations(capsys: pytest.CaptureFixture[str]) -> None:
    """Readable at 100 columns: every action with its meaning; --verbose adds what each
    observation key means, --json the same for programs."""
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert "duelo/Infierno-v2" in out
    for action in Action:
        assert f"{action.name:<22} {InfiernoRuleset.action_meanings[action]}" in out
    spec = InfiernoRuleset.observation_spec
    assert all(key.name in out for key in spec.keys)
    assert main(["systems", "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert all(f"{key.name} (" in verbose and key.meaning[:40] in verbose for key in spec.keys)
    assert "staredown_penalty = A (A | B | C)" in verbose
    for text in (out, verbose):
        assert max(len(line) for line in text.splitlines()) <= 100
    assert main(["systems", "--json"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert described[0]["actions"][0] == {"id": 0, "name": "END_TURN", "meaning": "end your turn"}


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
    header, out = capsys.readouterr().out.split("\n", 1)
    assert header == "Side A: random (random); side B: random (infierno:random)"
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
        [exe, "duel", "infierno", "--seed", "2"], capture_output=True, text=True, check=True
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
    header = (tmp_path / "report.md").read_text().splitlines()[:3]
    assert header[0].startswith("# duelo ") and header[0].endswith(": tournament report")
    assert header[2].startswith("- infierno (`duelo/Infierno-v2`): 40 duels among random")
    pairings = 10  # four scripted NPCs and the shipped brain
    assert (tmp_path / "infierno" / "results.jsonl").read_text().count("\n") == pairings * 4
    assert main(argv) == 2  # results exist: no silent overwrite
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0


def test_duel_accepts_any_registered_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "infierno", "--a", "expert", "--b", "infierno:cautious"]) == 0
    assert "Result:" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["tournament", "--move-time-limit", "-1"],
            "argument --move-time-limit: must be a positive",
        ),
        (
            ["tournament", "--move-time-limit", "0"],
            "argument --move-time-limit: must be a positive",
        ),
        (
            ["tournament", "--move-time-limit", "nan"],
            "argument --move-time-limit: must be a positive",
        ),
        (["tournament", "--workers", "0"], "argument --workers: must be an integer in 1.."),
        (["tournament", "--workers", "-3"], "argument --workers: must be an integer in 1.."),
        (["tournament", "--workers", "10000"], "argument --workers: must be an integer in 1.."),
        (
            ["tournament", "--duels", "1000000000"],
            "argument --duels: must be an integer in 2..100000",
        ),
        (["tournament", "--duels", "3"], "duels per pairing must be an even number"),
        (["tournament", "--seed", "-1"], "argument --seed: must be an integer in 0.."),
        (
            ["tournament", "--system", "esgrima_duel", "--scenario", "ship_deck"],
            "--scenario: esgrima_duel has no scenarios",
        ),
        (
            ["duel", "esgrima_duel", "--scenario", "ship_deck"],
            "--scenario: esgrima_duel has no scenarios",
        ),
        (["duel", "infierno", "--option", "round_cap"], "argument --option: must be KEY=VALUE"),
        (["duel", "infierno", "--option", "round_cap=0"], "round_cap 0 must lie in 1..998"),
        (["duel", "infierno", "--option", "crit_choice=sometimes"], "'sometimes' is not one of"),
        (["tournament", "--system", "infierno", "--option", "no_such=1"], "unknown key 'no_such'"),
        (
            ["train", "--config", "configs/training/infierno.yaml", "--timesteps", "0"],
            "argument --timesteps",
        ),
    ],
)
def test_bad_values_are_one_line_and_status_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    extra = ["--out", str(out)] if argv[0] == "tournament" else []
    with pytest.raises(SystemExit) as stopped:
        raise SystemExit(main([*argv, *extra]))
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert not out.exists(), "a run that fails before its first duel leaves no folder"


def test_out_that_is_a_file_or_under_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "results.txt"
    afile.write_text("mine\n")
    for out, message in ((afile, "is a file, not a folder"), (afile / "sub", "is a file, so")):
        assert main(["tournament", "--duels", "2", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert afile.read_text() == "mine\n"


def test_a_failing_policy_before_the_first_duel_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["tournament", "--system", "infierno", "--policies", "random", "brain:./nowhere"]
    assert main([*argv, "--duels", "2", "--out", str(out)]) == 2
    assert "nowhere" in capsys.readouterr().err
    assert not out.exists()


def test_options_reach_the_duel_and_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["duel", "infierno", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "--- Round 2 ---" in out and "drops prone" in out  # without the options
    options = ["--option", "round_cap=1", "--option", "allow_prone=false"]
    assert main(["duel", "infierno", "--seed", "4", *options]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Side A: random (random); side B: random (random)")
    assert "--- Round 2 ---" not in out and "drops prone" not in out and "Result:" in out
    argv = ["tournament", "--system", "esgrima_duel", "--policies", "random", "expert"]
    argv += [
        "--duels",
        "2",
        "--workers",
        "1",
        "--out",
        str(tmp_path),
        "--option",
        "duel_variant=faithful",
    ]
    assert main(argv) == 0
    record = json.loads((tmp_path / "esgrima_duel" / "results.jsonl").read_text().splitlines()[0])
    assert record["variant"] == {"options": {"duel_variant": "faithful"}}


def test_shipped_brain_names_win_over_folders_of_the_same_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "infierno").mkdir()  # e.g. what `duelo tournament --out .` writes
    monkeypatch.chdir(tmp_path)
    assert main(["duel", "infierno", "--a", "brain:infierno", "--seed", "1"]) == 0
    assert main(["duel", "infierno", "--a", "brain:./infierno"]) == 2
    assert "manifest.json" in capsys.readouterr().err


def test_train_and_export_without_the_train_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for module in TRAIN_MODULES:
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    for module in [m for m in sys.modules if m.startswith("duelo.training.train")]:
        monkeypatch.delitem(sys.modules, module)
    assert main(["train", "--config", "configs/training/infierno.yaml"]) == 2
    assert main(["export", "runs/none", "--out", "brains/none"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(
        "needs the train extra: pip install 'duelo[train]'" in e for e in err
    )


def test_exploit_says_the_train_extra_is_missing_before_it_walks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The solver's walk can take minutes: the missing extra is said before it starts,
    and again (as the error) when the walk stops short."""
    for module in TRAIN_MODULES:
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    for module in [m for m in sys.modules if m.startswith("duelo.training")]:
        monkeypatch.delitem(sys.modules, module)
    walked = []
    monkeypatch.setattr(
        "duelo.yardstick.enumerate_duel",
        lambda *args, **kwargs: (
            walked.append(capsys.readouterr().err) or enumerate_duel(*args, **kwargs)
        ),
    )
    command = ["exploit", "infierno:random", "--system", "infierno", "--max-states", "10"]
    assert main(command) == 2
    assert walked and walked[0].startswith("duelo exploit: without the train extra (")
    assert "needs the train extra" in capsys.readouterr().err


def test_ctrl_c_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_tournament", interrupted)
    assert main(["tournament", "--duels", "2", "--out", str(tmp_path / "out")]) == 130
    err = capsys.readouterr().err
    assert "interrupted; the finished duels are kept: run the same command with --resume" in err
    assert "Traceback" not in err


def test_the_tournament_says_when_heatmaps_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "plots_available", lambda: False)
    argv = ["tournament", "--system", "esgrima_duel", "--policies", "random", "expert"]
    assert main([*argv, "--duels", "2", "--workers", "1", "--out", str(tmp_path)]) == 0
    assert "heatmaps skipped: matplotlib is not installed" in capsys.readouterr().out


def test_a_brain_is_refused_in_a_duel_its_training_did_not_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The faithful card duel's PJ sits out the symmetric duel, with a line saying why."""
    argv = ["duel", "esgrima_duel", "--a", "brain:esgrima_duel_faithful", "--b", "expert"]
    assert main(argv) == 2
    assert "trained with {'options': {'duel_variant': 'faithful'}}" in capsys.readouterr().err
    assert main([*argv, "--option", "duel_variant=faithful"]) == 0


def test_resume_without_a_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never"
    assert (
        main(["tournament", "--system", "infierno", "--duels", "2", "--resume", "--out", str(out)])
        == 2
    )
    assert "holds no tournament to resume" in capsys.readouterr().err
    assert not out.exists()


def test_a_reader_that_stops_reading_ends_it_quietly(tmp_path: Path) -> None:
    """`duelo systems | head -1`: no message and no traceback on the closed pipe (run as
    `python -m duelo.cli`, which must work too)."""
    errors = tmp_path / "stderr"
    command = f"{sys.executable} -m duelo.cli systems 2>{errors} | head -c 10 >/dev/null"
    subprocess.run(["bash", "-c", command], check=True, timeout=120)
    assert errors.read_text() == ""


def test_help_shows_the_defaults(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps at the terminal's width
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = capsys.readouterr().out
    for default in (
        "default: the system's: 2000",
        "(default: duelo-tournament)",
        "(default: local)",
    ):
        assert default in text
    assert "(default: 0; drawn" not in text and text.count("(default:") >= 6


def test_plan_says_how_many_duels_and_refuses_a_gap_past_the_draws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", "--gap", "0.1"]) == 0
    assert capsys.readouterr().out.startswith("204 duels a pairing: the sign test at 0.05")
    assert main(["plan", "--gap", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "a score of 0.500000001 against 0.5" in out and "more than a tournament plays" in out
    assert main(["plan", "--gap", "0.3", "--draws", "0.5"]) == 2
    assert "gap must lie in (0, 0.25) with draws 0.5" in capsys.readouterr().err
