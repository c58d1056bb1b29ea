"""What `pip install .` ships: every package and data file of the source tree."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_python_package_is_listed() -> None:
    setuptools = PYPROJECT["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *relative.parts]))
    assert found == set(setuptools["packages"])


def test_every_config_and_brain_file_is_package_data() -> None:
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package, folder in (("duelo.configs", "configs"), ("duelo.brains", "brains")):
        shipped = {p for pattern in data[package] for p in (ROOT / folder).glob(pattern)}
        wanted = {
            p
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and p.suffix in (".yaml", ".json", ".npz")
        }
        assert wanted == shipped, wanted ^ shipped
