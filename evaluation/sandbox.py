"""Policies from someone else's module, played in a process of their own.

A tournament cannot stop a move that never returns, nor survive `os._exit`, while
the policy runs in its own process. A `module:Class` policy therefore runs in a
child Python (`python -m duelo.evaluation.sandbox NAME SYSTEM`) that answers one
JSON line per move: a move that overruns the time limit is stopped by killing
the child, a child that dies or answers nonsense forfeits the duel, and a new
child serves the next duel. Nothing the child sends is unpickled: the protocol
is JSON lines, with the policy's prints sent to stderr.

The generator the engine hands the seat travels with each move (its state out,
its state back), so a sandboxed policy plays exactly as it would in process.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

from duelo.envs.core.referee import PolicyFault, summary

START_TIMEOUT = 60.0
"""Seconds a child may take to import its policy and say it is ready."""


class SandboxedPolicy:
    """A `module:Class` policy served by a child process (see the module docstring)."""

    def __init__(self, name: str, system: str, time_limit: float | None) -> None:
        self.name = name
        self.description = f"{name}, played in a process of its own"
        self.system = system
        self.time_limit = time_limit
        self._child: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._fault: PolicyFault | None = None
        """Why the child could not start: told at the duel's first move (a forfeit)."""
        from duelo.envs.systems import SYSTEMS

        self._spec = SYSTEMS[system].ruleset.observation_spec

    def new_duel(self) -> None:
        """A fresh instance of the policy for the next duel (none carries state over), in a
        child started now if none runs, so that starting one is no move's time."""
        self._fault = None
        try:
            if self._child is None or self._child.poll() is not None:
                self._start()
            else:
                self._send({"new_duel": True})
        except PolicyFault as fault:
            self._fault = fault

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        if self._fault is not None:
            raise self._fault
        if self._child is None or self._child.poll() is not None:
            self._start()
        message = {
            "flat": self._spec.flatten(observation).tolist(),
            "mask": np.asarray(action_mask, bool).tolist(),
            "rng": rng.bit_generator.state,
        }
        answer = self._ask(message, self.time_limit)
        rng.bit_generator.state = answer["rng"]
        if "error" in answer:
            raise PolicyFault(str(answer["error"]))
        return int(answer["action"])

    def close(self) -> None:
        """Stop the child (a new one starts at the next move) and close our end of its
        stdin; its reader closes stdout at the end of the stream. A policy that ends its
        process at every move must not run a long tournament out of file descriptors."""
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            child.kill()
        child.wait()
        if child.stdin is not None:
            with contextlib.suppress(OSError):  # unsent bytes to a dead child
                child.stdin.close()

    # --- the pipe -----------------------------------------------------------------

    def _start(self) -> None:
        self.close()
        self._lines = queue.Queue()
        self._child = subprocess.Popen(
            [sys.executable, "-m", "duelo.evaluation.sandbox", self.name, self.system],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        threading.Thread(target=_read_lines, args=(self._child, self._lines), daemon=True).start()
        ready = self._receive(START_TIMEOUT, "start")
        if "error" in ready:
            self.close()
            raise PolicyFault(str(ready["error"]))

    def _ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        self._send(message)
        return self._receive(timeout, "move")

    def _send(self, message: dict[str, Any]) -> None:
        child = self._child
        if child is None or child.stdin is None:
            raise PolicyFault("its process is gone")
        try:
            child.stdin.write(json.dumps(message) + "\n")
            child.stdin.flush()
        except OSError:
            self.close()
            raise PolicyFault("its process ended") from None

    def _receive(self, timeout: float | None, what: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise PolicyFault(f"took more than {timeout} s for a {what} and was stopped") from None
        if line is None:
            code = self._child.wait() if self._child is not None else None
            self.close()
            raise PolicyFault(f"its process ended without an answer (exit status {code})")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            answer = None
        if not isinstance(answer, dict) or not ({"action", "error", "ready"} & answer.keys()):
            self.close()
            raise PolicyFault(f"answered {summary(line)}, not a move")
        return answer


def _read_lines(child: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    """The child's answers, line by line, then None when its stdout closes."""
    assert child.stdout is not None  # opened with PIPE
    with child.stdout:
        for line in child.stdout:
            lines.put(line)
    lines.put(None)


# --- the child ------------------------------------------------------------------------


def serve(name: str, system: str) -> None:
    """The child's loop: build the policy, then answer one JSON line per request."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # the policy's prints must not reach the protocol

    def say(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    from duelo.agents.registry import make_policy
    from duelo.envs.systems import SYSTEMS

    spec = SYSTEMS[system].ruleset.observation_spec
    try:
        policy = make_policy(name, system)
    except Exception as error:
        say({"error": f"could not be built: {summary(str(error))}"})
        return
    say({"ready": True})
    rng = np.random.default_rng()
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("new_duel"):
            policy = make_policy(name, system)
            continue
        rng.bit_generator.state = request["rng"]
        flat = np.array(request["flat"], np.float32)
        mask = np.array(request["mask"], bool)
        try:
            answer = policy.act(spec.view(flat), mask, rng)
        except BaseException as error:  # noqa: BLE001 (the parent decides; it must hear why)
            say(
                {
                    "error": f"raised {type(error).__name__}: {summary(str(error))}",
                    "rng": rng.bit_generator.state,
                }
            )
            if isinstance(error, SystemExit | KeyboardInterrupt):
                return
            continue
        if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
            say(
                {
                    "error": f"returned {summary(repr(answer))}, not an action number",
                    "rng": rng.bit_generator.state,
                }
            )
        else:
            say({"action": int(answer), "rng": rng.bit_generator.state})


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
