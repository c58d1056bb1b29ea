"""`duelo tournament --engine fast`: the records of the batched engine are the Python
engine's, byte for byte, for every kind of policy it plays (random in the kernels,
brains and scripted NPCs written on arrays in batches, other NPCs row by row), in suites
of setups, after a resume, and when a policy misbehaves; what it cannot play is refused
before any duel."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

import gymnasium as gym  # noqa: E402

from duelo.agents.registry import make_policy  # noqa: E402
from duelo.cli import main  # noqa: E402
from duelo.envs.core.policy import BatchPolicy  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402
from duelo.evaluation import batched_tournament, duels  # noqa: E402
from duelo.evaluation.batched_tournament import batched_records  # noqa: E402
from duelo.evaluation.duels import run_job  # noqa: E402
from duelo.evaluation.tournament import (  # noqa: E402
    RESULTS_FILE,
    TournamentSpec,
    check_engine,
    default_suite,
    read_records,
    run_tournament,
    schedule,
)


def both_engines(spec: TournamentSpec, out: Path) -> tuple[bytes, bytes]:
    run_tournament(spec, out / "python")
    run_tournament(spec, out / "fast", engine="fast")
    return (out / "python" / RESULTS_FILE).read_bytes(), (out / "fast" / RESULTS_FILE).read_bytes()


@pytest.mark.parametrize(
    "system_name", ["infierno", "esgrima_duel", "liminal", "liminal_mob", "dunwich", "vampiro"]
)
def test_a_suite_tournament_writes_the_same_bytes(system_name: str, tmp_path: Path) -> None:
    """The system's whole suite (every scenario or variant, asymmetric stat blocks), the
    shipped brain, the expert and the random policy: every way of deciding in a batch."""
    suite = default_suite(system_name, {})
    assert len(suite) > 1
    brain = f"brain:{system_name}"
    scripted = [f"{system_name}:{name}" for name in ("random", "expert", "aggressive", "cautious")]
    policies = (*scripted, brain)
    spec = TournamentSpec(
        system_name, policies, duels=2 * 3 * len(suite), seed=3, suite=suite, dice="stream"
    )
    python, fast = both_engines(spec, tmp_path)
    assert python == fast
    reasons = {json.loads(line)["reason"] for line in python.splitlines()}
    assert len(reasons) >= 3  # several endings, each named as the reference names it


@pytest.mark.parametrize(
    ("system_name", "variant"),
    [
        ("infierno", {"scenario": "formal_duel"}),
        ("infierno", {"scenario": "ambush", "options": {"crit_choice": "agent"}}),
        ("esgrima_duel", {"options": {"duel_variant": "faithful"}}),
        ("esgrima_duel", {"options": {"duel_end": "first_blood", "exchange_cap": 3}}),
        ("liminal", {"scenario": "long_shot"}),
        ("liminal", {"scenario": "brawl", "options": {"crit_choice": "fixed", "round_cap": 3}}),
        ("liminal_mob", {"scenario": "street_gang", "hero": "doctor"}),
        ("dunwich", {"scenario": "crossfire", "options": {"round_cap": 3}}),
        ("vampiro", {"scenario": "stakeout"}),
        ("vampiro", {"scenario": "showdown", "options": {"fixed_initiative": True}}),
    ],
)
def test_random_against_random_plays_in_the_kernels_alone(
    system_name: str, variant: dict[str, Any]
) -> None:
    """Two random policies never leave the kernels: their records are the Python engine's,
    each ending in the reference's words (the round cap among them where it is short)."""
    policies = (f"{system_name}:random", f"{system_name}:aggressive")
    spec = TournamentSpec(system_name, policies, duels=400, seed=11, variant=variant, dice="stream")
    # both seats random: aggressive stands in for a second name in the spec
    jobs = [dataclasses.replace(job, b=job.a) for job in schedule(spec)]
    records = [run_job(job) for job in jobs]
    assert batched_records(jobs) == records
    reasons = {record["reason"] for record in records}
    assert len(reasons) >= 2
    options = variant.get("options", {})
    if 3 in (options.get("exchange_cap"), options.get("round_cap")):
        assert "round cap of 3" in reasons


