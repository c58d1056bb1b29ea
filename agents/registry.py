"""Policy names as users type them.

- "random", "expert"...: a scripted NPC of the system in play;
- "SYSTEM:NAME" (e.g. "infierno:expert"): the same, naming its system;
- "package.module:ClassName": your own policy class, imported and built with no
  arguments in a sandbox of its own (`duelo.agents.sandbox`), never in this
  process (it must be importable, e.g. on PYTHONPATH);
- "brain:PATH": a trained brain folder (see `duelo.agents.brain`);
- "SYSTEM:optimal": the exact solver's moves for the duel in play, where the duel is
  one of perfect information small enough to solve, and the card duel's solved models
  (`duelo.evaluation.optimal`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from duelo.agents.brain import NumpyBrain, check_fits, load_brain
from duelo.agents.random_policy import RandomPolicy
from duelo.agents.sandbox import SandboxedPolicy
from duelo.envs.core.policy import Policy
from duelo.envs.core.system import load_part
from duelo.envs.systems import SYSTEMS

SYSTEM_AGNOSTIC: dict[str, Callable[[], Policy]] = {"random": RandomPolicy}
"""Policies that play any system."""


@cache
def scripted(system: str) -> dict[str, Callable[[], Policy]]:
    """The scripted policies of `system` by short name: random, then its own NPCs (the
    module its `System.npcs` names, imported on first use)."""
    own = load_part(SYSTEMS[system].npcs) if system in SYSTEMS else {}
    return {**SYSTEM_AGNOSTIC, **own}


def policy_names(system: str) -> list[str]:
    """The scripted policies of `system`, as "SYSTEM:NAME", random first."""
    return [f"{system}:{name}" for name in scripted(system)]


def is_imported(name: str) -> bool:
    """Whether `name` names a policy class from someone's module ("package.module:Class")."""
    prefix, _, _ = name.rpartition(":")
    return bool(prefix) and prefix != "brain" and prefix not in SYSTEMS


OPTIMAL = "optimal"


def make_policy(
    name: str | Policy, system: str, variant: Mapping[str, Any] | None = None
) -> Policy:
    """A policy from its name (a `Policy` passes through unchanged). `variant` is the duel
    in play (scenario, options...): `optimal` solves that duel, and a brain whose
    training fixed what the duel does not set alike is refused."""
    if not isinstance(name, str):
        return name
    if name.startswith("brain:"):
        return _brain(name, system, variant)
    prefix, _, short = name.rpartition(":")
    if is_imported(name):
        return SandboxedPolicy(name, system)
    _check_system(name, prefix, system)
    if short == OPTIMAL:
        from duelo.evaluation.optimal import optimal_policy  # the solver, only when asked

        return optimal_policy(system, dict(variant or {}))
    factories = scripted(system)
    if short in factories:
        return factories[short]()
    raise _unknown(name, system)


def _brain(name: str, system: str, variant: Mapping[str, Any] | None) -> NumpyBrain:
    """A brain for `system`, refused in a duel (`variant`, when known) that does not fix
    what its training fixed."""
    brain = load_brain(name.removeprefix("brain:"), system)
    if variant is not None:
        check_fits(brain, variant)
    return brain


def _check_system(name: str, prefix: str, system: str) -> None:
    """A "SYSTEM:NAME" policy plays only its own system."""
    if prefix and prefix != system:
        raise ValueError(f"policy {name!r} is for system {prefix!r}, not {system!r}")


def _unknown(name: str, system: str) -> ValueError:
    return ValueError(
        f"unknown policy {name!r} for {system}; known: {', '.join(policy_names(system))}, "
        "or package.module:ClassName"
    )


def check_policy(name: str, system: str, variant: Mapping[str, Any] | None = None) -> None:
    """Raise `ValueError` now for a name that would fail mid-run: an unknown one, a brain
    that does not load for `system`, or a module policy that cannot be built (tried once
    in its sandbox). A scripted NPC is checked by name, without building it, and
    `optimal` without solving: a duel that hides information from a seat is refused
    here, while whether a duel of perfect information is small enough is known only
    by walking it, which the run does once."""
    if is_imported(name):
        SandboxedPolicy(name, system).check()
        return
    if name.startswith("brain:"):
        _brain(name, system, variant)
        return
    prefix, _, short = name.rpartition(":")
    _check_system(name, prefix, system)
    if short == OPTIMAL:
        entry = SYSTEMS.get(system)
        if entry is None or not (entry.solved or entry.ruleset.perfect_information):
            raise ValueError(
                f"{name!r}: {system} hides cards, plans or declarations from a seat and "
                "has no solved models, so there is no optimal play to ask"
            )
    elif short not in scripted(system):
        raise _unknown(name, system)
