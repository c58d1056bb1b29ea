"""The batched fencing duel plays the scalar env's duels, decision for decision
(`helpers.compare`), and behaves as a Gymnasium vector env should."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba")

import duelo  # noqa: E402,F401  (registers the env ids)
from duelo.envs.core.ruleset import IllegalActionError  # noqa: E402
from duelo.envs.fast.streams import roll, seeded_stream  # noqa: E402
from duelo.envs.fast.vector_env import DuelVectorEnv  # noqa: E402
from duelo.registration import SYSTEMS, make_env  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

VARIANTS = {
    "symmetric": "duelo/EsgrimaDuel-v2",
    "faithful": "duelo/EsgrimaDuelFaithful-v2",
    "first_blood": "duelo/EsgrimaDuel-v2",
}
KWARGS = {"first_blood": {"options": {"duel_end": "first_blood", "deck_copies": 2}}}
"""A third setup: first blood ends the duel, and a 12-card deck reshuffles often."""


def test_the_registration_names_every_compiled_system() -> None:
    """Each id of a compiled system has the batch as its vector entry point; no other id."""
    for info in SYSTEMS.values():
        for env_id in info.env_ids:
            batched = gym.spec(env_id).vector_entry_point is not None
            assert batched == (info.fast is not None), env_id


def test_streams_roll_numpys_faces() -> None:
    """PCG64 and `Generator.integers` replayed: the same faces from the same seed."""
    stream = seeded_stream(np.random.SeedSequence(2026))
    generator = np.random.default_rng(np.random.SeedSequence(2026))
    sides = np.random.default_rng(1).choice([1, 2, 3, 6, 7, 20, 36, 2**31 + 11], 5000)
    assert [roll(stream, int(n)) - 1 for n in sides] == [generator.integers(n) for n in sides]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_thousand_decisions_match_the_reference(variant: str) -> None:
    assert compare(VARIANTS[variant], KWARGS.get(variant, {}), 1_000) > 10


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_hundred_thousand_decisions_match_the_reference(variant: str) -> None:
    kwargs = KWARGS.get(variant, {})
    assert compare(VARIANTS[variant], kwargs, 100_000, num_envs=64, seed=2026) > 1_000


def test_same_step_autoreset_keeps_the_last_observation() -> None:
    """SAME_STEP: the ending step returns the new duel; `final_obs` and `final_info` hold
    the old one's end, which is what a scalar env returned on that step (its winner was
    once read from the row after the new duel was dealt there)."""
    fast = gym.make_vec(
        "duelo/EsgrimaDuel-v2", num_envs=4, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
    )
    scalars = [make_env("esgrima_duel") for _ in range(4)]
    observations, info = fast.reset(seed=3)
    for row, env in enumerate(scalars):
        env.reset(seed=3 + row)
    rng = np.random.default_rng(0)
    ended_once = False
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        observations, rewards, terminated, truncated, info = fast.step(actions)
        for row, env in enumerate(scalars):
            expected, reward, _, _, env_info = env.step(int(actions[row]))
            assert reward == rewards[row]
            if terminated[row] or truncated[row]:
                ended_once = True
                for key in expected:
                    np.testing.assert_array_equal(info["final_obs"][row][key], expected[key])
                assert info["final_info"]["winner"][row] == env_info["winner"]
                expected, _ = env.reset()
            for key in expected:
                np.testing.assert_array_equal(observations[key][row], expected[key])
    assert ended_once


@pytest.mark.parametrize("flat", [True, False])
def test_what_a_step_returned_stays_as_it_was(flat: bool) -> None:
    """The batch hands its arrays over rather than copying them (`BatchedDuels.hand_over`):
    the next steps write new ones, so a step's observations, rewards and flags (kept,
    say, in a rollout) do not change under the caller."""
    fast = gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=8, flat_observation=flat)
    returned, info = fast.reset(seed=5)
    kept = [(returned, None, None, None, info)]
    for _ in range(40):  # long enough for duels to end and be dealt again
        step = fast.step(info["action_mask"].argmax(axis=1))
        kept.append(step)
        info = step[-1]
    snapshot = [_copied(step) for step in kept]
    for _ in range(10):
        info = fast.step(info["action_mask"].argmax(axis=1))[-1]
    assert [_copied(step) for step in kept] == snapshot


def _copied(value: object) -> object:
    """A plain, comparable copy of what a step returned."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [_copied(item) for item in value]
    return value.tolist() if isinstance(value, np.ndarray) else value


def test_a_list_of_seeds_seeds_each_row() -> None:
    envs = gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=3, flat_observation=True)
    by_int, _ = envs.reset(seed=40)
    by_list, _ = envs.reset(seed=[40, 41, 42])
    np.testing.assert_array_equal(by_int, by_list)
    with pytest.raises(ValueError, match="2 seeds for 3 envs"):
        envs.reset(seed=[1, 2])


def test_illegal_actions_follow_the_env_rules() -> None:
    """Penalised no-ops by default; with illegal_action="raise", an error naming the env and
    the action, before any row moves."""
    fast = gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=2, flat_observation=True)
    observations, info = fast.reset(seed=0)
    illegal = np.array([int(np.flatnonzero(~m)[0]) for m in info["action_mask"]])
    again, rewards, terminated, truncated, _ = fast.step(illegal)
    np.testing.assert_array_equal(again, observations)
    assert rewards.tolist() == [-0.1, -0.1] and not terminated.any() and not truncated.any()

    strict = gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=2, illegal_action="raise")
    _, info = strict.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"][0])[0])
    before = strict.engine.duels.copy()
    with pytest.raises(IllegalActionError, match=r"env 1: action 99 is illegal"):
        strict.step(np.array([legal, 99]))
    assert (strict.engine.duels == before).all()


def test_what_the_engine_cannot_play_is_refused() -> None:
    with pytest.raises(ValueError, match="does not narrate"):
        gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=2, render_mode="ansi")
    with pytest.raises(ValueError, match="could cut a duel short"):
        gym.make_vec("duelo/EsgrimaDuel-v2", num_envs=2, max_episode_steps=50)
    with pytest.raises(ValueError, match="no batched engine for 'esgrima'"):
        DuelVectorEnv(make_env("esgrima"), 2)
