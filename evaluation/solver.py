"""Exact values of small duels: the game's value, an optimal policy and any policy's
exploitability (DESIGN.md layer 10; OpenSpiel's `value_iteration` and expectiminimax).

A duel of perfect information is a finite two-player zero-sum stochastic game. The
solver walks it through the ruleset contract alone, in three steps:

1. **Chance**: each decision is applied to a copy of the state under every sequence of
   faces the rules can roll (`chance_outcomes`), with its exact probability.
2. **States**: breadth-first, round by round, from `new_duel`'s outcomes; states merge by
   `DuelState.key`, the state less its narration and its round. A state is expanded
   from the first round it is reached in, and never past the round cap.
3. **Values**: backward over the rounds, from the cap down. A step that starts a new
   round reads the next round's values; a step that starts a round past the cap is the
   truncated draw the rules make of it. Within a round the steps must form no cycle.

Values are seat A's expected score, as the tournaments count it: 1 a win, 0.5 a draw,
0 a loss. Probabilities are exact fractions per step; sums are float64 (about 1e-15).
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from duelo.envs.core.dice import chance_outcomes
from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import summary
from duelo.envs.core.ruleset import Ruleset
from duelo.envs.core.runner import duel_streams, move
from duelo.envs.core.state import DuelState, Outcome

WIN_A, WIN_B, DRAW = -1, -2, -3
"""Edge targets for a step that ends the duel (states are numbered from 0)."""
SCORE = {WIN_A: 1.0, WIN_B: 0.0, DRAW: 0.5}
"""Seat A's score of each end."""


class NotSolvableError(ValueError):
    """The solver does not apply to this duel; the message says why."""


class TooLargeError(NotSolvableError):
    """The duel has more states than the solver was allowed to enumerate."""

    def __init__(self, system: str, states: int, round_: int, seconds: float, limit: str) -> None:
        super().__init__(
            f"{system}: not solvable here: over {states:,} states, still walking round "
            f"{round_} ({limit} reached after {seconds:.0f} s)"
        )
        self.states, self.round, self.seconds, self.limit = states, round_, seconds, limit


@dataclass
class Graph:
    """Every reachable decision state of a duel and the steps between them.

    Rows are (state, legal action) pairs, grouped by state; edges are a row's outcomes,
    grouped by row. An edge that starts a new round is `crosses`; its target is a state
    or one of `WIN_A`, `WIN_B`, `DRAW`.
    """

    ruleset: Any
    states: list[DuelState]
    """One representative per key, at the first round it is reached in."""
    seat: np.ndarray
    first_round: np.ndarray
    row_start: np.ndarray
    """Rows of state i: row_start[i] .. row_start[i + 1]."""
    row_action: np.ndarray
    edge_start: np.ndarray
    """Edges of row q: edge_start[q] .. edge_start[q + 1]."""
    edge_target: np.ndarray
    edge_probability: np.ndarray
    edge_crosses: np.ndarray
    starts: list[tuple[float, int]]
    """`new_duel`'s outcomes: (probability, state or end)."""
    index: dict[Any, int]
    """State number by `DuelState.key`."""
    shared: frozenset[int]
    """The ids of the frozen objects every state shares (the keys' `shared`)."""
    seconds: float
    policy_weights: dict[tuple[int, int], tuple[Policy, dict[int, np.ndarray]]] = field(
        default_factory=dict
    )
    """What each fixed policy was found to play, by (id, seat) and round (the policy is
    kept alongside, so that its id stays its own)."""

    @property
    def size(self) -> int:
        return len(self.states)

    @property
    def round_cap(self) -> int:
        return int(self.ruleset.round_cap)


