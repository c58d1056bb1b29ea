"""Exact best responses in duels where a seat cannot see all of the state: sealed plans,
hidden declarations (DESIGN.md layer 10; OpenSpiel's `best_response`, on the solver's
graph).

A best response to a fixed policy must choose alike wherever it cannot tell the states
apart. The solver's graph merges states by key, which would let it see the rival's
sealed plan. Here the responder sees a state whole only where the ruleset says that
nothing of it is hidden from it (`hides(state, seat)`, a ruleset's own answer): such a
*clear* state's value is one number, whatever led there, because the fixed policy
decides from what it observes and the rules from the state. From each clear state the
walk unfolds the steps up to the next clear states as a tree. There an information
set is the clear state it started from and what the responder observed at each of its
decisions since, with what it chose (perfect recall); each history in it weighs what
the dice and the fixed policy give it. The responder takes the action best on that
weighted sum, deepest sets first, as OpenSpiel's `BestResponsePolicy` does on a whole
tree. A duel whose rules hide something from the start (a dealt hand) is one tree from
its start: only a very small one can be walked.

The responder watches the whole fight: it sees what its observation shows at every
step, not only at its own decisions. OpenSpiel's game of the same rules
(`openspiel_game.DueloGame`) keeps only what a seat saw when it decided; where a seat
could tell the two apart only by watching, the best response here can score more.
`tests/test_openspiel.py` checks the two against each other on small duels.

Values are seat A's expected score, as the solver's: 1 a win, 0.5 a draw, 0 a loss.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from duelo.envs.core.policy import Policy
from duelo.evaluation.solver import (
    DRAW,
    SCORE,
    Graph,
    NotSolvableError,
    action_probabilities,
    at_round,
)

Node = tuple[int, int]
"""A state of the graph at a round."""
ROOT: Node = (-10, 0)
"""The duel before `new_duel`'s rolls, the first tree's start: where the rules hide
something from the start (a dealt hand), the tree unfolds from here."""
Path = tuple[tuple[bytes, int], ...]
"""What the responder observed at each of its decisions since the last clear state, and
what it chose."""
TIE = 1e-12
"""Actions within this of the best are equal; the first in action order is taken, as the
solver's `best_action` does."""


@dataclass(frozen=True)
class ResponseScores:
    """A policy's exact seat-swapped scores against its best response (the solver's
    `ExactScores` adds its score against optimal play, where the duel hides nothing)."""

    policy: str
    worst_a: float
    """As side A, against the best response to it."""
    worst_b: float
    """As side B, against the best response to it."""

    @property
    def worst(self) -> float:
        """The score it is sure of, seats swapped."""
        return (self.worst_a + self.worst_b) / 2

    @property
    def exploitability(self) -> float:
        """What a best response takes from it beyond an even split (OpenSpiel's
        `exploitability` halved: there a win is 1 and a loss -1)."""
        return 0.5 - self.worst


def hidden_scores(graph: Graph, name: str, policy: Policy) -> ResponseScores:
    """`policy`'s exact scores against a best response held to what its seat sees."""
    return ResponseScores(
        name,
        best_response_value(graph, policy, fixed_seat=0),
        1 - best_response_value(graph, policy, fixed_seat=1),
    )


def best_response_value(graph: Graph, policy: Policy, fixed_seat: int) -> float:
    """Seat A's expected score when `policy` plays `fixed_seat` and the other seat its best
    response, knowing only what it observes (see the module docstring)."""
    hides = getattr(graph.ruleset, "hides", None)
    if hides is None and not graph.ruleset.perfect_information:
        raise NotSolvableError(
            f"{graph.ruleset.system}: the rules do not say what they hide from a seat "
            "(a `hides(state, seat)` method), so no best response can be sure of it"
        )
    walk = _Walk(graph, policy, fixed_seat, hides)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # a tree's depth is a duel's length
    try:
        return walk.clear_value(ROOT)
    finally:
        sys.setrecursionlimit(limit)


