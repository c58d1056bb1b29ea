"""A policy scores alike through every entry point: the same pairing played through the
Gymnasium env (the policy as the learner, at every seat of its side in turn, its allies
played by it too) and through a tournament gives scores that agree within the interval
of their difference. A learner seated on the wrong side, a reward of the wrong sign or an
opponent the env plays differently would each set the two apart."""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import duelo  # noqa: F401  (registers the ids)
from duelo.agents.registry import make_policy
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.tournament import TournamentSpec, run_tournament

FIGHTS = 200
"""Fights each way: the expert beats the aggressive NPC in every system (0.62 in
Infierno's duel, 0.91 in the Dunwich skirmish), so a side flipped sets the two scores
apart by well over the bound below (0.10 to 0.16)."""
Z = 3.2905
"""Two-sided 99.9 %: eleven systems, so a false alarm in about one run of 90."""


def _env_score(name: str) -> float:
    """The expert as the learner against the aggressive NPC, seated at each seat in turn
    (so on both sides), its allies in a skirmish played by the expert too."""
    info = SYSTEMS[name]
    sides = info.ruleset().sides
    expert = make_policy("expert", name)
    kwargs = {"ally": "expert"} if len(sides) > 2 else {}
    total = 0.0
    for fight in range(FIGHTS):
        seat = fight % len(sides)
        env = gym.make(info.env_id, opponent="aggressive", learner_seat=seat, **kwargs)
        observation, step_info = env.reset(seed=fight)
        rng = np.random.default_rng(fight)
        reward, done = 0.0, False
        while not done:
            action = expert.act(observation, step_info["action_mask"], rng)
            observation, reward, terminated, truncated, step_info = env.step(action)
            done = terminated or truncated
        total += (float(reward) + 1) / 2  # +1 won, 0 a draw or the round cap, -1 lost
        env.close()
    return total / FIGHTS


def _tournament_score(name: str, out: Path) -> float:
    """The same pairing in a tournament (sides swapped game by game)."""
    policies = (f"{name}:expert", f"{name}:aggressive")
    records = run_tournament(TournamentSpec(name, policies, duels=FIGHTS, seed=0), out)
    assert len(records) == FIGHTS
    total = 0.0
    for record in records:
        if record["winner"] is None:
            total += 0.5
        else:
            total += record[record["winner"]] == policies[0]
    return total / FIGHTS


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_a_policy_scores_alike_through_the_env_and_a_tournament(name: str, tmp_path: Path) -> None:
    env_score = _env_score(name)
    tournament_score = _tournament_score(name, tmp_path)
    pooled = (env_score + tournament_score) / 2
    # a score in [0, 1] with this mean has at most a Bernoulli's variance
    bound = Z * math.sqrt(pooled * (1 - pooled) * 2 / FIGHTS)
    assert abs(env_score - tournament_score) <= bound, (env_score, tournament_score, bound)
