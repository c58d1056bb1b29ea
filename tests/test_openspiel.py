"""The rules as OpenSpiel games (`evaluation/openspiel_game.py`): OpenSpiel's own state
API walked on every hidden-information duel, information states that hide what the
rules hide, and OpenSpiel's exploitability on a game small enough to know the answer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra")

from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from duelo.agents.random_policy import RandomPolicy  # noqa: E402
from duelo.envs.core.dice import pool_outcomes  # noqa: E402
from duelo.envs.dunwich.odds import SUCCESS_CLASSES  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402
from duelo.envs.vampiro.exchange import pool_classes  # noqa: E402
from duelo.evaluation.openspiel_game import MAX_CHANCE, DueloGame, DueloPolicy  # noqa: E402
from tests.hidden_games import Always, SealedSigns, Sign  # noqa: E402

DUELS = [name for name, entry in SYSTEMS.items() if len(entry.ruleset().sides) == 2]


def _walk(game: Any, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            action = outcomes[int(rng.integers(len(outcomes)))][0]
        else:
            player = state.current_player()
            legal = state.legal_actions()
            assert legal and state.information_state_string(player)
            action = legal[int(rng.integers(len(legal)))]
        state.apply_action(int(action))
    return state


@pytest.mark.parametrize("system", DUELS)
def test_every_duel_plays_through_openspiels_state_api(system: str) -> None:
    """Chance nodes are the rules' dice, decisions the masks', returns the rewards."""
    game = DueloGame(SYSTEMS[system].ruleset())
    for seed in range(3):
        state = _walk(game, seed)
        returns = state.returns()
        assert returns[0] == -returns[1] and abs(returns[0]) <= 1
        clone = state.clone()
        assert clone.returns() == returns and str(clone) == str(state)


@pytest.mark.parametrize(
    ("system", "sides", "classes"),
    [("dunwich", 6, SUCCESS_CLASSES), ("vampiro", 10, pool_classes(6))],
)
def test_a_pool_is_one_chance_node_of_its_classes(
    system: str, sides: int, classes: tuple[int, ...]
) -> None:
    """A Lucha pool (Dunwich) or an attack at difficulty 6 (Vampiro) comes as one chance
    node, an outcome a count of each class of faces, with the exact chances of
    `pool_outcomes`, instead of a node a die."""
    pools = {tuple(float(p) for p, _ in pool_outcomes(n, sides, classes)) for n in range(2, 9)}
    met = set()
    for seed in range(20):
        rng = np.random.default_rng(seed)
        state = DueloGame(SYSTEMS[system].ruleset()).new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                chances = tuple(p for _, p in state.chance_outcomes())
                met.add(chances)
                action = int(rng.choice(len(chances), p=np.array(chances) / sum(chances)))
            else:
                legal = state.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
            state.apply_action(action)
    assert met & pools
    assert all(len(chances) <= MAX_CHANCE for chances in met)


def test_a_skirmish_is_refused() -> None:
    with pytest.raises(ValueError, match="OpenSpiel plays duels"):
        DueloGame(SYSTEMS["vampiro_skirmish"].ruleset())


# --- a game small enough to know its answers --------------------------------------------


def test_openspiels_exploitability_knows_the_answers() -> None:
    """Uniform play is the equilibrium: exploitability 0; always rock loses 1 to paper,
    each side: NashConv 2, exploitability 1. The second seat's information state is
    the same whatever the first chose (its sign is sealed)."""
    game = DueloGame(SealedSigns())
    random = DueloPolicy(game, {0: RandomPolicy(), 1: RandomPolicy()})
    assert exploitability.exploitability(game, random) == pytest.approx(0.0, abs=1e-12)
    rock = DueloPolicy(game, {0: Always(), 1: Always()})
    assert exploitability.nash_conv(game, rock) == pytest.approx(2.0)
    seen = set()
    for first in Sign:
        state = game.new_initial_state()
        state.apply_action(int(first))
        seen.add(state.information_state_string(1))
    assert len(seen) == 1
    uniform = openspiel_policy.UniformRandomPolicy(game)
    assert exploitability.exploitability(game, uniform) == pytest.approx(0.0, abs=1e-12)
