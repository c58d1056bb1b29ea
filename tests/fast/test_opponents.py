"""The batched engine against opponents other than the random policy: scripted NPCs and
brains (deciding on arrays, or row by row through the referee with the row's own
generator), policies that fault (a forfeit, as `DuelEnv` rules it), and a training
pool's draw of a new opponent for every duel. Every case is checked against the scalar
envs, decision for decision (`helpers.compare`, or the scalar twins below)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba")

import duelo  # noqa: E402,F401  (registers the env ids)
from duelo.agents.random_policy import RandomPolicy  # noqa: E402
from duelo.agents.registry import make_policy  # noqa: E402
from duelo.envs.core.duel_env import DuelEnv  # noqa: E402
from duelo.envs.core.policy import BatchPolicy, plays_uniform_legal  # noqa: E402
from duelo.envs.fast.engine import BatchedDuels  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

OPPONENTS = [
    ("duelo/Infierno-v2", "expert"),  # on arrays
    ("duelo/Infierno-v2", "brain:infierno"),
    ("duelo/EsgrimaDuel-v2", "expert"),  # row by row
    ("duelo/Liminal-v2", "expert"),
    ("duelo/LiminalMob-v2", "cautious"),
    ("duelo/Dunwich-v2", "expert"),
    ("duelo/Vampiro-v2", "expert"),
    ("duelo/Vampiro-v2", "aggressive"),
]


@pytest.mark.parametrize(("env_id", "opponent"), OPPONENTS)
def test_a_scripted_or_trained_opponent_plays_as_in_the_scalar_env(
    env_id: str, opponent: str
) -> None:
    assert compare(env_id, {"opponent": opponent}, 1_000) > 5


class Flaky:
    """Draws a legal action from its generator, and now and then raises or answers an
    illegal action: a forfeit, at any point of a duel."""

    name = "flaky"
    description = "random, with faults"

    def act(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray, rng: Any) -> int:
        draw = rng.random()
        if draw < 0.02:
            raise RuntimeError("a fault")
        if draw < 0.04:
            return int(np.flatnonzero(~action_mask)[0]) if not action_mask.all() else -1
        return int(rng.choice(np.flatnonzero(action_mask)))


class WrongOnThree:
    """Decides on arrays (`BatchPolicy`): the last legal action, or an illegal one where
    exactly three are legal."""

    name = "wrong_on_three"
    description = "last legal, illegal with three to choose from"

    def act(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray, rng: Any) -> int:
        return int(self.act_batch(np.zeros((1, 1)), action_mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        last = action_masks.shape[1] - 1 - action_masks[:, ::-1].argmax(axis=1)
        illegal = (~action_masks).argmax(axis=1)
        return np.where(action_masks.sum(axis=1) == 3, illegal, last)


@pytest.mark.parametrize("policy", [Flaky(), WrongOnThree()], ids=["row_by_row", "on_arrays"])
@pytest.mark.parametrize("env_id", ["duelo/Dunwich-v2", "duelo/Vampiro-v2"])
def test_a_faulty_opponent_forfeits_as_in_the_scalar_env(env_id: str, policy: Any) -> None:
    assert isinstance(policy, BatchPolicy) == (type(policy) is WrongOnThree)
    assert compare(env_id, {"opponent": policy}, 2_000) > 20


@pytest.mark.parametrize("policy", [Flaky(), WrongOnThree()], ids=["row_by_row", "on_arrays"])
def test_the_single_fast_env_names_the_forfeit(policy: Any) -> None:
    fast = gym.make("duelo/Vampiro-v2", engine="fast", opponent=policy)
    scalar = gym.make("duelo/Vampiro-v2", opponent=policy)
    rng = np.random.default_rng(1)
    forfeits = 0
    for seed in range(60):
        _, info = fast.reset(seed=seed)
        _, expected = scalar.reset(seed=seed)
        done = False
        while not done:
            np.testing.assert_array_equal(info["action_mask"], expected["action_mask"])
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, terminated, truncated, info = fast.step(action)
            _, expected_reward, *_, expected = scalar.step(action)
            assert reward == expected_reward
            done = terminated or truncated
        assert info["outcome"] == expected["outcome"]
        assert info["winner"] == expected["winner"]
        forfeits += "forfeits" in info["outcome"]
    assert forfeits > 3


@pytest.mark.parametrize("same_step", [False, True])
def test_each_duel_plays_the_opponent_drawn_for_it(same_step: bool) -> None:
    """A pool's `draw` (random, an NPC on arrays, one row by row): each row's duel
    against the policy the engine dealt it is the scalar env's against that policy."""
    env_id, num_envs = "duelo/Liminal-v2", 6
    pool = [make_policy(name, "liminal") for name in ("random", "aggressive", "expert")]
    rng = np.random.default_rng(7)
    engine = BatchedDuels(
        gym.make(env_id, flat_observation=True).unwrapped,
        num_envs,
        same_step=same_step,
        draw=lambda: pool[int(rng.integers(len(pool)))],
    )
    scalars: list[DuelEnv] = []
    for _ in range(num_envs):
        env = gym.make(env_id, flat_observation=True).unwrapped
        assert isinstance(env, DuelEnv)
        scalars.append(env)
    engine.reset(list(range(num_envs)))

    def deal(row: int, seed: int | None = None) -> np.ndarray:
        scalars[row].opponent = engine.policies[engine.playing[row]]
        observation, _ = scalars[row].reset(seed=seed)
        return observation

    expected = [deal(row, seed=row) for row in range(num_envs)]
    opponents, ended = set(), 0
    for _ in range(600):
        np.testing.assert_array_equal(engine.observations, np.array(expected))
        for row, env in enumerate(scalars):
            np.testing.assert_array_equal(engine.masks[row], env.action_masks())
            opponents.add(env.opponent.name)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in engine.masks])
        needs_reset = engine.seats["needs_reset"].copy()
        engine.advance(actions)
        for row, env in enumerate(scalars):
            if needs_reset[row]:
                expected[row] = deal(row)
                continue
            observation, reward, terminated, truncated, _ = env.step(int(actions[row]))
            assert engine.rewards[row] == reward
            assert (engine.terminated[row], engine.truncated[row]) == (terminated, truncated)
            expected[row] = observation
            if (terminated or truncated) and same_step:
                np.testing.assert_array_equal(engine.final_observations[row], observation)
                expected[row] = deal(row)
            ended += terminated or truncated
    assert ended > 20
    assert opponents == {"random", "aggressive", "expert"}


def test_a_policy_in_a_process_of_its_own_is_refused() -> None:
    """A sandboxed policy gets a fresh process for every duel, which one batch of
    interleaved duels cannot give it."""
    with pytest.raises(ValueError, match="process of its own"):
        gym.make_vec("duelo/Dunwich-v2", num_envs=2, opponent="tests.hostile:Raiser")


class FirstLegal(RandomPolicy):
    """A subclass of the random policy that decides otherwise: it must be asked, not
    replayed in the kernels as the random policy is."""

    def act(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray, rng: Any) -> int:
        return int(np.flatnonzero(action_mask)[0])


def test_only_the_random_policy_itself_is_replayed_in_the_kernels() -> None:
    assert plays_uniform_legal(RandomPolicy()) and not plays_uniform_legal(FirstLegal())
    assert compare("duelo/Infierno-v2", {"opponent": FirstLegal()}, 1_000) > 5
