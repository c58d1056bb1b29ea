"""The fencing duel (seed: Duelo de esgrima, Las cartas de duelo; digest §8.1).

A series of exchanges. In each, the side without Foco commits first (a card face
up, or Reposition), the Foco holder commits seeing it, and one roll decides
whose card takes effect. Two variants share this code:

- `faithful` (the seed): seat 0 is the PJ with a hand of three; seat 1, the
  PNJ, plays the top card of the deck; the PJ rolls for both.
- `symmetric` (digest §8.1 item 14, for policy-vs-policy play): both hold hands
  and choose; each rolls its own Test; more successes wins, ties go to Foco.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from duelo.envs.core.config import ConfigError, options_of, pair_of, shown
from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import DUEL_SIDES, SEATS, seat_names
from duelo.envs.core.state import DuelState, Outcome
from duelo.envs.esgrima.mechanics import (
    ARMOUR_FIELDS,
    Body,
    Card,
    d3,
    first_by_initiative,
    roll_initiative,
    roll_test,
)
from duelo.envs.esgrima.odds import Commits, edge, exchange_winner, faithful_winner
from duelo.envs.esgrima.setup import (
    Armour,
    Catalog,
    Character,
    EsgrimaOptions,
    Trait,
    load_catalog,
)

HAND_SIZE = 3
MIN_DECK = 2 * HAND_SIZE
"""Cards a fixed deck needs: two hands (played cards are reshuffled into it, §10 #11)."""


class DuelAction(IntEnum):
    """Play a card, Reposition discarding the hand slots of a bitmask, or surrender (§12)."""

    PLAY_ESTOCADA_ALTA = 0
    PLAY_ESTOCADA_PROFUNDA = 1
    PLAY_TAJO_CIRCULAR = 2
    PLAY_TRETA = 3
    PLAY_FINTA = 4
    PLAY_INSULTO = 5
    REPOSITION_KEEP_ALL = 6
    REPOSITION_1 = 7
    REPOSITION_2 = 8
    REPOSITION_12 = 9
    REPOSITION_3 = 10
    REPOSITION_13 = 11
    REPOSITION_23 = 12
    REPOSITION_123 = 13
    SURRENDER = 14


_CARDS = {
    "ESTOCADA_ALTA": "Estocada alta (high thrust: 1d3 PG)",
    "ESTOCADA_PROFUNDA": "Estocada profunda (deep thrust: 2 PG)",
    "TAJO_CIRCULAR": "Tajo circular (circular slash: 1d3 PG)",
    "TRETA": "Treta (ruse: take Foco, or 1 PG holding it)",
    "FINTA": "Finta (feint: take Foco, or 1 PG holding it)",
    "INSULTO": "Insulto (insult: initiative again, recover 1 PG)",
}
MEANINGS: dict[int, str] = {
    **{DuelAction[f"PLAY_{card}"]: f"play {said}" for card, said in _CARDS.items()},
    DuelAction.REPOSITION_KEEP_ALL: "reposition: keep your hand, defend instead of playing",
    **{
        DuelAction[f"REPOSITION_{slots}"]: (
            f"reposition: discard card{'s' if len(slots) > 1 else ''} {' and '.join(slots)} "
            "of your hand, draw back to 3, defend"
        )
        for slots in ("1", "2", "12", "3", "13", "23", "123")
    },
    DuelAction.SURRENDER: "surrender: you lose the duel",
}
"""Each action in words, for a person choosing (`duelo play`) and `duelo systems`
(digest §8.1 cards and Reposition, §12; hand cards counted in card order)."""


REPOSITION = DuelAction.REPOSITION_KEEP_ALL
"""Reposition actions are REPOSITION + bitmask of the hand slots (sorted by card) to discard."""


class DuelPhase(IntEnum):
    FIRST = 0
    SECOND = 1


@dataclass
class Commit:
    """What a side committed this exchange: a card, or Reposition (card None)."""

    card: Card | None


@dataclass
class DuelSide:
    character: Character
    name: str
    body: Body
    initiative: float = 0.0
    hand: list[Card] = field(default_factory=list)


@dataclass
class EsgrimaDuelState(DuelState):
    """A fencing duel; its rounds are the exchanges."""

    options: EsgrimaOptions
    sides: list[DuelSide]
    deck: list[Card]
    """Top of the deck first."""
    discard: list[Card] = field(default_factory=list)
    foco: int = 0
    phase: DuelPhase = DuelPhase.FIRST
    commits: dict[int, Commit] = field(default_factory=dict)

    @property
    def faithful(self) -> bool:
        return self.options.duel_variant == "faithful"


NOT_REVEALED = len(Card) + 1
_FIRST, _SECOND = DuelPhase
_LIGHT, _HEAVY = Armour.LIGHT, Armour.HEAVY  # bound once: Python 3.11 looks members up slowly


def _counts(cards: list[Card]) -> list[int]:
    """How many of each card, in `Card` order."""
    counts = [0] * len(Card)
    for card in cards:
        counts[card] += 1
    return counts


CARD_FIELDS = (
    *grid(["hand"], Card),
    *grid(["revealed"], [*one_hot(Card), "reposition", "not_revealed"]),
    *grid(["discard"], Card),
    "deck_size",
    "opponent_hand_size",
)
"""The entries of the `cards` key: own hand and discard counts per card, the opponent's
commit this exchange as a one-hot."""

RATING_FIELDS = grid(SIDES, ("duel", "defense"))
"""The entries of the `ratings` key: the stat blocks' ratings both sides test with (public,
as the fighters' loadouts are: an NPC's odds need them)."""

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey("initiative", "initiative scores [self, opponent]", 0, 99, (2,), SIDES),
        ObsKey("hp", "PG left [self, opponent]", 0, 10, (2,), SIDES),
        ObsKey("hp_max", "maximum PG [self, opponent]", 0, 10, (2,), SIDES),
        ObsKey("range", "distance in zones: always 0, Adjacent, in a duel", 0, 9),
        ObsKey("armour", "light, heavy, points left [self, opponent]", 0, 5, (2, 3), ARMOUR_FIELDS),
        ObsKey(
            "ratings",
            "duel rating (the melee rating a card tests) and Defense (a Reposition's) "
            "[self, opponent]",
            0,
            5,
            (2, 2),
            RATING_FIELDS,
        ),
        ObsKey("foco", "1 if this side holds Foco", 0, 1),
        ObsKey(
            "commit_order",
            "one-hot: this side commits first, commits second",
            0,
            1,
            (2,),
            ("first", "second"),
        ),
        ObsKey(
            "cards",
            "own hand counts per card (6); the opponent's commit this exchange, one-hot of "
            "6 cards, Reposition, not revealed (8); discard pile counts (6); deck size; "
            "opponent's hand size",
            0,
            200,
            (22,),
            CARD_FIELDS,
        ),
        ObsKey(
            "duel",
            "first-blood rule on; exchange number",
            0,
            999,
            (2,),
            ("first_blood", "exchange"),
        ),
    )
)


