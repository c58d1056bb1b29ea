"""Exact odds of the fencing duel's exchange (esgrima.odds), against hand-counted fractions
and against the rules that roll them."""

from __future__ import annotations

import itertools
from fractions import Fraction

from duelo.envs.esgrima.duel import DuelAction
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.odds import effect_chances, exchange_winner
from tests.esgrima.helpers import character, duel

C = Card


def test_a_neutral_matchup_at_rating_3() -> None:
    """2d6 at rating 3: 0, 1, 2 successes with 1/4, 1/2, 1/4. The Foco holder's card lands
    unless the other side rolls strictly more: 5/16 + 3/8 (ties) = 11/16 (§8.1 item 14)."""
    cards = (C.TRETA, C.ESTOCADA_ALTA)  # neither has Advantage over the other
    chances = effect_chances(cards, (3, 3), 0, False)
    assert chances == {0: Fraction(11, 16), 1: Fraction(5, 16), None: Fraction(0)}
    # the seed's own duel: one PJ Test, 1 - (1/2)^2 = 3/4, whoever holds Foco (§8.1 item 7)
    assert effect_chances(cards, (3, 3), 1, True)[0] == Fraction(3, 4)


def test_reposition_needs_strictly_more_and_advantage_rolls_three_dice() -> None:
    # Reposition against a card at 3 vs 3: nullified only on strictly more, 5/16
    assert effect_chances((None, C.FINTA), (3, 3), 0, False) == {
        0: Fraction(0),
        1: Fraction(11, 16),
        None: Fraction(5, 16),
    }
    # Estocada profunda has Advantage over Estocada alta: 3d6 against 1d6 at rating 3
    chances = effect_chances((C.ESTOCADA_PROFUNDA, C.ESTOCADA_ALTA), (3, 3), 1, False)
    three = [Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8)]
    one = [Fraction(1, 2), Fraction(1, 2)]
    more = sum(three[a] * one[b] for a in range(4) for b in range(2) if a > b)
    assert chances[0] == more  # ties go to seat 1, the Foco holder
    assert effect_chances((None, None), (3, 3), 0, False) == {0: 0, 1: 0, None: 1}
    assert exchange_winner((C.TRETA, C.TRETA), (1, 1), 1) == 1


class _ThenOnes:
    """Scripted faces, then 1s: the resolution's dice are scripted, what follows is not."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = list(faces)

    def roll(self, sides: int, purpose: str) -> int:
        return self.faces.pop(0) if self.faces else 1


def test_the_rules_resolve_every_roll_as_the_odds_count_it() -> None:
    """All 6^4 rolls of a neutral exchange through the rules: who takes effect, counted
    exactly, equals `effect_chances` (seat 0 holds Foco; seat 1 rolls first)."""
    deck = [C.TRETA] * 3 + [C.ESTOCADA_ALTA] * 3 + [C.TRETA] * 30
    a, b = character("duelist"), character("pirate")
    landed: dict[int | None, int] = {0: 0, 1: 0, None: 0}
    for faces in itertools.product(range(1, 7), repeat=4):
        fencing = duel(a, b, deck, [6, 6, 1, 1])
        fencing.act(DuelAction.PLAY_ESTOCADA_ALTA)
        fencing.ruleset.apply(fencing.state, 0, DuelAction.PLAY_TRETA, _ThenOnes(faces))
        winners = [e.seat for e in fencing.state.log if e.template.endswith("takes effect")]
        landed[winners[0] if winners else None] += 1
    cards = (C.TRETA, C.ESTOCADA_ALTA)
    exact = effect_chances(cards, (a.melee_rating, b.melee_rating), 0, False)
    assert {seat: Fraction(n, 6**4) for seat, n in landed.items()} == exact
