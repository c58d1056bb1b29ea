"""The dice every ruleset rolls: numpy's faces from blocks, seeded once, never shared."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import duelo  # noqa: F401  (registers the env ids)
from duelo.envs.core.dice import GeneratorDice

# Sides a duel rolls, plus ranges where numpy's rejection step fires often (2**31 + 5),
# its 32-bit edges (2**32 - 1; 2**32 takes a raw word) and a single value (no draw).
SIDES = [2, 3, 6, 20, 100, 7, 37, 2**31 + 5, 2**32 - 1, 2**32, 1]


@pytest.mark.parametrize("seed", [0, 1, 2026, 2**63 - 1])
def test_generator_dice_roll_numpys_faces(seed: int) -> None:
    order = np.random.default_rng(seed + 1).choice(SIDES, size=3000).tolist()
    reference = np.random.default_rng(seed)
    dice = GeneratorDice(seed)
    for sides in order:
        assert dice.roll(sides, "test") == int(reference.integers(1, sides + 1)), sides


def test_generator_dice_take_a_seed_sequence_child() -> None:
    """The tournament runner seeds its dice with a spawned child."""
    child = np.random.SeedSequence(99).spawn(3)[0]
    reference = np.random.default_rng(np.random.SeedSequence(99).spawn(3)[0])
    dice = GeneratorDice(child)
    assert [dice.roll(20, "test") for _ in range(500)] == reference.integers(1, 21, 500).tolist()


@pytest.mark.parametrize("sides", [0, -3, 2**32 + 1])
def test_generator_dice_refuse_impossible_dice(sides: int) -> None:
    with pytest.raises(ValueError, match=f"d{sides} cannot be rolled \\(for damage\\)"):
        GeneratorDice(0).roll(sides, "damage")


class FirstLegal:
    """Plays the first legal action; `draws` extra numbers from its generator first."""

    description = "first legal action"

    def __init__(self, draws: int) -> None:
        self.name = f"first_legal_{draws}"
        self.draws = draws

    def act(self, observation: object, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        rng.random(self.draws)
        return int(np.flatnonzero(action_mask)[0])


def narrated_duels(opponent: FirstLegal, seed: int, episodes: int) -> list[str]:
    env = gym.make("duelo/Infierno-v2", opponent=opponent, learner_seat=0, render_mode="ansi")
    env.reset(seed=seed)
    duels = []
    for _ in range(episodes):
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            *_, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
            done = terminated or truncated
        duels.append(env.render())
        env.reset()
    return duels


def test_env_dice_follow_the_seed_not_the_opponents_draws() -> None:
    quiet = narrated_duels(FirstLegal(draws=0), seed=5, episodes=4)
    assert narrated_duels(FirstLegal(draws=0), seed=5, episodes=4) == quiet
    assert narrated_duels(FirstLegal(draws=7), seed=5, episodes=4) == quiet
    assert narrated_duels(FirstLegal(draws=0), seed=6, episodes=4) != quiet
