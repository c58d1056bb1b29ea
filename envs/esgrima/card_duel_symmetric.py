"""The symmetric card duel solved under a stated abstraction (DESIGN.md layer 10).

Both sides hold hidden hands (digest §8.1 item 14): a game of imperfect information,
whose exact solution (CFR over every history of plays and draws) is far beyond two
cores. The abstraction here makes it small and solves it exactly:

**Hands redrawn each exchange.** Every exchange starts with both hands dealt afresh,
three cards each from an endless deck (`RedrawnHandsDuel`: the rules with that change,
for the Monte Carlo check). A hand then carries nothing from one exchange to the next,
and what a side's play reveals of its hand is worth nothing, so the hidden hands only
limit which cards each side may commit. The side without Foco commits first, seeing
its own hand; the Foco holder answers seeing that commit and its own hand (§8.1 item
6). Backward induction over the exchanges, from the cap down, then gives the exact
equilibrium of the abstract game: the second side's best answer for every commit and
every set of cards it may hold, and the first side's best commit for every set of cards
it holds, against those answers. No mixed strategy is needed: nothing hidden changes
what a commit is worth.

What the abstraction leaves out, and its cost: keeping cards for later and Repositioning
to mend a hand (a Reposition is played as discarding the whole hand, the model's own
fresh deal), and reading the opponent's hand from its plays. `duelo exploit
esgrima_duel:optimal --system esgrima_duel` measures what that costs in the real duel.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import product

import numpy as np

from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import FieldReader
from duelo.envs.core.ruleset import SEATS
from duelo.envs.esgrima.card_duel import (
    CARDS,
    HANDS,
    REFILL,
    REPOSITIONED,
    Bodies,
    EndlessDeckDuel,
    ExchangeRules,
    Resolution,
    check_modelled,
    commit_seen,
    hand_seen,
    resolution,
)
from duelo.envs.esgrima.duel import (
    HAND_SIZE,
    OBSERVATION_SPEC,
    REPOSITION,
    EsgrimaDuelRuleset,
    EsgrimaDuelState,
)
from duelo.envs.esgrima.mechanics import Card

COMMITS = CARDS + 1
"""A card, or `REPOSITIONED`."""
FRESH_HAND = REFILL[0]
"""The odds of each hand dealt from nothing (`KEPT[0]` is the empty hand)."""


def _supports() -> tuple[list[int], np.ndarray, np.ndarray]:
    """The sets of cards a hand can hold (bitmasks), each one's odds, and which commits
    each allows (its cards, and Reposition always)."""
    odds: dict[int, float] = {}
    for hand, p in zip(HANDS, FRESH_HAND, strict=True):
        mask = sum(1 << card for card in set(hand))
        odds[mask] = odds.get(mask, 0.0) + float(p)
    masks = sorted(odds)
    allowed = np.array([[m >> c & 1 for c in range(CARDS)] + [1] for m in masks], dtype=bool)
    return masks, np.array([odds[m] for m in masks]), allowed


SUPPORTS, SUPPORT_ODDS, ALLOWED = _supports()
_SUPPORT_AT = {mask: i for i, mask in enumerate(SUPPORTS)}
DISCARD_ALL = REPOSITION + (1 << HAND_SIZE) - 1
"""The Reposition played: the whole hand for a fresh one, as the model deals it."""


class RedrawnHandsDuel(EndlessDeckDuel):
    """The fencing duel with both hands dealt afresh at every exchange, from an endless
    deck (the abstraction's rules; see the module docstring)."""

    def _start_exchange(self, state: EsgrimaDuelState, dice: Dice) -> None:
        if state.round:  # new_duel has just dealt the first hands
            for seat in SEATS:
                state.sides[seat].hand.clear()
                self._draw(state, seat, HAND_SIZE, dice)
        super()._start_exchange(state, dice)


@dataclass
class SymmetricSolution:
    """The abstract game's equilibrium, from every exchange, Foco holder and bodies."""

    ruleset: EsgrimaDuelRuleset
    cells: Bodies
    start_values: np.ndarray
    """(2, bodies): seat 0's value at the first exchange's start, by Foco holder."""
    first: np.ndarray
    """(exchanges, Foco holder, supports, bodies): the first side's commit."""
    second: np.ndarray
    """(exchanges, Foco holder, first side's commit, supports, bodies): the answer."""
    seconds: float

    @property
    def value(self) -> float:
        """Seat 0's expected score from the duel's start: Foco goes to the higher of two
        2d6, ties rolled off: even odds."""
        return float(self.start_values[:, self.cells.start()].mean())


def solve_symmetric_duel(ruleset: EsgrimaDuelRuleset) -> SymmetricSolution:
    """Solve the symmetric duel `ruleset` sets up, under the redrawn-hands abstraction."""
    check_modelled(ruleset, "symmetric")
    began = time.perf_counter()
    cells = Bodies.of(ruleset)
    rules = ExchangeRules.of(ruleset)
    resolutions = {
        (a, b, foco): resolution(cells, (_card(a), _card(b)), foco, rules)
        for a, b, foco in product(range(COMMITS), range(COMMITS), (0, 1))
    }
    cap = ruleset.round_cap
    first = np.zeros((cap, 2, len(SUPPORTS), cells.size), dtype=np.int8)
    second = np.zeros((cap, 2, COMMITS, len(SUPPORTS), cells.size), dtype=np.int8)
    values = np.full((2, cells.size), 0.5)  # past the cap: a truncated draw
    for exchange in range(cap, 0, -1):
        new = np.empty_like(values)
        for foco in (0, 1):
            first_seat = 1 - foco  # §8.1 item 6: the side without Foco commits first
            new[foco], first[exchange - 1, foco], second[exchange - 1, foco] = _exchange_game(
                resolutions, values, foco, first_seat
            )
        values = new
    return SymmetricSolution(ruleset, cells, values, first, second, time.perf_counter() - began)


def _card(commit: int) -> Card | None:
    return None if commit == REPOSITIONED else Card(commit)


def _exchange_game(
    resolutions: Mapping[tuple[int, int, int], Resolution],
    then: np.ndarray,
    foco: int,
    first_seat: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One exchange's game with Foco known: its value for seat 0, the first side's
    commit per support and the second's answer per commit and support."""
    by_seat = np.empty((COMMITS, COMMITS, then.shape[-1]))  # [first's commit, second's]
    for a, b in product(range(COMMITS), repeat=2):
        seats = (a, b) if first_seat == 0 else (b, a)
        by_seat[a, b] = resolutions[(*seats, foco)].value(then)
    # seat 0 maximises its score, seat 1 minimises it; a commit outside the hand is out
    sign = 1.0 if first_seat == 1 else -1.0  # the second side's sense, as a maximiser
    answer_values = np.where(ALLOWED[None, :, :, None], sign * by_seat[:, None], -np.inf)
    answer = answer_values.argmax(axis=2)  # (first's commit, supports, bodies)
    answered = sign * answer_values.max(axis=2)
    expected = np.einsum("s,asb->ab", SUPPORT_ODDS, answered)  # (first's commit, bodies)
    commit_values = np.where(ALLOWED[:, :, None], -sign * expected[None], -np.inf)
    commit = commit_values.argmax(axis=1)  # (supports, bodies)
    value = SUPPORT_ODDS @ (-sign * commit_values.max(axis=1))
    return value, commit.astype(np.int8), answer.astype(np.int8)


class SymmetricDuelPolicy:
    """`esgrima_duel:optimal` in the symmetric duel: the abstract game's equilibrium
    move for the observation (its hand's cards, both sides' PG and armour, Foco, the
    commit shown, the exchange), from either seat."""

    name = "optimal"
    description = (
        "the symmetric card duel's equilibrium with hands redrawn each exchange (abstraction)"
    )

    def __init__(self, solution: SymmetricSolution) -> None:
        self.solution = solution
        a, b = solution.ruleset.characters
        self.blocks = [_block(c.melee_rating, c.defensa, c.pg_max) for c in (a, b)]

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = OBSERVATION_SPEC.read(observation)
        seat = self._seat(read)
        hand = hand_seen(read)
        shown = commit_seen(read)
        exchange = int(read("duel", "exchange"))
        solution = self.solution
        cell = Bodies.seen_by(read, seat) if seat is not None else None
        support = _SUPPORT_AT.get(sum(1 << card for card in set(hand)))
        second = bool(read("commit_order", "second"))
        known = (
            seat is not None
            and read("cards", "opponent_hand_size") > 0  # both hold hands: symmetric
            and cell in solution.cells.index
            and support is not None
            and 1 <= exchange <= len(solution.first)
            and second == (shown is not None)
        )
        move = None
        if known:
            assert seat is not None and cell is not None and support is not None
            foco = seat if read("foco") else 1 - seat
            b = solution.cells.index[cell]
            if second:
                assert shown is not None
                commit = solution.second[exchange - 1, foco, shown, support, b]
            else:
                commit = solution.first[exchange - 1, foco, support, b]
            move = DISCARD_ALL if commit == REPOSITIONED else int(commit)
        if move is None or not action_mask[move]:
            raise ValueError(
                "esgrima_duel:optimal meets a decision its solved duel never reaches (other "
                "fighters or options than the symmetric duel it solved?)"
            )
        return move

    def _seat(self, read: FieldReader) -> int | None:
        """The seat whose stat block the observation shows as its own (either, when the
        two are alike: the game is the same from both)."""
        own = _block(
            read("ratings", "self.duel"), read("ratings", "self.defense"), read("hp_max", "self")
        )
        return next((seat for seat, block in enumerate(self.blocks) if block == own), None)


def _block(rating: float, defense: float, pg_max: float) -> tuple[int, int, int]:
    return int(rating), int(defense), int(pg_max)
