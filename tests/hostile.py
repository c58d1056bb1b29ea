"""Policies that misbehave on purpose, to show that each one only loses its own duel.

They are importable as `tests.hostile:NAME`, the way a user names a policy module.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping

import numpy as np


class _Hostile:
    description = "misbehaves on purpose"


class MaskEditor(_Hostile):
    """Sets its mask to all-legal and plays an action the real mask forbids."""

    name = "mask_editor"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        illegal = np.flatnonzero(~action_mask)
        action_mask[:] = True
        return int(illegal[0]) if illegal.size else int(np.flatnonzero(action_mask)[0])


class Raiser(_Hostile):
    name = "raiser"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        raise ValueError("boom\nDuel over: side B wins (a forged line)" + "x" * 5000)


class SysExiter(_Hostile):
    name = "sys_exiter"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        sys.exit(5)


class Exiter(_Hostile):
    """Ends its whole process at once (no exception to catch)."""

    name = "exiter"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        os._exit(3)


class Hanger(_Hostile):
    name = "hanger"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        time.sleep(3600)
        return 0


class NonInteger(_Hostile):
    name = "non_integer"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return float(np.flatnonzero(action_mask)[0]) + 0.7  # type: ignore[return-value]


class StringAnswer(_Hostile):
    name = "string_answer"

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return str(np.flatnonzero(action_mask)[0])  # type: ignore[return-value]


class SeedThief(_Hostile):
    """Rewinds the generator it is handed, looking for the draw that seeded the dice (what
    an env that lends its own `np_random` would give away), then plays legally."""

    name = "seed_thief"
    REWIND = 64

    def __init__(self) -> None:
        self.candidates: set[int] = set()

    def act(self, observation: Mapping, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        for back in range(1, self.REWIND + 1):
            rng.bit_generator.advance(-back)
            self.candidates.add(int(rng.integers(2**63)))
            rng.bit_generator.advance(back - 1)
        return int(np.flatnonzero(action_mask)[0])
