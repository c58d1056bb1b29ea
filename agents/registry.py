"""Policy names as users type them: "random", "expert", or "SYSTEM:NAME"."""

from __future__ import annotations

from collections.abc import Callable

from duelo.agents import infierno
from duelo.agents.random_policy import RandomPolicy
from duelo.envs.core.policy import Policy

SYSTEM_AGNOSTIC: dict[str, Callable[[], Policy]] = {"random": RandomPolicy}
"""Policies that play any system."""
SYSTEM_NPCS: dict[str, dict[str, Callable[[], Policy]]] = {"infierno": infierno.NPCS}
"""Each system's own scripted NPCs."""


def policy_names(system: str) -> list[str]:
    """The scripted policies of `system`, as "SYSTEM:NAME", random first."""
    own = {**SYSTEM_AGNOSTIC, **SYSTEM_NPCS.get(system, {})}
    return [f"{system}:{name}" for name in own]


def make_policy(name: str | Policy, system: str) -> Policy:
    """A policy from its name (a `Policy` passes through unchanged)."""
    if not isinstance(name, str):
        return name
    prefix, _, short = name.rpartition(":")
    if prefix and prefix != system:
        raise ValueError(f"policy {name!r} is for system {prefix!r}, not {system!r}")
    factories = {**SYSTEM_AGNOSTIC, **SYSTEM_NPCS.get(system, {})}
    if short in factories:
        return factories[short]()
    raise ValueError(
        f"unknown policy {name!r} for {system}; known: {', '.join(policy_names(system))}"
    )
