"""The fencing duel (both variants) for N duels at once, in compiled code.

A port of `envs/esgrima/duel.py` (the reference): each kernel mirrors one method
there, rolls the same dice in the same order, and cites the same rules, so that
for one seed a batched duel and its scalar twin agree decision for decision
(`tests/fast/test_esgrima_duel.py`). Narration is left out.

The state of N duels is one structured array (`DUEL_DTYPE`): each field, read
as `duels["pg"]`, is an array over the N duels, and each row is one duel, which
a kernel takes as one record. A hand is kept sorted, as the reference sorts it;
a card code is the `Card` value, `REPOSITION_CODE` a Reposition, `NO_COMMIT` no
commit yet.
"""

from __future__ import annotations

import numba
import numpy as np

from duelo.envs.esgrima.duel import (
    HAND_SIZE,
    NOT_REVEALED,
    REPOSITION,
    DuelAction,
    EsgrimaDuelRuleset,
)
from duelo.envs.esgrima.mechanics import ADVANTAGE_OVER, PNJ_INITIATIVE, Card
from duelo.envs.esgrima.setup import ARMOUR_POINTS, MAX_DECK_COPIES, Armour
from duelo.envs.fast.batch import ending_words
from duelo.envs.fast.loops import compile_into
from duelo.envs.fast.streams import roll

CARDS = len(Card)
ACTIONS = len(DuelAction)
SURRENDER = int(DuelAction.SURRENDER)
REPOSITION_ACTION = int(REPOSITION)
"""The first Reposition action (plain ints: numba compiles an enum member into slow code)."""
REPOSITION_CODE = CARDS
NO_COMMIT = -1
FIRST, SECOND = 0, 1
NONE_ARMOUR, LIGHT_ARMOUR, HEAVY_ARMOUR = 0, 1, 2
_ARMOUR_CODE = {Armour.NONE: NONE_ARMOUR, Armour.LIGHT: LIGHT_ARMOUR, Armour.HEAVY: HEAVY_ARMOUR}
ADVANTAGE = np.array([int(ADVANTAGE_OVER[Card(card)]) for card in range(CARDS)], dtype=np.int64)
"""Seed (Las cartas de duelo): the card each card has Advantage against."""
_ESTOCADA_ALTA, _ESTOCADA_PROFUNDA, _TAJO_CIRCULAR, _TRETA, _FINTA, _INSULTO = map(int, Card)
ENDINGS = (
    "",
    "round cap of {cap}",
    "{loser} surrenders",
    "{loser} falls",
    "first blood to {winner}",
)
"""The reference's `Outcome.reason` of each way a duel ends (`duel["ending"]` indexes it)."""
GOING_ON, ROUND_CAP, SURRENDERS, FALLS, FIRST_BLOOD = range(len(ENDINGS))


RULES_DTYPE = np.dtype(
    [
        ("faithful", np.bool_),
        ("first_blood", np.bool_),
        ("deck_copies", np.int64),
        ("exchange_cap", np.int64),
        ("pg_max", np.int64, (2,)),  # per seat, as the fields below
        ("armour", np.int64, (2,)),
        ("armour_points", np.int64, (2,)),
        ("melee", np.int64, (2,)),
        ("defense", np.int64, (2,)),
    ],
    align=True,
)
"""What the ruleset fixes for every duel of the batch: the options and the fighters."""


def rules_of(ruleset: EsgrimaDuelRuleset) -> np.ndarray:
    """The batched engine's copy of a ruleset (one row); refuses what it does not model."""
    if ruleset.fixed_deck is not None:
        raise ValueError(
            "the batched fencing duel shuffles its decks: a fixed deck is not modelled"
        )
    options, characters = ruleset.options, ruleset.characters
    rules = np.zeros(1, RULES_DTYPE)
    rules["faithful"] = options.duel_variant == "faithful"
    rules["first_blood"] = options.duel_end == "first_blood"
    rules["deck_copies"] = options.deck_copies
    rules["exchange_cap"] = options.exchange_cap
    rules["pg_max"] = [c.pg_max for c in characters]
    rules["armour"] = [_ARMOUR_CODE[c.armour] for c in characters]
    rules["armour_points"] = [ARMOUR_POINTS[c.armour] for c in characters]
    rules["melee"] = [c.melee_rating for c in characters]
    rules["defense"] = [c.defensa for c in characters]
    return rules


def longest_duel(rules: np.ndarray, illegal_limit: int) -> int:
    """The most learner steps a duel lasts: one legal decision an exchange, each after at
    most `illegal_limit - 1` illegal ones, or the limit's truncation."""
    return (int(rules["exchange_cap"][0]) + 1) * illegal_limit


