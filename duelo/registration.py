"""Gymnasium ids of duelo's systems (`duelo/Infierno-v0`, ...).

This module sits above every layer: it may join a ruleset's env with the
policies of `agents/`, which the env layer itself must not import. Every id
has the one entry point `make_env`, told its system by the registration.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import gymnasium as gym

from duelo.agents.encode import entries
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.core.system import System
from duelo.envs.fast import ENGINES
from duelo.envs.systems import SYSTEMS, system

__all__ = [
    "SYSTEMS",
    "System",
    "describe_systems",
    "make_env",
    "make_vector_env",
    "register_envs",
    "system",
]

MAX_EPISODE_STEPS = 100_000
"""Gymnasium's `TimeLimit` on every id: a safety net no legal duel comes near (the round
caps bound a duel to a few thousand decisions), and with `illegal_action="penalize"` the
env's own `illegal_limit` truncates an agent that only repeats illegal actions."""


def make_env(
    system: str,
    opponent: str | Policy = "random",
    fixed_options: dict[str, Any] | None = None,
    engine: str = "python",
    ally: str | Policy | None = None,
    **kwargs: Any,
) -> gym.Env:
    """Entry point of every duelo env id: the opponent (and, in a skirmish, the ally
    that plays the learner's side) may be given by name, and the
    options an id fixes (`System.named_variants`) stand under those given to gym.make.
    `engine="fast"` steps the same duel in the batched engine (`envs/fast/scalar_env.py`,
    extra `fast`; any opponent, no rendering)."""
    if fixed_options:
        given = kwargs.get("options") or {}
        if not isinstance(given, dict):
            raise TypeError(f"options must be a dict of option values, not {given!r}")
        kwargs["options"] = {**fixed_options, **given}
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    info = SYSTEMS[system]
    if ally is not None:
        kwargs["ally"] = make_policy(ally, system)
    env = info.env(opponent=make_policy(opponent, system), **kwargs)
    if engine == "python":
        return env
    if importlib.util.find_spec("numba") is None:
        raise ValueError("engine='fast' needs the fast extra: pip install 'duelo[fast]'")
    from duelo.envs.fast.scalar_env import FastDuelEnv

    return FastDuelEnv(env)


def make_vector_env(
    system: str,
    num_envs: int,
    autoreset_mode: Any = "NextStep",
    max_episode_steps: int | None = None,
    engine: str = "fast",
    **kwargs: Any,
) -> Any:
    """Vector entry point of the ids with a batched engine (`envs/fast`, extra `fast`):
    `num_envs` duels of `make_env(system, **kwargs)` stepped together in compiled code."""
    from duelo.envs.fast.vector_env import DuelVectorEnv

    if engine != "fast":
        raise ValueError(
            f"engine={engine!r}: the vector entry point is the batched engine; "
            "vectorization_mode='sync' steps scalar envs"
        )
    env = make_env(system, **kwargs)
    assert isinstance(env, DuelEnv)  # the python engine's: the scalar env itself
    return DuelVectorEnv(env, num_envs, autoreset_mode, max_episode_steps)


def register_envs() -> None:
    """Register every system's env id with Gymnasium (idempotent). Where numba is installed,
    the ids of the systems with a batched engine (`System.fast`) get it as their vector
    entry point, which `gymnasium.make_vec` then uses unless told `vectorization_mode="sync"`."""
    fast = importlib.util.find_spec("numba") is not None
    for name, info in SYSTEMS.items():
        for env_id, fixed_options in info.env_ids.items():
            if env_id not in gym.registry:
                kwargs = {
                    "system": name,
                    **({"fixed_options": fixed_options} if fixed_options else {}),
                }
                gym.register(
                    id=env_id,
                    entry_point="duelo.registration:make_env",
                    vector_entry_point=(
                        "duelo.registration:make_vector_env" if fast and info.fast else None
                    ),
                    kwargs=kwargs,
                    max_episode_steps=MAX_EPISODE_STEPS,
                )


def describe_systems() -> list[dict[str, Any]]:
    """Every system for other programs: its ids, scenarios, options, actions and every
    entry of its flat observation by name (`duelo.agents.entries`)."""
    out = []
    for info in SYSTEMS.values():
        ruleset = info.ruleset()
        out.append(
            {
                "id": info.id,
                "game": info.game,
                "env_ids": list(info.env_ids),
                "scenarios": list(info.scenarios),
                "policies": policy_names(info.id),
                "options": info.option_lines(),
                "actions": [
                    {"id": a.value, "name": a.name, "meaning": ruleset.action_meanings[a.value]}
                    for a in ruleset.actions
                ],
                "observation": entries(info.id),
            }
        )
    return out
