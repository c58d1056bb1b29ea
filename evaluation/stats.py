"""Interval estimates and ratings for duel results.

- Wilson score intervals for win rates (they stay inside [0, 1] and behave at
  0 % and 100 %, unlike the normal approximation).
- Batch Bradley-Terry strengths fitted by Hunter's MM algorithm over the whole
  result table, so ratings do not depend on the order duels were played (as
  online Elo does), reported on the Elo scale and anchored to one policy.
- Percentile bootstrap intervals for those ratings, resampling each pairing's
  duels with replacement.
- Head to head: the exact sign test of one policy's wins against its losses in a
  pairing, and Holm's adjustment of a table of such p-values for many comparisons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

Z95 = 1.959963984540054
"""The standard normal's 97.5 % quantile: two-sided 95 % intervals."""
ELO_SCALE = 400 / math.log(10)
"""Elo points per unit of log-strength: a 10x strength ratio is 400 points."""


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (draws may count as half successes)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def bradley_terry(
    scores: np.ndarray, prior: float = 1.0, iterations: int = 10_000, tol: float = 1e-12
) -> np.ndarray:
    """Strengths p (geometric mean 1) with P(i beats j) = p_i / (p_i + p_j).

    `scores[i, j]` is i's score against j (wins + half draws). `prior` adds that
    many virtual half-wins to both sides of every pairing that was played, so a
    policy that never wins or never loses still gets a finite rating.

    `scores` may also be a stack of tables (..., n, n), fitted together (the
    bootstrap's resamples): each stops at its own convergence with the strengths
    it would reach alone, while the iterations run once for all of them.
    """
    scores = np.asarray(scores, dtype=float)
    played = (scores + np.swapaxes(scores, -1, -2)) > 0
    scores = scores + prior * played
    games = scores + np.swapaxes(scores, -1, -2)
    wins = scores.sum(axis=-1)
    strength = np.ones(wins.shape)
    fitted = strength.copy()
    active = np.ones(wins.shape[:-1], dtype=bool)
    """The tables still iterating; the others' strengths are final in `fitted`."""
    for _ in range(iterations):
        pair_sums = strength[..., :, None] + strength[..., None, :]
        denominator = (games / pair_sums).sum(axis=-1)
        updated = np.where(denominator > 0, wins / np.where(denominator > 0, denominator, 1), 1.0)
        updated /= np.exp(np.log(updated).mean(axis=-1, keepdims=True))
        converged = active & (np.max(np.abs(updated - strength), axis=-1) < tol)
        fitted[converged] = updated[converged]
        active &= ~converged
        if not active.any():
            return fitted
        strength[active] = updated[active]
    fitted[active] = strength[active]
    return fitted


def elo(strengths: np.ndarray, anchor: int, anchor_rating: float = 1000.0) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale, policy `anchor` fixed at `anchor_rating`
    (`strengths` may be a stack, one row a fit)."""
    log_strength = np.log(strengths)
    return anchor_rating + ELO_SCALE * (log_strength - log_strength[..., anchor, None])


def bootstrap_elo(
    pair_scores: Mapping[tuple[int, int], Sequence[float]],
    players: int,
    anchor: int,
    rng: np.random.Generator,
    samples: int = 200,
    anchor_rating: float = 1000.0,
) -> tuple[np.ndarray, np.ndarray]:
    """95 % percentile intervals (low, high) of each Elo rating.

    `pair_scores[(i, j)]` lists i's score in each duel against j (1, 0.5 or 0).
    """
    tables = np.zeros((samples, players, players))
    for k in range(samples):
        for (i, j), duel_scores in pair_scores.items():
            values = np.asarray(duel_scores, dtype=float)
            resampled = values[rng.integers(len(values), size=len(values))].sum()
            tables[k, i, j] += resampled
            tables[k, j, i] += len(values) - resampled
    draws = elo(bradley_terry(tables), anchor, anchor_rating)  # all resamples fitted together
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return low, high


def sign_test(wins: int, losses: int) -> float:
    """The two-sided exact p-value of `wins` against `losses` if either side were as
    likely to win a decided duel (the sign test: a draw favours neither and is left
    out); 1.0 where nothing was decided. Exact: binomial tails summed in integers."""
    decided = wins + losses
    if decided == 0:
        return 1.0
    tail = sum(math.comb(decided, k) for k in range(min(wins, losses) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**decided)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the k-th smallest of m p-values times m - k + 1,
    never below the one before it, at most 1. Rejecting where the adjusted value is
    below a level keeps the chance of any false rejection among the m within it."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
