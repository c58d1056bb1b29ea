"""Tournament duels on the batched engine (`duelo tournament --engine fast`, extra `fast`).

The duels of one pairing and setup in a chunk of the schedule are played as one batch
(`envs/fast/`): the compiled rules step every row; the random policy draws inside the
kernels, from its seat's generator; a `BatchPolicy` (a numpy brain, a scripted NPC
written on arrays) decides all its waiting rows in one call; any other in-process
policy (the other scripted NPCs, `optimal`) is asked row by row through the
referee, as `play_duel` asks it, with a fresh instance and the seat's own generator
for each duel. Each row is seeded as
`play_duel` seeds its duel, so the records are `run_job`'s, byte for byte.

A batch call that raises, answers in the wrong shape or takes longer than the move
time limit for each of its rows is not trusted: its rows are asked one by one
instead, so that a fault costs the duel it happened in, as in `play_duel`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from duelo.envs.core.policy import BatchPolicy, Policy, plays_uniform_legal
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.ruleset import seat_names
from duelo.envs.core.runner import forfeit_reason, seat_seed
from duelo.envs.fast.batch import seeded_table
from duelo.envs.fast.engine import compiled_module, compiling
from duelo.evaluation.duels import DuelJob, duel_policy, duel_record, worker_ruleset


def batched_records(jobs: list[DuelJob]) -> list[dict[str, Any]]:
    """The records `run_job` gives for `jobs`, in their order, played one batch per
    pairing and setup. The kernels roll a stream a duel: keyed dice are refused
    (`tournament.check_engine` says so before any duel)."""
    keyed = [job for job in jobs if job.dice != "stream"]
    if keyed:
        raise ValueError(f"the batched engine rolls stream dice, not {keyed[0].dice!r}")
    groups: dict[tuple[str, str, str], list[int]] = {}
    for index, job in enumerate(jobs):
        groups.setdefault((job.a, job.b, _variant_json(job)), []).append(index)
    records: list[dict[str, Any]] = [{} for _ in jobs]
    for indices in groups.values():
        played = _Batch([jobs[i] for i in indices]).play()
        for index, record in zip(indices, played, strict=True):
            records[index] = record
    return records


def _variant_json(job: DuelJob) -> str:
    return json.dumps(job.variant, sort_keys=True)


@lru_cache(maxsize=16)
def _rules(system_name: str, variant_json: str) -> np.ndarray:
    """The compiled rules of a setup, once per worker (building them reads the ruleset's
    tables)."""
    module = compiled_module(system_name)
    return module.rules_of(worker_ruleset(system_name, variant_json))


@dataclass
class _Side:
    """One pairing's policy as the batch plays it."""

    name: str
    compiled: bool
    """The random policy: it draws inside the kernels."""
    shared: BatchPolicy | None
    """A policy that decides many rows in one call."""
    per_duel: dict[int, tuple[Policy, np.random.Generator]] = field(default_factory=dict)
    """Row -> the row's own instance and its seat's generator, made when first asked."""


