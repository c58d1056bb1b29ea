"""Chunks of duels played on an engine: the unit a local process pool or a Ray task
runs (`duelo.evaluation.tournament`, `duelo.evaluation.ray_backend`)."""

from __future__ import annotations

from typing import Any

from duelo.evaluation.duels import DuelJob, run_job

BATCH = 1024
"""Duels the fast engine plays together at most (one batch per pairing and setup)."""


def play_jobs(jobs: list[DuelJob], engine: str) -> list[dict[str, Any]]:
    """The records of a chunk of jobs, in their order, played on `engine`."""
    if engine == "fast":
        from duelo.evaluation.batched_tournament import batched_records

        return batched_records(jobs)
    return [run_job(job) for job in jobs]


def chunk_size(count: int, workers: int, engine: str) -> int:
    """Jobs handed to a worker at a time: a batch's worth on the fast engine (every
    worker getting some), else enough to spread the cost of handing them over."""
    if engine == "fast":
        return max(1, min(BATCH, -(-count // workers)))
    return max(1, min(64, count // (workers * 8)))
