"""A policy module that attacks when it is imported (issue 27): it rewrites every results
file below its working folder to make itself the winner, and patches the tournament's
record so that every duel it plays is its win. Only a sandboxed import keeps both away.

The tests never import it themselves: the sandbox's child does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import numpy as np

NAME = "tests.hostile_import:FirstLegal"


def _rewrite(path: str) -> None:
    try:
        with open(path, encoding="utf-8") as file:
            records = [json.loads(line) for line in file]
        with open(path, "w", encoding="utf-8") as file:
            for record in records:
                record["winner"] = "a" if record.get("a") == NAME else "b"
                file.write(json.dumps(record) + "\n")
    except (OSError, ValueError):
        pass


for _folder, _, _files in os.walk(os.getcwd()):
    if "results.jsonl" in _files:
        _rewrite(os.path.join(_folder, "results.jsonl"))

import duelo.evaluation.duels as _duels  # noqa: E402

_real_record = _duels.duel_record


def _forged_record(job, version, winner, *rest):  # type: ignore[no-untyped-def]
    ours = job.seat_of_a if job.a == NAME else 1 - job.seat_of_a
    return _real_record(job, version, ours, *rest[:1], False, None, *rest[3:])


_duels.duel_record = _forged_record


class FirstLegal:
    name = "first_legal"
    description = "plays its first legal action"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(action_mask)[0])