MAX_DECK = CARDS * MAX_DECK_COPIES
DUEL_DTYPE = np.dtype(
    [
        ("pg", np.int64, (2,)),
        ("armour_points", np.int64, (2,)),
        ("initiative", np.float64, (2,)),
        ("hand", np.int64, (2, HAND_SIZE)),  # sorted; the first hand_size count
        ("hand_size", np.int64, (2,)),
        ("deck", np.int8, (MAX_DECK,)),  # the deck is deck[deck_top:deck_end], top first
        ("deck_top", np.int64),
        ("deck_end", np.int64),
        ("discard", np.int8, (MAX_DECK,)),
        ("discard_size", np.int64),
        ("foco", np.int64),
        ("phase", np.int64),
        ("round", np.int64),
        ("commit", np.int64, (2,)),
        ("over", np.bool_),
        ("winner", np.int64),  # the winning seat, or -1 for a draw (read once over)
        ("truncated", np.bool_),
        ("stake", np.float64),  # what the win is worth
        ("ending", np.int64),  # an index into ENDINGS
    ],
    align=True,
)
"""One fencing duel (`EsgrimaDuelState`) as a row. One dtype for every deck size (the
largest deck's room, a card a byte), so that numba compiles each kernel for one
signature: processes compiling two signatures of a kernel at once (tests, tournament
workers on a fresh install) could each number theirs first in numba's cache index,
and one then loaded the other's machine code."""


