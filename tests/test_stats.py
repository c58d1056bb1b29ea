"""Wilson intervals, Bradley-Terry ratings and head-to-head tests against known values."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from duelo.evaluation.report import SIGNIFICANCE, build_report, render
from duelo.evaluation.stats import (
    Z95,
    alpha_rank,
    bootstrap_elo,
    bradley_terry,
    decided,
    duels_needed,
    elo,
    game_interval,
    holm,
    mixture_evidence,
    payoff_table,
    resampled_tables,
    sign_test,
    wilson_interval,
)


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
    low, high, _ = bootstrap_elo(resampled_tables(pair_scores, 3, rng, 300), anchor=2)
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


def test_the_sign_test_known_values() -> None:
    assert sign_test(0, 0) == 1.0 and sign_test(5, 5) == 1.0 and sign_test(6, 5) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 1024, rel=1e-12)
    assert sign_test(0, 10) == sign_test(10, 0)
    assert sign_test(7, 3) == pytest.approx(2 * (1 + 10 + 45 + 120) / 1024, rel=1e-12)
    # against the integer sum of the binomial coefficients, far into a tail and near 1/2
    for wins, losses in ((600, 400), (1030, 970), (5, 120)):
        decided = wins + losses
        tail = sum(math.comb(decided, k) for k in range(min(wins, losses) + 1))
        exact = float(Fraction(2 * tail, 2**decided))
        assert sign_test(wins, losses) == pytest.approx(exact, rel=1e-9)
    # a tournament's largest pairing: 100,000 decided duels, 50,400 to 49,600 (p 0.011)
    assert sign_test(50_400, 49_600) == pytest.approx(0.0114, abs=5e-4)


def test_holm_known_values() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, kept non-decreasing
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == []


SIMULATED = 2000
"""Simulated tournaments a rate below is measured over."""
RATE_SLACK = 3.2905 * math.sqrt(SIGNIFICANCE * (1 - SIGNIFICANCE) / SIMULATED)
"""How far a measured rate of a 5 % event may lie above 5 % by chance (99.9 %)."""


def _duels(rng: np.random.Generator, edge: float, duels: int) -> tuple[int, int]:
    """Wins and losses of a policy that wins a decided duel with chance 0.5 + edge, a
    fifth of the duels drawn."""
    decided = rng.binomial(duels, 0.8)
    wins = rng.binomial(decided, 0.5 + edge)
    return int(wins), int(decided - wins)


def test_the_sign_test_holds_its_level_and_finds_a_known_edge() -> None:
    """Two even policies: a pairing of 200 duels is called decided in at most 5 % of
    simulated tournaments (the test is exact, so at most its level: 4.15 % here); a
    policy that wins 60 % of its decided duels is found in nearly all of 400 duels (the
    exact power, the binomial summed over the rejection region, is 0.944)."""
    rng = np.random.default_rng(0)
    even = [sign_test(*_duels(rng, 0.0, 200)) < SIGNIFICANCE for _ in range(SIMULATED)]
    assert np.mean(even) <= SIGNIFICANCE + RATE_SLACK
    edge = [sign_test(*_duels(rng, 0.1, 400)) < SIGNIFICANCE for _ in range(SIMULATED)]
    assert np.mean(edge) >= 0.9


def test_holm_keeps_the_family_wise_error_over_many_pairings() -> None:
    """Ten pairings of even policies: some pairing is called decided in at most 5 % of
    simulated tournaments with Holm's adjustment, and in far more without it."""
    rng = np.random.default_rng(1)
    adjusted = unadjusted = 0
    for _ in range(SIMULATED):
        p_values = [sign_test(*_duels(rng, 0.0, 200)) for _ in range(10)]
        adjusted += min(holm(p_values)) < SIGNIFICANCE
        unadjusted += min(p_values) < SIGNIFICANCE
    assert adjusted / SIMULATED <= SIGNIFICANCE + RATE_SLACK
    assert unadjusted / SIMULATED > 0.2  # 1 - 0.95**10 = 0.40 for a test at its level


def test_a_report_marks_the_pairings_that_are_decided() -> None:
    """Three policies: strong beats weak 150 to 50 (decided), strong and even, even and
    weak 105 to 95 (not): the table stars only the first, Holm-adjusted over three."""

    policies = ["strong", "even", "weak"]
    report = build_report(
        _fake("strong", "weak", 150, 50)
        + _fake("strong", "even", 105, 95)
        + _fake("even", "weak", 105, 95),
        policies,
    )
    by_pair = {(p.a, p.b): p for p in report.pairings}
    decided = by_pair["strong", "weak"]
    assert decided.p_value == sign_test(150, 50) and decided.p_holm == 3 * sign_test(150, 50)
    assert decided.decided
    assert not by_pair["strong", "even"].decided and not by_pair["even", "weak"].decided
    assert by_pair["strong", "even"].p_holm == min(1.0, 2 * sign_test(105, 95))
    table = render(report)
    starred = [line.split()[:3] for line in table.splitlines() if " vs " in line and "*" in line]
    assert starred == [["strong", "vs", "weak"]]


