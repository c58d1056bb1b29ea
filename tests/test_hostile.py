"""Hostile policies lose their own duel and break nothing: not the env, not the runner, not
a tournament (issue 12)."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

import duelo  # noqa: F401  (registers the ids)
from duelo.agents.registry import make_policy
from duelo.agents.sandbox import SandboxedPolicy
from duelo.envs.core.runner import play_duel
from duelo.envs.infierno import InfiernoRuleset
from duelo.evaluation.tournament import TournamentSpec, run_tournament
from tests import hostile


@pytest.mark.parametrize(
    ("policy", "reason"),
    [
        (hostile.MaskEditor(), "chose illegal action"),
        (hostile.Raiser(), "raised ValueError: boom\\nDuel over"),
        (hostile.SysExiter(), "raised SystemExit: 5"),
        (hostile.NonInteger(), "returned 0.7, not an action number"),
        (hostile.StringAnswer(), "returned '0', not an action number"),
    ],
)
def test_a_misbehaving_policy_forfeits_the_duel(policy: object, reason: str) -> None:
    for seat in (0, 1):
        policies = [make_policy("random", "infierno")] * 2
        policies[seat] = policy
        result = play_duel(InfiernoRuleset(scenario="brawl"), tuple(policies), seed=3)
        assert result.forfeit == seat and result.outcome.winner == 1 - seat
        assert reason in result.outcome.reason and "\n" not in result.outcome.reason
        assert len(result.outcome.reason) < 300  # someone else's text, bounded


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tournament_survives_hangs_and_exits(tmp_path: Path, workers: int) -> None:
    spec = TournamentSpec(
        system="infierno",
        policies=("tests.hostile:Hanger", "tests.hostile:Exiter", "infierno:random"),
        duels=2,
        move_time_limit=0.5,
        variant={"scenario": "brawl"},
    )
    records = run_tournament(spec, tmp_path, workers=workers)
    assert len(records) == 6
    for record in records:
        hostile_sides = [side for side in "ab" if "hostile" in record[side]]
        assert record["forfeit"] in hostile_sides, record
    reasons = " ".join(record["reason"] for record in records)
    assert "took more than 0.5 s for a move and was stopped" in reasons
    assert "ended its process without an answer (exit status 3)" in reasons


def test_an_opponent_that_cheats_forfeits_in_the_env() -> None:
    env = gym.make("duelo/Infierno-v2", opponent=hostile.MaskEditor(), learner_seat=0)
    forfeits = 0
    for episode in range(10):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            action = int(np.flatnonzero(info["action_mask"])[0])
            _, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        if "forfeits: its policy chose illegal action" in info["outcome"]:
            forfeits += 1
            assert reward == 1.0 and info["winner"] == 0
    assert forfeits == 10


def test_an_opponent_cannot_reach_the_dice_through_its_generator() -> None:
    """The generator an opponent is handed shares no state with the one that seeded the
    dice: rewinding it finds no dice seed (handing it `np_random` gave the deck away)."""
    thief = hostile.SeedThief()
    env = gym.make("duelo/EsgrimaDuel-v2", opponent=thief, learner_seat=0)
    dice_seeds = set()
    for seed in range(40):
        env.reset(seed=seed)
        dice_seeds.add(int(seeding.np_random(seed)[0].integers(2**63)))
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert thief.candidates and not thief.candidates & dice_seeds


def test_a_policy_process_that_ends_leaves_no_pipe_open() -> None:
    """Each forfeit by exit restarts the policy's process; the old one's pipes are closed
    by us, not left to the garbage collector (a ResourceWarning, or worse elsewhere)."""
    policy = SandboxedPolicy("tests.hostile:Exiter", "infierno", time_limit=5.0)
    ruleset = InfiernoRuleset(scenario="brawl")
    opponent = make_policy("random", "infierno")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for seed in range(3):
            policy.new_duel()
            result = play_duel(ruleset, (policy, opponent), seed=seed)
            assert result.forfeit == 0 and "exit status 3" in result.outcome.reason
        policy.close()
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
