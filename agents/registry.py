"""Policy names as users type them: "random", or "SYSTEM:NAME" for a system's own NPCs."""

from __future__ import annotations

from collections.abc import Callable

from duelo.agents.random_policy import RandomPolicy
from duelo.envs.core.policy import Policy

SYSTEM_AGNOSTIC: dict[str, Callable[[], Policy]] = {"random": RandomPolicy}
"""Policies that play any system."""


def policy_names(system: str) -> list[str]:
    """The names `make_policy` accepts for `system`."""
    return sorted(SYSTEM_AGNOSTIC) + [f"{system}:{name}" for name in sorted(SYSTEM_AGNOSTIC)]


def make_policy(name: str | Policy, system: str) -> Policy:
    """A policy from its name (a `Policy` passes through unchanged)."""
    if not isinstance(name, str):
        return name
    prefix, _, short = name.rpartition(":")
    if prefix and prefix != system:
        raise ValueError(f"policy {name!r} is for system {prefix!r}, not {system!r}")
    if short in SYSTEM_AGNOSTIC:
        return SYSTEM_AGNOSTIC[short]()
    raise ValueError(
        f"unknown policy {name!r} for {system}; known: {', '.join(policy_names(system))}"
    )
