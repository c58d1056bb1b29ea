"""Round-robin tournaments of policies, streamed to an append-only JSONL file.

Every pairing plays `duels` duels: `duels / 2` seeds, each played twice with the
seats swapped. A duel's seed comes from `numpy.random.SeedSequence` keyed by the
tournament seed, the system, the two policy names and the game number, so any
duel replays alone from its record, and adding a policy changes no other seed.

Records are written in schedule order whatever the worker count, so the same
seed gives a byte-identical file. A killed run resumes from its file: finished
duels are kept, a half-written last line is dropped, and the rest is played.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.core.runner import play_duel
from duelo.registration import system

RESULTS_FILE = "results.jsonl"
SPEC_FILE = "tournament.json"
MAX_DUELS = 100_000
"""Duels per pairing at most: the records of a tournament are kept in memory for its report
(and 100,000 duels already pin a score within about 0.3 %)."""


@dataclass(frozen=True)
class TournamentSpec:
    """What a tournament plays; saved beside its results to guard `--resume`."""

    system: str
    policies: tuple[str, ...]
    duels: int = 2000
    """Duels per pairing, both seat orders included (an even number)."""
    seed: int = 0
    variant: dict[str, Any] = field(default_factory=dict)
    """Keyword variants of the system's ruleset (e.g. {"scenario": "brawl"})."""
    move_time_limit: float | None = 1.0
    """Seconds a policy may take for one move before it forfeits."""

    def __post_init__(self) -> None:
        if not 2 <= self.duels <= MAX_DUELS or self.duels % 2:
            raise ValueError(
                f"duels per pairing must be an even number in 2..{MAX_DUELS}, not {self.duels}"
            )
        if len(set(self.policies)) != len(self.policies) or len(self.policies) < 2:
            raise ValueError(f"a tournament needs two or more distinct policies: {self.policies}")
        system(self.system).check_variant(self.variant, "tournament variant")


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

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.a, self.b, self.game, self.seat_of_a)


def canonical_policies(system_name: str, names: list[str]) -> tuple[str, ...]:
    """Policy names as "SYSTEM:NAME", checked now rather than mid-tournament."""
    canonical = []
    for name in names:
        make_policy(name, system_name)  # raises on an unknown name
        canonical.append(name if ":" in name else f"{system_name}:{name}")
    return tuple(canonical)


def duel_seed(tournament_seed: int, system_name: str, a: str, b: str, game: int) -> int:
    """The seed shared by both seat orders of one game of one pairing."""
    key = [zlib.crc32(text.encode()) for text in (system_name, *sorted((a, b)))]
    sequence = np.random.SeedSequence(tournament_seed, spawn_key=(*key, game))
    return int(sequence.generate_state(1, np.uint64)[0])


