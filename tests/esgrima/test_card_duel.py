"""The card duel's solvers: the faithful duel as the PJ's problem, the symmetric one's
equilibrium under the redrawn-hands abstraction; each value against Monte Carlo duels
of the model's rules, played through `apply`, and each solved play in the real duel."""

from __future__ import annotations

import numpy as np
import pytest

from duelo.agents.registry import make_policy
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.runner import play_duel
from duelo.envs.esgrima.card_duel import (
    HANDS,
    KEPT,
    PJ_FOCO,
    REFILL,
    CardDuelPolicy,
    EndlessDeckDuel,
    solve_card_duel,
)
from duelo.envs.esgrima.card_duel_symmetric import (
    RedrawnHandsDuel,
    SymmetricDuelPolicy,
    solve_symmetric_duel,
)
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.mechanics import Card
from duelo.evaluation.solver import NotSolvableError, score_of_a

Z99 = 2.5758293035489004
FAITHFUL = {"duel_variant": "faithful"}
SHORT = {"duel_variant": "faithful", "exchange_cap": 4, "duel_end": "first_blood"}
"""Four exchanges to first blood: many duels end in the cap's draw, the rest by a hit."""


def scores(ruleset: EsgrimaDuelRuleset, policy: object, duels: int) -> np.ndarray:
    return np.array(
        [score_of_a(play_duel(ruleset, (policy, policy), seed).outcome) for seed in range(duels)]
    )


def test_draws_back_up_to_three_even_over_the_six_cards() -> None:
    assert np.allclose(REFILL.sum(axis=1), 1)
    empty = KEPT.index(())
    assert REFILL[empty, HANDS.index((0, 0, 0))] == pytest.approx(1 / 216)
    assert REFILL[empty, HANDS.index((0, 1, 2))] == pytest.approx(6 / 216)
    kept = KEPT.index((3, 5))
    assert REFILL[kept, HANDS.index((3, 4, 5))] == pytest.approx(1 / 6)
    assert PJ_FOCO == pytest.approx(15 / 36)  # 2d6 above the PNJ's 7.5


@pytest.mark.parametrize("options", [FAITHFUL, SHORT], ids=["default", "short"])
def test_the_value_is_what_the_solved_play_scores_against_the_model(
    options: dict[str, object],
) -> None:
    """10,000 duels of the endless-deck rules, each played through `apply`: the exact
    value lies in the Monte Carlo's 99 % interval."""
    solution = solve_card_duel(EsgrimaDuelRuleset(options=options))
    played = scores(EndlessDeckDuel(options=options), CardDuelPolicy(solution), 10_000)
    half = Z99 * played.std(ddof=1) / np.sqrt(len(played))
    assert abs(played.mean() - solution.value) <= half


def test_no_scripted_play_beats_the_solved_value_against_the_model() -> None:
    """The value is the best any PJ can do: the expert and the aggressive NPC score no
    more, within the 99 % interval of 10,000 duels each."""
    solution = solve_card_duel(EsgrimaDuelRuleset(options=SHORT))
    for name in ("expert", "aggressive"):
        played = scores(EndlessDeckDuel(options=SHORT), make_policy(name, "esgrima_duel"), 10_000)
        half = Z99 * played.std(ddof=1) / np.sqrt(len(played))
        assert played.mean() - half <= solution.value, name


def test_the_solved_play_reads_the_real_duel() -> None:
    """In the real duel (shuffled deck) it plays legal moves from the observation alone,
    also as a plain Dict, and beats the expert (its figures: docs/brains.md)."""
    ruleset = EsgrimaDuelRuleset(options=FAITHFUL)
    optimal = make_policy("optimal", "esgrima_duel", {"options": FAITHFUL})
    assert isinstance(optimal, CardDuelPolicy)
    played = scores(ruleset, optimal, 2_000)
    expert = scores(ruleset, make_policy("expert", "esgrima_duel"), 2_000)
    assert played.mean() > expert.mean()
    state = ruleset.new_duel(GeneratorDice(3))
    view = ruleset.observation_spec.view(ruleset.observe(state, 0))
    mask = ruleset.legal_actions(state, 0)
    plain = {key: np.asarray(view[key]) for key in view}
    rng = np.random.default_rng(0)
    assert optimal.act(plain, mask, rng) == optimal.act(view, mask, rng)


