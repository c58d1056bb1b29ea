"""`duelo play`: a whole duel driven through its input stream."""

from __future__ import annotations

import io

import pytest

from duelo.cli import main
from duelo.play import LeftTheTable, play


class FirstLegal(io.StringIO):
    """A person who always answers 1, after one answer that is no action at all."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def __iter__(self):  # noqa: ANN204
        return self

    def __next__(self) -> str:
        self.asked += 1
        return "draw my sword\n" if self.asked == 1 else "1\n"


@pytest.mark.parametrize("system", ["infierno", "dunwich", "vampiro"])
def test_a_whole_duel_at_the_table(system: str) -> None:
    out = io.StringIO()
    outcome = play(system, "expert", 5, 0, {}, FirstLegal(), out)
    text = out.getvalue()
    assert outcome is not None and "Result: " in text
    assert "'draw my sword' is not one of 1.." in text  # asked again
    assert "What you see:" in text and "Your move:" in text and "Duel over" in text


def test_an_action_name_is_an_answer() -> None:
    out = io.StringIO()
    answers = io.StringIO("close\n" + "1\n" * 500)
    play("vampiro", "random", 2, 0, {}, answers, out)
    assert "declares close" in out.getvalue()


def test_the_end_of_the_input_leaves_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(LeftTheTable):
        play("infierno", "expert", 1, 0, {}, io.StringIO(""), io.StringIO())
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "liminal", "--vs", "aggressive", "--side", "B"]) == 0
    assert "You left the table." in capsys.readouterr().out


def test_a_duel_the_rolls_settle_first_says_so() -> None:
    """Infierno's formal duel, seed 0: the rival wins the staredown and initiative and
    kills with its first shot, before the person decides anything."""
    out = io.StringIO()
    play("infierno", "expert", 0, 0, {}, io.StringIO(""), out)
    assert "over before your first move" in out.getvalue() and "--seed 1" in out.getvalue()


def test_help_shows_the_moves_again() -> None:
    out = io.StringIO()
    play("vampiro", "random", 2, 0, {}, io.StringIO("?\nhelp\n" + "1\n" * 500), out)
    text = out.getvalue()
    assert text.count("answer with a number or an action's name") == 2
    assert "is not one of" not in text
