"""The seed's card duel solved as the PJ's decision problem (DESIGN.md layer 10).

In the faithful duel (seed: El duelo; digest §8.1) only the PJ chooses: the PNJ plays
the deck's top card. The duel is then a Markov decision problem of the PJ against
chance, solved here by backward induction over the exchanges, from the cap down.

**The model, and its one abstraction.** Each card drawn is any of the six at even
odds, as from an endless deck. The seed's deck of 36 is shuffled, so a draw depends
on the cards already seen; tracking them would multiply the states by millions (every
split of each card's copies among hand, discards and deck). `EndlessDeckDuel` is the
rules with that one change, played by the rules' own code: against it the solved
value is exact (a Monte Carlo of `EndlessDeckDuel` checks it), and the same policy
played in the real duel measures what the abstraction costs (`duelo solve
esgrima_duel --option duel_variant=faithful --check N` prints both).

**The state** at the PJ's decision: both sides' PG and armour points, who holds Foco,
the PJ's hand (three of the six cards, a multiset) and, when the PJ holds Foco, the
PNJ's card turned over (§8.1 item 6); the exchange counts toward the cap. Whose card
takes effect comes from the rules' `effect_chances`, a hit from `Body.take_damage`,
an Insulto's new initiative from the PJ's 2d6 against the PNJ's 7.5.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement, product

import numpy as np

from duelo.envs.core.dice import Dice, dice_sum, probability
from duelo.envs.core.observation import FieldReader
from duelo.envs.esgrima.duel import (
    HAND_SIZE,
    OBSERVATION_SPEC,
    REPOSITION,
    EsgrimaDuelRuleset,
    EsgrimaDuelState,
)
from duelo.envs.esgrima.mechanics import PNJ_INITIATIVE, Body, Card
from duelo.envs.esgrima.odds import Commits, effect_chances
from duelo.evaluation.solver import NotSolvableError

CARDS = len(Card)
HANDS = list(combinations_with_replacement(range(CARDS), HAND_SIZE))
"""Every hand, as sorted card numbers: what the PJ can hold."""
KEPT = [
    kept
    for size in range(HAND_SIZE + 1)
    for kept in combinations_with_replacement(range(CARDS), size)
]
"""Every part of a hand the PJ can keep before drawing back up (0 to 3 cards)."""
_HAND_AT = {hand: i for i, hand in enumerate(HANDS)}
_KEPT_AT = {kept: i for i, kept in enumerate(KEPT)}
MASKS = 1 << HAND_SIZE
"""Reposition discards: a bitmask over the sorted hand's slots (`REPOSITION + mask`)."""
SLOTS = HAND_SIZE + MASKS
"""A decision's candidates: play the card in slot 0, 1 or 2, or reposition by a mask
(surrender, never better than a loss, is left out)."""
PJ_FIRST = CARDS
"""The column of the move table for a PJ who commits first (no PNJ card shown)."""
PJ_FOCO = probability(dice_sum(2, 6), lambda total: total > PNJ_INITIATIVE)
"""The PJ holds Foco when its 2d6 beats the PNJ's 7.5 (seed: Establecer la iniciativa;
§10 #13), at the start and after an Insulto."""


class EndlessDeckDuel(EsgrimaDuelRuleset):
    """The fencing duel with every draw any of the six cards at even odds (the model's
    one change to the rules; see the module docstring)."""

    def _new_deck(self, cards: list[Card], dice: Dice) -> list[Card]:
        return []  # nothing is ever taken from it

    def _draw_one(self, state: EsgrimaDuelState, dice: Dice) -> Card:
        return Card(dice.roll(CARDS, "draw") - 1)


def _refill() -> np.ndarray:
    """P(hand | kept cards): drawing back up to three, each draw even over the six."""
    table = np.zeros((len(KEPT), len(HANDS)))
    for k, kept in enumerate(KEPT):
        draws = HAND_SIZE - len(kept)
        for drawn in product(range(CARDS), repeat=draws):
            table[k, _HAND_AT[tuple(sorted(kept + drawn))]] += CARDS**-draws
    return table


REFILL = _refill()