class _Walk:
    """The best response's values: clear states once each, the trees between them."""

    def __init__(
        self,
        graph: Graph,
        policy: Policy,
        fixed: int,
        hides: Callable[[Any, int], bool] | None,
    ) -> None:
        self.g, self.policy, self.fixed, self.hides = graph, policy, fixed, hides
        self.responder = 1 - fixed
        self.sign = 1.0 if self.responder == 0 else -1.0  # seat B lowers A's score
        self.clear: dict[Node, float] = {}
        self.chances: dict[Node, np.ndarray] = {}
        self.is_clear: dict[Node, bool] = {}

    # --- the steps of the graph ---------------------------------------------------

    def state(self, node: Node) -> Any:
        i, round_ = node
        return at_round(self.g.states[i], round_)

    def steps(self, node: Node, row: int) -> Iterator[tuple[float, Node | float]]:
        """Each outcome of a row: its chance, and the node it reaches or the score that
        ends the duel there."""
        g = self.g
        for e in range(g.edge_start[row], g.edge_start[row + 1]):
            target, p = int(g.edge_target[e]), float(g.edge_probability[e])
            round_ = node[1] + bool(g.edge_crosses[e])
            if round_ > g.round_cap:
                yield p, SCORE[DRAW]  # a round past the cap: the truncated draw
            elif target < 0:
                yield p, SCORE[target]
            else:
                yield p, (target, round_)

    def rows(self, node: Node) -> range:
        g = self.g
        return range(int(g.row_start[node[0]]), int(g.row_start[node[0] + 1]))

    def starts(self) -> Iterator[tuple[float, Node | float]]:
        g = self.g
        for p, i in g.starts:
            yield p, (SCORE[i] if i < 0 else (i, int(g.first_round[i])))

    def outcomes(self, node: Node, row: int | None) -> Iterator[tuple[float, Node | float]]:
        """A row's outcomes; the root's (its one row None) are `new_duel`'s."""
        return self.starts() if row is None else self.steps(node, row)

    def fixed_rows(self, node: Node) -> list[tuple[int | None, float]]:
        """The fixed policy's rows here with their chances (the root: chance alone)."""
        if node == ROOT:
            return [(None, 1.0)]
        if node not in self.chances:
            state = self.state(node)
            ruleset = self.g.ruleset
            mask = ruleset.legal_actions(state, self.fixed)
            observation = ruleset.observation_spec.view(ruleset.observe(state, self.fixed))
            self.chances[node] = action_probabilities(self.policy, observation, mask)
        chances = self.chances[node]
        return [(q, float(chances[self.g.row_action[q]])) for q in self.rows(node)]

    def acts(self, node: Node) -> int:
        return -1 if node == ROOT else int(self.g.seat[node[0]])

    def cleared(self, node: Node) -> bool:
        if node not in self.is_clear:
            self.is_clear[node] = self.hides is None or not self.hides(
                self.state(node), self.responder
            )
        return self.is_clear[node]

    # --- values -----------------------------------------------------------------------

    def clear_value(self, anchor: Node) -> float:
        """A clear state's value: the tree up to the next clear states, solved."""
        if anchor not in self.clear:
            tree = _Tree(self, anchor)
            tree.collect(anchor, (), 1.0)
            self.clear[anchor] = tree.value(anchor, ())
        return self.clear[anchor]


class _Tree:
    """The steps from one clear state to the next ones, with the responder's information
    sets: (what it observed, what it chose) since the clear state."""

    def __init__(self, walk: _Walk, anchor: Node) -> None:
        self.walk, self.anchor = walk, anchor
        self.members: dict[tuple[Path, bytes], dict[Node, float]] = {}
        """Each information set's histories: their node and weight (chance and the fixed
        policy's chances along the way; the path is in the key)."""
        self.best: dict[tuple[Path, bytes], int] = {}
        self.values: dict[tuple[Node, Path], float] = {}

    def inside(self, node: Node) -> bool:
        """Whether `node` is in this tree: its start, or a state not clear to the responder."""
        return node == self.anchor or not self.walk.cleared(node)

    def observed(self, node: Node) -> bytes:
        w = self.walk
        return bytes(w.g.ruleset.observe(w.state(node), w.responder).tobytes())

    def collect(self, node: Node, path: Path, weight: float) -> None:
        """Note every history of the tree in its information set."""
        w = self.walk
        if w.acts(node) == w.responder:
            key = (path, self.observed(node))
            found = self.members.setdefault(key, {})
            found[node] = found.get(node, 0.0) + weight
            moves: list[tuple[int | None, float, Path]] = [
                (q, 1.0, (*path, (key[1], int(w.g.row_action[q])))) for q in w.rows(node)
            ]
        else:
            moves = [(q, chance, path) for q, chance in w.fixed_rows(node) if chance > 0]
        for q, chance, after in moves:
            for p, child in w.outcomes(node, q):
                if isinstance(child, tuple) and self.inside(child):
                    self.collect(child, after, weight * chance * p)

    def value(self, node: Node, path: Path) -> float:
        """Seat A's expected score from `node`, reached with `path`."""
        if not self.inside(node):
            return self.walk.clear_value(node)
        if (node, path) not in self.values:
            w = self.walk
            if w.acts(node) == w.responder:
                key = (path, self.observed(node))
                action = self.choice(key)
                q = next(q for q in w.rows(node) if w.g.row_action[q] == action)
                result = self.row_value(node, q, (*path, (key[1], action)))
            else:
                result = sum(
                    chance * self.row_value(node, q, path)
                    for q, chance in w.fixed_rows(node)
                    if chance > 0
                )
            self.values[(node, path)] = result
        return self.values[(node, path)]

    def row_value(self, node: Node, row: int | None, path: Path) -> float:
        return sum(
            p * (self.value(child, path) if isinstance(child, tuple) else child)
            for p, child in self.walk.outcomes(node, row)
        )

    def choice(self, key: tuple[Path, bytes]) -> int:
        """The responder's action for its information set `key`: the best on the set's
        weighted histories, one action for all of them."""
        if key not in self.best:
            w = self.walk
            actions: dict[int, float] | None = None
            for node, weight in self.members[key].items():
                here = {int(w.g.row_action[q]): q for q in w.rows(node)}
                if actions is None:
                    actions = dict.fromkeys(here, 0.0)
                elif actions.keys() != here.keys():
                    raise NotSolvableError(
                        f"{w.g.ruleset.system}: two states a seat cannot tell apart have "
                        "different legal actions"
                    )
                for action, q in here.items():
                    actions[action] += weight * self.row_value(node, q, (*key[0], (key[1], action)))
            assert actions is not None
            top = max(w.sign * total for total in actions.values())
            self.best[key] = min(a for a, total in actions.items() if w.sign * total >= top - TIE)
        return self.best[key]
