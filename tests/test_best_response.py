"""Exact best responses where a seat cannot see all of the state
(`evaluation/best_response.py`): known answers, the solver's where nothing is hidden,
and OpenSpiel's own best response on a duel it can walk whole."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from duelo.agents.random_policy import RandomPolicy
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.policy import Policy
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.best_response import best_response_value, hidden_scores
from duelo.evaluation.solver import Graph, NotSolvableError, enumerate_duel, solve
from duelo.yardstick import print_exploit
from tests.hidden_games import Always, Biased, SealedSigns, SealedStrikes
from tests.test_solver import small_street


class FirstLegal:
    name = description = "first legal"

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(action_mask)[0])


def test_sealed_signs_known_answers() -> None:
    """Uniform play gives nothing away; always rock loses every duel to paper, whichever
    seat it holds: exploitability 0.5 (OpenSpiel's 1, there a loss is -1)."""
    graph = enumerate_duel(SealedSigns(), hidden_information=True)
    assert hidden_scores(graph, "random", RandomPolicy()).exploitability == pytest.approx(0.0)
    rock = hidden_scores(graph, "rock", Always())
    assert (rock.worst_a, rock.worst_b, rock.exploitability) == pytest.approx((0.0, 0.0, 0.5))


def test_the_second_seat_cannot_read_a_sealed_sign() -> None:
    """Against (0.5, 0.3, 0.2) the blind second seat can only play the best sign on
    those odds (paper: wins 0.5, ties 0.3); a best response that saw the sign would win
    every duel."""

    class Leaning:
        name = description = "leaning"

        def action_distribution(self, observation: Any, action_mask: np.ndarray) -> np.ndarray:
            return np.array([0.5, 0.3, 0.2])

    graph = enumerate_duel(SealedSigns(), hidden_information=True)
    b_scores = 0.5 * 1 + 0.3 * 0.5  # paper: beats rock, ties paper (a d2), loses to scissors
    assert best_response_value(graph, Leaning(), fixed_seat=0) == pytest.approx(1 - b_scores)


def test_a_ruleset_that_does_not_say_what_it_hides_is_refused() -> None:
    class Silent(SealedSigns):
        hides = None

    graph = enumerate_duel(Silent(), hidden_information=True)
    with pytest.raises(NotSolvableError, match="do not say what they hide"):
        best_response_value(graph, RandomPolicy(), fixed_seat=0)


def test_the_walk_still_refuses_hidden_information_unless_asked() -> None:
    with pytest.raises(NotSolvableError, match="perfect information"):
        enumerate_duel(SealedSigns())


@pytest.fixture(scope="module")
def street() -> Graph:
    """A Liminal duel of perfect information, walked once for the module (about 6 s)."""
    return enumerate_duel(small_street())


@pytest.mark.parametrize("name", ["random", "liminal:expert", "liminal:cautious"])
def test_where_nothing_is_hidden_it_is_the_solvers_best_response(name: str, street: Graph) -> None:
    """On a duel of perfect information every state is clear: the values are the
    solver's, over the rounds and the states reached by many paths."""
    from duelo.agents.registry import make_policy

    graph = street
    policy: Policy = make_policy(name, "liminal", {})
    assert best_response_value(graph, policy, fixed_seat=0) == pytest.approx(
        solve(graph, (policy, None)).value, abs=1e-12
    )
    assert best_response_value(graph, policy, fixed_seat=1) == pytest.approx(
        solve(graph, (None, policy)).value, abs=1e-12
    )


# --- OpenSpiel's own best response, on a duel it can walk ---------------------------------


@pytest.mark.parametrize(
    ("policy", "fixed_seat"),
    [(RandomPolicy(), 1), (Biased(), 0), (FirstLegal(), 0)],
    ids=["random-seeing", "biased-blind", "first_legal-blind"],
)
def test_openspiels_best_response_agrees(policy: Policy, fixed_seat: int) -> None:
    """SealedStrikes: three rounds, a seat blind across a roll, states reached by many
    paths. OpenSpiel's `BestResponsePolicy` walks every history of the same rules
    (`DueloGame`); its value, read as seat A's score, is the walk's. Twice the responder
    is B, the blind seat, where the information sets bind; once A (OpenSpiel takes about
    10 s a case)."""
    pytest.importorskip("pyspiel", reason="the openspiel extra")
    from open_spiel.python.algorithms.best_response import BestResponsePolicy

    from duelo.evaluation.openspiel_game import DueloGame, DueloPolicy

    ruleset = SealedStrikes()
    game = DueloGame(ruleset)
    responder = 1 - fixed_seat
    theirs = BestResponsePolicy(game, responder, DueloPolicy(game, {0: policy, 1: policy}))
    utility = theirs.value(game.new_initial_state())  # the responder's, a win 1, a loss -1
    score_a = (1 + (utility if responder == 0 else -utility)) / 2
    graph = enumerate_duel(ruleset, hidden_information=True)
    assert best_response_value(graph, policy, fixed_seat) == pytest.approx(score_a, abs=1e-12)


def test_a_blind_seat_is_held_to_one_choice() -> None:
    """In SealedStrikes the blind seat B does worse against a biased A than a best
    response that could read A's stance: the information sets bind."""
    graph = enumerate_duel(SealedStrikes(), hidden_information=True)
    blind = best_response_value(graph, Biased(), fixed_seat=0)
    seeing = solve(graph, (Biased(), None)).value  # the solver's response reads the state
    assert blind > seeing + 0.05  # B lowers A's score less when it cannot see


# --- the rules' own hiding -----------------------------------------------------------------


@pytest.mark.parametrize("system", ["dunwich", "vampiro"])
def test_what_the_rules_hide_they_say(system: str) -> None:
    """Where a seat must decide without telling apart two states that differ by its
    rival's last choice, the rules say that they hide something from it: over random
    duels, each decision's outcomes on the same dice are compared as the rival sees them
    when it is to act next."""
    ruleset = SYSTEMS[system].ruleset()
    hidden_seen = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        dice = GeneratorDice(seed + 1000)
        state = ruleset.new_duel(dice)
        while (seat := ruleset.to_act(state)) is not None:
            legal = np.flatnonzero(ruleset.legal_actions(state, seat))
            rival = 1 - seat
            children = []
            for action in legal:
                child = state.clone()
                ruleset.apply(child, seat, int(action), _Middle())
                if ruleset.to_act(child) == rival:
                    children.append(child)
            seen: dict[bytes, dict[Any, Any]] = {}
            for child in children:
                seen.setdefault(ruleset.observe(child, rival).tobytes(), {})[child.key()] = child
            for alike in seen.values():
                if len(alike) > 1:
                    assert all(ruleset.hides(c, rival) for c in alike.values()), (seed, state.round)
                    hidden_seen += 1
            ruleset.apply(state, seat, int(rng.choice(legal)), dice)
    assert hidden_seen > 0


class _Middle:
    """Dice that always show their middle face: children differ by the choice alone."""

    def roll(self, sides: int, purpose: str) -> int:
        return (sides + 1) // 2


# --- the rules themselves --------------------------------------------------------------------


def test_duelo_exploit_is_exact_where_the_walk_ends() -> None:
    """`duelo exploit` on a Dunwich duel small enough to walk (the packaged sparring: a
    blow of four even dice ends it, one turn) prints the exact exploitability (the best
    response held to what its seat sees), not a trained probe."""
    variant: dict[str, Any] = {"scenario": "sparring", "options": {"round_cap": 1}}
    graph = enumerate_duel(SYSTEMS["dunwich"].ruleset(**variant), hidden_information=True)
    out = io.StringIO()
    print_exploit("random", "dunwich", variant, 0, 0, Path("unused"), 10**6, 600.0, out)
    scores = hidden_scores(graph, "random", RandomPolicy())
    assert out.getvalue() == (
        f"exact, over {graph.size:,} states, against a best response that knows what its seat "
        f"observes: random scores {scores.worst_a:.6f} as side A and {scores.worst_b:.6f} as "
        f"side B; exploitability {scores.exploitability:.6f}\n"
    )
    assert scores.exploitability > 0.001  # random play bids and strikes at random