def enumerate_duel(
    ruleset: Ruleset[Any],
    max_states: int = 2_000_000,
    max_seconds: float = 3600.0,
    hidden_information: bool = False,
) -> Graph:
    """Walk every state of the duel `ruleset` sets up (see the module docstring).

    Raises `TooLargeError` past `max_states` states or `max_seconds` seconds, and
    `NotSolvableError` for a ruleset that seats more than two fighters, or that hides
    information from a seat unless `hidden_information` (the graph then holds what is
    hidden too: only `best_response` may read it, as it reads only what a seat sees).
    """
    if not hidden_information and not getattr(ruleset, "perfect_information", False):
        raise NotSolvableError(
            f"{ruleset.system}: the solver needs a duel of perfect information; this one "
            "hides cards, plans or declarations from a seat"
        )
    if len(ruleset.sides) != 2:
        raise NotSolvableError(
            f"{ruleset.system}: the solver walks duels of two seats; a fight of "
            f"{len(ruleset.sides)} fighters is beyond it"
        )
    began = time.perf_counter()
    shared: dict[int, Any] = {}
    """The frozen objects of the first duel set up (its stat blocks are every duel's),
    kept alive so that their ids stay theirs."""
    shared_ids: frozenset[int] = frozenset()
    index: dict[Any, int] = {}
    states: list[DuelState] = []
    home: list[int] = []
    """The round each state is expanded in: the first it is reached in."""
    rounds: dict[int, list[int]] = {}
    current = 0
    """The round being walked."""

    def target(state: DuelState) -> int:
        if state.result is not None:
            return _end(state.result)
        state.log.clear()  # only the rules' future matters here, not the narration
        key = state.key(shared_ids)
        found = index.get(key)
        if found is None:
            if len(states) >= max_states:
                raise TooLargeError(
                    ruleset.system, len(states), current, _since(began), "state limit"
                )
            found = index[key] = len(states)
            states.append(state)
            home.append(state.round)
            rounds.setdefault(state.round, []).append(found)
        elif state.round < home[found]:  # reached sooner than first thought: expand it then
            states[found], home[found] = state, state.round
            rounds.setdefault(state.round, []).append(found)
        return found

    merged_starts: dict[int, float] = {}
    for count, (p, state) in enumerate(chance_outcomes(ruleset.new_duel)):
        if count == 0:
            _collect_frozen(state, shared)
            shared_ids = frozenset(shared)
        start = target(state)
        merged_starts[start] = merged_starts.get(start, 0.0) + float(p)
    starts = [(p, start) for start, p in merged_starts.items()]
    seat, row_start, row_action = [], [0], []
    edge_start, edge_target, edge_probability, edge_crosses = [0], [], [], []
    order: list[int] = []
    current = min(rounds) if rounds else 0
    while current in rounds and current <= ruleset.round_cap:
        queue = rounds[current]
        at = 0
        while at < len(queue):  # steps within the round append to this queue
            i = queue[at]
            at += 1
            if home[i] != current:
                continue  # moved to an earlier round and expanded there
            order.append(i)
            state = states[i]
            mover = ruleset.to_act(state)
            if mover is None:
                raise RuntimeError(f"{ruleset.system}: a state with no result has nobody to act")
            seat.append(mover)
            for action in np.flatnonzero(ruleset.legal_actions(state, mover)).tolist():
                merged: dict[tuple[int, bool], float] = {}
                for p, child in chance_outcomes(_step(ruleset, state, mover, action)):
                    if _since(began) > max_seconds:  # one step may have millions of outcomes
                        raise TooLargeError(
                            ruleset.system, len(states), current, _since(began), "time limit"
                        )
                    crosses = child.round != state.round
                    if child.round - state.round not in (0, 1):
                        raise RuntimeError(
                            f"{ruleset.system}: one step moved the round by more than one"
                        )
                    edge = (target(child), crosses)
                    merged[edge] = merged.get(edge, 0.0) + float(p)
                for (to, crosses), chance in merged.items():
                    edge_target.append(to)
                    edge_probability.append(chance)
                    edge_crosses.append(crosses)
                row_action.append(action)
                edge_start.append(len(edge_target))
            row_start.append(len(row_action))
        current += 1
    # States first reached past the cap are never expanded: every step into them starts
    # a round past the cap, which the rules end as a truncated draw.
    renumber = np.full(len(states) + 3, DRAW, dtype=np.int64)
    renumber[np.array(order, dtype=np.int64)] = np.arange(len(order))
    renumber[[WIN_A, WIN_B, DRAW]] = [WIN_A, WIN_B, DRAW]  # the ends, indexed from the back
    targets = renumber[np.array(edge_target, dtype=np.int64)]
    crosses = np.array(edge_crosses, dtype=bool)
    unexpanded = (np.array(edge_target) >= 0) & (targets == DRAW)
    if (unexpanded & ~crosses).any():
        raise RuntimeError(f"{ruleset.system}: a step within a round reached an unexpanded state")
    starts = [(p, int(renumber[s])) for p, s in starts]
    index = {key: int(renumber[i]) for key, i in index.items() if renumber[i] >= 0}
    return Graph(
        ruleset=ruleset,
        states=[states[i] for i in order],
        seat=np.array(seat, dtype=np.int8),
        first_round=np.array([home[i] for i in order], dtype=np.int32),
        row_start=np.array(row_start, dtype=np.int64),
        row_action=np.array(row_action, dtype=np.int64),
        edge_start=np.array(edge_start, dtype=np.int64),
        edge_target=targets,
        edge_probability=np.array(edge_probability, dtype=np.float64),
        edge_crosses=crosses,
        starts=starts,
        index=index,
        shared=shared_ids,
        seconds=_since(began),
    )


