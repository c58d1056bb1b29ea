"""The fencing duel's expert reads what the observation shows: both sides' ratings, and
the unseen cards a committed-first opponent may hold."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from duelo.envs.core.runner import duel_streams
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.npcs import DuelTable, ExpertFencer, _swing, card_value
from duelo.envs.esgrima.odds import effect_chances
from tests.esgrima.helpers import CATALOG, character


def table_of(ruleset: EsgrimaDuelRuleset, seed: int) -> tuple[DuelTable, object]:
    """The expert's reading at the first decision of a seeded duel, and the state."""
    dice, _ = duel_streams(seed)
    state = ruleset.new_duel(dice)
    seat = ruleset.to_act(state)
    assert seat is not None
    observation = ruleset.observation_spec.view(ruleset.observe(state, seat))
    return DuelTable.read(observation), state


@pytest.mark.parametrize("variant", ["symmetric", "faithful"])
def test_the_expert_reads_both_sides_ratings(variant: str) -> None:
    """A duel rating of 2 and a Defense of 5 against a rating 4, Defense 1: each is read
    from the observation, not assumed."""
    a = character("duelist", tecnica=2, defensa=5)
    b = character("pirate", agresividad=4, defensa=1)
    ruleset = EsgrimaDuelRuleset((a, b), {"duel_variant": variant}, catalog=CATALOG)
    table, _ = table_of(ruleset, seed=1)
    assert table.ratings == (2, 5, 4, 1)
    assert table.faithful == (variant == "faithful")


@pytest.mark.parametrize("seed", range(6))
def test_the_unseen_cards_are_the_deck_and_the_hidden_hand(seed: int) -> None:
    """Committing first, the unseen cards are exactly the deck and the opponent's hand
    (what `redeal_cards` may shuffle), counted from the observation alone."""
    for variant in ("symmetric", "faithful"):
        ruleset = EsgrimaDuelRuleset(options={"duel_variant": variant})
        table, state = table_of(ruleset, seed)
        if 1 in state.commits:
            continue  # it sees the card: nothing to guess
        hidden = Counter(state.deck) + Counter(state.sides[1 - ruleset.to_act(state)].hand)
        assert table.unseen == tuple(hidden[card] for card in Card)
        assert sum(share for _, share in table.threats) == pytest.approx(1.0)
        assert dict(table.threats) == pytest.approx(
            {card: hidden[card] / sum(hidden.values()) for card in Card if hidden[card]}
        )


def test_a_swing_is_the_exact_odds_for_the_ratings_in_play() -> None:
    """Against a revealed card, the swing of each commit is its exact chance of taking
    effect, for the duel ratings (a card) and Defense (a Reposition) of the fighters."""
    table = DuelTable(
        hand=(Card.ESTOCADA_ALTA, Card.TRETA, Card.INSULTO),
        threats=((Card.ESTOCADA_PROFUNDA, 1.0),),
        unseen=(6,) * 6,
        ratings=(2, 4, 5, 3),
        holds_foco=True,
        faithful=False,
    )
    for mine in (Card.ESTOCADA_ALTA, None):
        own = 2 if mine is not None else 4
        chances = effect_chances((mine, Card.ESTOCADA_PROFUNDA), (own, 5), 0, False)
        gain = 0.0 if mine is None else float(chances[0]) * card_value(mine, True)
        loss = float(chances[1]) * card_value(Card.ESTOCADA_PROFUNDA, False)
        assert _swing(table, mine) == pytest.approx(gain - loss, abs=1e-12)


def test_the_expert_only_plays_legal_commits() -> None:
    """Over whole duels of both variants, every choice is legal and never a surrender."""
    expert = ExpertFencer()
    for variant in ("symmetric", "faithful"):
        ruleset = EsgrimaDuelRuleset(options={"duel_variant": variant})
        dice, rngs = duel_streams(5)
        state = ruleset.new_duel(dice)
        while (seat := ruleset.to_act(state)) is not None:
            mask = ruleset.legal_actions(state, seat)
            observation = ruleset.observation_spec.view(ruleset.observe(state, seat))
            action = expert.act(observation, mask.copy(), rngs[seat])
            assert mask[action] and action != 14
            assert np.isfinite(list(expert.action_values(observation, mask).values())).all()
            ruleset.apply(state, seat, action, dice)
