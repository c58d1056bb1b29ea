"""Interval estimates and ratings for duel results.

- Wilson score intervals for win rates (they stay inside [0, 1] and behave at
  0 % and 100 %, unlike the normal approximation).
- Batch Bradley-Terry strengths fitted by Hunter's MM algorithm over the whole
  result table, so ratings do not depend on the order duels were played (as
  online Elo does), reported on the Elo scale and anchored to one policy.
- A game's interval: a tournament game is both seat orders of one seed, so its two
  duels are not independent (with keyed dice they share their luck, and the game's
  score moves less than two coin flips); the interval of a pairing's score taken over
  games is what common random numbers narrow.
- Percentile bootstrap intervals for those ratings, resampling each pairing's
  duels with replacement.
- alpha-Rank's stationary masses of the score table, which rank a cycle of policies
  (each beating the next) as a cycle, where a Bradley-Terry fit must order them.
- Head to head: the exact sign test of one policy's wins against its losses in a
  pairing, Holm's adjustment of a table of such p-values for many comparisons, and
  how many duels a pairing needs for the test to find a given edge.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist

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


def game_interval(game_scores: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """The normal interval of a mean score over independent games (each game's score the
    mean of its duels), inside [0, 1]: the games, not the duels, are the independent
    samples of a tournament. Where every game scored alike (no spread to measure), or
    fewer than two were played, the Wilson interval of their duels (two a game) stands
    in."""
    scores = np.asarray(game_scores, dtype=float)
    spread = float(scores.std(ddof=1)) if len(scores) > 1 else 0.0
    if spread == 0.0:
        return wilson_interval(2 * float(scores.sum()), 2 * len(scores), z)
    mean, half = float(scores.mean()), z * spread / math.sqrt(len(scores))
    return max(0.0, mean - half), min(1.0, mean + half)


PRIOR = 1.0
"""Bradley-Terry's prior: one virtual win each way in every pairing that was played."""


def bradley_terry(
    scores: np.ndarray, prior: float = PRIOR, iterations: int = 10_000, tol: float = 1e-12
) -> np.ndarray:
    """Strengths p (geometric mean 1) with P(i beats j) = p_i / (p_i + p_j).

    `scores[i, j]` is i's score against j (wins + half draws). `prior` adds that
    many virtual wins to both sides of every pairing that was played, so a policy
    that never wins or never loses still gets a finite rating (it pulls every rating
    toward the others: 0 fits the table alone).

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
    tables: np.ndarray, anchor: int, anchor_rating: float = 1000.0, prior: float = PRIOR
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """95 % percentile intervals (low, high) of each Elo rating, from resampled score
    tables (`resampled_tables`), all fitted together; and the fitted ratings of every
    resample (samples, players), for intervals of their differences (`adjacent_gaps`)."""
    draws = elo(bradley_terry(tables, prior), anchor, anchor_rating)
    low, high = np.percentile(draws, [2.5, 97.5], axis=0)
    return low, high, draws


def adjacent_gaps(
    draws: np.ndarray, order: Sequence[int], level: float = 0.05
) -> list[tuple[float, float]]:
    """The bootstrap interval of each rating's lead over the next one down in `order`,
    from the same resamples (`bootstrap_elo`'s draws: a difference has an interval of its
    own, which two overlapping intervals hide). The level is split over the
    len(order) - 1 gaps (Bonferroni): the chance that any interval of an equal pair
    leaves out 0 stays within `level`."""
    if len(order) < 2:
        return []
    tail = 100 * level / (len(order) - 1) / 2
    return [
        tuple(np.percentile(draws[:, upper] - draws[:, lower], [tail, 100 - tail]))
        for upper, lower in itertools.pairwise(order)
    ]


def resampled_tables(
    pair_scores: Mapping[tuple[int, int], Sequence[float]],
    players: int,
    rng: np.random.Generator,
    samples: int,
) -> np.ndarray:
    """`samples` score tables (samples, players, players), each pairing's duels drawn
    with replacement: `table[k, i, j]` is i's score against j in resample k."""
    tables = np.zeros((samples, players, players))
    for k in range(samples):
        for (i, j), duel_scores in pair_scores.items():
            values = np.asarray(duel_scores, dtype=float)
            resampled = values[rng.integers(len(values), size=len(values))].sum()
            tables[k, i, j] += resampled
            tables[k, j, i] += len(values) - resampled
    return tables


