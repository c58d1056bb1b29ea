"""A Gymnasium `VectorEnv` over the batched engine (`gymnasium.make_vec`'s vector entry point).

`gymnasium.make_vec("duelo/Infierno-v2", num_envs=N)` (or any id whose system has the
batched engine) builds one where numba is installed (the `fast` extra): the same spaces,
rewards and `info` keys as N copies of `gymnasium.make(...)` in a `SyncVectorEnv`, and
for the same seed the same duels, decision for decision, stepped in compiled code.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from duelo.envs.core.duel_env import DRAW, DuelEnv
from duelo.envs.fast.engine import BatchedDuels


class DuelVectorEnv(gym.vector.VectorEnv):
    """N duels of `env`'s kind, stepped together.

    Args:
        env: the scalar env to batch (ruleset, seat, opponent, illegal-action rules and
            observation form are read from it; one instance of its opponent plays every
            row, deciding between kernel calls unless it is the random policy).
        num_envs: duels stepped together.
        autoreset_mode: Gymnasium's `NEXT_STEP` (its default: the step after a duel ends
            starts a new one and ignores the action) or `SAME_STEP` (the ending step
            returns the new duel's observation, the last one in `info["final_obs"]`).
        max_episode_steps: the `TimeLimit` that `gymnasium.make` puts on each env. It is
            accepted only where it can never fire (at least `BatchedDuels.longest_duel`):
            the round cap and the illegal-action limit end every duel before it.

    `info` holds `action_mask` (N x actions) and `seat` for every row, and `winner`
    (a seat or -1 for a draw) and what the state's `aftermath` reports for the rows
    whose duel ended this step; under same-step
    autoreset, as Gymnasium's `SyncVectorEnv` puts it, `info` is the new duels' and the
    ended ones' `winner` is in `info["final_info"]` (rows `info["_final_info"]`).
    """

    def __init__(
        self,
        env: DuelEnv,
        num_envs: int,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
    ) -> None:
        if env.render_mode is not None:
            raise ValueError(
                f"render_mode {env.render_mode!r}: the batched engine does not narrate its duels; "
                "gymnasium.make_vec(..., vectorization_mode='sync') renders each env"
            )
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be next-step or same-step, not {mode.value}")
        self.engine = BatchedDuels(env, num_envs, same_step=mode == AutoresetMode.SAME_STEP)
        longest = self.engine.longest_duel
        if max_episode_steps is not None and not (
            type(max_episode_steps) is int and max_episode_steps >= longest
        ):
            raise ValueError(
                f"max_episode_steps {max_episode_steps!r} could cut a duel short (one lasts at "
                f"most {longest} learner steps here), which the batched engine does not model: "
                "raise it, or use vectorization_mode='sync'"
            )
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.observation_spec = env.observation_spec
        self.flat_observation = env.flat_observation
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(env.observation_space, num_envs)
        self.action_space = batch_space(env.action_space, num_envs)
        final = self.engine.final_duels
        self._fields = (
            self.engine.seats["seat"],
            final["over"],
            final["winner"],
            final["truncated"],
        )
        """Views of the engine's rows that `info` reads, made once (a field costs a microsecond)."""
        self._every = np.ones(num_envs, np.bool_)
        self._every.flags.writeable = False

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Seed row i with `seed + i` (or `seed[i]`), as `SyncVectorEnv` seeds its envs."""
        super().reset(seed=seed if isinstance(seed, int) else None)
        if options:
            raise ValueError(f"reset takes no options, not {options!r}")
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        self.engine.reset(seeds)
        observations, *_ = self.engine.hand_over()
        return self._observation_of(observations), self._info(ended=None)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        engine = self.engine
        engine.step(np.asarray(actions))
        ended = engine.ended.copy()
        info = self._info(ended)
        if self.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP and ended.any():
            final = np.array([None] * self.num_envs, dtype=object)
            for row in np.flatnonzero(ended):
                final[row] = self._observation_of(engine.final_observations[row].copy())
            info["final_obs"], info["_final_obs"] = final, ended
        observations, rewards, terminated, truncated = engine.hand_over()
        return self._observation_of(observations), rewards, terminated, truncated, info

    # --- the arrays as the scalar env shows them ------------------------------------------

    def _observation_of(self, flat: np.ndarray) -> Any:
        """`flat` (one row or all, an array of our own), as a Dict of keys unless
        observations are flat: each key a view into it (as `ObservationSpec.split` gives
        the scalar env)."""
        if self.flat_observation:
            return flat
        return self.observation_spec.split_rows(flat)

    def _info(self, ended: np.ndarray | None) -> dict[str, Any]:
        engine = self.engine
        seat, over, winner, rules_truncated = self._fields
        info: dict[str, Any] = {
            "action_mask": engine.masks.copy(),
            "_action_mask": self._every,
            "seat": seat.copy(),
            "_seat": self._every,
        }
        if ended is not None and ended.any():
            rows = np.flatnonzero(ended)  # a few rows a step: read only theirs
            # the illegal-action limit truncates without a result
            illegal = engine.truncated[rows] & ~rules_truncated[rows]
            winners = np.zeros(self.num_envs, np.int64)
            winners[rows] = np.where(over[rows] & ~illegal, winner[rows], DRAW)
            results = {"winner": winners, "_winner": ended}
            for key, values in engine.aftermath(rows).items():
                # as `SyncVectorEnv` stacks a key: numbers in zeros, anything else in None
                results[key] = np.zeros(self.num_envs, values.dtype)
                if values.dtype == object:
                    results[key][:] = None
                results[key][rows] = values
                results[f"_{key}"] = ended
            if engine.same_step:  # the ended duels' info, beside the new ones'
                info["final_info"], info["_final_info"] = results, ended
            else:
                info.update(results)
        return info