def _step(ruleset: Any, state: DuelState, seat: int, action: int) -> Any:
    def step(dice: Any) -> DuelState:
        child = state.clone()  # the stat blocks stay shared: they are frozen
        ruleset.apply(child, seat, action, dice)
        return child

    return step


def _end(outcome: Outcome) -> int:
    return DRAW if outcome.winner is None else (WIN_A if outcome.winner == 0 else WIN_B)


def score_of_a(outcome: Outcome) -> float:
    """Seat A's score of a finished duel: 1 a win, 0.5 a draw, 0 a loss."""
    return SCORE[_end(outcome)]


def _since(began: float) -> float:
    return time.perf_counter() - began


def _collect_frozen(value: Any, found: dict[int, Any]) -> None:
    """The frozen dataclasses (scenario, stat blocks, weapons) reachable from `value`."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # dataclasses keep `frozen` in params with no public, typed accessor
        if type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            found[id(value)] = value
            return
        for name in dataclasses.fields(value):
            _collect_frozen(getattr(value, name.name), found)
    elif isinstance(value, list | tuple | set):
        for item in value:
            _collect_frozen(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_frozen(item, found)


# --- values ------------------------------------------------------------------------


@dataclass
class Solution:
    """The values of every state at every round, for one pair of plans."""

    graph: Graph
    plans: tuple[Any, Any]
    """Each seat's `Plan`."""
    values: np.ndarray
    """values[r, i]: seat A's expected score from state i at round r (rows 0..cap + 1;
    row cap + 1, past the cap, is the truncated draw)."""
    seconds: float
    _at_round: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def value(self) -> float:
        """Seat A's expected score from the start of the duel."""
        total = 0.0
        for p, state in self.graph.starts:
            total += p * (
                SCORE[state] if state < 0 else self.values[self.graph.first_round[state], state]
            )
        return float(total)

    def action_values(self, state: int, round_: int) -> dict[int, float]:
        """Seat A's expected score after each legal action of `state` at `round_`."""
        g = self.graph
        rows = range(g.row_start[state], g.row_start[state + 1])
        return {int(g.row_action[q]): float(self._row_value(q, round_)) for q in rows}

    def best_action(self, state: int, round_: int) -> int:
        """An optimal action for the seat to act: the first, in action order, within 1e-12
        of the best (as `best_rows` picks)."""
        values = self.action_values(state, round_)
        sign = 1.0 if self.graph.seat[state] == 0 else -1.0  # seat B lowers A's score
        best = max(sign * value for value in values.values())
        return min(action for action, value in values.items() if sign * value >= best - 1e-12)

    def best_rows(self, round_: int) -> np.ndarray:
        """Each state's first best row at `round_` (what `best_action` picks, for all)."""
        g = self.graph
        here, then = self._reached(round_)
        reached = np.where(g.edge_crosses, then[g.edge_target], here[g.edge_target])
        q = np.add.reduceat(g.edge_probability * reached, g.edge_start[:-1])
        row_state = np.repeat(np.arange(g.size), np.diff(g.row_start))
        signed = np.where(g.seat[row_state] == 0, q, -q)  # seat B lowers A's score
        best = np.maximum.reduceat(signed, g.row_start[:-1])
        rows = np.flatnonzero(signed >= best[row_state] - 1e-12)
        _, first = np.unique(row_state[rows], return_index=True)
        return rows[first]

    def play(self, seed: int) -> Outcome:
        """One duel as the plans play it, from its seed (`play_duel`'s dice): a Monte Carlo
        check of `value`. An optimal seat reads its move off the values."""
        g = self.graph
        dice, rngs = duel_streams(seed)
        state = g.ruleset.new_duel(dice)
        while (seat := g.ruleset.to_act(state)) is not None:
            plan = self.plans[seat]
            if plan is None:
                action = self.best_action(g.index[state.key(g.shared)], state.round)
            else:
                mask = g.ruleset.legal_actions(state, seat)
                observation = g.ruleset.observation_spec.view(g.ruleset.observe(state, seat))
                action = plan.act(observation, mask.copy(), rngs[seat])
            move(g.ruleset, state, seat, action, dice)
        assert state.result is not None
        return state.result

    def _reached(self, round_: int) -> tuple[np.ndarray, np.ndarray]:
        """The values a step from `round_` reaches, within the round and into the next."""
        if round_ not in self._at_round:
            then = _next_round(self.values, round_, self.graph.round_cap)
            self._at_round[round_] = (_extended(self.values[round_]), then)
        return self._at_round[round_]

    def _row_value(self, q: int, round_: int) -> float:
        g = self.graph
        edges = slice(g.edge_start[q], g.edge_start[q + 1])
        here, then = self._reached(round_)
        targets = g.edge_target[edges]
        reached = np.where(g.edge_crosses[edges], then[targets], here[targets])
        return float(g.edge_probability[edges] @ reached)


