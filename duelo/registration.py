"""Gymnasium ids of duelo's systems (`duelo/Infierno-v0`, ...).

This module sits above every layer: it may join a ruleset's env with the
policies of `agents/`, which the env layer itself must not import.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.esgrima.env import EsgrimaDuelEnv, EsgrimaEnv
from duelo.envs.infierno import InfiernoEnv
from duelo.envs.systems import SYSTEMS, System, system

__all__ = ["SYSTEMS", "System", "register_envs", "system"]


def make_infierno(opponent: str | Policy = "random", **kwargs: Any) -> InfiernoEnv:
    """Entry point of `duelo/Infierno-v0`: an opponent may be given by name."""
    return InfiernoEnv(opponent=make_policy(opponent, "infierno"), **kwargs)


def make_esgrima(opponent: str | Policy = "random", **kwargs: Any) -> EsgrimaEnv:
    """Entry point of `duelo/Esgrima-v0`."""
    return EsgrimaEnv(opponent=make_policy(opponent, "esgrima"), **kwargs)


def make_esgrima_duel(opponent: str | Policy = "random", **kwargs: Any) -> EsgrimaDuelEnv:
    """Entry point of `duelo/EsgrimaDuel-v0`."""
    return EsgrimaDuelEnv(opponent=make_policy(opponent, "esgrima_duel"), **kwargs)


ENTRY_POINTS = {
    "infierno": "duelo.registration:make_infierno",
    "esgrima": "duelo.registration:make_esgrima",
    "esgrima_duel": "duelo.registration:make_esgrima_duel",
}


def register_envs() -> None:
    """Register every system's env id with Gymnasium (idempotent)."""
    for name, info in SYSTEMS.items():
        if info.env_id not in gym.registry:
            gym.register(id=info.env_id, entry_point=ENTRY_POINTS[name])
