"""stable-baselines3's `VecEnv` over the batched engine (`duelo train --engine fast`).

What `DummyVecEnv` of N `Monitor`-wrapped envs gives SB3 and MaskablePPO, from one
compiled batch a setup: same-step autoreset with `terminal_observation`, the
`TimeLimit.truncated` flag for bootstrapping, Monitor's `episode` statistics, and
`env_method("action_masks")` (how sb3-contrib reads masks from a VecEnv).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.fast.engine import BatchedDuels


class FastVecEnv(VecEnv):
    """`num_envs` duels (flat observations): env i plays the setup of `envs[i % len]`, as
    `duelo train` spreads its scenarios, against that env's opponent or, given `draw`,
    a policy drawn for each duel (the training pool's `sample`: scripted NPCs and the
    learner's snapshots). The envs of one setup are one batch, in a block of rows."""

    def __init__(
        self,
        envs: Sequence[DuelEnv],
        num_envs: int,
        draw: Callable[[], Policy] | None = None,
    ) -> None:
        if not all(env.flat_observation for env in envs):
            raise ValueError("the fast VecEnv trains on flat observations: flat_observation=True")
        counts = [len(range(k, num_envs, len(envs))) for k in range(len(envs))]
        self.engines = [
            BatchedDuels(env, count, same_step=True, draw=draw)
            for env, count in zip(envs, counts, strict=True)
            if count
        ]
        self.bounds = np.cumsum([0, *(engine.num_envs for engine in self.engines)])
        """Where each batch's rows begin and end among the envs."""
        self._blocks = [
            (engine, int(low), int(high))
            for engine, low, high in zip(
                self.engines, self.bounds[:-1], self.bounds[1:], strict=True
            )
        ]
        super().__init__(num_envs, envs[0].observation_space, envs[0].action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, np.int64)
        self._started = time.perf_counter()

    def reset(self) -> np.ndarray:
        seeds = list(self._seeds)
        for engine, low, high in self._blocks:
            engine.reset(seeds[low:high])
        self._reset_seeds()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        return _joined([engine.hand_over()[0] for engine in self.engines])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        for engine, low, high in self._blocks:
            engine.step(self._actions[low:high])
        self._actions = None
        engines = self.engines
        rewards = _joined([engine.rewards for engine in engines]).astype(np.float32)
        ended = _joined([engine.ended for engine in engines]).copy()
        self._returns += rewards
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        elapsed = round(time.perf_counter() - self._started, 6)
        for row in np.flatnonzero(ended):
            engine, at = self._row(int(row))
            info = infos[row]
            info["terminal_observation"] = engine.final_observations[at].copy()
            info["TimeLimit.truncated"] = bool(engine.truncated[at])
            info["episode"] = {
                "r": float(self._returns[row]),
                "l": int(self._lengths[row]),
                "t": elapsed,
            }
            self._returns[row] = 0.0
            self._lengths[row] = 0
        observations = _joined([engine.hand_over()[0] for engine in engines])
        return observations, rewards, ended, infos

    def action_masks(self) -> np.ndarray:
        return _joined([engine.masks for engine in self.engines]).copy()

    def env_method(
        self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"the fast VecEnv has no env method {method_name!r}")
        masks = self.action_masks()
        return list(masks if indices is None else masks[self._rows(indices)])

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
        """Nothing to release: the batches are arrays in this process."""

    def _row(self, row: int) -> tuple[BatchedDuels, int]:
        """The batch that holds env `row`, and the row there."""
        if len(self.engines) == 1:
            return self.engines[0], row
        block = int(np.searchsorted(self.bounds, row, side="right")) - 1
        return self.engines[block], row - int(self.bounds[block])

    def _rows(self, indices: None | int | Iterable[int]) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The batches' arrays as one, row after row (the one itself where there is one)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)