def payoff_table(scores: np.ndarray) -> np.ndarray:
    """Each policy's mean score against each other, from score tables (..., n, n) as
    `bradley_terry` takes them; 0.5 where two never met, and on the diagonal."""
    scores = np.asarray(scores, dtype=float)
    games = scores + np.swapaxes(scores, -1, -2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(games > 0, scores / np.where(games > 0, games, 1), 0.5)


ALPHA = 100.0
"""alpha-Rank's ranking intensity: high enough that an edge of 0.02 in score decides
which of two policies takes over (the masses then rest on the response graph's sinks)."""
POPULATION = 50
"""alpha-Rank's population size m."""


def alpha_rank(
    payoffs: np.ndarray, alpha: float = ALPHA, population: int = POPULATION
) -> np.ndarray:
    """alpha-Rank's masses (Omidshafiei et al., 2019: one population, a constant-sum
    table), one a policy, summing to 1; `payoffs` may be a stack of tables (..., n, n).

    `payoffs[i, j]` is i's score against j, so `payoffs[j, i]` is 1 less it and the
    diagonal 0.5. In a population of m players of s, one mutant r has an edge of
    m / (m - 1) (payoffs[r, s] - 1/2) whatever the mutants' number, and takes over
    with Fermi fixation probability (1 - e^(-alpha d)) / (1 - e^(-m alpha d)) (1 / m at
    d = 0). The masses are the stationary distribution of the chain that moves from s
    to each r with 1 / (n - 1) of that probability: all on the best policy of a
    transitive table, shared evenly by a cycle (rock, paper, scissors).
    """
    payoffs = np.asarray(payoffs, dtype=float)
    players = payoffs.shape[-1]
    if players == 1:
        return np.ones(payoffs.shape[:-1])
    edge = population / (population - 1) * (payoffs - 0.5)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        fixation = np.expm1(-alpha * edge) / np.expm1(-population * alpha * edge)
    fixation = np.where(np.abs(edge) < 1e-12, 1 / population, np.nan_to_num(fixation))
    moves = np.swapaxes(fixation, -1, -2) / (players - 1)  # moves[s, r]: s taken over by r
    eye = np.eye(players, dtype=bool)
    moves = np.where(eye, 0.0, moves)
    moves = moves + eye * (1 - moves.sum(axis=-1, keepdims=True))
    # pi (moves - I) = 0 with the masses summing to 1, solved as one least-squares system
    system = np.concatenate(
        [np.swapaxes(moves, -1, -2) - np.eye(players), np.ones((*moves.shape[:-2], 1, players))],
        axis=-2,
    )
    target = np.zeros((*moves.shape[:-2], players + 1, 1))
    target[..., -1, 0] = 1.0
    masses = (np.linalg.pinv(system) @ target)[..., 0]
    masses = np.clip(masses, 0.0, None)
    return masses / masses.sum(axis=-1, keepdims=True)


def sign_test(wins: int, losses: int) -> float:
    """The two-sided exact p-value of `wins` against `losses` if either side were as
    likely to win a decided duel (the sign test: a draw favours neither and is left
    out); 1.0 where nothing was decided. The binomial tail is summed from its largest
    term down until the rest no longer counts, in floats: a tournament's 100,000 duels
    cost a few hundred terms, not a sum of 50,000 binomial coefficients."""
    decided = wins + losses
    low = min(wins, losses)
    if 2 * low + 1 >= decided:  # none decided, a tie, or one apart of an odd count:
        return 1.0  # the tail alone is half or more
    term = math.exp(
        math.lgamma(decided + 1)
        - math.lgamma(low + 1)
        - math.lgamma(decided - low + 1)
        - decided * math.log(2)
    )
    tail = 0.0
    for k in range(low, -1, -1):  # each term k / (decided - k + 1) of the one above
        tail += term
        term *= k / (decided - k + 1)
        if term <= tail * 1e-17:
            break
    return min(1.0, 2 * tail)


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


def duels_needed(
    gap: float,
    power: float = 0.8,
    draws: float = 0.0,
    level: float = 0.05,
    comparisons: int = 1,
) -> int:
    """Duels a pairing needs for the sign test (`sign_test`, two-sided at level /
    comparisons: Holm's strictest step over that many pairings) to find, with chance
    `power`, a policy whose score is 0.5 + gap where a `draws` share of duels is drawn.

    A decided duel is a win with chance q = 1/2 + gap / (1 - draws); the normal
    approximation of the binomial asks for ((z · 1/2 + z_power · sqrt(q (1 - q))) /
    (q - 1/2))^2 decided duels, z the two-sided critical value, plus 1 / (q - 1/2) for
    continuity (the exact test is discrete, and its power a sawtooth in the number of
    duels, within about 0.02 of the power asked for from there on), and so many more
    duels as draws leave undecided.
    """
    if not 0 < gap < (1 - draws) / 2:
        raise ValueError(f"gap must lie in (0, {(1 - draws) / 2:g}) with draws {draws:g}")
    if not 0 < power < 1 or not 0 < level < 1 or not 0 <= draws < 1 or comparisons < 1:
        raise ValueError("power and level lie in (0, 1), draws in [0, 1), comparisons >= 1")
    normal = NormalDist()
    critical = normal.inv_cdf(1 - level / comparisons / 2)
    q = 0.5 + gap / (1 - draws)
    decided = ((critical * 0.5 + normal.inv_cdf(power) * math.sqrt(q * (1 - q))) / (q - 0.5)) ** 2
    decided += 1 / (q - 0.5)
    return math.ceil(decided / (1 - draws))


SEQUENTIAL_LEVEL = 0.05
"""The chance a sequential tournament ever calls a pairing of equals decided."""


def mixture_evidence(wins: int, losses: int) -> float:
    """The evidence against a fair coin from `wins` and `losses` of the decided duels so
    far: the likelihood of the record under a win chance drawn uniformly from [0, 1],
    over its likelihood at 1/2, that is 2^n w! l! / (n + 1)! for n = w + l.

    Under a fair coin this is a martingale with mean 1 that starts at 1, so by Ville's
    inequality the chance it ever reaches 1 / level, at any of however many looks, is at
    most `level`: a sequential test valid whenever it is checked (a peeked fixed-N
    interval is not). Draws favour neither side and are left out, as in `sign_test`."""
    decided = wins + losses
    return math.exp(
        decided * math.log(2)
        + math.lgamma(wins + 1)
        + math.lgamma(losses + 1)
        - math.lgamma(decided + 2)
    )


def decided(wins: int, losses: int, level: float = SEQUENTIAL_LEVEL) -> bool:
    """Whether the sequential test (`mixture_evidence`) calls the pairing: one side wins
    more often than the other."""
    return mixture_evidence(wins, losses) >= 1 / level
