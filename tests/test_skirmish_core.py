"""The core's fights of several fighters a side (issue: skirmishes), through every
entry point: the runner, the Gymnasium env, tournaments and their records."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import duelo  # noqa: F401  (registers the ids)
from duelo.agents.random_policy import RandomPolicy
from duelo.agents.registry import make_policy
from duelo.envs.core.runner import line_up, play_duel
from duelo.envs.infierno.skirmish import InfiernoSkirmishRuleset
from duelo.evaluation.tournament import TournamentSpec, canonical_policies, run_tournament
from tests.hostile import Raiser

SKIRMISH = "duelo/InfiernoSkirmish-v0"


def test_the_runner_needs_a_policy_a_seat() -> None:
    ruleset = InfiernoSkirmishRuleset("three_on_three")
    with pytest.raises(ValueError, match="6 seats to play, 2 policies"):
        play_duel(ruleset, (RandomPolicy(), RandomPolicy()), seed=0)
    assert line_up(ruleset, "a", "b") == ("a", "a", "a", "b", "b", "b")  # type: ignore[arg-type]


def test_a_faulty_policy_loses_the_fight_for_its_whole_side() -> None:
    ruleset = InfiernoSkirmishRuleset("two_on_two")
    result = play_duel(ruleset, line_up(ruleset, RandomPolicy(), Raiser()), seed=0)
    assert result.outcome.winner == 0 and "side B forfeits" in result.outcome.reason
    assert ruleset.sides[result.forfeit] == 1


@pytest.mark.parametrize("seat", range(4))
def test_every_fighter_of_a_side_shares_its_reward(seat: int) -> None:
    """The learner may be any fighter; its reward is its side's (§13.8)."""
    env = gym.make(SKIRMISH, opponent="expert", ally="expert", learner_seat=seat)
    side = env.unwrapped.ruleset.sides[seat]
    rng = np.random.default_rng(seat)
    for episode in range(4):
        _, info = env.reset(seed=episode)
        done, reward = False, 0.0
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            done = terminated or truncated
        winner = info["winner"]
        assert reward == (0.0 if winner == -1 else (1.0 if winner == side else -1.0))


def test_the_ally_policy_plays_the_learners_side() -> None:
    """An ally that faults forfeits for the learner's side; an enemy that faults for its."""
    env = gym.make(SKIRMISH, opponent="random", ally=Raiser(), learner_seat=0)
    _, info = env.reset(seed=0)
    while "outcome" not in info:
        _, reward, *_, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "the ally" in info["outcome"] and info["winner"] == 1 and reward == -1.0
    env = gym.make(SKIRMISH, opponent=Raiser(), ally="random", learner_seat=0)
    _, info = env.reset(seed=0)
    while "outcome" not in info:
        _, reward, *_, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "the opponent" in info["outcome"] and info["winner"] == 0 and reward == 1.0


def test_a_learner_seat_outside_the_fight_is_refused() -> None:
    with pytest.raises(ValueError, match="0..3"):
        gym.make(SKIRMISH, learner_seat=4)


def test_a_tournament_of_teams_scores_as_the_runner_plays(tmp_path: Path) -> None:
    """Each record's winner is the side the runner's fight gave, with the sides swapped
    from game to game as a duel's seats are."""
    policies = canonical_policies("infierno_skirmish", ["expert", "aggressive"], {})
    spec = TournamentSpec("infierno_skirmish", policies, duels=8, seed=0)
    records = run_tournament(spec, tmp_path, workers=1)
    assert len(records) == 8 and {r["seat_of_a"] for r in records} == {0, 1}
    stored = [json.loads(line) for line in next(tmp_path.rglob("results.jsonl")).open()]
    for record in stored:
        ruleset = InfiernoSkirmishRuleset(**record["variant"])
        a, b = (make_policy(name, "infierno_skirmish") for name in (record["a"], record["b"]))
        sides = (a, b) if record["seat_of_a"] == 0 else (b, a)
        outcome = play_duel(ruleset, line_up(ruleset, *sides), record["seed"]).outcome
        side_of_a = record["seat_of_a"]
        expected = None if outcome.winner is None else ("a" if outcome.winner == side_of_a else "b")
        assert record["winner"] == expected