def test_a_report_marks_the_rating_leads_that_are_significant() -> None:
    """Ahead 300 to 100 of two policies that play 200 to 200: the top rating's lead over
    the next is starred, the even pair's is not, though the top's own interval and the
    next one's are each wide; the last rating leads nobody."""
    records = _fake("top", "mid", 300, 100) + _fake("top", "low", 300, 100)
    records += _fake("mid", "low", 200, 200)
    report = build_report(records, ["top", "mid", "low"])
    first, second, last = report.ratings
    assert first.policy == "top" and first.leads and first.lead_low > 100
    assert not second.leads and second.lead_low < 0 < second.lead_high
    assert math.isnan(last.lead_low) and not last.leads
    leads = [line.split()[-1] for line in render(report).splitlines()[-3:]]
    assert leads[0].endswith("]*") and not leads[1].endswith("*") and leads[2] == "-"


def _fake(a: str, b: str, wins: int, losses: int) -> list[dict]:
    return [
        {
            "system": "infierno",
            "a": a,
            "b": b,
            "winner": "a" if k < wins else "b",
            "game": k // 2,
            "seat_of_a": k % 2,
            "forfeit": None,
            "decisions": 10,
            "rounds": 3,
            "variant": {},
        }
        for k in range(wins + losses)
    ]


def test_alpha_rank_known_answers() -> None:
    """A cycle (rock, paper, scissors) shares the mass evenly; a transitive table puts it
    all on the best; two even policies split it; a stack is ranked table by table."""
    cycle = np.array([[0.5, 1, 0], [0, 0.5, 1], [1, 0, 0.5]])
    assert alpha_rank(cycle) == pytest.approx([1 / 3] * 3)
    ladder = np.array([[0.5, 0.7, 0.9], [0.3, 0.5, 0.6], [0.1, 0.4, 0.5]])
    assert alpha_rank(ladder) == pytest.approx([1, 0, 0], abs=1e-9)
    assert alpha_rank(np.full((2, 2), 0.5)) == pytest.approx([0.5, 0.5])
    assert alpha_rank(np.stack([cycle, ladder])) == pytest.approx(
        np.stack([alpha_rank(cycle), alpha_rank(ladder)]), abs=1e-9
    )


def test_alpha_rank_of_two_policies_is_the_fixation_odds() -> None:
    """Two policies: the chain's masses stand as the two fixation probabilities do,
    (1 - e^-x) / (1 - e^-mx) against its mirror, x = alpha m / (m - 1) times the edge."""
    edge, alpha, m = 0.01, 1.0, 50
    x = alpha * m / (m - 1) * edge
    up = (1 - math.exp(-x)) / (1 - math.exp(-m * x))
    down = (1 - math.exp(x)) / (1 - math.exp(m * x))
    masses = alpha_rank(np.array([[0.5, 0.5 + edge], [0.5 - edge, 0.5]]), alpha, m)
    assert masses[0] / masses[1] == pytest.approx(up / down)


def test_the_payoff_table_is_the_mean_score_and_even_where_unplayed() -> None:
    scores = np.array([[0, 30, 0], [10, 0, 0], [0, 0, 0]])
    expected = np.array([[0.5, 0.75, 0.5], [0.25, 0.5, 0.5], [0.5, 0.5, 0.5]])
    assert payoff_table(scores) == pytest.approx(expected)


def test_a_report_of_a_cycle_shares_its_alpha_rank_mass() -> None:
    """rock beats scissors beats paper beats rock, 80 to 20 each: the Bradley-Terry fit
    puts them level, alpha-Rank gives each a third, each interval holding it."""

    def records(a: str, b: str) -> list[dict]:
        return [
            {
                "system": "infierno",
                "a": a,
                "b": b,
                "winner": "a" if k < 80 else "b",
                "game": k // 2,
                "seat_of_a": k % 2,
                "forfeit": None,
                "decisions": 10,
                "rounds": 3,
                "variant": {},
            }
            for k in range(100)
        ]

    report = build_report(
        records("rock", "scissors") + records("scissors", "paper") + records("paper", "rock"),
        ["rock", "paper", "scissors"],
    )
    for rating in report.ratings:
        assert rating.mass == pytest.approx(1 / 3)
        assert rating.mass_low <= 1 / 3 <= rating.mass_high
        assert rating.elo == pytest.approx(1000)
    assert "alpha-Rank" in render(report)


def _exact_power(duels: int, win: float, level: float = SIGNIFICANCE) -> float:
    """The sign test's exact chance to reject at `level` over `duels` decided duels that
    the first wins with chance `win`: the binomial summed over its rejection region."""
    return sum(
        math.comb(duels, k) * win**k * (1 - win) ** (duels - k)
        for k in range(duels + 1)
        if sign_test(k, duels - k) < level
    )


@pytest.mark.parametrize(("gap", "power"), [(0.1, 0.8), (0.15, 0.9), (0.05, 0.5)])
def test_the_duels_planned_give_the_power_asked_for(gap: float, power: float) -> None:
    """With no draws, the planned number of duels reaches the power asked for (the exact
    power, within the 0.02 its sawtooth in the number of duels swings) and a fifth fewer
    duels do not."""
    duels = duels_needed(gap, power)
    assert _exact_power(duels, 0.5 + gap) >= power - 0.02
    assert _exact_power(int(0.8 * duels), 0.5 + gap) < power