def ending_reason(duel: np.void, rules: np.ndarray, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel, the fighters named `names`."""
    return ending_words(ENDINGS, duel, int(rules["exchange_cap"][0]), names)


def new_duels(num_envs: int, rules: np.ndarray) -> np.ndarray:
    return np.zeros(num_envs, DUEL_DTYPE)


# --- the ruleset interface ---------------------------------------------------------


@numba.njit(cache=True)
def new_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`EsgrimaDuelRuleset.new_duel`: deck, hands, Foco, the first exchange."""
    d.over = False
    d.stake = 1.0  # every win is worth 1
    d.truncated = False
    d.winner = -1
    d.ending = GOING_ON
    d.round = 0
    d.phase = FIRST
    d.commit[0] = d.commit[1] = NO_COMMIT
    for seat in range(2):
        d.pg[seat] = r.pg_max[seat]
        d.armour_points[seat] = r.armour_points[seat]
        d.initiative[seat] = 0.0
        d.hand_size[seat] = 0
    cards = CARDS * r.deck_copies
    for at in range(cards):  # every card, deck_copies of each, in `Card` order (seed)
        d.deck[at] = at // r.deck_copies
    _shuffle(d.deck, cards, dice)
    d.deck_top = 0
    d.deck_end = cards
    d.discard_size = 0
    for seat in range(1 if r.faithful else 2):  # faithful: only the PJ holds a hand
        _draw(d, seat, HAND_SIZE, dice)
    _roll_for_foco(d, r, dice)
    _start_exchange(d, r, dice)


@numba.njit(cache=True, inline="always")
def to_act(d: np.void, r: np.void) -> int:
    """The seat to decide, or -1 once the duel is over."""
    if d.over:
        return -1
    if r.faithful:
        return 0
    return 1 - d.foco if d.phase == FIRST else d.foco


@numba.njit(cache=True, inline="always")
def legal_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`mask` (one row of ACTIONS booleans): the cards in hand, every Reposition, surrender."""
    mask[:] = False
    if to_act(d, r) != seat:
        return
    for slot in range(d.hand_size[seat]):
        mask[d.hand[seat, slot]] = True
    mask[REPOSITION_ACTION:] = True


@numba.njit(cache=True)
def apply(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """`EsgrimaDuelRuleset.apply` of a legal action."""
    if action == SURRENDER:
        _finish(d, 1 - seat, SURRENDERS)
        return
    size = d.hand_size[seat]
    if action < REPOSITION_ACTION:
        kept = 0
        removed = False
        for slot in range(size):  # the first copy of the card leaves the hand
            card = d.hand[seat, slot]
            if card == action and not removed:
                removed = True
            else:
                d.hand[seat, kept] = card
                kept += 1
        d.hand_size[seat] = kept
        d.commit[seat] = action
    else:
        bits = action - REPOSITION_ACTION
        kept = 0
        for slot in range(size):  # discarded before drawing back up (seed)
            card = d.hand[seat, slot]
            if bits >> slot & 1:
                d.discard[d.discard_size] = card
                d.discard_size += 1
            else:
                d.hand[seat, kept] = card
                kept += 1
        d.hand_size[seat] = kept
        d.commit[seat] = REPOSITION_CODE
        _draw(d, seat, HAND_SIZE - kept, dice)  # §8.1 item 6: drawn now
    _advance(d, r, dice)


@numba.njit(cache=True, inline="always")
def observe(d: np.void, r: np.void, seat: int, out: np.ndarray) -> None:
    """`EsgrimaDuelRuleset.observe` into `out`, in the order of OBSERVATION_SPEC."""
    them = 1 - seat
    out[0] = d.initiative[seat]
    out[1] = d.initiative[them]
    out[2] = d.pg[seat]
    out[3] = d.pg[them]
    out[4] = r.pg_max[seat]
    out[5] = r.pg_max[them]
    out[6] = 0.0  # range: always Adjacent in a duel
    at = 7
    for side in (seat, them):
        out[at] = r.armour[side] == LIGHT_ARMOUR
        out[at + 1] = r.armour[side] == HEAVY_ARMOUR
        out[at + 2] = d.armour_points[side]
        at += 3
    for side in (seat, them):
        out[at] = r.melee[side]
        out[at + 1] = r.defense[side]
        at += 2
    out[at] = d.foco == seat
    deciding = to_act(d, r) == seat
    out[at + 1] = deciding and d.phase == FIRST
    out[at + 2] = deciding and d.phase == SECOND
    at += 3
    out[at : at + CARDS] = 0.0
    for slot in range(d.hand_size[seat]):
        out[at + d.hand[seat, slot]] += 1.0
    at += CARDS
    out[at : at + CARDS + 2] = 0.0
    commit = d.commit[them]
    out[at + (NOT_REVEALED if commit == NO_COMMIT else commit)] = 1.0
    at += CARDS + 2
    out[at : at + CARDS] = 0.0
    for k in range(d.discard_size):
        out[at + d.discard[k]] += 1.0
    at += CARDS
    out[at] = d.deck_end - d.deck_top
    out[at + 1] = d.hand_size[them]
    out[at + 2] = r.first_blood
    out[at + 3] = min(d.round, 999)


# --- the exchange (each mirrors the reference's method of the same name) -----------------


@numba.njit(cache=True)
def _finish(d: np.void, winner: int, ending: int) -> None:
    d.over = True
    d.winner = winner
    d.truncated = ending == ROUND_CAP
    d.ending = ending


@numba.njit(cache=True)
def _roll_for_foco(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """The higher initiative holds Foco (seed); faithful: the PNJ keeps 7.5 (§10 #13)."""
    for seat in range(2):
        if r.faithful and seat == 1:
            d.initiative[seat] = PNJ_INITIATIVE
        else:  # 2d6 (seed: Establecer la iniciativa)
            first = roll(dice, 6)
            d.initiative[seat] = first + roll(dice, 6)
    a, b = d.initiative[0], d.initiative[1]
    if a != b:
        d.foco = 0 if a > b else 1
        return
    while True:  # ties: a 1d6 roll-off, re-rolled while tied (§4, §10 #8)
        x = roll(dice, 6)
        y = roll(dice, 6)
        if x != y:
            d.foco = 0 if x > y else 1
            return


@numba.njit(cache=True)
def _start_exchange(d: np.void, r: np.void, dice: np.ndarray) -> None:
    d.round += 1
    if d.round > r.exchange_cap:  # the round cap: a truncated draw (DuelState.start_round)
        _finish(d, -1, ROUND_CAP)
        return
    d.commit[0] = d.commit[1] = NO_COMMIT
    d.phase = FIRST
    if r.faithful and d.foco == 0:
        d.commit[1] = _draw_one(d, dice)  # the PNJ lacks Foco: its card first (§8.1 #6)
        d.phase = SECOND


@numba.njit(cache=True)
def _advance(d: np.void, r: np.void, dice: np.ndarray) -> None:
    if d.phase == FIRST:
        if r.faithful:
            d.commit[1] = _draw_one(d, dice)  # the PNJ turns over its card
        else:
            d.phase = SECOND
            return
    _resolve(d, r, dice)
    if d.over:
        return
    for seat in range(2):  # the played cards join the discards on the pile
        card = d.commit[seat]
        if card != REPOSITION_CODE:
            d.discard[d.discard_size] = card
            d.discard_size += 1
    for seat in range(1 if r.faithful else 2):
        _draw(d, seat, HAND_SIZE - d.hand_size[seat], dice)
    _start_exchange(d, r, dice)


@numba.njit(cache=True)
def _resolve(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """One roll decides whose card takes effect (§8.1 items 7, 9, 14; `odds.py`)."""
    a, b = d.commit[0], d.commit[1]
    foco = d.foco
    if r.faithful:  # faithful_winner: the PJ's Test alone decides
        succeeds = _test(r, 0, a, b, dice) > 0
        if a == REPOSITION_CODE:
            winner = -1 if succeeds else 1
        else:
            winner = 0 if succeeds else 1
    elif a == REPOSITION_CODE and b == REPOSITION_CODE:
        winner = -1  # two Repositions resolve nothing (ASSUMPTION)
    else:
        successes = np.zeros(2, np.int64)
        for seat in (1 - foco, foco):  # the side without Foco rolls first
            own, other = (a, b) if seat == 0 else (b, a)
            successes[seat] = _test(r, seat, own, other, dice)
        if a == REPOSITION_CODE or b == REPOSITION_CODE:  # exchange_winner
            repositioner = 0 if a == REPOSITION_CODE else 1
            other_seat = 1 - repositioner
            winner = -1 if successes[repositioner] > successes[other_seat] else other_seat
        elif successes[0] != successes[1]:
            winner = 0 if successes[0] > successes[1] else 1
        else:
            winner = foco  # ties go to Foco
    if winner >= 0:
        _effect(d, r, winner, d.commit[winner], dice)


@numba.njit(cache=True)
def _test(r: np.void, seat: int, own: int, other: int, dice: np.ndarray) -> int:
    """A seat's Test: melee with a card (its edge from the cycle), Defense to Reposition."""
    playing = own != REPOSITION_CODE
    rating = r.melee[seat] if playing else r.defense[seat]
    edge = 0
    if playing and other != REPOSITION_CODE:
        if ADVANTAGE[own] == other:
            edge = 1
        elif ADVANTAGE[other] == own:
            edge = -1
    count = 3 if edge > 0 else 1 if edge < 0 else 2  # dice_count (§3)
    successes = 0
    for _ in range(count):
        if roll(dice, 6) <= rating:  # each die <= the rating succeeds (§3)
            successes += 1
    return successes


@numba.njit(cache=True)
def _effect(d: np.void, r: np.void, actor: int, card: int, dice: np.ndarray) -> None:
    """Seed: Las cartas de duelo."""
    if card == _ESTOCADA_ALTA or card == _TAJO_CIRCULAR:
        _hurt(d, r, actor, (roll(dice, 6) + 1) // 2)  # 1d3 as 1d6 halved (§3)
    elif card == _ESTOCADA_PROFUNDA:
        _hurt(d, r, actor, 2)
    elif card == _TRETA or card == _FINTA:
        if d.foco != actor:
            d.foco = actor
        else:
            _hurt(d, r, actor, 1)
    else:  # Insulto: 1 PG back, Foco rolled again
        d.pg[actor] = min(r.pg_max[actor], d.pg[actor] + 1)
        _roll_for_foco(d, r, dice)


@numba.njit(cache=True)
def _hurt(d: np.void, r: np.void, actor: int, damage: int) -> None:
    """`Body.take_damage` on the target (digest §7), then KO or first blood."""
    target = 1 - actor
    lost = 0
    if damage > 0:
        armour, points = r.armour[target], d.armour_points[target]
        if armour == HEAVY_ARMOUR and points > 0:
            damage = max(1, damage - 1)  # heavy: -1, minimum 1
        if armour != NONE_ARMOUR and points > 0:
            d.armour_points[target] = points - 1  # the first PG goes to the armour
            damage -= 1
        lost = min(damage, d.pg[target])
        d.pg[target] -= lost
    if d.pg[target] <= 0:
        _finish(d, actor, FALLS)
    elif lost > 0 and r.first_blood:
        _finish(d, actor, FIRST_BLOOD)


# --- the deck ------------------------------------------------------------------------


@numba.njit(cache=True)
def _shuffle(cards: np.ndarray, count: int, dice: np.ndarray) -> None:
    """`_shuffled`: Fisher-Yates with the duel's dice over `cards[:count]`."""
    for k in range(count - 1, 0, -1):
        j = roll(dice, k + 1) - 1
        cards[k], cards[j] = cards[j], cards[k]


@numba.njit(cache=True)
def _draw_one(d: np.void, dice: np.ndarray) -> int:
    """The top card; an empty deck is the shuffled discard pile (§10 #11)."""
    if d.deck_top == d.deck_end:
        count = d.discard_size
        d.deck[:count] = d.discard[:count]
        _shuffle(d.deck, count, dice)
        d.deck_top, d.deck_end, d.discard_size = 0, count, 0
    card = d.deck[d.deck_top]
    d.deck_top += 1
    return card


@numba.njit(cache=True)
def _draw(d: np.void, seat: int, count: int, dice: np.ndarray) -> None:
    for _ in range(count):
        d.hand[seat, d.hand_size[seat]] = _draw_one(d, dice)
        d.hand_size[seat] += 1
    for a in range(1, d.hand_size[seat]):  # the hand is kept sorted
        card = d.hand[seat, a]
        b = a - 1
        while b >= 0 and d.hand[seat, b] > card:
            d.hand[seat, b + 1] = d.hand[seat, b]
            b -= 1
        d.hand[seat, b + 1] = card


compile_into(globals())  # the env and tournament loops (loops.py), on these kernels
