"""Layers one way (issue: one system, one package): every import of every module, at
the top or inside a function, points to its own layer or one below, and the modules
of one layer import each other without a cycle. A function-local import is still a
dependency; only what stands outside duelo (numba, torch, ray) is left to the extras.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from duelo.envs import systems

ROOT = Path(__file__).parent.parent
FOLDERS = {
    "duelo.envs": "envs",
    "duelo.agents": "agents",
    "duelo.evaluation": "evaluation",
    "duelo.training": "training",
    "duelo.benchmarks": "benchmarks",
    "duelo": "duelo",
}
"""setuptools' package-dir mapping (pyproject.toml): package -> folder."""
SOLVED_PLAY = ("solver", "optimal", "stats")
"""Evaluation modules that stand on the rules alone, below the policy names: the exact
solver and the solved play that `SYSTEM:optimal` names."""
SYSTEM_POLICIES = ("npcs", "card_duel", "card_duel_symmetric", "card_models")
"""A system's modules that play it, a layer above its env: its NPCs (also `*_npcs`, a
second set such as a skirmish's) and the card duel's solved models."""
LAYERS = ("core", "rules", "envs", "policies", "names", "evaluation", "training", "front")
"""Lowest first."""


def layer(module: str) -> str:
    parts = module.split(".")
    if module.startswith("duelo.envs.core"):
        return "core"
    if module.startswith("duelo.envs."):
        if len(parts) == 4 and (parts[-1] in SYSTEM_POLICIES or parts[-1].endswith("_npcs")):
            return "policies"
        if parts[2] == "pettingzoo":
            return "evaluation"
        kernels = parts[-1].startswith("fast")  # a system's batched engine
        gym_face = parts[-1] in ("env", "system") or parts[-1].endswith("_env")
        if parts[2] in ("systems", "fast") or gym_face or kernels:
            return "envs"
        return "rules"
    if module == "duelo.envs":
        return "envs"
    if module == "duelo.agents.registry":
        return "names"
    if module.startswith("duelo.agents"):
        return "policies"
    if module.startswith("duelo.evaluation"):
        return "policies" if parts[-1] in SOLVED_PLAY else "evaluation"
    if module == "duelo.registration":
        return "evaluation"
    if module.startswith("duelo.training"):
        return "training"
    return "front"


def modules() -> Iterator[tuple[str, Path]]:
    for package, folder in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts]
            parts = [p for p in parts if p != "__init__"]
            yield ".".join([package, *parts]), path


MODULES = dict(modules())


def imported(module: str) -> set[str]:
    """duelo's modules that `module` imports anywhere in its body (not the root package,
    which every import of a submodule runs first)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            if not all(name in MODULES for name in names):  # not only submodules
                names.append(node.module)
        else:
            continue
        found |= {name for name in names if name in MODULES and name != "duelo"}
    return found


def test_the_walk_sees_every_folder() -> None:
    assert {layer(m) for m in MODULES} == set(LAYERS)
    assert "duelo.envs.liminal.rules" in imported("duelo.envs.liminal.system")
    assert "duelo.evaluation.optimal" in imported("duelo.agents.registry")  # in a function


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    rank = LAYERS.index(layer(module))
    upward = sorted(n for n in imported(module) if LAYERS.index(layer(n)) > rank)
    assert not upward, f"{module} ({layer(module)}) imports above it: {upward}"


SYSTEM_PACKAGES = tuple(package.rpartition(".")[2] for package in systems.SYSTEM_PACKAGES)


def of_a_system(module: str) -> bool:
    return any(part in SYSTEM_PACKAGES for part in module.split(".")[2:])


def test_generic_code_imports_no_system() -> None:
    """What every system shares reaches a system only through its `System` record (by
    import path), never by importing it."""
    found = {
        module: sorted(n for n in imported(module) if of_a_system(n))
        for module in MODULES
        if not of_a_system(module)
    }
    assert {module: names for module, names in found.items() if names} == {}
    assert of_a_system("duelo.envs.infierno.fast") and not of_a_system("duelo.envs.systems")


def test_no_module_imports_the_sandboxs_child() -> None:
    """Someone's policy module is imported only in the sandbox's child, run as `-m`: a
    module that imported the child would run it inside our process too."""
    assert not [m for m in MODULES if "duelo.agents.sandbox_child" in imported(m)]


def test_no_cycle_within_a_layer() -> None:
    graph = {m: {n for n in imported(m) if layer(n) == layer(m) and n != m} for m in MODULES}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for nxt in sorted(graph[module]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt] if nxt in path else [module, nxt]
                pytest.fail(f"import cycle: {' -> '.join(cycle)}")
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_every_package_folder_is_installed() -> None:
    """pyproject.toml lists the packages setuptools installs (its package-dir map cannot
    find them): a folder of modules left off the list, a new system's say, would be
    missing from an installed duelo though every test here passes."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    found = {module for module, path in MODULES.items() if path.name == "__init__.py"}
    data = {"duelo.configs", "duelo.brains"}  # YAML and weights: nothing to import
    assert found - listed == set() and listed - found == data
