"""The combat systems duelo ships: id, game, env id, ruleset and scenarios.

The env layer's own table, so that agents (brains check their manifest against
it) and the registration above both read one list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from duelo.envs.core.ruleset import Ruleset
from duelo.envs.infierno import InfiernoRuleset


@dataclass(frozen=True)
class System:
    id: str
    game: str
    env_id: str
    ruleset: Callable[..., Ruleset[Any]]
    """Builds the ruleset from keyword variants (scenario, fighters, options...)."""
    scenarios: tuple[str, ...] = ()


SYSTEMS = {
    "infierno": System(
        id="infierno",
        game="Infierno de Cobardes (d20 Wild West)",
        env_id="duelo/Infierno-v0",
        ruleset=InfiernoRuleset,
        scenarios=("formal_duel", "brawl", "ambush"),
    ),
}


def system(name: str) -> System:
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return SYSTEMS[name]
