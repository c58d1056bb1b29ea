"""Fair play against strategies from anyone (issue 27): each attack of the audit, run
against the guarantee it would break.

- in process, a policy's generator carries nothing the dice came from;
- a policy from a module (`module:Class`) is imported, built and asked in a sandbox
  (`agents/sandbox.py`) that sees neither our processes, nor the duel's state, nor
  the tournament's folder, writes nowhere but its scratch folder, leaves nothing running
  after its duel and cannot flood our output;
- a tournament with such a policy draws its root seed from entropy, which no policy
  can search (a small seed given by hand can be: the test shows it);
- records carry an HMAC (`tests/test_tournament.py` refuses edited ones).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

import duelo  # noqa: F401  (registers the ids)
from duelo.agents import sandbox
from duelo.agents.registry import make_policy
from duelo.agents.sandbox import MAX_STDERR, SandboxedPolicy, SandboxUnavailable
from duelo.envs.core.duel_env import TAKE_RESULT
from duelo.envs.core.policy import Policy
from duelo.envs.core.runner import duel_streams, line_up, play_duel
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.tournament import (
    RESULTS_FILE,
    SECRET_FILE,
    SPEC_FILE,
    TournamentSpec,
    canonical_policies,
    run_tournament,
)
from tests import hostile

REPO = Path(__file__).resolve().parents[1]
isolated = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.mark.parametrize("system_name", sorted(SYSTEMS))
def test_a_generator_in_process_gives_no_dice_away(system_name: str) -> None:
    """40 duels per system: the seed inside the seat's generator rebuilds no dice (the
    attack rebuilt them all while seats were SeedSequence spawns of the duel seed)."""
    ruleset = SYSTEMS[system_name].ruleset()
    rebuilt = 0
    for seed in range(40):
        real = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))).state["state"]
        for seat in (0, 1):
            attacker = hostile.DiceRebuilder()
            policies = [make_policy("random", system_name)] * len(ruleset.sides)
            policies[seat] = attacker
            play_duel(ruleset, tuple(policies), seed)
            if attacker.rebuilt:  # asked at least once (a duel may end first)
                rebuilt += real["state"] in attacker.rebuilt
    assert rebuilt == 0
    assert duel_streams(0)[1][0].bit_generator.seed_seq.entropy != 0  # a hash, not the seed


def _searched(system_name: str, duels: int, tmp: Path) -> None:
    """Sandboxed, a policy holds its generator's state only, and searches small duel seeds
    for it: a duel of a small seed is found (the search is real); none of a tournament's
    `duels`, whose root seed is drawn where a module policy plays."""
    policy = "tests.hostile:DiceSearcher"
    ruleset = SYSTEMS[system_name].ruleset()
    searcher = SandboxedPolicy(policy, system_name, time_limit=30.0)
    random = make_policy("random", system_name)
    small = play_duel(ruleset, line_up(ruleset, searcher, random), seed=7)
    assert "found the duel seed 7" in small.outcome.reason
    spec = TournamentSpec(
        system=system_name,
        policies=(policy, f"{system_name}:random"),
        duels=duels,
        seed=None,
        move_time_limit=30.0,
    )
    records = run_tournament(spec, tmp)
    assert len(records) == duels
    assert not any("found the duel seed" in r["reason"] for r in records)


@isolated
@pytest.mark.parametrize("system_name", sorted(SYSTEMS))
def test_a_sandboxed_generator_gives_no_dice_away(system_name: str, tmp_path: Path) -> None:
    _searched(system_name, 12, tmp_path)


def _tournament(tmp: Path, policy: str, seed: int | None, duels: int = 2) -> list[dict]:
    spec = TournamentSpec(
        system="infierno",
        policies=(policy, "infierno:random"),
        duels=duels,
        seed=seed,
        move_time_limit=10.0,
        variant={"scenario": "brawl"},
    )
    return run_tournament(spec, tmp)


@isolated
def test_a_drawn_root_seed_cannot_be_searched(tmp_path: Path) -> None:
    """A sandboxed policy searching root seeds below 1,000 finds a small given one, and
    none when the tournament draws its seed (the default where such a policy plays)."""
    given = _tournament(tmp_path / "given", "tests.hostile:SeedSearcher", seed=5, duels=4)
    asked = [r for r in given if r["reason"] != "Gunfighter surrenders"]  # some end unasked
    assert asked and all("found the root seed 5" in r["reason"] for r in asked)
    drawn = _tournament(tmp_path / "drawn", "tests.hostile:SeedSearcher", seed=None, duels=4)
    assert not any("found the root seed" in r["reason"] for r in drawn)
    saved = json.loads((tmp_path / "drawn" / SPEC_FILE).read_text())
    assert saved["seed"] >= 2**64 and not (tmp_path / "drawn" / SECRET_FILE).exists()
    replay = TournamentSpec(**{**saved, "policies": tuple(saved["policies"])})
    again = run_tournament(replay, tmp_path / "replay")
    assert again == drawn  # written when it ended, the seed replays every duel
    assert (tmp_path / "replay" / RESULTS_FILE).read_bytes() == (
        tmp_path / "drawn" / RESULTS_FILE
    ).read_bytes()


@isolated
@pytest.mark.parametrize("system_name", sorted(SYSTEMS))
def test_a_sandboxed_policy_finds_no_state_in_gc_or_frames(system_name: str) -> None:
    """In process the reader finds the duel's state (so the attack is real); sandboxed,
    nothing of the duel is in its process to be found."""
    ruleset = SYSTEMS[system_name].ruleset()
    random = make_policy("random", system_name)
    in_process = play_duel(ruleset, line_up(ruleset, hostile.StateReader(), random), seed=1)
    assert "found the hidden state" in in_process.outcome.reason
    reader = SandboxedPolicy("tests.hostile:StateReader", system_name, time_limit=10.0)
    for seed in range(3):
        result = play_duel(ruleset, line_up(ruleset, reader, random), seed)
        assert result.forfeit is None, result.outcome.reason


@isolated
def test_allies_in_a_sandbox_share_no_memory_of_their_sealed_plans() -> None:
    """Dunwich's plans are sealed from allies too (digest §13.6): a policy object that
    plays a whole side in process remembers one fighter's plan when it chooses the
    next's (so the attack is real); sandboxed, each fighter has a process of its own and
    no ally's plan is in it."""
    ruleset = SYSTEMS["dunwich_skirmish"].ruleset(scenario="three_on_three")
    random = make_policy("random", "dunwich_skirmish")
    in_process = play_duel(ruleset, line_up(ruleset, hostile.AllyPeeker(), random), seed=1)
    assert "saw an ally's plan" in in_process.outcome.reason
    peeker = SandboxedPolicy("tests.hostile:AllyPeeker", "dunwich_skirmish", time_limit=10.0)
    seated = line_up(ruleset, peeker, random)
    assert len({id(p) for p in seated[:3]}) == 3  # a process a fighter
    for seed in range(2):
        result = play_duel(ruleset, seated, seed)
        assert result.forfeit is None, result.outcome.reason


