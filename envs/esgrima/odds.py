"""Exact odds of the fencing duel's exchange, counted through the rules' own functions.

Who takes effect is decided once, in `exchange_winner` (symmetric duel) and
`faithful_winner` (the seed's duel); the rules call them on rolled successes,
and `effect_chances` calls them on every pair of success counts with its
exact probability, so the NPCs and the tests cannot drift from the rules
(STYLE #18). Seed: El duelo; digest §8.1 items 7, 9 and 14.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from duelo.envs.esgrima.mechanics import Card, matchup, successes_distribution

Commits = tuple[Card | None, Card | None]
"""What each seat committed this exchange: a card, or None for Reposition."""


def exchange_winner(cards: Commits, successes: tuple[int, int], foco: int) -> int | None:
    """The seat whose card takes effect in the symmetric duel, or None (§8.1 item 14).

    A side that repositions needs strictly more successes to nullify the other's
    card; between two cards, ties go to the Foco holder; two Repositions resolve
    nothing (ASSUMPTION).
    """
    if cards[0] is None and cards[1] is None:
        return None
    if None in cards:
        repositioner = cards.index(None)
        other = 1 - repositioner
        return None if successes[repositioner] > successes[other] else other
    if successes[0] != successes[1]:
        return 0 if successes[0] > successes[1] else 1
    return foco


def faithful_winner(pj_card: Card | None, pj_succeeds: bool) -> int | None:
    """The seed's duel: one Test of the PJ (seat 0) decides against the PNJ's card (§8.1 item 7).

    Playing a card, a success makes it take effect, a failure the PNJ's; repositioning
    (a Defense Test), a success nullifies the PNJ's card.
    """
    if pj_card is None:
        return None if pj_succeeds else 1
    return 0 if pj_succeeds else 1


def edge(cards: Commits, seat: int) -> int:
    """Advantage (+1), Disadvantage (-1) or neither of `seat`'s Test (seed: the card cycle)."""
    own, other = cards[seat], cards[1 - seat]
    if own is None or other is None:
        return 0
    return matchup(own, other)


@lru_cache(maxsize=4096)
def effect_chances(
    cards: Commits, ratings: tuple[int, int], foco: int, faithful: bool
) -> dict[int | None, Fraction]:
    """Exact chance that seat 0's card, seat 1's card or none takes effect this exchange.

    `ratings` are the ratings each seat tests with (melee for a card, Defense for
    a Reposition); in the faithful duel only seat 0 rolls.
    """
    chances: dict[int | None, Fraction] = {0: Fraction(0), 1: Fraction(0), None: Fraction(0)}
    if faithful:
        succeeds = 1 - successes_distribution(ratings[0], edge(cards, 0))[0]
        chances[faithful_winner(cards[0], True)] += succeeds
        chances[faithful_winner(cards[0], False)] += 1 - succeeds
        return chances
    if cards[0] is None and cards[1] is None:
        chances[None] = Fraction(1)
        return chances
    mine = successes_distribution(ratings[0], edge(cards, 0))
    theirs = successes_distribution(ratings[1], edge(cards, 1))
    for a, pa in mine.items():
        for b, pb in theirs.items():
            chances[exchange_winner(cards, (a, b), foco)] += pa * pb
    return chances
