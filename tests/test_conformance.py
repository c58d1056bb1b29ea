"""One conformance suite over every registered duelo env id (STYLE #8).

A new ruleset registered in `duelo.registration` gets all of these for free.
"""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import duelo  # noqa: F401  (registers the ids)
from duelo.agents.registry import make_policy, policy_names
from duelo.envs.core.runner import line_up, play_duel

ENV_IDS = sorted(spec_id for spec_id in gym.registry if spec_id.startswith("duelo/"))


def test_every_system_is_registered() -> None:
    assert ENV_IDS == sorted(i for system in duelo.SYSTEMS.values() for i in system.env_ids)


@pytest.mark.parametrize("system", duelo.SYSTEMS.values(), ids=lambda system: system.id)
def test_one_entry_point_and_the_rulesets_version_in_the_id(system: duelo.System) -> None:
    spec = gym.spec(system.env_id)
    assert spec.entry_point == "duelo.registration:make_env"
    assert spec.kwargs == {"system": system.id}
    version = gym.make(system.env_id).unwrapped.ruleset.version
    assert system.env_id == f"duelo/{system.name}-v{version}"


# Both checkers step unmasked random actions: they pass on the default settings, where
# an illegal action is a penalised no-op.


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.filterwarnings("error")  # the checker only warns of what a client would trip on
def test_gymnasium_check_env(env_id: str) -> None:
    check_env(gym.make(env_id).unwrapped)
    check_env(gym.make(env_id, render_mode="ansi").unwrapped)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("flat", [False, True])
def test_stable_baselines3_check_env(env_id: str, flat: bool) -> None:
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env_checker.check_env(gym.make(env_id, flat_observation=flat), warn=False)


def rollout(env: gym.Env, seed: int, steps: int) -> list[tuple]:
    """Legal-only play through several episodes, recording everything observable."""
    trace = []
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(steps):
        mask = info["action_mask"]
        action = env.action_space.sample(mask=mask.astype(np.int8))
        assert mask[action], "sampling through the mask gave an illegal action"
        observation, reward, terminated, truncated, info = env.step(action)
        flat = np.concatenate([np.ravel(v) for v in observation.values()])
        trace.append(
            (action, flat.tobytes(), reward, terminated, truncated, info["action_mask"].tobytes())
        )
        if terminated or truncated:
            observation, info = env.reset()
    return trace


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_duels_across_episode_boundaries(env_id: str) -> None:
    first = rollout(gym.make(env_id), seed=7, steps=300)
    second = rollout(gym.make(env_id), seed=7, steps=300)
    assert sum(step[3] or step[4] for step in first) >= 2, "the rollout should span episodes"
    assert first == second
    assert rollout(gym.make(env_id), seed=8, steps=300) != first


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_observations_stay_in_space_and_masks_nonempty(env_id: str) -> None:
    env = gym.make(env_id)
    observation, info = env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(500):
        assert env.observation_space.contains(observation)
        assert info["action_mask"].any()
        assert np.array_equal(info["action_mask"], env.unwrapped.action_masks())
        action = env.action_space.sample(mask=info["action_mask"].astype(np.int8))
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            assert env.observation_space.contains(observation)  # the final one too
            assert not info["action_mask"].any()
            observation, info = env.reset()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_flat_view_equals_the_dict(env_id: str) -> None:
    dict_env = gym.make(env_id)
    flat_env = gym.make(env_id, flat_observation=True)
    spec = dict_env.unwrapped.ruleset.observation_spec
    obs, info = dict_env.reset(seed=5)
    flat, _ = flat_env.reset(seed=5)
    for _ in range(100):
        assert flat_env.observation_space.contains(flat)
        assert np.array_equal(spec.flatten(obs), flat)
        for key in spec.keys:
            assert np.array_equal(flat[spec.slice_of(key.name)], obs[key.name].ravel())
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, terminated, truncated, info = dict_env.step(action)
        flat, *_ = flat_env.step(action)
        if terminated or truncated:
            obs, info = dict_env.reset()
            flat, _ = flat_env.reset()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_pickling_mid_episode_resumes_the_same_duel(env_id: str) -> None:
    env = gym.make(env_id)
    _, info = env.reset(seed=11)
    env.action_space.seed(11)
    for _ in range(3):
        action = env.action_space.sample(mask=info["action_mask"].astype(np.int8))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    clone = pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, clone.unwrapped.action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        original = env.step(action)
        copy = clone.step(action)
        assert all(np.array_equal(original[0][k], copy[0][k]) for k in original[0])
        assert original[1:4] == copy[1:4]
        if original[2] or original[3]:
            env.reset(seed=12)
            clone.reset(seed=12)


@pytest.mark.parametrize("system", duelo.SYSTEMS.values(), ids=lambda system: system.id)
def test_every_scripted_npc_plays_every_setup_without_a_fault(system: duelo.System) -> None:
    """Each NPC, on either side against the expert, through every setup of the suite:
    a fault (an exception, an illegal action) would forfeit a tournament's duel."""
    expert = make_policy(f"{system.id}:expert", system.id)
    for setup in system.suite or ({},):
        ruleset = system.ruleset(**setup)
        for name in policy_names(system.id):
            npc = make_policy(name, system.id)
            for seed in range(4):
                pair = (npc, expert) if seed % 2 else (expert, npc)
                result = play_duel(ruleset, line_up(ruleset, *pair), seed)
                assert "forfeits" not in result.outcome.reason, (name, setup, seed)