class _Batch:
    """The duels of one pairing and setup, one row each."""

    def __init__(self, jobs: list[DuelJob]) -> None:
        first = jobs[0]
        self.jobs = jobs
        self.variant_json = _variant_json(first)
        self.ruleset = worker_ruleset(first.system, self.variant_json)
        self.module = compiled_module(first.system)
        self.rules = _rules(first.system, self.variant_json)
        self.names = seat_names(*(c.name for c in self.ruleset.characters))
        self.sides = {"a": self._side(first.a), "b": self._side(first.b)}
        self.seat_of_a = np.array([job.seat_of_a for job in jobs])
        compiled = np.array([self.sides["a"].compiled, self.sides["b"].compiled])
        random_seats = np.stack([compiled[self.seat_of_a], compiled[1 - self.seat_of_a]], axis=1)
        self.table = seeded_table([job.seed for job in jobs], random_seats)
        self.seats = self.table["seat"]
        """Each row's seat to decide, -1 once its duel is over (a view the kernels write)."""
        self.duels = self.module.new_duels(len(jobs), self.rules)
        self.observations = np.zeros((len(jobs), self.ruleset.observation_spec.size), np.float32)
        self.masks = np.zeros((len(jobs), self.module.ACTIONS), np.bool_)
        self.forfeits: dict[int, tuple[int, str]] = {}
        """Row -> the seat that forfeited and the fault."""

    def _side(self, name: str) -> _Side:
        job = self.jobs[0]
        probe = duel_policy(name, job.system, job.move_time_limit, job.variant)
        return _Side(
            name,
            compiled=plays_uniform_legal(probe),
            shared=probe if isinstance(probe, BatchPolicy) else None,
        )

    def play(self) -> list[dict[str, Any]]:
        """Play every row to its end; the records, in row order."""
        arrays = (self.duels, self.rules, self.table)
        system = self.jobs[0].system
        with compiling(system):
            self.module.start_rows(*arrays, self.observations, self.masks)
        while (waiting := np.flatnonzero(self.seats >= 0)).size:
            actions = np.zeros(waiting.size, np.int64)
            plays_a = self.seats[waiting] == self.seat_of_a[waiting]
            for key, chosen in (("a", plays_a), ("b", ~plays_a)):
                if chosen.any():
                    actions[chosen] = self._decide(key, waiting[chosen])
            keep = self.seats[waiting] >= 0  # a forfeit ended its row
            with compiling(system):
                self.module.play_rows(
                    *arrays, waiting[keep], actions[keep], self.observations, self.masks
                )
        return [self._record(row) for row in range(len(self.jobs))]

    def _decide(self, key: str, rows: np.ndarray) -> np.ndarray:
        """The actions side `key` chooses in `rows`; a row whose policy faults forfeits."""
        side = self.sides[key]
        if side.shared is not None and (actions := self._batch_call(side.shared, rows)) is not None:
            for bad in np.flatnonzero(~self.masks[rows, actions]):
                self._forfeit(rows[bad], f"chose illegal action {actions[bad]}")
            return actions
        actions = np.zeros(rows.size, np.int64)
        for k, row in enumerate(rows):
            policy, rng = self._own(side, row)
            observation = self.ruleset.observation_spec.view(self.observations[row].copy())
            try:
                actions[k] = ask(policy, observation, self.masks[row], rng, self._time_limit)
            except PolicyFault as fault:
                self._forfeit(row, str(fault))
        return actions

    @property
    def _time_limit(self) -> float | None:
        return self.jobs[0].move_time_limit

    def _batch_call(self, policy: BatchPolicy, rows: np.ndarray) -> np.ndarray | None:
        """`policy.act_batch` on `rows`, or None where it is not to be trusted."""
        started = time.perf_counter()
        try:
            answer = policy.act_batch(self.observations[rows], self.masks[rows])
        except Exception:  # asked again row by row, where the fault is charged to its duel
            return None
        limit = self._time_limit
        if limit is not None and time.perf_counter() - started > limit * rows.size:
            return None
        actions = np.asarray(answer)
        if actions.shape != rows.shape or actions.dtype.kind not in "iu":
            return None
        if ((actions < 0) | (actions >= self.masks.shape[1])).any():
            return None
        return actions.astype(np.int64)

    def _own(self, side: _Side, row: int) -> tuple[Policy, np.random.Generator]:
        """The policy of `side` for row `row`'s duel, fresh for it, and its seat's
        generator (`runner.duel_streams`)."""
        if row not in side.per_duel:
            job = self.jobs[row]
            seat = int(self.seats[row])
            policy = duel_policy(side.name, job.system, job.move_time_limit, job.variant)
            side.per_duel[row] = (policy, np.random.default_rng(seat_seed(job.seed, seat)))
        return side.per_duel[row]

    def _forfeit(self, row: int, why: str) -> None:
        self.forfeits[int(row)] = (int(self.seats[row]), why)
        self.seats[row] = -1

    def _record(self, row: int) -> dict[str, Any]:
        duel, job = self.duels[row], self.jobs[row]
        if row in self.forfeits:
            seat, why = self.forfeits[row]
            winner: int | None = 1 - seat
            reason = forfeit_reason(seat, why)
            truncated, forfeit = False, seat
        else:
            winner = int(duel["winner"]) if duel["winner"] >= 0 else None
            reason = self.module.ending_reason(duel, self.rules, self.names)
            truncated, forfeit = bool(duel["truncated"]), None
        return duel_record(
            job,
            self.ruleset.version,
            winner,
            reason,
            truncated,
            forfeit,
            decisions=int(self.table["decisions"][row]),
            rounds=int(duel["round"]),
        )