Plan = Policy | Solution | None
"""How a seat plays in a solve: a fixed policy, the optimal moves of a solution (a fixed
plan too), or None for the best it can (seat A maximises its score, seat B minimises it)."""


def solve(graph: Graph, plans: tuple[Plan, Plan] = (None, None)) -> Solution:
    """Seat A's expected score from every state at every round, each seat playing its plan."""
    began = time.perf_counter()
    g = graph
    cap, n = g.round_cap, g.size
    values = np.full((cap + 2, n), 0.5)
    levels = _levels(g)
    weights = [_weights(g, seat, plan) for seat, plan in enumerate(plans)]
    for round_ in range(cap, 0, -1):
        here, then = _extended(values[round_]), _next_round(values, round_, cap)
        row_weight = np.zeros(len(g.row_action))
        for weight in weights:
            if weight is not None:
                weight.fill(row_weight, round_)
        for level in levels:
            level.evaluate(g, here, then, row_weight)
        values[round_] = here[:n]
    return Solution(g, plans, values, _since(began))


def _next_round(values: np.ndarray, round_: int, cap: int) -> np.ndarray:
    """What a step from `round_` that starts a new round reaches: past the cap, a draw
    whatever the step rolled (the rules truncate the duel as the round starts)."""
    if round_ >= cap:
        return np.full(values.shape[1] + 3, SCORE[DRAW])
    return _extended(values[round_ + 1])


def _extended(values: np.ndarray) -> np.ndarray:
    """`values` with the three ends appended, so that targets WIN_A, WIN_B, DRAW index them."""
    return np.concatenate([values, [SCORE[DRAW], SCORE[WIN_B], SCORE[WIN_A]]])


