"""The ecosystem's own entry points on every registered id, as a new user would call them:
stable-baselines3 by env id, Gymnasium's vector envs and wrappers (both env checkers run
on the default settings in `test_conformance.py`).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import FlattenObservation

import duelo  # noqa: F401  (registers the ids)
from duelo.envs.core.duel_env import DRAW, UnsupportedRenderModeError
from duelo.registration import MAX_EPISODE_STEPS

ENV_IDS = sorted(spec_id for spec_id in gym.registry if spec_id.startswith("duelo/"))


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stable_baselines3_by_env_id(env_id: str) -> None:
    """`make_vec_env(id)` asks for render_mode="rgb_array" and retries on TypeError."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    from stable_baselines3 import PPO

    venv = env_util.make_vec_env(env_id, n_envs=2)
    assert venv.reset().keys() == venv.observation_space.spaces.keys()
    model = PPO("MultiInputPolicy", env_id, n_steps=16, batch_size=16, n_epochs=1, device="cpu")
    model.learn(32)
    with pytest.raises(UnsupportedRenderModeError, match="'ansi'"):
        gym.make(env_id, render_mode="rgb_array")


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_envs_with_wins_and_draws_mixed(env_id: str, mode: str) -> None:
    """Gymnasium stacks each info key across envs: `winner` must keep one type. An
    illegal action now and then ends a duel as a draw (`illegal_limit=1`)."""
    envs = gym.make_vec(env_id, num_envs=4, vectorization_mode=mode, illegal_limit=1)
    try:
        _, infos = envs.reset(seed=3)
        rng = np.random.default_rng(3)
        winners = []
        for _ in range(300):
            # an env whose duel just ended has no legal action: Gymnasium's next-step
            # autoreset ignores its action and deals the next duel; otherwise, now and
            # then, the first illegal action (a draw under illegal_limit=1)
            actions = [
                rng.choice(np.flatnonzero(mask))
                if mask.any() and rng.random() > 0.02
                else int(np.argmin(mask))
                for mask in infos["action_mask"]
            ]
            _, _, terminated, truncated, infos = envs.step(np.array(actions))
            if "winner" in infos:
                assert infos["winner"].dtype.kind == "i"
                winners += infos["winner"][infos["_winner"]].tolist()
    finally:
        envs.close()
    assert DRAW in winners and {0, 1} & set(winners)
    assert set(winners) <= {DRAW, 0, 1}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_agent_that_only_plays_illegal_actions_still_ends_its_episodes(env_id: str) -> None:
    """SB3's `evaluate_policy` would hang on an episode that never ends."""
    evaluation = pytest.importorskip("stable_baselines3.common.evaluation")
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(gym.make(env_id, illegal_limit=50, flat_observation=True))  # SB3's own wrapper

    class Stubborn:
        """Always the first action that is illegal now."""

        def predict(self, observation, state=None, episode_start=None, deterministic=False):  # noqa: ANN001, ANN201
            mask = env.unwrapped.action_masks()
            return np.array([int(np.flatnonzero(~mask)[0])]), state

    rewards, lengths = evaluation.evaluate_policy(
        Stubborn(), env, n_eval_episodes=2, return_episode_rewards=True
    )
    assert lengths == [50, 50]
    assert rewards == pytest.approx([-50 * 0.1, -50 * 0.1])
    _, info = env.reset(seed=0)
    for _ in range(49):
        _, _, _, truncated, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
        assert not truncated
    _, _, terminated, truncated, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert truncated and not terminated and info["outcome"] == "50 illegal actions in a row"
    assert gym.spec(env_id).max_episode_steps == MAX_EPISODE_STEPS


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_flatten_observation_equals_the_flat_observation(env_id: str) -> None:
    wrapped = FlattenObservation(gym.make(env_id))
    flat = gym.make(env_id, flat_observation=True)
    assert wrapped.observation_space == flat.observation_space
    a, info = wrapped.reset(seed=9)
    b, _ = flat.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(50):
        assert np.array_equal(a, b)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        a, _, terminated, truncated, info = wrapped.step(action)
        b, *_ = flat.step(action)
        if terminated or truncated:
            a, info = wrapped.reset()
            b, _ = flat.reset()