@isolated
def test_a_sandboxed_policy_sees_none_of_our_processes() -> None:
    ruleset = SYSTEMS["infierno"].ruleset()
    random = make_policy("random", "infierno")
    in_process = play_duel(ruleset, (hostile.ParentReader(), random), seed=2)
    assert "sees the tournament's processes" in in_process.outcome.reason
    reader = SandboxedPolicy("tests.hostile:ParentReader", "infierno", time_limit=10.0)
    result = play_duel(ruleset, (reader, random), seed=2)
    assert result.forfeit is None, result.outcome.reason


@isolated
def test_a_module_that_attacks_at_import_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its import rewrites every results file it finds and patches the record writer: in
    the sandbox it finds none and patches only itself, so first-legal play loses to the
    expert as it should, and our process never imports it."""
    monkeypatch.chdir(tmp_path)  # results below the working folder, where it looks
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    earlier = tmp_path / "earlier"
    _tournament(earlier, "infierno:aggressive", seed=1)
    before = (earlier / RESULTS_FILE).read_bytes()
    spec = TournamentSpec(
        system="infierno",
        policies=("tests.hostile_import:FirstLegal", "infierno:expert"),
        duels=10,
        seed=4,
        move_time_limit=10.0,
        variant={"scenario": "brawl"},
    )
    canonical_policies("infierno", list(spec.policies))  # the CLI's check of the names
    records = run_tournament(spec, tmp_path / "now")
    wins = sum(r["winner"] == "a" for r in records)
    assert wins < 5 and all(r["forfeit"] is None for r in records)
    assert "tests.hostile_import" not in sys.modules
    assert (earlier / RESULTS_FILE).read_bytes() == before
    assert run_tournament(spec, tmp_path / "now", resume=True) == records  # every mac holds


@isolated
def test_a_sandboxed_forger_writes_nothing_and_kills_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    records = _tournament(tmp_path / "out", "tests.hostile:Forger", seed=None, duels=4)
    assert len(records) == 4
    assert not any("managed" in r["reason"] for r in records), [r["reason"] for r in records]
    lines = (tmp_path / "out" / RESULTS_FILE).read_text().splitlines()
    assert len(lines) == 4 and all('"mac"' in line for line in lines)


def _processes_with(argument: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in command:
            found.append(pid)
    return found


@isolated
def test_nothing_a_sandboxed_policy_starts_outlives_its_duel() -> None:
    ruleset = SYSTEMS["infierno"].ruleset()
    spawner = SandboxedPolicy("tests.hostile:Spawner", "infierno", time_limit=10.0)
    result = play_duel(ruleset, (spawner, make_policy("random", "infierno")), seed=3)
    assert result.forfeit is None, result.outcome.reason
    deadline = time.monotonic() + 10.0
    while _processes_with(hostile.SPAWNED) and time.monotonic() < deadline:
        time.sleep(0.05)  # the kernel ends a dead namespace's processes as it gets to them
    assert not _processes_with(hostile.SPAWNED)


def test_a_flood_of_prints_is_cut(capfd: pytest.CaptureFixture[str]) -> None:
    ruleset = SYSTEMS["infierno"].ruleset()
    flooder = SandboxedPolicy("tests.hostile:Flooder", "infierno", time_limit=10.0)
    result = play_duel(ruleset, (flooder, make_policy("random", "infierno")), seed=4)
    assert result.forfeit is None, result.outcome.reason
    assert result.decisions >= 2  # several moves, 4 MB each
    err = capfd.readouterr().err
    assert len(err) < MAX_STDERR + 200 and "bytes dropped" in err


def test_a_build_that_never_ends_forfeits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "BUILD_TIME_LIMIT", 1.0)
    ruleset = SYSTEMS["infierno"].ruleset()
    slow = SandboxedPolicy("tests.hostile_slow_import:Never", "infierno", time_limit=10.0)
    result = play_duel(ruleset, (slow, make_policy("random", "infierno")), seed=5)
    assert result.forfeit == 0
    assert "took more than 1.0 s for a build and was stopped" in result.outcome.reason


def test_module_policies_are_refused_without_a_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No bubblewrap, no isolation: refused before any duel, saying what to install."""
    monkeypatch.delenv(sandbox.MODE_VARIABLE, raising=False)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        canonical_policies("infierno", ["tests.hostile:Forger", "random"])
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        _tournament(tmp_path / "never-made", "tests.hostile:Forger", seed=None)
    assert not (tmp_path / "never-made").exists()


