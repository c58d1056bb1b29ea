"""Policies from someone else's module, isolated by the operating system.

A `module:Class` policy is someone else's code, so none of it runs in our process:
not its import, not its constructor, not its moves. Each duel gets a fresh child
Python (`python -m duelo.agents.sandbox_child NAME SYSTEM`) inside bubblewrap
(`bwrap`), which gives it:

- its own PID, IPC, network and user namespaces: it sees no process of ours (so no
  memory to read through `/proc`), reaches no network, and everything it starts
  dies with it, since killing the sandbox kills its PID namespace;
- a read-only view of the file system, with an empty `/tmp` of `SCRATCH_BYTES`
  as the only place it can write, and the folders it is told to hide (a
  tournament's own, holding the results and their key) replaced by empty ones;
- a cleared environment (only `KEPT_ENVIRONMENT` passes).

It answers one JSON line per move, and nothing it sends is unpickled. The parent
bounds what it hears: `BOOT_TIME_LIMIT` for our own imports, `BUILD_TIME_LIMIT`
for the policy's import and construction, the move time limit for each move,
`MAX_LINE` bytes an answer, `MAX_STDERR` bytes of prints passed on. A child that
breaks any of these, dies or answers nonsense forfeits its duel.

Without bubblewrap (`apt-get install bubblewrap`), imported policies are refused,
unless `DUELO_SANDBOX=process` asks for a plain child process, which still stops
hangs and survives exits but lets the policy read and write what you can.

The generator the engine hands the seat travels with each move (its state out,
its state back): a sandboxed policy plays exactly as it would in process.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from duelo.envs.core import bounded_json
from duelo.envs.core.referee import PolicyFault, summary

MODE_VARIABLE = "DUELO_SANDBOX"
"""Environment variable: "bwrap" (the default) or "process" (no isolation)."""
BOOT_TIME_LIMIT = 60.0
"""Seconds for the child's interpreter and our own imports, before any code of the policy."""
BUILD_TIME_LIMIT = 10.0
"""Seconds for the policy's import and construction."""
MOVE_TIME_LIMIT = 1.0
"""Seconds a move may take where the caller sets no limit of its own."""
MAX_LINE = 1 << 20
"""Bytes of one answer at most."""
MAX_STDERR = 64 << 10
"""Bytes of a child's prints passed on to our stderr; the rest is dropped."""
SCRATCH_BYTES = 64 << 20
"""Size of the child's writable `/tmp`."""
KEPT_ENVIRONMENT = (
    "PATH",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "LANG",
    "LC_ALL",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
)
"""Variables the child keeps (everything else, secrets included, is cleared)."""
_TOO_LONG = b"\0too long"
PROJECT_DEPTH = 1
"""This file lies in `agents/` right below the folder that holds duelo's code."""


class SandboxUnavailable(ValueError):
    """Imported policies cannot be isolated here (the message says what to install)."""


def isolation(hidden: Sequence[str | Path] = ()) -> list[str]:
    """The command prefix that isolates a child (empty under `DUELO_SANDBOX=process`),
    with each existing folder of `hidden` replaced by an empty one."""
    mode = os.environ.get(MODE_VARIABLE, "bwrap")
    if mode == "process":
        return []
    if mode != "bwrap":
        raise SandboxUnavailable(f"{MODE_VARIABLE} must be 'bwrap' or 'process', not {mode!r}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "policies from a module (module:Class) run isolated by bubblewrap, which is not "
            "installed: apt-get install bubblewrap (or set DUELO_SANDBOX=process to run them "
            "in a plain process, which can read and write your files)"
        )
    command = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    for folder in _code_folders():  # where the policy's code may lie, if under /tmp
        if folder.is_relative_to("/tmp"):
            command += ["--ro-bind", str(folder), str(folder)]
    for hide in hidden:
        if Path(hide).is_dir():
            command += ["--tmpfs", str(Path(hide).resolve())]
    command += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    command += ["--chdir", os.getcwd(), "--clearenv", "--setenv", "HOME", "/tmp"]
    for name in KEPT_ENVIRONMENT:
        if name in os.environ:
            command += ["--setenv", name, os.environ[name]]
    return [*command, "--"]


