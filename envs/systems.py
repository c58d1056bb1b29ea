"""The combat systems duelo ships: id, game, env id, ruleset and scenarios.

The env layer's own table, so that agents (brains check their manifest against
it) and the registration above both read one list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from duelo.envs.core.ruleset import Ruleset
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset
from duelo.envs.infierno import InfiernoRuleset


@dataclass(frozen=True)
class System:
    id: str
    game: str
    env_id: str
    ruleset: Callable[..., Ruleset[Any]]
    """Builds the ruleset from keyword variants (scenario, fighters, options...)."""
    scenarios: tuple[str, ...] = ()
    """Values of the ruleset's `scenario` variant, the default first (none: no variant)."""


SYSTEMS = {
    "infierno": System(
        id="infierno",
        game="Infierno de Cobardes (d20 Wild West)",
        env_id="duelo/Infierno-v0",
        ruleset=InfiernoRuleset,
        scenarios=("formal_duel", "brawl", "ambush"),
    ),
    "esgrima": System(
        id="esgrima",
        game="unnamed 2d6 swashbuckling system: skirmish",
        env_id="duelo/Esgrima-v0",
        ruleset=EsgrimaSkirmishRuleset,
        scenarios=("ship_deck", "open_square"),
    ),
    "esgrima_duel": System(
        id="esgrima_duel",
        game="unnamed 2d6 swashbuckling system: fencing duel with cards",
        env_id="duelo/EsgrimaDuel-v0",
        ruleset=EsgrimaDuelRuleset,
    ),
}


def system(name: str) -> System:
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return SYSTEMS[name]
