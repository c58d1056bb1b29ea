"""The shared move of scripted NPCs: take the first preferred action the mask allows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def first_legal(mask: np.ndarray, preferences: Iterable[int]) -> int:
    """The first preferred action the mask allows, else the first legal action."""
    for action in preferences:
        if mask[action]:
            return int(action)
    return int(np.flatnonzero(mask)[0])


def first_legal_batch(masks: np.ndarray, preferences: Sequence[int]) -> np.ndarray:
    """`first_legal` for each row of `masks` (N, actions) at once (a row with no legal
    action gets the first preference, which the caller refuses as illegal)."""
    order = np.array([*preferences, *range(masks.shape[1])], dtype=np.int64)
    return order[np.asarray(masks, dtype=bool)[:, order].argmax(axis=1)]