def _candidates() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per hand: each slot's card and the cards kept after playing it; each mask's kept
    cards; and the action of every candidate (`SLOTS` of them)."""
    play_card = np.zeros((len(HANDS), HAND_SIZE), dtype=np.intp)
    play_kept = np.zeros((len(HANDS), HAND_SIZE), dtype=np.intp)
    mask_kept = np.zeros((len(HANDS), MASKS), dtype=np.intp)
    action = np.zeros((len(HANDS), SLOTS), dtype=np.intp)
    for h, hand in enumerate(HANDS):
        for slot, card in enumerate(hand):
            play_card[h, slot] = card
            play_kept[h, slot] = _KEPT_AT[hand[:slot] + hand[slot + 1 :]]
            action[h, slot] = card
        for mask in range(MASKS):
            kept = tuple(card for slot, card in enumerate(hand) if not mask >> slot & 1)
            mask_kept[h, mask] = _KEPT_AT[kept]
            action[h, HAND_SIZE + mask] = REPOSITION + mask
    return play_card, play_kept, mask_kept, action


PLAY_CARD, PLAY_KEPT, MASK_KEPT, ACTION = _candidates()


Cell = tuple[int, int, int, int]
"""Seat 0's PG and armour points, then seat 1's."""


@dataclass(frozen=True)
class Bodies:
    """The living (PG, armour points) of both seats, numbered."""

    index: dict[Cell, int]
    seats: tuple[Body, Body]
    """Each seat's body at the start."""

    @classmethod
    def of(cls, ruleset: EsgrimaDuelRuleset) -> Bodies:
        a, b = (Body.of(character) for character in ruleset.characters)
        cells = product(
            range(1, a.pg_max + 1),
            range(a.armour_pts + 1),
            range(1, b.pg_max + 1),
            range(b.armour_pts + 1),
        )
        return cls({cell: i for i, cell in enumerate(cells)}, (a, b))

    @property
    def size(self) -> int:
        return len(self.index)

    def start(self) -> int:
        a, b = self.seats
        return self.index[(a.pg, a.armour_pts, b.pg, b.armour_pts)]

    def bodies(self, cell: Cell) -> list[Body]:
        return [
            Body(cell[2 * seat], body.pg_max, body.armour, cell[2 * seat + 1])
            for seat, body in enumerate(self.seats)
        ]

    @staticmethod
    def seen_by(read: FieldReader, seat: int) -> Cell:
        """The cell an observation of `seat` shows."""
        own = (int(read("hp", "self")), int(read("armour", "self.points")))
        other = (int(read("hp", "opponent")), int(read("armour", "opponent.points")))
        a, b = (own, other) if seat == 0 else (other, own)
        return (*a, *b)


Step = tuple[Fraction, float | None, int, int]
"""One outcome of an exchange's effect: (probability, seat 0's score if the duel ends,
else the Foco holder and the bodies' number)."""


def _effect(
    cells: Bodies, cell: Cell, foco: int, winner: int, card: Card, rules: ExchangeRules
) -> list[Step]:
    """What `winner`'s card does (seed: Las cartas de duelo), as the rules' `_effect`."""

    def hurt(damage: int) -> Step:
        bodies = cells.bodies(cell)
        target = bodies[1 - winner]
        lost = target.take_damage(damage)
        if target.out or (lost and rules.first_blood):
            return Fraction(1), float(winner == 0), 0, 0
        a, b = bodies
        return Fraction(1), None, foco, cells.index[(a.pg, a.armour_pts, b.pg, b.armour_pts)]

    def weighted(p: Fraction, step: Step) -> Step:
        return p * step[0], step[1], step[2], step[3]

    if card in (Card.ESTOCADA_ALTA, Card.TAJO_CIRCULAR):  # 1d3 (d6 halved, rounding up)
        return [weighted(Fraction(1, 3), hurt(damage)) for damage in (1, 2, 3)]
    if card == Card.ESTOCADA_PROFUNDA:
        return [hurt(2)]
    if card in (Card.TRETA, Card.FINTA):
        return [hurt(1)] if foco == winner else [(Fraction(1), None, winner, cells.index[cell])]
    pg = min(cells.seats[winner].pg_max, cell[2 * winner] + 1)  # Insulto: 1 PG back
    pg_a, other_a, pg_b, other_b = cell
    healed: Cell = (pg, other_a, pg_b, other_b) if winner == 0 else (pg_a, other_a, pg, other_b)
    at = cells.index[healed]  # then Foco is rolled for again
    return [(rules.refoco, None, 0, at), (1 - rules.refoco, None, 1, at)]


@dataclass(frozen=True)
class ExchangeRules:
    """What an exchange's resolution reads of the duel besides the commits and Foco."""

    faithful: bool
    ratings: tuple[tuple[int, int], tuple[int, int]]
    """Each seat's (duel rating, Defense): a card tests the first, a Reposition the second."""
    first_blood: bool
    refoco: Fraction
    """The chance that seat 0 holds Foco after an Insulto's new initiative roll."""

    @classmethod
    def of(cls, ruleset: EsgrimaDuelRuleset) -> ExchangeRules:
        faithful = ruleset.options.duel_variant == "faithful"
        first, second = ruleset.characters
        return cls(
            faithful,
            ((first.melee_rating, first.defensa), (second.melee_rating, second.defensa)),
            ruleset.options.duel_end == "first_blood",
            # faithful: the PJ's 2d6 against 7.5; symmetric: two 2d6, ties rolled off (even)
            PJ_FOCO if faithful else Fraction(1, 2),
        )


