"""Gymnasium ids of duelo's systems (`duelo/Infierno-v0`, ...).

This module sits above every layer: it may join a ruleset's env with the
policies of `agents/`, which the env layer itself must not import.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.infierno import InfiernoEnv
from duelo.envs.systems import SYSTEMS, System, system

__all__ = ["SYSTEMS", "System", "make_infierno", "register_envs", "system"]


def make_infierno(opponent: str | Policy = "random", **kwargs: Any) -> InfiernoEnv:
    """Entry point of `duelo/Infierno-v0`: an opponent may be given by name."""
    return InfiernoEnv(opponent=make_policy(opponent, "infierno"), **kwargs)


def register_envs() -> None:
    """Register every env id with Gymnasium (idempotent)."""
    if "duelo/Infierno-v0" not in gym.registry:
        gym.register(id="duelo/Infierno-v0", entry_point="duelo.registration:make_infierno")