def _code_folders() -> list[Path]:
    """The working folder, every folder on `sys.path` and `PYTHONPATH`, and duelo's own
    (an editable install is found through an import hook, not `sys.path`), resolved."""
    entries = [os.getcwd(), *sys.path, *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    entries.append(str(Path(__file__).resolve().parents[PROJECT_DEPTH]))
    return sorted({Path(entry).resolve() for entry in entries if entry and Path(entry).is_dir()})


class SandboxedPolicy:
    """A `module:Class` policy served by an isolated child (see the module docstring).

    Each duel (`new_duel`) gets a new child, so nothing the policy learns or leaves
    running in one duel reaches the next: both seat orders of a tournament game roll
    the same dice, and a policy that remembered them would know its dice in the
    second."""

    def __init__(
        self,
        name: str,
        system: str,
        time_limit: float | None = MOVE_TIME_LIMIT,
        hidden: Sequence[str | Path] = (),
    ) -> None:
        self.name = name
        self.description = f"{name}, played in a sandbox of its own"
        self.system = system
        self.time_limit = time_limit
        self.hidden = tuple(str(folder) for folder in hidden)
        self._child: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._printer = threading.Thread()
        self._fault: PolicyFault | None = None
        """Why the child could not start: told at the duel's first move (a forfeit)."""
        from duelo.envs.systems import SYSTEMS

        self._spec = SYSTEMS[system].ruleset.observation_spec

    def fork(self) -> SandboxedPolicy:
        """The same policy for another seat: a child of its own, so that allies share no
        memory and what the rules hide from an ally (a sealed plan) stays hidden."""
        return SandboxedPolicy(self.name, self.system, self.time_limit, self.hidden)

    def check(self) -> None:
        """Build the policy once in a child now: a `ValueError` naming it if it cannot be."""
        try:
            self._start()
        except PolicyFault as fault:
            raise ValueError(f"policy {self.name} {fault}") from None
        finally:
            self.close()

    def new_duel(self) -> None:
        """A fresh child for the next duel, started now, so that starting it is no move's
        time; one that cannot start forfeits the duel at its first move."""
        self._fault = None
        try:
            self._start()
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
        try:
            rng.bit_generator.state = answer["rng"]
            if "error" in answer:
                raise PolicyFault(summary(str(answer["error"])))
            action = answer["action"]
        except (KeyError, TypeError, ValueError):
            action = None
        if type(action) is not int:  # the child is someone else's too: 2.7 or true is no move
            self.close()
            raise PolicyFault(f"answered {summary(repr(answer))}, not a move")
        return action

    def close(self) -> None:
        """Kill the child and everything it started, and close our ends of its pipes (a
        policy that ends its process at every move must not run a long tournament out of
        file descriptors)."""
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)  # the sandbox, or a plain child's group
        child.wait()
        if child.stdin is not None:
            with contextlib.suppress(OSError):  # unsent bytes to a dead child
                child.stdin.close()
        self._printer.join(timeout=5.0)  # its last prints out before the duel is over

    # --- the pipe -----------------------------------------------------------------

    def _start(self) -> None:
        self.close()
        command = isolation(self.hidden)
        command += [sys.executable, "-m", "duelo.agents.sandbox_child", self.name, self.system]
        self._lines = queue.Queue()
        self._child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, killed whole by close()
        )
        threading.Thread(target=_read_lines, args=(self._child, self._lines), daemon=True).start()
        self._printer = threading.Thread(
            target=_pass_on_prints, args=(self._child, self.name), daemon=True
        )
        self._printer.start()
        for what, limit in (("start", BOOT_TIME_LIMIT), ("build", BUILD_TIME_LIMIT)):
            said = self._receive(limit, what)
            if "error" in said:
                self.close()
                raise PolicyFault(summary(str(said["error"])))

    def _ask(self, message: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        self._send(message)
        return self._receive(timeout, "move")

    def _send(self, message: dict[str, Any]) -> None:
        child = self._child
        if child is None or child.stdin is None:
            raise PolicyFault("had its process gone")
        try:
            child.stdin.write(json.dumps(message).encode() + b"\n")
            child.stdin.flush()
        except OSError:
            self.close()
            raise PolicyFault("ended its process") from None

    def _receive(self, timeout: float | None, what: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise PolicyFault(f"took more than {timeout} s for a {what} and was stopped") from None
        if line is None:
            code = self._child.wait() if self._child is not None else None
            self.close()
            raise PolicyFault(f"ended its process without an answer (exit status {code})")
        if line == _TOO_LONG:
            self.close()
            raise PolicyFault(f"answered more than {MAX_LINE} bytes in one line")
        try:
            answer = bounded_json.loads(line, "answer", MAX_LINE)
        except ValueError:  # not JSON, too deep, too long a number...
            answer = None
        if not isinstance(answer, dict) or not ({"action", "error", "ready"} & answer.keys()):
            self.close()
            raise PolicyFault(f"answered {summary(line.decode('utf-8', 'replace'))}, not a move")
        return answer


def _read_lines(child: subprocess.Popen[bytes], lines: queue.Queue[bytes | None]) -> None:
    """The child's answers, line by line, then None when its stdout closes (or
    `_TOO_LONG` for a line over `MAX_LINE`, after which nothing more is read)."""
    assert child.stdout is not None  # opened with PIPE
    with child.stdout:
        while line := child.stdout.readline(MAX_LINE + 1):
            if len(line) > MAX_LINE:
                lines.put(_TOO_LONG)
                return
            lines.put(line)
    lines.put(None)


def _pass_on_prints(child: subprocess.Popen[bytes], name: str) -> None:
    """The child's stderr to ours, at most `MAX_STDERR` bytes of it; the rest is read and
    dropped (a child blocked on a full pipe would look like a hung move)."""
    assert isinstance(child.stderr, io.BufferedReader)  # opened with PIPE, buffered
    left = MAX_STDERR
    out: IO[bytes] | None = getattr(sys.stderr, "buffer", None)
    with child.stderr:
        while chunk := child.stderr.read1(1 << 16):
            if left > 0 and out is not None:
                with contextlib.suppress(OSError, ValueError):
                    out.write(chunk[:left])
                    if len(chunk) >= left:
                        out.write(f"\n[{name}: output past {MAX_STDERR} bytes dropped]\n".encode())
                    out.flush()
            left -= len(chunk)
