"""The package type-checks: mypy over `duelo` as it installs (`[tool.mypy]` in
pyproject.toml), with no error and no unused `type: ignore`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_import_layers import FOLDERS, ROOT


def test_mypy_finds_nothing(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="the dev extra (pip install -e '.[dev]')")
    # The layout as installed: setuptools maps `duelo.envs` to `envs/` and so on, a map
    # mypy cannot read, so the package is laid out under one folder by links.
    package = tmp_path / "duelo"
    package.mkdir()
    for path in (ROOT / "duelo").iterdir():
        if path.suffix in (".py", ".typed"):
            (package / path.name).symlink_to(path)
    for name, folder in FOLDERS.items():
        if name != "duelo":
            (package / name.removeprefix("duelo.")).symlink_to(ROOT / folder)
    for folder in ("configs", "brains"):
        (package / folder).symlink_to(ROOT / folder)
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "-p",
            "duelo",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no issues found in 1" in checked.stdout, checked.stdout  # 100-odd modules
