"""Golden narrated duels (STYLE #11): one seeded duel per scenario, diffed line by line.

A rules change that alters a transcript must bump the env version; regenerate with
`DUELO_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from duelo.cli import main

GOLDEN = Path(__file__).parent / "golden"
CASES = [
    ("infierno", "formal_duel", 216),
    ("infierno", "brawl", 41),
    ("infierno", "ambush", 249),
    ("esgrima", "ship_deck", 7),
    ("esgrima", "open_square", 7),
    ("esgrima_duel", None, 7),
]


@pytest.mark.parametrize(("system", "scenario", "seed"), CASES)
def test_golden_transcript(
    system: str, scenario: str | None, seed: int, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--scenario", scenario] if scenario else []
    assert main(["duel", system, *where, "--seed", str(seed)]) == 0
    transcript = capsys.readouterr().out
    path = GOLDEN / f"{system}_{scenario or 'duel'}_seed{seed}.txt"
    if os.environ.get("DUELO_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(transcript, encoding="utf-8")
    assert transcript.splitlines() == path.read_text(encoding="utf-8").splitlines()
