"""The sandbox's child (`duelo.agents.sandbox`): the one place someone's policy module is
imported. Run as `python -m duelo.agents.sandbox_child NAME SYSTEM` inside the
isolation, it says it booted, builds the policy, then answers one JSON line per move.
No module of duelo imports it: importing `duelo` never reaches it.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

import numpy as np

from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import summary


def import_policy(name: str) -> Policy:
    """The policy class `name` ("package.module:Class") imported and built here: only the
    child calls this (`make_policy` never runs someone's module in our process)."""
    module_name, _, class_name = name.rpartition(":")
    try:
        factory = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot import policy {module_name}:{class_name}: {error}") from error
    policy = factory()
    if not isinstance(policy, Policy):
        raise ValueError(f"{module_name}:{class_name} lacks name, description or act()")
    return policy


def serve(name: str, system: str) -> None:
    """The child's loop: say it booted, build the policy, then answer one JSON line per
    move. Everything after "booted" is the policy's time, which the parent bounds."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # the policy's prints, C's too
    sys.stdout = sys.stderr

    def say(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    from duelo.envs.systems import SYSTEMS

    spec = SYSTEMS[system].ruleset.observation_spec
    say({"ready": "booted"})
    try:
        policy = import_policy(name)
    except Exception as error:
        say({"error": f"could not be built: {summary(str(error))}"})
        return
    say({"ready": "built"})
    rng = np.random.default_rng()
    for line in sys.stdin:
        request = json.loads(line)
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
