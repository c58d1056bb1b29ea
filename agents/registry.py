"""Policy names as users type them.

- "random", "expert"...: a scripted NPC of the system in play;
- "SYSTEM:NAME" (e.g. "infierno:expert"): the same, naming its system;
- "package.module:ClassName": your own policy class, imported and built with no
  arguments in a sandbox of its own (`duelo.evaluation.sandbox`), never in this
  process (it must be importable, e.g. on PYTHONPATH);
- "brain:PATH": a trained brain folder (see `duelo.agents.brain`);
- "SYSTEM:optimal": the exact solver's moves for the duel in play, where the duel is
  one of perfect information small enough to solve, and the card duel's solved models
  (`duelo.evaluation.optimal`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from duelo.agents import dunwich, esgrima, infierno, liminal, vampiro
from duelo.agents.brain import load_brain
from duelo.agents.random_policy import RandomPolicy
from duelo.envs.core.policy import Policy

SYSTEM_AGNOSTIC: dict[str, Callable[[], Policy]] = {"random": RandomPolicy}
"""Policies that play any system."""
SYSTEM_NPCS: dict[str, dict[str, Callable[[], Policy]]] = {
    "infierno": infierno.NPCS,
    "liminal": liminal.NPCS,
    "liminal_mob": liminal.NPCS,
    "esgrima": esgrima.SKIRMISH_NPCS,
    "esgrima_duel": esgrima.DUEL_NPCS,
    "dunwich": dunwich.NPCS,
    "vampiro": vampiro.NPCS,
}
"""Each system's own scripted NPCs."""


def policy_names(system: str) -> list[str]:
    """The scripted policies of `system`, as "SYSTEM:NAME", random first."""
    own = {**SYSTEM_AGNOSTIC, **SYSTEM_NPCS.get(system, {})}
    return [f"{system}:{name}" for name in own]


def is_imported(name: str) -> bool:
    """Whether `name` names a policy class from someone's module ("package.module:Class")."""
    prefix, _, _ = name.rpartition(":")
    return bool(prefix) and prefix != "brain" and prefix not in SYSTEM_NPCS


OPTIMAL = "optimal"


def make_policy(
    name: str | Policy, system: str, variant: Mapping[str, Any] | None = None
) -> Policy:
    """A policy from its name (a `Policy` passes through unchanged). `variant` is the duel
    in play (scenario, options...), which only `optimal` reads: it solves that duel."""
    if not isinstance(name, str):
        return name
    if name.startswith("brain:"):
        return load_brain(name.removeprefix("brain:"), system)
    prefix, _, short = name.rpartition(":")
    if is_imported(name):
        from duelo.evaluation.sandbox import SandboxedPolicy  # only for someone's module

        return SandboxedPolicy(name, system)
    if prefix and prefix != system:
        raise ValueError(f"policy {name!r} is for system {prefix!r}, not {system!r}")
    if short == OPTIMAL:
        from duelo.evaluation.optimal import optimal_policy  # the solver, only when asked

        return optimal_policy(system, dict(variant or {}))
    factories = {**SYSTEM_AGNOSTIC, **SYSTEM_NPCS.get(system, {})}
    if short in factories:
        return factories[short]()
    raise ValueError(
        f"unknown policy {name!r} for {system}; known: {', '.join(policy_names(system))}, "
        "or package.module:ClassName"
    )


def check_policy(name: str, system: str, variant: Mapping[str, Any] | None = None) -> None:
    """Raise `ValueError` now for a name that would fail mid-run: an unknown one, or a
    module policy that cannot be built (tried once in its sandbox)."""
    if is_imported(name):
        from duelo.evaluation.sandbox import SandboxedPolicy

        SandboxedPolicy(name, system).check()
    else:
        make_policy(name, system, variant)


def import_policy(name: str) -> Policy:
    """The policy class `name` ("package.module:Class") imported and built here: only the
    sandbox's child calls this (`make_policy` never runs someone's module in process)."""
    module_name, _, class_name = name.rpartition(":")
    try:
        factory = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot import policy {module_name}:{class_name}: {error}") from error
    policy = factory()
    if not isinstance(policy, Policy):
        raise ValueError(f"{module_name}:{class_name} lacks name, description or act()")
    return policy
