"""The code keeps its style: `ruff check` and `ruff format --check` over the repository
(settings in pyproject.toml) find nothing."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.test_import_layers import ROOT


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_ruff_finds_nothing(command: list[str]) -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("the dev extra (pip install -e '.[dev]')")
    checked = subprocess.run(
        [ruff, *command, "."], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
