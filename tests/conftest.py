"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

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
