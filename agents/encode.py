"""Build a system's flat observation from a game state described by entry names.

An engine, a virtual tabletop or a bot keeps its own game state; to ask a brain (numpy,
ONNX or the HTTP API) what an NPC does, it writes that state as the flat vector the
brain reads. `entries(system)` lists every entry of that vector in order, with its
bounds and the meaning of its key (what a brain's manifest and `duelo systems --json`
publish); `encode(system, situation)` takes one value per entry name and returns the
vector, refusing, by name, an unknown or missing entry and a value out of bounds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from duelo.envs.systems import system as system_of


def entries(system: str) -> list[dict[str, Any]]:
    """Every entry of `system`'s flat observation, in order: its index, its name
    (`key` or `key[field]`), its key, its bounds and its key's meaning."""
    spec = system_of(system).ruleset.observation_spec
    rows: list[dict[str, Any]] = []
    names = iter(spec.field_names())
    for key in spec.keys:
        for _ in range(key.size):
            rows.append(
                {
                    "index": len(rows),
                    "name": next(names),
                    "key": key.name,
                    "low": key.low,
                    "high": key.high,
                    "meaning": key.meaning,
                }
            )
    return rows


def encode(system: str, situation: Mapping[str, float]) -> np.ndarray:
    """The float32 observation vector of `situation`, which gives every entry of
    `entries(system)` by name (e.g. `{"hp[self]": 12, "range": 2, ...}`)."""
    rows = entries(system)
    names = {row["name"] for row in rows}
    unknown = sorted(set(situation) - names)
    if unknown:
        raise ValueError(f"{system}: no observation entry named {unknown[0]!r}")
    missing = [row["name"] for row in rows if row["name"] not in situation]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise ValueError(f"{system}: the situation lacks {len(missing)} entries: {shown}")
    vector = np.empty(len(rows), np.float32)
    for row in rows:
        value = situation[row["name"]]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{system}: {row['name']} must be a number, not {value!r}")
        if not (math.isfinite(value) and row["low"] <= value <= row["high"]):
            raise ValueError(
                f"{system}: {row['name']} = {value} lies outside [{row['low']}, {row['high']}]"
            )
        vector[row["index"]] = value
    return vector
