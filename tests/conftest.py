"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable, Iterator

import pytest


@pytest.fixture
def without_extra(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """`without_extra("numba")`: from then on, that package looks uninstalled to
    `importlib.util.find_spec`, which is how duelo tells a missing extra."""

    def hide(name: str) -> None:
        found = importlib.util.find_spec
        monkeypatch.setattr(
            importlib.util,
            "find_spec",
            lambda wanted, *rest: None if wanted == name else found(wanted, *rest),
        )

    return hide


@pytest.fixture(autouse=True, scope="session")
def _sandbox_without_bubblewrap() -> Iterator[None]:
    """Where bubblewrap is not installed, module policies run in a plain process
    (`DUELO_SANDBOX=process`), so the tests of everything but the isolation still run;
    those of the isolation skip (`tests/test_fair_play.py`)."""
    if shutil.which("bwrap") is not None or "DUELO_SANDBOX" in os.environ:
        yield
        return
    os.environ["DUELO_SANDBOX"] = "process"
    try:
        yield
    finally:
        del os.environ["DUELO_SANDBOX"]


TEST_OPPONENT_KEY = b"duelo tests"
"""The env opponents' key in the tests: fixed, so that a test's seeded duels replay from one
run to the next (a process's own key is drawn from entropy: `duel_env.PROCESS_OPPONENT_KEY`)."""


@pytest.fixture(autouse=True, scope="session")
def _a_fixed_opponent_key() -> Iterator[None]:
    from duelo.envs.core import duel_env

    drawn, duel_env.PROCESS_OPPONENT_KEY = duel_env.PROCESS_OPPONENT_KEY, TEST_OPPONENT_KEY
    try:
        yield
    finally:
        duel_env.PROCESS_OPPONENT_KEY = drawn