@dataclass(frozen=True)
class Resolution:
    """One resolution (both seats' commits, Foco known) as arrays over the bodies:
    where each outcome leads, with what chance, and seat 0's expected score from the
    outcomes that end the duel."""

    target: np.ndarray
    """(bodies, outcomes): Foco holder * bodies + body."""
    chance: np.ndarray
    ending: np.ndarray

    def value(self, then: np.ndarray) -> np.ndarray:
        """Seat 0's expected score given the values `then` (..., 2, bodies) after it."""
        flat = then.reshape(*then.shape[:-2], -1)
        return (flat[..., self.target] * self.chance).sum(-1) + self.ending


def resolution(cells: Bodies, cards: Commits, foco: int, rules: ExchangeRules) -> Resolution:
    """The resolution of `cards` (None: a Reposition) with `foco` holding Foco."""
    tested = tuple(  # a card tests the duel rating, a Reposition Defense
        rating if card is not None else defense
        for card, (rating, defense) in zip(cards, rules.ratings, strict=True)
    )
    chances = effect_chances(cards, tested, foco, rules.faithful)
    rows: list[list[Step]] = []
    for cell in cells.index:
        row: list[Step] = []
        for winner, p in chances.items():
            if p == 0:
                continue
            if winner is None:
                row.append((p, None, foco, cells.index[cell]))
                continue
            card = cards[winner]
            assert card is not None
            row += [
                (p * q, end, f, b)
                for q, end, f, b in _effect(cells, cell, foco, winner, card, rules)
            ]
        rows.append(row)
    width = max(len(row) for row in rows)
    target = np.zeros((cells.size, width), dtype=np.intp)
    chance = np.zeros((cells.size, width))
    ending = np.zeros(cells.size)
    for i, row in enumerate(rows):
        for j, (p, end, f, b) in enumerate(row):
            if end is None:
                target[i, j], chance[i, j] = f * cells.size + b, float(p)
            else:
                ending[i] += float(p) * end
    return Resolution(target, chance, ending)


@dataclass
class CardDuelSolution:
    """The PJ's best play of one faithful duel, from every decision at every exchange."""

    ruleset: EsgrimaDuelRuleset
    cells: Bodies
    start_values: np.ndarray
    """(2, hands, bodies): the value at the first exchange's start, by Foco holder."""
    best: np.ndarray
    """(exchanges, 7, hands, bodies): the best candidate slot; column c < 6 when the PJ
    holds Foco and sees the PNJ's card c, `PJ_FIRST` when it commits first."""
    seconds: float

    @property
    def value(self) -> float:
        """The PJ's expected score from the duel's start (1 a win, 0.5 a draw)."""
        hand_odds = REFILL[_KEPT_AT[()]]
        b = self.cells.start()
        by_foco = self.start_values[:, :, b] @ hand_odds
        return float(PJ_FOCO * by_foco[0] + (1 - PJ_FOCO) * by_foco[1])

    @property
    def decisions(self) -> int:
        """The decision states of one exchange: bodies x hands x what the PJ sees."""
        return self.best[0].size

    def move(self, exchange: int, shown: int, hand: tuple[int, ...], cell: Cell) -> int:
        """The best action at that decision (`shown`: the PNJ's card, or `PJ_FIRST`)."""
        slot = self.best[exchange - 1, shown, _HAND_AT[hand], self.cells.index[cell]]
        return int(ACTION[_HAND_AT[hand], slot])


def check_modelled(ruleset: EsgrimaDuelRuleset, variant: str) -> None:
    """Refuse a duel other than the `variant` a solver models, or one with a fixed deck."""
    if ruleset.options.duel_variant != variant:
        raise NotSolvableError(f"esgrima_duel: this solver plays the {variant} duel")
    if ruleset.fixed_deck is not None:
        raise NotSolvableError(
            "esgrima_duel: a fixed deck order is not the shuffled deck the model assumes"
        )


