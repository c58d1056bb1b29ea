"""`duelo play`: a whole duel driven through its input stream."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
import time

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
    outcome = play(system, "expert", 5, (0,), {}, FirstLegal(), out)
    text = out.getvalue()
    assert outcome is not None and "Result: " in text
    assert "'draw my sword' is not one of 1.." in text  # asked again
    assert "You play " in text and "Your move (? for help):" in text and "Duel over" in text
    assert "-- round " in text and " HP | " in text and "| range " in text  # the status line


def test_an_action_name_is_an_answer() -> None:
    out = io.StringIO()
    answers = io.StringIO("close\n" + "1\n" * 500)
    play("vampiro", "random", 2, (0,), {}, answers, out)
    assert "declares close" in out.getvalue()


def test_the_end_of_the_input_leaves_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(LeftTheTable):
        play("infierno", "expert", 1, (0,), {}, io.StringIO(""), io.StringIO())
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "liminal", "--vs", "aggressive", "--side", "B"]) == 0
    assert "You left the table." in capsys.readouterr().out


def test_a_duel_the_rolls_settle_first_says_so() -> None:
    """Infierno's formal duel, seed 0: the rival wins the staredown and initiative and
    kills with its first shot, before the person decides anything. The table says who
    won and how, and offers a rematch on the next seed where the person gets a move."""
    out = io.StringIO()
    play("infierno", "expert", 0, (0,), {}, io.StringIO(""), out)
    text = out.getvalue()
    assert "over before your first move: Gunfighter, the NPC won it" in text
    assert "Rematch? (y: a new duel on --seed 1;" in text


def test_without_a_seed_the_table_deals_a_duel_where_the_person_acts() -> None:
    """The default: the first seed from 0 where the person decides (seed 0 is the
    rival's, above); a yes plays the rematch, on the next such seed."""
    out = io.StringIO()
    answers = io.StringIO("surrender\ny\nsurrender\nno\n")
    outcome = play("infierno", "expert", None, (0,), {}, answers, out)
    text = out.getvalue()
    assert text.startswith("seed 1 (--seed N deals another duel)")
    assert text.count("You play Gunfighter (side A)") == 2
    assert text.count("you: SURRENDER") == 2 and outcome.winner == 1
    assert "over before your first move" not in text


def test_look_shows_all_there_is_to_see() -> None:
    out = io.StringIO()
    play("esgrima_duel", "expert", 3, (0,), {}, io.StringIO("look\n" + "1\n" * 300), out)
    text = out.getvalue()
    assert "What you see:" in text and "initiative (" in text
    assert "| hand: estocada_profunda, finta, insulto | revealed: not_revealed" in text  # status
    assert "play Estocada alta (high thrust: 1d3 PG)" in text or "reposition:" in text


def test_help_shows_the_moves_again() -> None:
    out = io.StringIO()
    play("vampiro", "random", 2, (0,), {}, io.StringIO("?\nhelp\n" + "1\n" * 500), out)
    text = out.getvalue()
    assert text.count("answer with a number or an action's name") == 2
    assert "is not one of" not in text


def test_the_table_under_a_pseudo_terminal() -> None:
    """As a person meets it: a terminal, so colours; the fighters named, the status line,
    the legend in words, a surrender, the result and the rematch declined."""
    primary, replica = pty.openpty()
    env = {**os.environ, "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "duelo.cli", "play", "infierno", "--vs", "random"]
    child = subprocess.Popen(command, stdin=replica, stdout=replica, stderr=replica, env=env)
    os.close(replica)
    os.write(primary, b"?\r\nsurrender\r\nn\r\n")
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([primary], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif child.poll() is not None:
            break
    os.close(primary)
    assert child.wait(timeout=60) == 0
    text = seen.decode()
    assert "\033[32m" in text and "\033[31m" in text  # you in green, the NPC in red
    plain = re.sub(r"\033\[[0-9;]*m", "", text)
    assert "You play Gunfighter (side A) against Gunfighter, played by random." in plain
    assert re.search(
        r"-- round 1 \| you 12/12 HP \| Gunfighter 12/12 HP \| range \d+ \| initiative", plain
    )
    assert "SURRENDER       surrender: you lose the duel" in plain
    assert "answer with a number or an action's name" in plain
    assert "Result: you lose" in plain and "Rematch? (y: a new duel on --seed" in plain


def test_an_npc_that_raises_forfeits_as_in_a_tournament() -> None:
    """A hostile opponent's fault ends the duel in the person's favour, worded as a
    tournament records it, with no traceback; the table does not wait on it."""
    out = io.StringIO()
    outcome = play("dunwich", "tests.hostile:Raiser", 0, (0,), {}, io.StringIO("1\n" * 50), out)
    assert outcome.winner == 0
    assert "side B forfeits: its policy raised" in outcome.reason
    assert "Result: you win" in out.getvalue()


def test_a_person_takes_one_fighter_of_a_skirmish_side(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """--side and --fighter seat the person at that fighter of that side (side B's second
    in three_on_three: the guard), the NPC playing its allies and every enemy; a fighter
    the side lacks is refused by name."""
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    argv = ["play", "infierno_skirmish", "--scenario", "three_on_three", "--seed", "3"]
    assert main([*argv, "--side", "B", "--fighter", "1"]) == 0
    text = capsys.readouterr().out
    assert "You play the guard (side B) beside the outlaw, Brawler (played by expert)" in text
    assert "Result: " in text
    assert main([*argv, "--side", "A", "--fighter", "3"]) == 2
    assert "--fighter 3: side A has 3 fighter(s) here, 0..2 or all" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse's usage error
        main([*argv, "--fighter", "both"])
    assert "must be 0..63 or all, not 'both'" in capsys.readouterr().err


def test_a_person_plays_a_whole_skirmish_side(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """--fighter all seats the person at every fighter of the side: each decision names
    the fighter deciding, every fighter of the side decides at least once (its sealed
    plan first), and the NPC plays only the enemies."""
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    argv = ["play", "dunwich_skirmish", "--scenario", "two_on_two", "--seed", "1"]
    assert main([*argv, "--side", "B", "--fighter", "all"]) == 0
    text = capsys.readouterr().out
    assert "You play Thug, Cultist (side B) against Bruiser, Investigator, played by" in text
    assert "Thug decides:" in text and "Cultist decides:" in text
    assert "Bruiser decides:" not in text and "Investigator decides:" not in text
    assert "Result: " in text
