"""The systems duelo ships, and their Gymnasium ids (`duelo/Infierno-v0`, ...).

This module sits above every layer: it may join a ruleset's env with the
policies of `agents/`, which the env layer itself must not import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.core.ruleset import Ruleset
from duelo.envs.infierno import InfiernoEnv, InfiernoRuleset


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


def make_infierno(opponent: str | Policy = "random", **kwargs: Any) -> InfiernoEnv:
    """Entry point of `duelo/Infierno-v0`: an opponent may be given by name."""
    return InfiernoEnv(opponent=make_policy(opponent, "infierno"), **kwargs)


def register_envs() -> None:
    """Register every env id with Gymnasium (idempotent)."""
    if "duelo/Infierno-v0" not in gym.registry:
        gym.register(id="duelo/Infierno-v0", entry_point="duelo.registration:make_infierno")