DEFAULT_FIGHTERS = {"symmetric": ("duelist", "pirate"), "faithful": ("apprentice", "pirate")}
"""Who duels when no fighters are given. The faithful duel's PJ duels at rating 2: at the
duelist's 4 it wins nearly every duel whatever it plays, so play would not matter."""


class EsgrimaDuelRuleset:
    """The fencing duel between two fighters (DESIGN.md layer 2).

    Args:
        fighters: two character ids of `configs/esgrima/characters.yaml` or
            `Character`s (seat 0 is the PJ in the faithful variant); None takes
            `DEFAULT_FIGHTERS` of the variant.
        options: `EsgrimaOptions` or a dict of its fields.
        deck: a fixed deck order (top first) instead of a shuffle, for replays.
        catalog: None loads the packaged configs.
    """

    system = "esgrima_duel"
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = False
    """Hidden: hands and the deck."""
    version = 2
    actions = DuelAction
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        fighters: tuple[str | Character, str | Character] | None = None,
        options: EsgrimaOptions | dict[str, Any] | None = None,
        deck: list[Card] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.catalog = catalog or load_catalog()
        self.options = options_of(EsgrimaOptions, options, "esgrima options")
        if fighters is None:
            fighters = DEFAULT_FIGHTERS[self.options.duel_variant]
        self.characters = pair_of(fighters, Character, self.catalog.character, "fighters")
        for character in self.characters:
            mastered = character.mastered
            # seed: only with a mastered melee weapon (both sides, digest §8.1 ASSUMPTION)
            if mastered is None or not self.catalog.weapons[mastered].melee:
                if not {Trait.ARTISTA_MARCIAL, Trait.GARRAS_DE_LA_BESTIA} & set(character.traits):
                    raise ValueError(
                        f"{character.id} cannot duel: a fencing duel needs a mastered melee weapon"
                    )
        self.round_cap = self.options.exchange_cap
        if deck is not None and (
            not isinstance(deck, list | tuple)
            or len(deck) < MIN_DECK
            or not all(isinstance(card, Card) for card in deck)
        ):
            raise ConfigError(f"deck must list at least {MIN_DECK} Cards, not {shown(deck)}")
        self.fixed_deck = list(deck) if deck is not None else None

    # --- the ruleset interface ---------------------------------------------------

    def new_duel(self, dice: Dice) -> EsgrimaDuelState:
        names = seat_names(*(c.name for c in self.characters))
        sides = [DuelSide(c, n, Body.of(c)) for c, n in zip(self.characters, names, strict=True)]
        cards = [card for card in Card for _ in range(self.options.deck_copies)]
        state = EsgrimaDuelState(self.options, sides, self._new_deck(cards, dice))
        state.say(
            None, "Fencing duel ({}): {} vs {}", self.options.duel_variant, names[0], names[1]
        )
        for seat in self._holders(state):
            self._draw(state, seat, HAND_SIZE, dice)
        self._roll_for_foco(state, dice)
        self._start_exchange(state, dice)
        return state

    def to_act(self, state: EsgrimaDuelState) -> int | None:
        if state.result is not None:
            return None
        phase = state.phase
        if state.faithful:
            return 0
        first = 1 - state.foco
        return first if phase == _FIRST else state.foco

    def legal_actions(self, state: EsgrimaDuelState, seat: int) -> np.ndarray:
        mask = np.zeros(len(DuelAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        for card in state.sides[seat].hand:
            mask[card] = True
        mask[REPOSITION:] = True  # every Reposition, and surrender
        return mask

    def apply(self, state: EsgrimaDuelState, seat: int, action: int, dice: Dice) -> None:
        action = DuelAction(action)
        side = state.sides[seat]
        if action == DuelAction.SURRENDER:
            state.say(seat, "{} lowers the blade and SURRENDERS", side.name)
            state.finish(Outcome(1 - seat, f"{side.name} surrenders"))
            return
        if action < REPOSITION:
            card = Card(action)
            side.hand.remove(card)
            state.commits[seat] = Commit(card)
            state.say(seat, "{} plays {}", side.name, _card_name(card))
        else:
            bits = action - REPOSITION
            discards = [c for slot, c in enumerate(side.hand) if bits >> slot & 1]
            for card in discards:
                side.hand.remove(card)
            state.discard += discards  # discarded before drawing back up (seed)
            state.commits[seat] = Commit(None)
            shown = ", ".join(_card_name(c) for c in discards) or "nothing"
            state.say(seat, "{} repositions, discarding {}", side.name, shown)
            self._draw(state, seat, HAND_SIZE - len(side.hand), dice)  # §8.1 item 6: drawn now
        self._advance(state, dice)

    def observe(self, state: EsgrimaDuelState, seat: int) -> np.ndarray:
        """The observation of `seat` (digest §12), in the order of OBSERVATION_SPEC."""
        me, them = state.sides[seat], state.sides[1 - seat]
        values: list[float] = [
            me.initiative,
            them.initiative,
            me.body.pg,
            them.body.pg,
            me.body.pg_max,
            them.body.pg_max,
            0,
        ]
        for body in (me.body, them.body):
            values += [body.armour == _LIGHT, body.armour == _HEAVY, body.armour_pts]
        for side in (me, them):
            values += [side.character.melee_rating, side.character.defensa]
        values.append(state.foco == seat)
        deciding = self.to_act(state) == seat
        values += [deciding and state.phase == _FIRST, deciding and state.phase == _SECOND]
        values += _counts(me.hand)
        revealed = [0.0] * (len(Card) + 2)
        commit = state.commits.get(1 - seat)
        revealed[
            NOT_REVEALED if commit is None else (len(Card) if commit.card is None else commit.card)
        ] = 1.0
        values += revealed
        values += _counts(state.discard)
        values += [len(state.deck), len(them.hand)]
        values += [state.options.duel_end == "first_blood", min(state.round, 999)]
        return OBSERVATION_SPEC.pack(values)

    # --- the exchange ------------------------------------------------------------

    def _holders(self, state: EsgrimaDuelState) -> tuple[int, ...]:
        """The seats that hold a hand: the PJ only in the faithful duel."""
        return (0,) if state.faithful else SEATS

    def _roll_for_foco(self, state: EsgrimaDuelState, dice: Dice) -> None:
        """The higher initiative holds Foco (seed); Insulto calls this again."""
        for seat, side in enumerate(state.sides):
            # faithful: the PJ (seat 0) rolls 2d6 and the PNJ keeps 7.5, also after an
            # Insulto (§10 #13); symmetric: both roll 2d6 (§8.1 item 14)
            side.initiative, note = roll_initiative(dice, side.name, state.faithful and seat == 1)
            state.say(seat, "Initiative: {}", note)
        first, notes = first_by_initiative(
            dice, (state.sides[0].initiative, state.sides[1].initiative)
        )
        for note in notes:
            state.say(None, note)
        state.foco = first
        state.say(first, "{} holds Foco", state.sides[first].name)

    def _start_exchange(self, state: EsgrimaDuelState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            return
        state.commits = {}
        state.phase = DuelPhase.FIRST
        state.say(None, "--- Exchange {} ---", state.round)
        if state.faithful and state.foco == 0:
            # the PNJ lacks Foco: its card is turned over first (§8.1 item 6)
            self._turn_over_pnj_card(state, dice)
            state.phase = DuelPhase.SECOND

    def _turn_over_pnj_card(self, state: EsgrimaDuelState, dice: Dice) -> None:
        card = self._draw_one(state, dice)
        state.commits[1] = Commit(card)
        state.say(1, "{} turns over {}", state.sides[1].name, _card_name(card))

    def _advance(self, state: EsgrimaDuelState, dice: Dice) -> None:
        if state.phase == DuelPhase.FIRST:
            if state.faithful:
                self._turn_over_pnj_card(state, dice)
            else:
                state.phase = DuelPhase.SECOND
                return
        self._resolve(state, dice)
        if state.result is not None:
            return
        for seat in (0, 1):  # the played cards join the discards on the pile
            card = state.commits[seat].card
            if card is not None:
                state.discard.append(card)
        for seat in self._holders(state):
            self._draw(state, seat, HAND_SIZE - len(state.sides[seat].hand), dice)
        self._start_exchange(state, dice)

    def _resolve(self, state: EsgrimaDuelState, dice: Dice) -> None:
        """One roll decides whose card takes effect (§8.1 items 7, 9, 14)."""
        commits = state.commits
        cards = (commits[0].card, commits[1].card)
        if state.faithful:
            winner = faithful_winner(cards[0], self._test(state, 0, cards, dice) > 0)
        elif cards == (None, None):
            winner = exchange_winner(cards, (0, 0), state.foco)  # nothing to roll for
        else:
            successes = [0, 0]
            for seat in (1 - state.foco, state.foco):  # the side without Foco rolls first
                successes[seat] = self._test(state, seat, cards, dice)
            winner = exchange_winner(cards, (successes[0], successes[1]), state.foco)
        if winner is None:
            state.say(None, "No card takes effect")
            return
        card = commits[winner].card
        assert card is not None
        state.say(winner, "{} of {} takes effect", _card_name(card), state.sides[winner].name)
        self._effect(state, winner, card, dice)

    def _test(self, state: EsgrimaDuelState, seat: int, cards: Commits, dice: Dice) -> int:
        """`seat`'s Test: melee with a card (its edge from the cycle), Defense to Reposition."""
        character = state.sides[seat].character
        playing = cards[seat] is not None
        value = character.melee_rating if playing else character.defensa
        what = "duel" if playing else "Defense Test"
        advantage = edge(cards, seat)
        successes, faces = roll_test(dice, value, advantage, what)
        label = {1: " with Advantage", -1: " with Disadvantage"}.get(advantage, "")
        plural = "" if successes == 1 else "es"
        state.say(
            seat,
            "{}'s {}{}: {}d6 {} vs {} -> {} success{}",
            state.sides[seat].name,
            what,
            label,
            len(faces),
            faces,
            value,
            successes,
            plural,
        )
        return successes

    def _effect(self, state: EsgrimaDuelState, actor: int, card: Card, dice: Dice) -> None:
        """Seed: Las cartas de duelo."""
        if card in (Card.ESTOCADA_ALTA, Card.TAJO_CIRCULAR):
            damage, face = d3(dice, "1d3 damage")
            state.say(actor, "1d3 damage: d6 {} -> {}", face, damage)
            self._hurt(state, actor, damage)
        elif card == Card.ESTOCADA_PROFUNDA:
            self._hurt(state, actor, 2)
        elif card in (Card.TRETA, Card.FINTA):
            if state.foco != actor:
                state.foco = actor
                state.say(actor, "{} steals Foco", state.sides[actor].name)
            else:
                self._hurt(state, actor, 1)
        else:  # Insulto: Foco is cancelled, initiative rolled again, 1 PG recovered
            body = state.sides[actor].body
            body.pg = min(body.pg_max, body.pg + 1)
            state.say(actor, "{} recovers to {} PG", state.sides[actor].name, body.pg)
            self._roll_for_foco(state, dice)

    # --- the deck -------------------------------------------------------------------

    def _new_deck(self, cards: list[Card], dice: Dice) -> list[Card]:
        """The deck, top first: the fixed order given, else `cards` shuffled (seed)."""
        return list(self.fixed_deck) if self.fixed_deck is not None else _shuffled(cards, dice)

    def _draw_one(self, state: EsgrimaDuelState, dice: Dice) -> Card:
        """The top card; an empty deck is the shuffled discard pile (§10 #11)."""
        if not state.deck:
            state.deck, state.discard = _shuffled(state.discard, dice), []
            state.say(None, "The discard pile is shuffled into a new deck of {}", len(state.deck))
        return state.deck.pop(0)

    def _draw(self, state: EsgrimaDuelState, seat: int, count: int, dice: Dice) -> None:
        hand = state.sides[seat].hand
        for _ in range(count):
            hand.append(self._draw_one(state, dice))
        hand.sort()

    def _hurt(self, state: EsgrimaDuelState, actor: int, damage: int) -> None:
        target = state.sides[1 - actor]
        armour_before = target.body.armour_pts
        lost = target.body.take_damage(damage)
        state.say(
            actor,
            "{} PG at {}: armour {} -> {}, PG {}/{}",
            damage,
            target.name,
            armour_before,
            target.body.armour_pts,
            target.body.pg,
            target.body.pg_max,
        )
        if target.body.out:
            state.finish(Outcome(actor, f"{target.name} falls"))
        elif lost and state.options.duel_end == "first_blood":
            state.finish(Outcome(actor, f"first blood to {state.sides[actor].name}"))


def _shuffled(cards: list[Card], dice: Dice) -> list[Card]:
    """Fisher-Yates with the duel's dice, so a seed fixes the deck order."""
    cards = list(cards)
    for i in range(len(cards) - 1, 0, -1):
        j = dice.roll(i + 1, "shuffle") - 1
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _card_name(card: Card) -> str:
    return card.name.replace("_", " ").lower()
