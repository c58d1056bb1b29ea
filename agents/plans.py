"""The shared move of scripted NPCs: take the first preferred action the mask allows."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def first_legal(mask: np.ndarray, preferences: Iterable[int]) -> int:
    """The first preferred action the mask allows, else the first legal action."""
    for action in preferences:
        if mask[action]:
            return int(action)
    return int(np.flatnonzero(mask)[0])
