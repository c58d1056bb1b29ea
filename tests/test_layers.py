"""The rules layer imports no Gymnasium (DESIGN.md layer 2): a ruleset, its data and the
core it stands on can be used, searched or compiled without the RL API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from duelo.envs.core.system import System
from duelo.envs.systems import SYSTEMS

ROOT = Path(__file__).parent.parent
PACKAGES = {"duelo.envs": ROOT / "envs"}
"""Where the env layer's modules live (setuptools' package-dir mapping)."""
ADAPTERS = ("duelo.envs.core.duel_env", "duelo.envs.core.spaces", "duelo.envs.systems")
"""The env layer's Gymnasium side."""


def source(module: str) -> Path | None:
    """The file of a `duelo.envs` module or package, None outside the env layer."""
    prefix = "duelo.envs"
    if module != prefix and not module.startswith(prefix + "."):
        return None
    path = PACKAGES[prefix].joinpath(*module.split(".")[2:])
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imports(module: str) -> set[str]:
    """The modules `module` imports, with the packages that importing them runs."""
    path = source(module)
    assert path is not None and path.exists(), module
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    packages = {".".join(name.split(".")[:i]) for name in found for i in range(2, name.count("."))}
    return {name for name in found | packages if source(name) is None or source(name).exists()}


def reachable(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        if source(module) is not None:
            todo += imports(module)
    return seen


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=lambda system: system.id)
def test_a_ruleset_reaches_no_gymnasium(system: System) -> None:
    module = system.ruleset.__module__
    found = reachable(module)
    assert not {name for name in found if name.split(".")[0] == "gymnasium"}, module
    assert not set(ADAPTERS) & found, module


def test_the_check_sees_an_adapter() -> None:
    """The walk follows packages and re-exports: the env module does reach Gymnasium."""
    assert "gymnasium" in reachable("duelo.envs.infierno.env")