def test_draws_and_many_pairings_change_the_duels_needed() -> None:
    # at the same score, draws leave the edge to the decided duels (a score of 0.6 with
    # half the duels drawn is 0.7 of the decided ones): fewer duels than without draws
    assert 2 * duels_needed(0.2) - 1 <= duels_needed(0.1, draws=0.5) <= 2 * duels_needed(0.2)
    assert duels_needed(0.1, draws=0.5) < duels_needed(0.1)
    # Holm's strictest step over ten pairings tests at 0.005
    assert duels_needed(0.1, comparisons=10) == duels_needed(0.1, level=0.005)
    assert duels_needed(0.1, comparisons=10) > duels_needed(0.1)
    with pytest.raises(ValueError, match="gap must lie in"):
        duels_needed(0.3, draws=0.5)
    with pytest.raises(ValueError, match="power and level"):
        duels_needed(0.1, power=1.0)


def test_the_mixture_evidence_known_values() -> None:
    """2^n w! l! / (n + 1)!: 1 before any duel; 5 straight wins 32/6; 10 straight wins
    1024/11, past 1/0.05 = 20; as much either way; an even record below 1."""
    assert mixture_evidence(0, 0) == pytest.approx(1.0)
    assert mixture_evidence(5, 0) == pytest.approx(32 / 6) == mixture_evidence(0, 5)
    assert mixture_evidence(10, 0) == pytest.approx(1024 / 11)
    assert mixture_evidence(3, 2) == pytest.approx(2**5 * 6 * 2 / 720)
    assert mixture_evidence(500, 500) < 1
    assert decided(10, 0) and not decided(5, 0) and not decided(520, 480)
    assert decided(560, 440)


def _looks(p_win: float, runs: int, duels: int, every: int, seed: int) -> np.ndarray:
    """Wins and losses after each look, for `runs` simulated pairings of `duels` decided
    duels, looked at every `every`: shape (runs, looks, 2)."""
    rng = np.random.default_rng(seed)
    wins = np.cumsum(rng.random((runs, duels)) < p_win, axis=1)[:, every - 1 :: every]
    n = np.arange(every, duels + 1, every)
    return np.stack([wins, n - wins], axis=-1)


def test_the_sequential_test_keeps_its_level_at_every_look() -> None:
    """Over 4,000 simulated pairings of equals, looked at every 10 decided duels up to
    1,000, the sequential test ever calls one at most 5 % of the time (3 standard
    errors of that rate allowed: 0.060), where the sign test peeked at the same looks
    does so far more often; and against a 0.6 win chance it calls nearly all."""
    looks = _looks(0.5, 4000, 1000, 10, seed=7)
    called = np.array([[decided(int(w), int(n)) for w, n in run] for run in looks])
    rate = called.any(axis=1).mean()
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 4000)
    peeked = np.array([[sign_test(int(w), int(n)) < 0.05 for w, n in run] for run in looks[:500]])
    assert peeked.any(axis=1).mean() > 0.2
    strong = _looks(0.6, 500, 1000, 10, seed=8)
    assert np.mean([any(decided(int(w), int(n)) for w, n in run) for run in strong]) > 0.95


def test_the_interval_by_game_known_values() -> None:
    """Four games scoring 1, 0.5, 0.5, 0: mean 0.5, sample deviation sqrt(1/6), so
    0.5 +- 1.96 * sqrt(1/6) / 2; every game alike falls back to Wilson over the duels."""
    low, high = game_interval([1.0, 0.5, 0.5, 0.0])
    half = Z95 * math.sqrt(1 / 6) / 2
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half))
    assert game_interval([0.5] * 10) == wilson_interval(10, 20)
    assert game_interval([1.0]) == wilson_interval(2, 2)
    assert game_interval([0.0, 0.0, 1.0, 1.0, 1.0])[0] >= 0.0


def test_the_interval_by_game_covers_at_its_level_where_seat_orders_correlate() -> None:
    """Simulated games whose two duels move together or against each other (a seat's luck
    shared by the pair): over 2,000 tournaments of 400 games the interval covers the
    true score within 95 % +- 1.5 points (three binomial errors at 2,000), where Wilson
    over duels, blind to the pairing, covers too much or too little."""
    rng = np.random.default_rng(5)
    for together in (-0.8, 0.8):
        covered = wilson_covered = 0
        for _ in range(2000):
            luck = rng.random(400) < 0.5
            second = np.where(
                rng.random(400) < abs(together), luck ^ (together < 0), rng.random(400) < 0.5
            )
            first = luck
            games = (first.astype(float) + second) / 2
            low, high = game_interval(games)
            covered += low <= 0.5 <= high
            w_low, w_high = wilson_interval(float(games.sum() * 2), 800)
            wilson_covered += w_low <= 0.5 <= w_high
        assert abs(covered / 2000 - 0.95) < 0.015
        assert abs(wilson_covered / 2000 - 0.95) > 0.02