@dataclass
class _Level:
    """States whose steps within the round lead only to lower levels."""

    states: np.ndarray
    rows: np.ndarray
    row_offsets: np.ndarray
    """Where each row's edges start in `edges` (for `np.add.reduceat`)."""
    edges: np.ndarray
    state_offsets: np.ndarray
    """Where each state's rows start in `rows`."""

    def evaluate(
        self,
        g: Graph,
        here: np.ndarray,
        then: np.ndarray,
        row_weight: np.ndarray,
    ) -> None:
        targets = g.edge_target[self.edges]
        reached = np.where(g.edge_crosses[self.edges], then[targets], here[targets])
        q = np.add.reduceat(g.edge_probability[self.edges] * reached, self.row_offsets)
        best_a = np.maximum.reduceat(q, self.state_offsets)
        best_b = np.minimum.reduceat(q, self.state_offsets)
        fixed = np.add.reduceat(q * row_weight[self.rows], self.state_offsets)
        seat = g.seat[self.states]
        plays_fixed = np.add.reduceat(row_weight[self.rows], self.state_offsets) > 0
        here[self.states] = np.where(plays_fixed, fixed, np.where(seat == 0, best_a, best_b))


def _levels(g: Graph) -> list[_Level]:
    """The states grouped by height in the round's own steps (Kahn's algorithm)."""
    n = g.size
    edge_row = np.repeat(np.arange(len(g.row_action)), np.diff(g.edge_start))
    row_state = np.repeat(np.arange(n), np.diff(g.row_start))
    within = (~g.edge_crosses) & (g.edge_target >= 0)
    source, sink = row_state[edge_row[within]], g.edge_target[within]
    waiting = np.bincount(source, minlength=n)  # successors within the round not yet levelled
    predecessors: list[list[int]] = [[] for _ in range(n)]
    for s, t in zip(source.tolist(), sink.tolist(), strict=True):
        predecessors[t].append(s)
    height = np.full(n, -1)
    frontier = np.flatnonzero(waiting == 0).tolist()
    level = 0
    while frontier:
        following = []
        for t in frontier:
            height[t] = level
            for s in predecessors[t]:
                waiting[s] -= 1
                if waiting[s] == 0:
                    following.append(s)
        frontier, level = following, level + 1
    if (height < 0).any():
        raise RuntimeError(
            f"{g.ruleset.system}: steps within a round form a cycle; the solver needs rounds "
            "that always move on"
        )
    levels = []
    for h in range(level):
        states = np.flatnonzero(height == h)
        counts = g.row_start[states + 1] - g.row_start[states]
        rows = _ranges(g.row_start[states], counts)
        edge_counts = g.edge_start[rows + 1] - g.edge_start[rows]
        edges = _ranges(g.edge_start[rows], edge_counts)
        levels.append(_Level(states, rows, _offsets(edge_counts), edges, _offsets(counts)))
    return levels


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of range(start, start + count) for each pair."""
    total = int(counts.sum())
    offsets = np.repeat(starts - _offsets(counts), counts)
    return offsets + np.arange(total)


def _offsets(counts: np.ndarray) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def _weights(graph: Graph, seat: int, plan: Any) -> _PolicyWeights | _SolutionWeights | None:
    if plan is None:
        return None
    if isinstance(plan, Solution):
        if plan.graph is not graph:
            raise ValueError("a solution plays as a plan only in the duel it solved")
        return _SolutionWeights(plan, seat)
    return _PolicyWeights(graph, seat, plan)


class _SolutionWeights:
    """A solution's optimal moves for one seat, as a fixed plan."""

    def __init__(self, solution: Solution, seat: int) -> None:
        self.solution, self.seat = solution, seat

    def fill(self, row_weight: np.ndarray, round_: int) -> None:
        rows = self.solution.best_rows(round_)
        row_weight[rows[self.solution.graph.seat == self.seat]] = 1.0