def test_it_refuses_what_it_did_not_solve() -> None:
    with pytest.raises(NotSolvableError, match="fixed deck"):
        solve_card_duel(EsgrimaDuelRuleset(options=FAITHFUL, deck=list(Card) * 2))
    faithful = CardDuelPolicy(solve_card_duel(EsgrimaDuelRuleset(options=FAITHFUL)))
    symmetric = EsgrimaDuelRuleset()
    state = symmetric.new_duel(GeneratorDice(0))
    seat = symmetric.to_act(state)
    view = symmetric.observation_spec.view(symmetric.observe(state, seat))
    with pytest.raises(ValueError, match="never reaches"):
        faithful.act(view, symmetric.legal_actions(state, seat), np.random.default_rng(0))


# --- the symmetric duel, under the redrawn-hands abstraction ---------------------

UNEVEN = ("apprentice", "pirate")
"""A duel rating of 2 against 4: the equilibrium's value is far from a half."""


@pytest.mark.parametrize(
    "options",
    [{"exchange_cap": 4, "duel_end": "first_blood"}, {"exchange_cap": 8}],
    ids=["first_blood", "ko"],
)
def test_the_equilibrium_value_is_what_its_play_scores_with_hands_redrawn(
    options: dict[str, object],
) -> None:
    ruleset = EsgrimaDuelRuleset(UNEVEN, options)
    solution = solve_symmetric_duel(ruleset)
    assert 0.05 < solution.value < 0.45
    played = scores(RedrawnHandsDuel(UNEVEN, options), SymmetricDuelPolicy(solution), 6_000)
    half = Z99 * played.std(ddof=1) / np.sqrt(len(played))
    assert abs(played.mean() - solution.value) <= half


def test_no_scripted_play_gains_on_the_equilibrium_with_hands_redrawn() -> None:
    """Against the equilibrium, a side scores at most its value (side A) or at most one
    less it (side B), within the 99 % interval of 4,000 duels a seat."""
    options = {"exchange_cap": 4, "duel_end": "first_blood"}
    solution = solve_symmetric_duel(EsgrimaDuelRuleset(UNEVEN, options))
    equilibrium = SymmetricDuelPolicy(solution)
    model = RedrawnHandsDuel(UNEVEN, options)
    for name in ("expert", "aggressive", "random"):
        policy = make_policy(name, "esgrima_duel")
        for seat in (0, 1):
            pair = (policy, equilibrium) if seat == 0 else (equilibrium, policy)
            a = np.array(
                [score_of_a(play_duel(model, pair, seed).outcome) for seed in range(4_000)]
            )
            half = Z99 * a.std(ddof=1) / np.sqrt(len(a))
            if seat == 0:
                assert a.mean() - half <= solution.value, name
            else:
                assert a.mean() + half >= solution.value, name


def test_the_equilibrium_plays_either_seat_of_the_real_duel() -> None:
    """The shipped mirror duel, from both seats, with the real deck: legal moves from the
    observation alone, and no forfeit over 300 duels."""
    ruleset = EsgrimaDuelRuleset()
    equilibrium = make_policy("optimal", "esgrima_duel", {})
    assert isinstance(equilibrium, SymmetricDuelPolicy)
    assert equilibrium.solution.value == pytest.approx(0.5)  # a mirror: even
    for seed in range(300):
        assert play_duel(ruleset, (equilibrium, equilibrium), seed).forfeit is None


def test_each_solver_keeps_to_its_variant() -> None:
    with pytest.raises(NotSolvableError, match="symmetric duel"):
        solve_symmetric_duel(EsgrimaDuelRuleset(options=FAITHFUL))
    with pytest.raises(NotSolvableError, match="fixed deck"):
        solve_symmetric_duel(EsgrimaDuelRuleset(deck=list(Card) * 2))
    faithful = EsgrimaDuelRuleset(options=FAITHFUL)
    state = faithful.new_duel(GeneratorDice(0))
    view = faithful.observation_spec.view(faithful.observe(state, 0))
    equilibrium = make_policy("optimal", "esgrima_duel", {})
    with pytest.raises(ValueError, match="never reaches"):
        equilibrium.act(view, faithful.legal_actions(state, 0), np.random.default_rng(0))
