"""`gymnasium.make(id, engine="fast")`: one duel on the batched engine is `gymnasium.make(id)`
decision for decision (observations, masks, rewards, endings and every `info` key, the
outcome's words included), through Gymnasium's and stable-baselines3's own checkers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import gymnasium as gym  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import duelo  # noqa: E402, F401  (registers the ids)
from duelo.envs.core.ruleset import IllegalActionError  # noqa: E402
from duelo.envs.fast.scalar_env import FastDuelEnv  # noqa: E402
from duelo.envs.systems import SYSTEMS, batched_systems  # noqa: E402

ENV_IDS = tuple(env_id for name in batched_systems() for env_id in SYSTEMS[name].env_ids)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b)) and type(a) is type(b)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("kwargs", [{"flat_observation": True}, {}])
def test_the_fast_env_plays_the_reference_duels(env_id: str, kwargs: dict[str, Any]) -> None:
    """1,000 decisions, one in ten drawn from the whole action space, and bursts of three
    illegal ones, which truncate the duel (illegal_limit 3); resets with and without seeds."""
    reference = gym.make(env_id, illegal_limit=3, **kwargs)
    fast = gym.make(env_id, illegal_limit=3, engine="fast", **kwargs)
    assert isinstance(fast.unwrapped, FastDuelEnv)
    rng = np.random.default_rng(7)
    decisions = episodes = 0
    endings = set()
    while decisions < 1000:
        seed = 50 + episodes if episodes % 3 == 0 else None
        expected, got = reference.reset(seed=seed), fast.reset(seed=seed)
        assert same(expected, got)
        info = expected[1]
        while True:
            mask = info["action_mask"]
            burst = decisions % 97 < 3 and not mask.all()  # three illegal ones in a row
            wild = rng.random() < 0.1
            if burst:
                action = int(rng.choice(np.flatnonzero(~mask)))
            else:
                action = int(rng.integers(mask.size) if wild else rng.choice(np.flatnonzero(mask)))
            expected, got = reference.step(action), fast.step(action)
            assert same(expected, got), (decisions, action, expected[1:], got[1:])
            decisions += 1
            info = expected[4]
            if expected[2] or expected[3]:
                endings.add(info["outcome"].split()[-1])
                break
        episodes += 1
    assert "row" in endings and len(endings) >= 3  # the illegal-action limit and others


def test_an_illegal_action_raises_as_the_reference_does() -> None:
    reference = gym.make("duelo/Infierno-v2", illegal_action="raise").unwrapped
    fast = gym.make("duelo/Infierno-v2", illegal_action="raise", engine="fast").unwrapped
    _, info = reference.reset(seed=3)
    fast.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(IllegalActionError) as expected:
        reference.step(illegal)
    with pytest.raises(IllegalActionError) as got:
        fast.step(illegal)
    assert str(got.value) == str(expected.value)
    with pytest.raises(IllegalActionError, match="integer"):
        fast.step(2.5)


def test_the_fast_env_refuses_what_it_does_not_serve() -> None:
    with pytest.raises(RuntimeError, match="before reset"):
        gym.make("duelo/EsgrimaDuel-v2", engine="fast").unwrapped.step(0)
    with pytest.raises(ValueError, match="does not narrate"):
        gym.make("duelo/EsgrimaDuel-v2", engine="fast", render_mode="ansi")
    with pytest.raises(ValueError, match="engine must be one of"):
        gym.make("duelo/Infierno-v2", engine="numba")
    with pytest.raises(ValueError, match="no batched engine for 'esgrima'"):
        gym.make("duelo/Esgrima-v2", engine="fast")
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gym.make_vec("duelo/Infierno-v2", num_envs=2, engine="python")
    env = gym.make("duelo/EsgrimaDuel-v2", engine="fast")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no options"):
        env.reset(options={"scenario": "x"})
    ended = False
    while not ended:
        _, _, terminated, truncated, info = env.step(int(np.argmax(info_mask(env))))
        ended = terminated or truncated
    with pytest.raises(RuntimeError, match=r"after the duel ended \(.+\)"):
        env.step(0)


def info_mask(env: gym.Env) -> np.ndarray:
    return env.unwrapped.action_masks()  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_and_stable_baselines3_check_the_fast_env(env_id: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker only warns of what a client would trip on
        check_env(gym.make(env_id, engine="fast").unwrapped, skip_render_check=True)
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(gym.make(env_id, engine="fast", flat_observation=True), warn=False)


def test_stable_baselines3_builds_and_trains_it_by_env_id() -> None:
    """The user's own entry point: SB3's `make_vec_env` with `env_kwargs={"engine": "fast"}`,
    and MaskablePPO learning on it through the masks it reads from each env."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = env_util.make_vec_env(
        "duelo/Infierno-v2",
        n_envs=2,
        seed=0,
        env_kwargs={"engine": "fast", "flat_observation": True},
    )
    assert all(isinstance(env.unwrapped, FastDuelEnv) for env in venv.envs)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