def solve_card_duel(ruleset: EsgrimaDuelRuleset) -> CardDuelSolution:
    """Solve the faithful duel `ruleset` sets up, under the endless-deck model."""
    check_modelled(ruleset, "faithful")
    began = time.perf_counter()
    cells = Bodies.of(ruleset)
    rules = ExchangeRules.of(ruleset)
    plays = {
        (card, shown, foco): resolution(cells, (Card(card), Card(shown)), foco, rules)
        for card, shown, foco in product(range(CARDS), range(CARDS), (0, 1))
    }
    repositions = {
        (shown, foco): resolution(cells, (None, Card(shown)), foco, rules)
        for shown, foco in product(range(CARDS), (0, 1))
    }
    cap = ruleset.round_cap
    best = np.zeros((cap, CARDS + 1, len(HANDS), cells.size), dtype=np.int8)
    values = np.full((2, len(HANDS), cells.size), 0.5)  # past the cap: a truncated draw
    for exchange in range(cap, 0, -1):
        after_play = np.einsum("kh,fhb->kfb", REFILL, values)  # drawn back up to three
        hands = np.moveaxis(values, 1, 0)  # (hands, 2, bodies): a Reposition draws at once
        new = np.empty_like(values)
        # §8.1 item 6: holding Foco, the PJ sees the PNJ's card before it commits
        seen = [_decide(plays, repositions, after_play, hands, shown, 0) for shown in range(CARDS)]
        for shown, (slot, _) in enumerate(seen):
            best[exchange - 1, shown] = slot
        new[0] = np.mean([value for _, value in seen], axis=0)
        # without Foco it commits first, the PNJ's card still a draw
        slot, new[1] = _decide(plays, repositions, after_play, hands, None, 1)
        best[exchange - 1, PJ_FIRST] = slot
        values = new
    return CardDuelSolution(ruleset, cells, values, best, time.perf_counter() - began)


def _decide(
    plays: Mapping[tuple[int, int, int], Resolution],
    repositions: Mapping[tuple[int, int], Resolution],
    after_play: np.ndarray,
    hands: np.ndarray,
    shown: int | None,
    foco: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The best slot and its value for every hand and body, the PNJ's card `shown` or
    (None) even over the six."""
    pnj_cards = range(CARDS) if shown is None else [shown]
    play = np.mean(
        [[plays[card, c, foco].value(after_play) for card in range(CARDS)] for c in pnj_cards],
        axis=0,
    )  # (card, kept, bodies)
    resolved = np.mean([repositions[c, foco].value(hands) for c in pnj_cards], axis=0)
    reposition = REFILL @ resolved  # (kept, bodies): the discards drawn again at once
    candidates = np.concatenate([play[PLAY_CARD, PLAY_KEPT], reposition[MASK_KEPT]], axis=1)
    return candidates.argmax(axis=1).astype(np.int8), candidates.max(axis=1)


REPOSITIONED = CARDS
"""`commit_seen` of an opponent who repositioned."""
_NAMES = [card.name.lower() for card in Card]


def hand_seen(read: FieldReader) -> tuple[int, ...]:
    """The observing side's hand, as sorted card numbers."""
    return tuple(c for c in range(CARDS) for _ in range(int(read("cards", f"hand.{_NAMES[c]}"))))


def commit_seen(read: FieldReader) -> int | None:
    """The opponent's commit this exchange: a card number, `REPOSITIONED`, or None when
    nothing is shown yet."""
    if read("cards", "revealed.not_revealed"):
        return None
    if read("cards", "revealed.reposition"):
        return REPOSITIONED
    return next((c for c in range(CARDS) if read("cards", f"revealed.{_NAMES[c]}")), None)


class CardDuelPolicy:
    """`esgrima_duel:optimal` in the faithful duel: the solved move for the PJ's
    observation (its hand, both sides' PG and armour, Foco, the card shown, the
    exchange). It reads nothing of the discards: the model forgets them."""

    name = "optimal"
    description = "the PJ's solved best play of the faithful card duel (endless-deck model)"

    def __init__(self, solution: CardDuelSolution) -> None:
        self.solution = solution

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = OBSERVATION_SPEC.read(observation)
        hand = hand_seen(read)
        cell = Bodies.seen_by(read, 0)
        shown = commit_seen(read)
        shown = PJ_FIRST if shown is None else shown
        exchange = int(read("duel", "exchange"))
        solution = self.solution
        known = (
            not read("cards", "opponent_hand_size")  # the PNJ holds no hand: faithful
            and hand in _HAND_AT
            and cell in solution.cells.index
            and 1 <= exchange <= len(solution.best)
            and (shown == PJ_FIRST) != bool(read("foco"))
        )
        move = solution.move(exchange, shown, hand, cell) if known else None
        if move is None or not action_mask[move]:
            raise ValueError(
                "esgrima_duel:optimal meets a decision its solved duel never reaches (another "
                "seat, fighters or options than the faithful duel it solved?)"
            )
        return move
