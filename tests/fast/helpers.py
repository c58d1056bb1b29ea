"""The reference check of every batched engine: the same seeds, the same learner actions,
through `gymnasium.make_vec` twice, the batch (vector entry point) against N scalar envs
(`vectorization_mode="sync"`), every observation, mask, reward, termination and winner
compared at every step."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from duelo.envs.fast.vector_env import DuelVectorEnv

ILLEGAL = 0.03
"""The share of learner actions drawn from beyond the mask, legal or not (some are outside
the action space): illegal ones are penalised no-ops, and the third in a row truncates
the duel (`illegal_limit=3`)."""


NOT_BATCHED = {"action_mask", "seat", "outcome", "illegal_action"}
"""`info` keys of the scalar envs that the batch does not repeat for ended rows (the mask
and seat are compared at every step; the outcome's words are `gym.make(id, engine="fast")`'s)."""


def compare(
    env_id: str, kwargs: dict[str, Any], decisions: int, num_envs: int = 16, seed: int = 11
) -> int:
    """Step `num_envs` duels both ways for `decisions` learner decisions in all; return the
    number of duels finished (every comparison asserted on the way)."""
    kwargs = {**kwargs, "illegal_limit": 3}
    fast = gym.make_vec(env_id, num_envs=num_envs, **kwargs)
    assert isinstance(fast, DuelVectorEnv)
    sync = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync", **kwargs)
    observations, info = fast.reset(seed=seed)
    expected, expected_info = sync.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions_beyond = fast.single_action_space.n + 1
    finished = 0
    for step in range(decisions // num_envs):
        for key in expected:
            np.testing.assert_array_equal(
                observations[key], expected[key], err_msg=f"{key} @{step}"
            )
        np.testing.assert_array_equal(info["action_mask"], expected_info["action_mask"])
        np.testing.assert_array_equal(info["seat"], expected_info["seat"])
        actions = np.array(
            [
                rng.integers(actions_beyond)
                if rng.random() < ILLEGAL or not mask.any()
                else rng.choice(np.flatnonzero(mask))
                for mask in info["action_mask"]
            ]
        )
        observations, rewards, terminated, truncated, info = fast.step(actions)
        expected, expected_rewards, expected_terminated, expected_truncated, expected_info = (
            sync.step(actions)
        )
        np.testing.assert_array_equal(rewards, expected_rewards)
        np.testing.assert_array_equal(terminated, expected_terminated)
        np.testing.assert_array_equal(truncated, expected_truncated)
        ended = terminated | truncated
        if ended.any():  # the winner, and what the state's aftermath reports
            for key in expected_info.keys() - NOT_BATCHED:
                if not key.startswith("_"):
                    np.testing.assert_array_equal(
                        info[key][ended], expected_info[key][ended], err_msg=key
                    )
        finished += int(ended.sum())
    return finished
