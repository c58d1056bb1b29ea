"""Tournament duels on a Ray cluster (`duelo tournament --backend ray`, extra `ray`).

A tournament is a list of independent, seeded duel jobs (`schedule`), so Ray only
has to run `play_jobs` on batches of them and hand the records back in schedule
order: the results file is then byte for byte the local backend's, and resuming
works the same way (the caller appends each record as it comes and skips the
jobs already recorded). Ray is started here for the run (`workers` CPUs of this
machine) unless `address` names a running cluster or the caller started Ray already.
"""

from __future__ import annotations

import importlib.util
import itertools
import socket
from collections import deque
from collections.abc import Iterator
from typing import Any

from duelo.evaluation.duels import DuelJob
from duelo.evaluation.workers import chunk_size, play_jobs

IN_FLIGHT = 2
"""Batches queued per CPU, so that no CPU waits while the driver writes records."""
CONNECT_SECONDS = 5.0
"""How long the head of a cluster may take to answer before `--address` is refused (Ray
itself retries for minutes)."""


def check_backend(address: str | None) -> None:
    """Refuse, before any duel, a missing ray extra or a cluster head that does not answer."""
    if importlib.util.find_spec("ray") is None:
        raise ValueError("--backend ray needs the ray extra: pip install 'duelo[ray]'")
    if address is None or address == "auto" or "://" in address:
        return  # Ray finds "auto" itself, and a ray:// client address speaks its own protocol
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--address {address!r} is not HOST:PORT (or auto, or ray://HOST:PORT)")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise ValueError(f"--address {address}: no Ray cluster answers there ({error})") from None


def ray_results(
    jobs: Iterator[DuelJob], count: int, workers: int, address: str | None, engine: str
) -> Iterator[dict[str, Any]]:
    """Records of the `count` jobs in schedule order, played by Ray tasks on `engine`
    (`check_backend` first)."""
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(
            address=address,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
        )
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", workers)))
        size = chunk_size(count, cpus, engine)
        task = ray.remote(num_cpus=1)(play_jobs)
        window: deque[Any] = deque()
        batches = iter(lambda: list(itertools.islice(jobs, size)), [])
        for batch in batches:
            window.append(task.remote(batch, engine))
            if len(window) >= IN_FLIGHT * cpus:
                yield from ray.get(window.popleft())
        while window:
            yield from ray.get(window.popleft())
    finally:
        if started_here:
            ray.shutdown()
