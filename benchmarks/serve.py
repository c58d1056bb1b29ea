"""Latency of `duelo serve`'s `/act` on loopback, against the in-process brain decision.

A real uvicorn server runs in a thread on 127.0.0.1 (an ephemeral port), and a
stdlib HTTP client asks it one decision at a time: the figures are what a tool on
the same machine waits for an NPC's move. Requests are bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time
from typing import Any

import numpy as np

from duelo.agents.brain import load_brain
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.systems import SYSTEMS

SYSTEM = "infierno"
"""The system whose shipped brain is served."""


def serve_latency(requests: int) -> dict[str, float] | None:
    """p50 and p99 of `/act` in microseconds, and the in-process decision; None without
    the serve extra."""
    try:
        import uvicorn

        from duelo.serve import create_app
    except ImportError:
        return None
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # log_config None: uvicorn's own logging setup (dictConfig) closes every handler
    # already there, the test runner's included
    config = uvicorn.Config(
        create_app([SYSTEM]), host="127.0.0.1", port=port, log_level="error", log_config=None
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        return _measure(port, requests)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _measure(port: int, requests: int) -> dict[str, float]:
    ruleset = SYSTEMS[SYSTEM].ruleset()
    state = ruleset.new_duel(GeneratorDice(0))
    seat = ruleset.to_act(state)
    flat, mask = ruleset.observe(state, seat), ruleset.legal_actions(state, seat)
    body = json.dumps({"brain": SYSTEM, "observation": flat.tolist(), "action_mask": mask.tolist()})
    headers = {"Content-Type": "application/json"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        connection.request("POST", f"/v1/{SYSTEM}/act", body, headers)
        response = connection.getresponse()
        response.read()
        times.append(time.perf_counter() - started)
        if response.status != 200:
            raise RuntimeError(f"/act answered {response.status}")
    connection.close()
    brain = load_brain(SYSTEM)
    rng = np.random.default_rng(0)
    local = []
    for _ in range(requests):
        started = time.perf_counter()
        brain.act(flat, mask, rng)
        local.append(time.perf_counter() - started)
    times.sort()
    return {
        "p50_us": 1e6 * statistics.median(times),
        "p99_us": 1e6 * times[min(len(times) - 1, int(0.99 * len(times)))],
        "in_process_us": 1e6 * statistics.median(local),
    }


def render(figures: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    if figures is None:
        return []
    return [
        (
            "serve",
            f"/act on loopback ({SYSTEM})",
            f"p50 {figures['p50_us']:.0f} us",
            f"p99 {figures['p99_us']:.0f} us; in-process {figures['in_process_us']:.1f} us",
            "",
        )
    ]