def schedule(spec: TournamentSpec) -> Iterator[DuelJob]:
    """Every duel of the tournament, in a fixed order, made as they are asked for."""
    for a, b in combinations(spec.policies, 2):
        for game in range(spec.duels // 2):
            seed = duel_seed(spec.seed, spec.system, a, b, game)
            for seat_of_a in (0, 1):
                yield DuelJob(
                    spec.system, spec.variant, a, b, game, seat_of_a, seed, spec.move_time_limit
                )


def scheduled(spec: TournamentSpec) -> int:
    """How many duels `schedule(spec)` gives."""
    pairings = len(spec.policies) * (len(spec.policies) - 1) // 2
    return pairings * spec.duels


def _policy(name: str, system_name: str) -> Policy:
    """A fresh policy for each duel, so none carries state from one duel into the next
    (results must not depend on which worker played what before); brains, which keep
    none, are loaded once per worker."""
    if name.startswith("brain:"):
        return _brain(name, system_name)
    return make_policy(name, system_name)


@lru_cache(maxsize=64)
def _brain(name: str, system_name: str) -> Policy:
    return make_policy(name, system_name)


@lru_cache(maxsize=16)
def _ruleset(system_name: str, variant_json: str) -> Any:
    """One ruleset per worker and variant (building one reads the YAML configs)."""
    return system(system_name).ruleset(**json.loads(variant_json))


def run_job(job: DuelJob) -> dict[str, Any]:
    """Play one scheduled duel and return its record."""
    ruleset = _ruleset(job.system, json.dumps(job.variant, sort_keys=True))
    a, b = _policy(job.a, job.system), _policy(job.b, job.system)
    seated = (a, b) if job.seat_of_a == 0 else (b, a)
    result = play_duel(ruleset, seated, job.seed, job.move_time_limit)
    seat_of = {job.seat_of_a: "a", 1 - job.seat_of_a: "b"}
    winner = result.outcome.winner
    return {
        "system": job.system,
        "version": ruleset.version,
        "variant": job.variant,
        "a": job.a,
        "b": job.b,
        "game": job.game,
        "seat_of_a": job.seat_of_a,
        "seed": job.seed,
        "winner": None if winner is None else seat_of[winner],
        "reason": result.outcome.reason,
        "truncated": result.outcome.truncated,
        "forfeit": None if result.forfeit is None else seat_of[result.forfeit],
        "decisions": result.decisions,
        "rounds": result.state.round,
    }


def _leave_interrupts_to_the_parent() -> None:
    """A worker ignores Ctrl-C: the main process stops the pool and says how to resume."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def record_key(record: dict[str, Any]) -> tuple[str, str, int, int]:
    return (record["a"], record["b"], record["game"], record["seat_of_a"])


def read_records(path: Path) -> list[dict[str, Any]]:
    """The complete records of a results file; a torn last line is cut off the file."""
    if not path.exists():
        return []
    records = []
    keep = 0
    with path.open("rb") as stream:
        for line in stream:
            if not line.endswith(b"\n"):
                break  # a write cut short by a kill
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}: line {len(records) + 1} is not JSON: {error}") from error
            keep += len(line)
    if keep != path.stat().st_size:
        with path.open("r+b") as stream:
            stream.truncate(keep)
    return records


def run_tournament(
    spec: TournamentSpec,
    out: Path,
    workers: int = 1,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every scheduled duel not yet in `out`, appending records; return them all.

    Nothing is written before the first duel is played, so a run that fails early leaves
    no half-made folder behind.
    """
    results_path = out / RESULTS_FILE
    spec_path = out / SPEC_FILE
    spec_json = json.dumps(asdict(spec), sort_keys=True, indent=2) + "\n"
    if results_path.exists() and not resume:
        raise FileExistsError(
            f"{results_path} already holds results: pass --resume to continue it, "
            "or choose another --out"
        )
    if resume and spec_path.exists() and spec_path.read_text(encoding="utf-8") != spec_json:
        raise ValueError(
            f"{spec_path} describes another tournament (system, policies, duels, seed "
            "or variant differ); resume it with the same settings or choose another --out"
        )
    records = read_records(results_path)
    done = {record_key(r) for r in records}
    jobs = (job for job in schedule(spec) if job.key not in done)
    total = scheduled(spec)
    if progress:
        progress(len(records), total)
    stream = None
    try:
        for record in _results(jobs, total - len(records), workers):
            if stream is None:  # the first duel is played: now the folder is made
                out.mkdir(parents=True, exist_ok=True)
                spec_path.write_text(spec_json, encoding="utf-8")
                stream = results_path.open("a", encoding="utf-8")
            stream.write(json.dumps(record, sort_keys=True) + "\n")
            stream.flush()
            records.append(record)
            if progress:
                progress(len(records), total)
    finally:
        if stream is not None:
            stream.close()
    return records


def _results(jobs: Iterator[DuelJob], count: int, workers: int) -> Iterator[dict[str, Any]]:
    """Records of the `count` jobs in schedule order, whatever the number of worker
    processes (never more processes than jobs)."""
    workers = min(workers, count)
    if workers <= 1:
        yield from map(run_job, jobs)
        return
    chunk = max(1, min(64, count // (workers * 8)))
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_leave_interrupts_to_the_parent) as pool:
        yield from pool.imap(run_job, jobs, chunksize=chunk)
