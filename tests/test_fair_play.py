"""Fair play against strategies from anyone (issue 27): each attack of the audit, run
against the guarantee it would break.

- in process, a policy's generator carries nothing the dice came from;
- a policy from a module (`module:Class`) is imported, built and asked in a sandbox
  (`evaluation/sandbox.py`) that sees neither our processes, nor the duel's state, nor
  the tournament's folder, writes nowhere but its scratch folder, leaves nothing running
  after its duel and cannot flood our output;
- a tournament with such a policy draws its root seed from entropy, which no policy
  can search (a small seed given by hand can be: the test shows it);
- records carry an HMAC (`tests/test_tournament.py` refuses edited ones).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from duelo.agents.registry import make_policy
from duelo.envs.core.runner import duel_streams, play_duel
from duelo.envs.systems import SYSTEMS
from duelo.evaluation import sandbox
from duelo.evaluation.sandbox import MAX_STDERR, SandboxedPolicy, SandboxUnavailable
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
            policies = [make_policy("random", system_name)] * 2
            policies[seat] = attacker
            play_duel(ruleset, tuple(policies), seed)  # type: ignore[arg-type]
            if attacker.rebuilt:  # asked at least once (a duel may end first)
                rebuilt += real["state"] in attacker.rebuilt
    assert rebuilt == 0
    assert duel_streams(0)[1][0].bit_generator.seed_seq.entropy != 0  # a hash, not the seed


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
@pytest.mark.parametrize("system_name", ["dunwich", "vampiro", "esgrima_duel"])
def test_a_sandboxed_policy_finds_no_state_in_gc_or_frames(system_name: str) -> None:
    """In process the reader finds the duel's state (so the attack is real); sandboxed,
    nothing of the duel is in its process to be found."""
    ruleset = SYSTEMS[system_name].ruleset()
    random = make_policy("random", system_name)
    in_process = play_duel(ruleset, (hostile.StateReader(), random), seed=1)
    assert "found the hidden state" in in_process.outcome.reason
    reader = SandboxedPolicy("tests.hostile:StateReader", system_name, time_limit=10.0)
    for seed in range(3):
        result = play_duel(ruleset, (reader, random), seed)
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
