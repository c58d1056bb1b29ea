"""The baseline every other NPC is measured against."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from duelo.envs.core.policy import UNIFORM_LEGAL


class RandomPolicy:
    """Picks uniformly among the legal actions; works in every system."""

    name = "random"
    description = "uniform over the legal actions (the mask)"
    reads_observation = False
    """It never looks: the engine hands it `policy.BLIND` instead of building one."""
    draws = UNIFORM_LEGAL
    """What `act` does, which the batched engine replays in its kernels (`envs/fast`)."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomPolicy: the action mask has no legal action")
        return int(legal[rng.integers(legal.size)])

    def action_distribution(
        self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray
    ) -> np.ndarray:
        """The chance of each action (what the exact solver reads instead of sampling)."""
        legal = np.asarray(action_mask, dtype=bool)
        if not legal.any():
            raise ValueError("RandomPolicy: the action mask has no legal action")
        return legal / legal.sum()
