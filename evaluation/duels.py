"""One scheduled duel, played: the job a tournament hands a worker, the fresh policies
it seats, and the record it returns (`duelo.evaluation.tournament` schedules the
jobs and writes the records; `workers` and `ray_backend` play chunks of them)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from duelo.agents.registry import is_imported, make_policy
from duelo.agents.sandbox import SandboxedPolicy
from duelo.envs.core.policy import Policy
from duelo.envs.core.runner import DiceKind, line_up, play_duel
from duelo.envs.systems import system


@dataclass(frozen=True)
class DuelJob:
    system: str
    variant: dict[str, Any]
    a: str
    b: str
    game: int
    seat_of_a: int
    seed: int
    move_time_limit: float | None
    private: str | None = None
    """The tournament's folder, which every sandboxed policy sees as an empty one."""
    dice: DiceKind = "keyed"
    """How the seed gives the dice (`runner.DiceKind`)."""

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.a, self.b, self.game, self.seat_of_a)


def duel_policy(
    name: str,
    system_name: str,
    time_limit: float | None,
    variant: dict[str, Any],
    private: str | None = None,
) -> Policy:
    """A fresh policy for each duel, so none carries state from one duel into the next
    (results must not depend on which worker played what before); brains, which keep
    none, are loaded once per worker; a policy from someone else's module
    (`module:Class`) plays in a sandbox, a new one each duel (`runner.playing`), which
    sees `private` as an empty folder."""
    if name.startswith("brain:"):
        return _brain(name, system_name)
    if is_imported(name):
        return _sandboxed(name, system_name, time_limit, private)
    return make_policy(name, system_name, variant)


@lru_cache(maxsize=64)
def _brain(name: str, system_name: str) -> Policy:
    return make_policy(name, system_name)


@lru_cache(maxsize=16)
def _sandboxed(
    name: str, system_name: str, time_limit: float | None, private: str | None
) -> SandboxedPolicy:
    return SandboxedPolicy(name, system_name, time_limit, () if private is None else (private,))


@lru_cache(maxsize=16)
def worker_ruleset(system_name: str, variant_json: str) -> Any:
    """One ruleset per worker and variant (building one reads the YAML configs)."""
    return system(system_name).ruleset(**json.loads(variant_json))


def run_job(job: DuelJob) -> dict[str, Any]:
    """Play one scheduled duel and return its record."""
    ruleset = worker_ruleset(job.system, json.dumps(job.variant, sort_keys=True))
    a, b = (
        duel_policy(name, job.system, job.move_time_limit, job.variant, job.private)
        for name in (job.a, job.b)
    )
    seated = line_up(ruleset, *((a, b) if job.seat_of_a == 0 else (b, a)))
    result = play_duel(ruleset, seated, job.seed, job.move_time_limit, dice=job.dice)
    outcome = result.outcome
    return duel_record(
        job,
        ruleset.version,
        outcome.winner,
        outcome.reason,
        outcome.truncated,
        None if result.forfeit is None else ruleset.sides[result.forfeit],
        result.decisions,
        result.state.round,
    )


def duel_record(
    job: DuelJob,
    version: int,
    winner: int | None,
    reason: str,
    truncated: bool,
    forfeit: int | None,
    decisions: int,
    rounds: int,
) -> dict[str, Any]:
    """A played duel's record (`RECORD_TYPES`); `winner` and `forfeit` are seats here, and
    sides ("a" or "b") in the record."""
    seat_of = {job.seat_of_a: "a", 1 - job.seat_of_a: "b"}
    return {
        "system": job.system,
        "version": version,
        "variant": job.variant,
        "a": job.a,
        "b": job.b,
        "game": job.game,
        "seat_of_a": job.seat_of_a,
        "seed": job.seed,
        "dice": job.dice,
        "winner": None if winner is None else seat_of[winner],
        "reason": reason,
        "truncated": truncated,
        "forfeit": None if forfeit is None else seat_of[forfeit],
        "decisions": decisions,
        "rounds": rounds,
    }
