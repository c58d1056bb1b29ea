"""Wilson intervals and Bradley-Terry ratings against known values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from duelo.evaluation.stats import bootstrap_elo, bradley_terry, elo, wilson_interval


def test_wilson_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.40383, abs=1e-5) and high == pytest.approx(0.59617, abs=1e-5)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.27753, abs=1e-5)
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.72247, abs=1e-5) and high == pytest.approx(1.0)
    low, high = wilson_interval(81, 263)  # Wilson's own worked example: 0.2553 to 0.3662
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)


def test_bradley_terry_two_players_three_to_one() -> None:
    strengths = bradley_terry(np.array([[0, 75], [25, 0]]), prior=0)
    assert strengths[0] / strengths[1] == pytest.approx(3.0)
    ratings = elo(strengths, anchor=1, anchor_rating=1000)
    assert ratings[1] == 1000
    assert ratings[0] - ratings[1] == pytest.approx(400 * math.log10(3))  # 190.85


def test_bradley_terry_recovers_known_strengths_from_expected_counts() -> None:
    truth = np.array([1.0, 2.0, 4.0])
    games = 700
    scores = games * truth[:, None] / (truth[:, None] + truth[None, :])
    np.fill_diagonal(scores, 0)
    strengths = bradley_terry(scores, prior=0)
    assert strengths / strengths[0] == pytest.approx(truth, rel=1e-9)


def test_prior_keeps_an_unbeaten_policy_finite() -> None:
    strengths = bradley_terry(np.array([[0, 100], [0, 0]]), prior=1.0)
    assert np.all(np.isfinite(strengths)) and strengths[0] / strengths[1] == pytest.approx(101)


def test_bootstrap_interval_brackets_the_estimate() -> None:
    rng = np.random.default_rng(0)
    pair_scores = {(0, 1): [1.0] * 60 + [0.0] * 40, (1, 2): [1.0] * 30 + [0.5] * 20 + [0.0] * 50}
    scores = np.zeros((3, 3))
    for (i, j), values in pair_scores.items():
        scores[i, j], scores[j, i] = sum(values), len(values) - sum(values)
    estimate = elo(bradley_terry(scores), anchor=2)
    low, high = bootstrap_elo(pair_scores, 3, anchor=2, rng=rng, samples=300)
    assert low[2] == high[2] == 1000  # the anchor does not move
    assert np.all(low[:2] < estimate[:2]) and np.all(estimate[:2] < high[:2])


def test_a_stack_of_tables_fits_each_as_it_would_alone() -> None:
    """The bootstrap fits its resamples together; each must stop where it would alone
    (tables near and far from even converge after very different iteration counts)."""
    tables = np.array(
        [
            [[0, 3, 5], [1, 0, 2], [5, 2, 0]],
            [[0, 199, 200], [1, 0, 150], [0, 50, 0]],
            [[0, 10, 10], [10, 0, 10], [10, 10, 0]],
            [[0, 0, 7], [0, 0, 0], [1, 0, 0]],  # one pairing never played
        ],
        dtype=float,
    )
    together = bradley_terry(tables)
    for table, fitted in zip(tables, together, strict=True):
        assert np.array_equal(fitted, bradley_terry(table))
    assert np.array_equal(elo(together, 1)[1], elo(bradley_terry(tables[1]), 1))
