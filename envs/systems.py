"""The combat systems duelo ships, found from one list of packages.

Each package declares its `System` entries (`duelo.envs.core.system`) in its
`system` module; this module gathers them, so agents (brains check their manifest
against it), the registration and the command line all read one table. Adding a
system is its folder and a line in `SYSTEM_PACKAGES`. An env id's version is its
ruleset's `version`; a system's scenarios are read from its configs, the default
first.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from duelo.envs.core.system import System

SYSTEM_PACKAGES = (
    "duelo.envs.infierno",
    "duelo.envs.liminal",
    "duelo.envs.esgrima",
    "duelo.envs.dunwich",
    "duelo.envs.vampiro",
)
"""Every system's package, in the order `duelo systems` lists them."""


def discover(packages: Iterable[str]) -> dict[str, System]:
    """The entries each package's `system` module declares, by id; an id declared twice
    is an error naming both packages."""
    found: dict[str, System] = {}
    where: dict[str, str] = {}
    for package in packages:
        for entry in importlib.import_module(f"{package}.system").SYSTEMS:
            if entry.id in found:
                raise ValueError(
                    f"system {entry.id!r} is declared by {where[entry.id]} and {package}"
                )
            found[entry.id], where[entry.id] = entry, package
    return found


SYSTEMS = discover(SYSTEM_PACKAGES)


def system(name: str) -> System:
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return SYSTEMS[name]


def batched_systems() -> list[str]:
    """The systems with a batched engine (`System.fast`), in the table's order."""
    return [name for name, entry in SYSTEMS.items() if entry.fast]
