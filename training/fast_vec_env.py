"""stable-baselines3's `VecEnv` over the batched engine (`duelo train --engine fast`).

What `DummyVecEnv` of N `Monitor`-wrapped envs gives SB3 and MaskablePPO, from one
compiled batch: same-step autoreset with `terminal_observation`, the
`TimeLimit.truncated` flag for bootstrapping, Monitor's `episode` statistics, and
`env_method("action_masks")` (how sb3-contrib reads masks from a VecEnv).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.fast.engine import BatchedDuels


class FastVecEnv(VecEnv):
    """`num_envs` duels of `env`'s kind (flat observations; the random opponent)."""

    def __init__(self, env: DuelEnv, num_envs: int) -> None:
        if not env.flat_observation:
            raise ValueError("the fast VecEnv trains on flat observations: flat_observation=True")
        self.engine = BatchedDuels(env, num_envs, same_step=True)
        super().__init__(num_envs, env.observation_space, env.action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, np.int64)
        self._started = time.perf_counter()

    def reset(self) -> np.ndarray:
        self.engine.reset(list(self._seeds))
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return self.engine.hand_over()[0]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        engine = self.engine
        engine.step(self._actions)
        self._actions = None
        rewards = engine.rewards.astype(np.float32)
        self._returns += rewards
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        elapsed = round(time.perf_counter() - self._started, 6)
        for row in np.flatnonzero(engine.ended):
            info = infos[row]
            info["terminal_observation"] = engine.final_observations[row].copy()
            info["TimeLimit.truncated"] = bool(engine.truncated[row])
            info["episode"] = {
                "r": float(self._returns[row]),
                "l": int(self._lengths[row]),
                "t": elapsed,
            }
            self._returns[row] = 0.0
            self._lengths[row] = 0
        return engine.hand_over()[0], rewards, engine.ended.copy(), infos

    def action_masks(self) -> np.ndarray:
        return self.engine.masks.copy()

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"the fast VecEnv has no env method {method_name!r}")
        return list(self.engine.masks[self._rows(indices)].copy())

    def has_attr(self, attr_name: str) -> bool:
        """sb3-contrib asks for `action_masks` to learn that the env masks."""
        return attr_name in ("action_masks", "render_mode")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name != "render_mode":
            raise AttributeError(f"the fast VecEnv has no env attribute {attr_name!r}")
        return [None] * len(self._rows(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the fast VecEnv's envs have no settable attribute {attr_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._rows(indices))

    def close(self) -> None:
        """Nothing to release: the batch is arrays in this process."""

    def _rows(self, indices: None | int | Iterable[int]) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
