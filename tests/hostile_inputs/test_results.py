"""Results folders someone else wrote into: every line parsed within bounds of depth, size
and number range, every refusal naming the file and the line, and no second command
writing one folder at once."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from duelo.cli import main
from duelo.evaluation.tournament import (
    MAC_FIELD,
    RESULTS_FILE,
    SECRET_FILE,
    SPEC_FILE,
    run_tournament,
    writing_folder,
)
from tests.test_tournament import _half_run, _signed, spec

LINES = {  # what is appended to a half-played results file: the error it must give
    "nested 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, "line 11: nested deeper than 16"),
    "not UTF-8": (b'{"system": "\xff\xfe"}', "line 11: not UTF-8 text (byte 12)"),
    "a NUL byte": (b'{"system": "infierno"\x00}', "line 11: not JSON"),
    "an integer of 5,000 digits": (b'{"game": ' + b"9" * 5000 + b"}", "line 11: not JSON"),
    "NaN": (b'{"game": NaN}', "line 11: not JSON (NaN is not a JSON number)"),
    "1e999": (b'{"game": 1e999}', "line 11: not JSON (1e999 is past a float's range)"),
    "over a MiB": (b'{"reason": "' + b"x" * (1 << 20) + b'"}', "line 11: more than the"),
}


def _signed_with(path: Path, **changes: object) -> bytes:
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    first.update(changes)
    return _signed({k: v for k, v in first.items() if k != MAC_FIELD}).encode()


@pytest.mark.parametrize("case", LINES)
def test_a_line_past_the_bounds_is_refused_naming_file_and_line(tmp_path: Path, case: str) -> None:
    line, message = LINES[case]
    path = _half_run(tmp_path)
    with path.open("ab") as stream:
        stream.write(line + b"\n")
    before = path.read_bytes()
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        run_tournament(spec(), tmp_path, resume=True)
    assert str(error.value).startswith(f"{path}: line 11")
    assert path.read_bytes() == before  # nothing played, nothing lost


@pytest.mark.parametrize(("field", "value"), [("decisions", 10**30), ("rounds", 2**31)])
def test_a_signed_count_past_any_duel_is_refused(tmp_path: Path, field: str, value: int) -> None:
    """Signed with the tournament's own key (an owner's edit): the range is checked too."""
    path = _half_run(tmp_path)
    with path.open("ab") as stream:
        stream.write(_signed_with(path, **{field: value}) + b"\n")
    with pytest.raises(ValueError, match=f"line 11: {field} {value} must lie in 0..2147483647"):
        run_tournament(spec(), tmp_path, resume=True)


def test_a_decisions_count_of_400_digits_is_refused_at_parsing(tmp_path: Path) -> None:
    path = _half_run(tmp_path)
    line = _signed_with(path, decisions=10**400)
    with path.open("ab") as stream:
        stream.write(line + b"\n")
    with pytest.raises(ValueError, match="line 11: not JSON .an integer of 401 digits"):
        run_tournament(spec(), tmp_path, resume=True)


@pytest.mark.parametrize(
    ("file", "text"),
    [(SECRET_FILE, "[" * 50_000), (SECRET_FILE, "9" * 5000), (SPEC_FILE, '{"seed": NaN}')],
)
def test_a_damaged_seed_file_is_an_error_naming_it(tmp_path: Path, file: str, text: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / file).write_text(text, encoding="utf-8")
    (out / RESULTS_FILE).write_text("", encoding="utf-8")
    expected = str(out / file) if file == SECRET_FILE else "describes another tournament"
    with pytest.raises(ValueError, match=expected):
        run_tournament(replace(spec(), seed=None), out, resume=True)


def test_two_commands_cannot_write_one_out_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two systems into one --out at once once kept only the last one's report.md and
    summary.json: the second command is refused before any duel, the first's outputs
    stay whole."""
    out = tmp_path / "out"
    argv = ["tournament", "--system", "infierno", "--duels", "2", "--out", str(out)]
    with writing_folder(out):  # the first command, still running
        assert main([*argv, "--policies", "infierno:random", "infierno:expert"]) == 2
        assert "is being written by another duelo command" in capsys.readouterr().err
        assert not (out / "infierno").exists()
    assert main([*argv, "--policies", "infierno:random", "infierno:expert"]) == 0
    assert "infierno" in (out / "report.md").read_text(encoding="utf-8")


def test_a_command_that_fails_at_once_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["tournament", "--system", "infierno", "--policies", "infierno:nobody", "random"]
    assert main([*argv, "--duels", "2", "--out", str(out)]) == 2
    assert not out.exists()
