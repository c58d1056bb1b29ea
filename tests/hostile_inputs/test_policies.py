"""Policies named by string in `duelo duel`, `duelo play`, the env seat and a tournament:
one that hangs, exits or breaks while built or while it moves loses its duel, or is
refused before any duel, and never hangs or ends the program."""

from __future__ import annotations

import io
from pathlib import Path

import gymnasium as gym
import pytest

import duelo  # noqa: F401  (registers the ids)
from duelo.agents import sandbox
from duelo.agents.registry import make_policy
from duelo.agents.sandbox import SandboxedPolicy
from duelo.cli import main
from duelo.envs.core.runner import play_duel
from duelo.envs.infierno import InfiernoRuleset
from duelo.play import play

MOVERS = {  # a policy that breaks while it moves: what its forfeit says
    "tests.hostile:Hanger": "took more than 1.0 s for a move",
    "tests.hostile:Exiter": "ended its process without an answer (exit status 3)",
    "tests.hostile:SysExiter": "raised SystemExit: 5",
    "tests.hostile:Raiser": "raised ValueError: boom",
}
BUILDS = {  # one that breaks while it is built
    "tests.hostile:BuildHanger": "took more than 1.0 s for a build",
    "tests.hostile:BuildExiter": "ended its process without an answer (exit status 9)",
    "tests.hostile:BuildRaiser": "could not be built: no brain today",
}


@pytest.fixture(autouse=True)
def _short_build_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "BUILD_TIME_LIMIT", 1.0)


@pytest.mark.parametrize("policy", [*MOVERS, *BUILDS])
def test_duelo_duel_ends_with_a_forfeit(policy: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["duel", "infierno", "--a", policy, "--b", "random", "--scenario", "brawl"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    result = out.splitlines()[-1]
    assert result.startswith("Result: side B wins (side A forfeits")
    assert {**MOVERS, **BUILDS}[policy] in result


@pytest.mark.parametrize("policy", [*MOVERS, *BUILDS])
def test_duelo_play_ends_with_the_npc_forfeiting(policy: str) -> None:
    answers = io.StringIO("1\n" * 500)  # the first legal move, each time
    out = io.StringIO()
    outcome = play(
        "infierno",
        policy,
        seed=2,
        seats=(0,),
        variant={"scenario": "brawl"},
        answers=answers,
        out=out,
    )
    assert outcome.winner == 0 and {**MOVERS, **BUILDS}[policy] in outcome.reason


@pytest.mark.parametrize("policy", ["tests.hostile:Hanger", "tests.hostile:Exiter"])
def test_the_env_seat_forfeits_a_hostile_opponent(policy: str) -> None:
    env = gym.make("duelo/Infierno-v2", opponent=policy, scenario="brawl", learner_seat=0)
    try:
        for seed in range(3):
            env.reset(seed=seed)
            ended = False
            while not ended:
                action = int(env.unwrapped.action_masks().nonzero()[0][0])
                _, reward, terminated, truncated, info = env.step(action)
                ended = terminated or truncated
            assert reward > 0 and MOVERS[policy] in info["outcome"], info
    finally:
        env.close()


@pytest.mark.parametrize("policy", BUILDS)
def test_a_tournament_refuses_a_policy_that_breaks_while_built_before_any_duel(
    tmp_path: Path, policy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["tournament", "--system", "infierno", "--policies", policy, "infierno:random"]
    assert main([*argv, "--duels", "2", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"duelo: error: policy {policy} ") and BUILDS[policy] in error
    assert not out.exists()


@pytest.mark.parametrize("policy", ["tests.hostile:DeepAnswerer", "tests.hostile:HugeIntAnswerer"])
def test_an_answer_past_json_s_bounds_is_a_forfeit(policy: str) -> None:
    hostile = SandboxedPolicy(policy, "infierno", time_limit=10.0)
    result = play_duel(
        InfiernoRuleset(scenario="brawl"), (hostile, make_policy("random", "infierno")), seed=6
    )
    assert result.forfeit == 0 and "not a move" in result.outcome.reason