class Argmax:
    """A deterministic policy that is wrong on purpose: the flat observation's argmax, legal
    or not (an illegal one forfeits); its batch call is `act` on every row."""

    name = "argmax"
    description = "test"

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(np.argmax(observation.flat)) % len(action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.argmax(observations, axis=1) % action_masks.shape[1]


class RaisesInBatch(Argmax):
    """Its batch call raises, and its second move in a duel raises: the batch falls back to
    asking row by row, and the faults are charged duel by duel."""

    def __init__(self) -> None:
        self.moves = 0

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        self.moves += 1
        if self.moves == 2:
            raise ValueError("second move")
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise RuntimeError("no batches here")


class WrongShape(Argmax):
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.zeros(len(observations) + 1, np.int64)


@pytest.mark.parametrize("hostile", [Argmax, RaisesInBatch, WrongShape])
def test_a_misbehaving_policy_forfeits_as_in_the_python_engine(
    hostile: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = "infierno:cautious"

    def policy(name: str, system_name: str, limit: float | None, variant: Any, *_: Any) -> Any:
        return hostile() if name == stand_in else make_policy(name, system_name, variant)

    monkeypatch.setattr(duels, "duel_policy", policy)
    monkeypatch.setattr(batched_tournament, "duel_policy", policy)
    spec = TournamentSpec(
        "infierno", ("infierno:expert", stand_in), duels=60, seed=2, dice="stream"
    )
    jobs = list(schedule(spec))
    python = [run_job(job) for job in jobs]
    assert batched_records(jobs) == python
    forfeits = [r for r in python if r["forfeit"] == "b"]
    assert forfeits and all("forfeits: its policy" in r["reason"] for r in forfeits)


def test_a_fast_run_resumes_to_the_python_runs_bytes(tmp_path: Path) -> None:
    spec = TournamentSpec(
        "esgrima_duel",
        ("esgrima_duel:random", "esgrima_duel:expert"),
        duels=200,
        seed=4,
        dice="stream",
    )
    run_tournament(spec, tmp_path / "python")
    full = (tmp_path / "python" / RESULTS_FILE).read_bytes()
    cut = tmp_path / "fast" / RESULTS_FILE
    cut.parent.mkdir()
    cut.write_bytes(full[: len(full) // 3])  # a run killed mid-line
    records = run_tournament(spec, tmp_path / "fast", resume=True, engine="fast", workers=2)
    assert cut.read_bytes() == full
    assert len(records) == len(read_records(cut)) == 200


BATCH_POLICIES = [
    ("infierno", "duelo/Infierno-v2", "brain:infierno"),
    ("esgrima_duel", "duelo/EsgrimaDuel-v2", "brain:esgrima_duel"),
    ("esgrima_duel", "duelo/EsgrimaDuel-v2", "aggressive"),
    ("esgrima_duel", "duelo/EsgrimaDuel-v2", "cautious"),
    ("esgrima_duel", "duelo/EsgrimaDuelFaithful-v2", "brain:esgrima_duel_faithful"),
    ("liminal", "duelo/Liminal-v2", "brain:liminal"),
    ("liminal_mob", "duelo/LiminalMob-v2", "brain:liminal_mob"),
    ("dunwich", "duelo/Dunwich-v2", "brain:dunwich"),
    ("liminal", "duelo/Liminal-v2", "aggressive"),
    ("liminal", "duelo/Liminal-v2", "cautious"),
    ("liminal_mob", "duelo/LiminalMob-v2", "cautious"),
    ("dunwich", "duelo/Dunwich-v2", "aggressive"),
    ("dunwich", "duelo/Dunwich-v2", "cautious"),
    ("vampiro", "duelo/Vampiro-v2", "brain:vampiro"),
    ("vampiro", "duelo/Vampiro-v2", "aggressive"),
    ("vampiro", "duelo/Vampiro-v2", "cautious"),
]


@pytest.mark.parametrize(("system_name", "env_id", "name"), BATCH_POLICIES)
def test_a_batch_policy_decides_as_its_rows_do(system_name: str, env_id: str, name: str) -> None:
    """`act_batch` is `act` on each row, on 2,000 observations the env gives in every
    scenario the system ships."""
    policy = make_policy(name, system_name)
    assert isinstance(policy, BatchPolicy)
    scenarios = SYSTEMS[system_name].scenarios or (None,)
    observations, masks = [], []
    rng = np.random.default_rng(0)
    for scenario in scenarios:
        kwargs = {} if scenario is None else {"scenario": scenario}
        env = gym.make(env_id, flat_observation=True, **kwargs)
        observation, info = env.reset(seed=0)
        while len(observations) < 2000 * (scenarios.index(scenario) + 1) // len(scenarios):
            observations.append(observation)
            masks.append(info["action_mask"])
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                observation, info = env.reset()
    spec = env.unwrapped.observation_spec
    batch = policy.act_batch(np.array(observations), np.array(masks))
    rows = [policy.act(spec.view(o), m, rng) for o, m in zip(observations, masks, strict=True)]
    assert batch.tolist() == rows
    assert len(set(rows)) > 1


def test_the_command_line_engine(tmp_path: Path) -> None:
    args = ["tournament", "--system", "infierno", "esgrima_duel", "--duels", "20", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "python"), "--dice", "stream"]) == 0
    assert main([*args, "--out", str(tmp_path / "fast"), "--engine", "fast"]) == 0
    for system_name in ("infierno", "esgrima_duel"):
        python, fast = (
            tmp_path / engine / system_name / RESULTS_FILE for engine in ("python", "fast")
        )
        assert python.read_bytes() == fast.read_bytes()
    assert (tmp_path / "fast" / "report.md").read_text() == (
        tmp_path / "python" / "report.md"
    ).read_text()


def test_what_the_fast_engine_cannot_play_is_refused_before_any_duel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_extra: Callable[[str], None]
) -> None:
    def spec(system_name: str, policies: tuple[str, ...], dice: Any = "stream") -> Any:
        return TournamentSpec(system_name, policies, duels=2, dice=dice)

    with pytest.raises(ValueError, match="not esgrima"):
        check_engine(spec("esgrima", ("esgrima:random", "esgrima:expert")))
    with pytest.raises(ValueError, match="sandbox process"):
        check_engine(spec("infierno", ("infierno:random", "tests.hostile:Hanger")))
    with pytest.raises(ValueError, match="--dice stream"):
        check_engine(spec("infierno", ("infierno:random", "infierno:expert"), "keyed"))
    keyed_jobs = list(schedule(spec("infierno", ("infierno:random", "infierno:expert"), "keyed")))
    with pytest.raises(ValueError, match="rolls stream dice, not 'keyed'"):
        batched_records(keyed_jobs)
    keyed = ["tournament", "--system", "infierno", "--duels", "2", "--engine", "fast"]
    assert main([*keyed, "--dice", "keyed", "--out", str(tmp_path / "keyed")]) == 2
    assert "--dice stream" in capsys.readouterr().err
    args = ["tournament", "--duels", "20", "--quiet", "--engine", "fast"]
    assert main([*args, "--out", str(tmp_path / "all")]) == 2  # every system: some have no batch
    assert "use --engine python" in capsys.readouterr().err
    assert not (tmp_path / "all").exists()
    without_extra("numba")
    with pytest.raises(ValueError, match=r"pip install 'duelo\[fast\]'"):
        check_engine(spec("infierno", ("infierno:random", "infierno:expert")))
