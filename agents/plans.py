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


def first_legal_by_row(
    masks: np.ndarray, plan: Sequence[tuple[int, np.ndarray | bool]]
) -> np.ndarray:
    """`first_legal` for each row of `masks` (N, actions) where the preferences differ by
    row: `plan` lists (action, the rows that prefer it) in order of preference; a row
    none of whose preferences is legal gets its first legal action."""
    masks = np.asarray(masks, dtype=bool)
    chosen = np.full(len(masks), -1, np.int64)
    for action, rows in plan:
        chosen[(chosen < 0) & rows & masks[:, action]] = action
    undecided = chosen < 0
    chosen[undecided] = masks[undecided].argmax(axis=1)
    return chosen