# --- the Gymnasium env ------------------------------------------------------------------


ENV_IDS = sorted(env_id for info in SYSTEMS.values() for env_id in info.env_ids)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_env_opponent_cannot_search_the_seed(env_id: str) -> None:
    """20 episodes per env id reset with seeds below 100,000: the opponent finds none of
    them by its generator (each was found while that generator was a `SeedSequence` of
    `np_random`'s draw: the lookup is checked on one below)."""
    table = hostile.EnvSeedSearcher.table()
    np_random, _ = seeding.np_random(4321)
    np_random.integers(2**63)
    old = np.random.PCG64(np.random.SeedSequence(int(np_random.integers(2**63))))
    assert table[old.state["state"]["state"]] == 4321  # the attack, on the old derivation
    seeds = np.random.default_rng(27).integers(hostile.EnvSeedSearcher.SEARCH, size=20)
    searcher = hostile.EnvSeedSearcher()
    env = gym.make(env_id, opponent=searcher, opponent_key=secrets.token_bytes(16))
    learner = np.random.default_rng(5)
    for seed in seeds:
        _, info = env.reset(seed=int(seed))
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(learner.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
    if not searcher.asked:
        pytest.skip(f"{env_id}: the opponent's seat never decides (its play is the rules')")
    assert not searcher.found


def _episode(env: gym.Env, learner: Policy, rng: np.random.Generator, seed: int) -> float:
    """One episode of `learner` in `env`: its score (1 win, 0.5 draw, 0 loss)."""
    observation, info = env.reset(seed=seed)
    spec = env.unwrapped.observation_spec
    while True:
        action = learner.act(spec.view(observation), info["action_mask"], rng)
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return (1.0 + float(reward)) / 2.0


def test_a_duel_the_opponent_ends_at_once_still_counts() -> None:
    """The expert against itself in Infierno's formal duel, 2,000 episodes with the seats
    swapped: the env scores it as symmetry does (0.5 within four standard errors, 0.045);
    dealing again the duels the opponent ends at once scored it 0.584."""
    episodes, scores = 2000, []
    for seat in (0, 1):
        env = gym.make(
            "duelo/Infierno-v2",
            opponent="expert",
            learner_seat=seat,
            flat_observation=True,
            scenario="formal_duel",
        )
        learner, rng = make_policy("expert", "infierno"), np.random.default_rng(seat)
        for seed in range(episodes // 2):
            scores.append(_episode(env, learner, rng, seed))
    score = float(np.mean(scores))
    assert abs(score - 0.5) < 4 * np.sqrt(0.25 / episodes), score


def test_an_unplayed_duel_is_one_step_that_takes_its_result() -> None:
    """A seed whose duel the opponent ends before the learner decides: the only legal
    action is `TAKE_RESULT`; another is a penalised no-op; taking it gives the result."""
    env = gym.make("duelo/Infierno-v2", opponent="expert", learner_seat=1)
    for seed in range(200):
        _, info = env.reset(seed=seed)
        if env.unwrapped.state.result is not None:
            break
    else:
        pytest.fail("no duel of 200 ended before the learner's first decision")
    result = env.unwrapped.state.result
    only = np.zeros_like(info["action_mask"])
    only[TAKE_RESULT] = True
    assert (info["action_mask"] == only).all() and "outcome" not in info
    _, reward, terminated, truncated, info = env.step(TAKE_RESULT + 1)
    assert info["illegal_action"] and not (terminated or truncated) and reward < 0
    _, reward, terminated, truncated, info = env.step(TAKE_RESULT)
    assert terminated and not truncated and reward == result.reward(1)
    assert info["outcome"] == result.reason and not info["action_mask"].any()


def test_an_answer_forged_on_the_pipe_is_no_move() -> None:
    """The child is someone else's code too: a move it writes on the protocol itself is
    checked as strictly as one the sandbox's loop sends (0.5 is not action 0)."""
    ruleset = SYSTEMS["infierno"].ruleset()
    forger = SandboxedPolicy("tests.hostile:ProtocolForger", "infierno", time_limit=10.0)
    result = play_duel(ruleset, (forger, make_policy("random", "infierno")), seed=6)
    assert result.forfeit == 0 and "not a move" in result.outcome.reason