class _PolicyWeights:
    """A fixed policy's probability of each row, asked state by state at each round, and
    kept in the graph: the exploitability takes four solves with one policy."""

    def __init__(self, graph: Graph, seat: int, policy: Policy) -> None:
        self.graph, self.seat, self.policy = graph, seat, policy
        states = np.flatnonzero(graph.seat == seat)
        self.states = states.tolist()
        self.rows = _ranges(graph.row_start[states], np.diff(graph.row_start)[states])
        kept = graph.policy_weights.setdefault((id(policy), seat), (policy, {}))
        self.by_round: dict[int, np.ndarray] = kept[1]

    def fill(self, row_weight: np.ndarray, round_: int) -> None:
        if round_ not in self.by_round:
            self.by_round[round_] = self._ask(round_)
        row_weight[self.rows] = self.by_round[round_]

    def _ask(self, round_: int) -> np.ndarray:
        """The policy's choices at `round_`; a state never reached so soon gets even
        weights instead (its value at that round is never read)."""
        g = self.graph
        spec = g.ruleset.observation_spec
        weights = []
        for i in self.states:
            rows = slice(g.row_start[i], g.row_start[i + 1])
            if g.first_round[i] > round_:
                weights.append(np.full(rows.stop - rows.start, 1 / (rows.stop - rows.start)))
                continue
            state = at_round(g.states[i], round_)
            mask = g.ruleset.legal_actions(state, self.seat)
            observation = spec.view(g.ruleset.observe(state, self.seat))
            chances = action_probabilities(self.policy, observation, mask)
            weights.append(chances[g.row_action[rows]])
            if abs(weights[-1].sum() - 1) > 1e-9:
                raise RuntimeError(
                    f"{g.ruleset.system}: at round {round_} the mask is not the one walked"
                )
        return np.concatenate(weights) if weights else np.zeros(0)


def at_round(state: DuelState, round_: int) -> DuelState:
    """A shallow copy of `state` at another round, its round-relative fields kept relative."""
    moved = copy.copy(state)
    for name in state.ROUND_RELATIVE:
        setattr(moved, name, round_ if getattr(state, name) == state.round else -1)
    moved.round = round_
    return moved


def action_probabilities(
    policy: Policy, observation: Mapping[str, np.ndarray], mask: np.ndarray
) -> np.ndarray:
    """What `policy` plays here, as probabilities over the actions.

    A policy that chooses at random says how through `action_distribution`; any other is
    asked twice with unrelated generators, and one that answers differently is refused
    rather than solved as if it were deterministic. A policy that raises, or answers with
    anything but a legal action or a distribution over the legal actions, is refused with
    a `ValueError` naming it: someone else's policy must not end a solve in a traceback,
    nor pass a wrong answer into the values. It runs in this process, unlike a
    tournament's `module:Class` policy: one that hangs or calls `os._exit` is not stopped.
    """
    name = getattr(policy, "name", type(policy).__name__)
    try:
        chances = _asked(policy, observation, mask)
    except _Refused as refused:
        raise ValueError(f"policy {name!r} {summary(str(refused))}") from None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - someone else's code
        why = summary(f"{type(error).__name__}: {error}")  # its words, on one short line
        raise ValueError(f"policy {name!r} failed: {why}") from None
    legal = np.asarray(mask, dtype=bool)
    if (
        chances.shape != legal.shape
        or not np.isfinite(chances).all()
        or (chances < 0).any()
        or chances[~legal].any()
        or abs(chances.sum() - 1) > 1e-9
    ):
        raise ValueError(
            f"policy {name!r} gave no distribution over the legal actions: {chances.tolist()}"
        )
    return chances


class _Refused(Exception):
    """A policy's answer the solver cannot use; the message says why."""


def _asked(policy: Policy, observation: Mapping[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
    distribution = getattr(policy, "action_distribution", None)
    if distribution is not None:
        return np.asarray(distribution(observation, mask.copy()), dtype=np.float64)
    first = policy.act(observation, mask.copy(), np.random.default_rng(1))
    if policy.act(observation, mask.copy(), np.random.default_rng(2)) != first:
        raise _Refused(
            "chooses at random; the solver needs its probabilities "
            "(an action_distribution(observation, mask) method)"
        )
    if not isinstance(first, int | np.integer) or not 0 <= first < len(mask) or not mask[first]:
        raise _Refused(f"chose the illegal action {first!r}")
    probabilities = np.zeros(len(mask))
    probabilities[int(first)] = 1.0
    return probabilities
