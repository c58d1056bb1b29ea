"""Scripted esgrima NPCs, for the skirmish and for the fencing duel.

They read only the observation and the mask. The duel expert computes, from
exact success distributions, the value of each card and each Reposition against
the opponent's revealed card, or against an unknown one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from duelo.agents.plans import first_legal, first_legal_batch
from duelo.envs.core.observation import SIDES, FieldReader
from duelo.envs.esgrima.duel import CARD_FIELDS, HAND_SIZE, RATING_FIELDS, REPOSITION, DuelAction
from duelo.envs.esgrima.duel import OBSERVATION_SPEC as DUEL_SPEC
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.odds import effect_chances
from duelo.envs.esgrima.skirmish_observation import OBSERVATION_SPEC as SKIRMISH_SPEC
from duelo.envs.esgrima.skirmish_state import SkirmishAction as A

_IN_HAND = {
    who: tuple(
        f"{who}.{cls}" for cls in ("light_melee", "heavy_melee", "light_ranged", "heavy_ranged")
    )
    for who in SIDES
}
"""The `weapon` fields of the class in hand, per side."""


def _held(read: FieldReader, who: str) -> tuple[bool, bool]:
    """(holds a melee weapon, holds a ranged weapon); `who` is "self" or "opponent"."""
    light_melee, heavy_melee, light_ranged, heavy_ranged = _IN_HAND[who]
    melee = read("weapon", light_melee) or read("weapon", heavy_melee)
    return bool(melee), bool(read("weapon", light_ranged) or read("weapon", heavy_ranged))


class AggressiveSkirmisher:
    """Closes in and attacks with whatever is in hand; never gives up."""

    name = "aggressive"
    description = "attack whenever possible, otherwise advance"

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        return first_legal(
            action_mask,
            [A.MELEE_ATTACK, A.SHOT, A.RELOAD, A.MOVE_TOWARD, A.LOCATE, A.DRAW_WEAPON, A.PASS],
        )


class CautiousSkirmisher:
    """Takes cover, keeps away, shoots from range, evades; surrenders when beaten."""

    name = "cautious"
    description = "cover, distance and evasion first; surrenders at 1 PG against a fresh foe"

    SURRENDER_AT = 1
    """Own PG at which it surrenders, if the opponent still has more than half its PG."""

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        read = SKIRMISH_SPEC.read(observation)
        beaten = read("hp", "self") <= self.SURRENDER_AT
        if beaten and read("hp", "opponent") > read("hp_max", "opponent") / 2:
            return int(A.SURRENDER)
        away = [A.MOVE_AWAY] if read("range") == 0 else []
        return first_legal(
            action_mask, [A.TAKE_COVER, *away, A.RELOAD, A.SHOT, A.EVADE, A.MELEE_ATTACK, A.PASS]
        )


class ExpertSkirmisher:
    """Plays the skirmish rules well.

    - Against a blade at Near in the first round, lets it come: Evade (hits on
      it need a failed Reflejos save) and Focalizar (initiative for the next
      round), so the opponent spends an Action walking in and it answers with two.
    - Fights with the right weapon for the band, and does not waste Actions
      switching when the one in hand works; closes in when it only has blades.
    - Shoots from cover against guns (their shots get Disadvantage), blocks the
      way of a blade when it holds a gun, and draws a gun when its own way is
      blocked; uses the terrain's area damage when the opponent stands in reach
      and it does not; cancels the opponent's edge; locates the hidden; reloads.
    - Never surrenders: a surrender scores as a loss.
    """

    name = "expert"
    description = "lets blades come to it, right weapon for the band, cover, terrain, reloads"

    WAIT_ROUNDS = 1
    """Rounds it waits at Near for a blade to close in before going after it."""

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        read = SKIRMISH_SPEC.read(observation)
        distance = int(read("range"))
        melee, ranged = _held(read, "self")
        their_melee, their_ranged = _held(read, "opponent")
        plan: list[A] = [A.CANCEL_EDGE, A.LOCATE]
        if read("zones", "self") != read("zones", "opponent"):
            plan.append(A.INTERACT_AREA)  # the blast cannot reach itself
        if distance == 0:
            plan += [A.MELEE_ATTACK] if melee else [A.DRAW_WEAPON, A.MELEE_ATTACK, A.SHOT]
        elif (
            distance == 1 and their_melee and not their_ranged and read("round") <= self.WAIT_ROUNDS
        ):
            if not read("flags", "self.evading"):
                plan.append(A.EVADE)
            plan += [A.FOCALIZAR]
        elif ranged:
            if their_ranged:
                plan.append(A.TAKE_COVER)
            elif their_melee:
                plan.append(A.INTERACT_BLOCK)  # a closed way keeps the blade off
            plan += [A.RELOAD, A.SHOT, A.MOVE_TOWARD]
        else:
            if not action_mask[A.MOVE_TOWARD] and read("weapon", "self.to_draw") > 0:
                plan.append(A.DRAW_WEAPON)  # the way is closed: find something to shoot
            plan += [A.MOVE_TOWARD, A.MELEE_ATTACK]
        plan += [A.RELOAD, A.PASS]
        return first_legal(action_mask, plan)


# --- the fencing duel ----------------------------------------------------------------

REVEALED_REPOSITION = len(Card)
"""The revealed commit that is a Reposition, after the six cards."""
REVEALED = [name for name in CARD_FIELDS if name.startswith("revealed.")]
"""The `cards` fields of the opponent's commit: six cards, Reposition, not revealed."""
_REVEALED_AT = [DUEL_SPEC.index("cards", name) for name in REVEALED]
EXPECTED_1D3 = 2.0
FOCO_VALUE = 0.5
"""What holding Foco is worth, in PG, to the expert's evaluation (a tuning constant)."""


def card_value(card: Card, holds_foco: bool) -> float:
    """The PG swing of `card` taking effect for a side (damage dealt, PG healed, Foco won)."""
    if card in (Card.ESTOCADA_ALTA, Card.TAJO_CIRCULAR):
        return EXPECTED_1D3
    if card == Card.ESTOCADA_PROFUNDA:
        return 2.0
    if card in (Card.TRETA, Card.FINTA):
        return 1.0 if holds_foco else FOCO_VALUE
    return 1 + FOCO_VALUE / 2  # Insulto: 1 PG back and a fresh chance at Foco


_HP, _HP_MAX = ({who: DUEL_SPEC.index(key, who) for who in SIDES} for key in ("hp", "hp_max"))
"""Where each side's PG and maximum lie in the flat duel observation."""


class AggressiveFencer:
    """Plays its hardest-hitting card; never repositions."""

    name = "aggressive"
    description = "deep thrust first, then the other thrusts, tricks last"

    ORDER = (
        Card.ESTOCADA_PROFUNDA,
        Card.TAJO_CIRCULAR,
        Card.ESTOCADA_ALTA,
        Card.FINTA,
        Card.TRETA,
        Card.INSULTO,
    )

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        return first_legal(action_mask, [DuelAction(c) for c in self.ORDER])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`: a batched tournament asks this way)."""
        return first_legal_batch(action_masks, [DuelAction(c) for c in self.ORDER])


class CautiousFencer:
    """Plays Insulto when hurt, repositions away bad hands, surrenders at 1 PG."""

    name = "cautious"
    description = "heals with Insulto, repositions weak hands, surrenders when nearly done"

    SURRENDER_AT = 1

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        read = DUEL_SPEC.read(observation)
        hp, hp_max = read("hp", "self"), read("hp_max", "self")
        if hp <= self.SURRENDER_AT and read("hp", "opponent") >= read("hp_max", "opponent") - 1:
            return int(DuelAction.SURRENDER)
        if hp < hp_max and action_mask[DuelAction.PLAY_INSULTO]:
            return int(DuelAction.PLAY_INSULTO)
        if action_mask[DuelAction.PLAY_ESTOCADA_PROFUNDA]:
            return int(DuelAction.PLAY_ESTOCADA_PROFUNDA)
        return int(DuelAction.REPOSITION_123)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once, its rules applied last to first (`BatchPolicy`)."""
        hp, hp_max = observations[:, _HP["self"]], observations[:, _HP_MAX["self"]]
        actions = np.full(len(observations), int(DuelAction.REPOSITION_123), np.int64)
        deep = int(DuelAction.PLAY_ESTOCADA_PROFUNDA)
        actions[action_masks[:, deep]] = deep
        insult = int(DuelAction.PLAY_INSULTO)
        actions[(hp < hp_max) & action_masks[:, insult]] = insult
        fresh_foe = observations[:, _HP["opponent"]] >= observations[:, _HP_MAX["opponent"]] - 1
        actions[(hp <= self.SURRENDER_AT) & fresh_foe] = int(DuelAction.SURRENDER)
        return actions


class ExpertFencer:
    """Chooses the card (or Reposition) with the best expected PG swing, this exchange
    and in the hand it leaves for the next.

    - The odds of each card are exact (`esgrima.odds`), for the ratings both sides
      actually test with (the `ratings` entry: duel rating for a card, Defense for a
      Reposition); in the faithful duel one roll of its own decides.
    - Seeing the opponent's card (it holds Foco), it weighs its cards against that
      card; committing first, against the cards still unseen, as many of each as the
      deck can hold: every copy not in its hand, on the discard pile or face up.
    - Each choice is also worth the hand it leaves: the cards kept and those drawn
      from the unseen ones, valued as the best swing they offer next exchange. That
      is what a Reposition that discards buys, and what a card played away costs.
    """

    name = "expert"
    description = "exact odds for both sides' ratings, the unseen cards, and the hand it keeps"

    HAND_WEIGHT = 1.0
    """What next exchange's hand is worth against this exchange's swing. Tuned as the PJ of
    the faithful duel at duel rating 2 (2,000 duels each, its win rate): 0 gives 0.545,
    0.5 gives 0.720, 1 gives 0.732, 2 gives 0.694; the expert before it won 0.694."""

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        values = self.action_values(observation, action_mask)
        return max(values, key=lambda action: (values[action], -action))

    def explain(self, observation: dict[str, np.ndarray], action_mask: np.ndarray) -> str:
        values = self.action_values(observation, action_mask)
        best = sorted(values, key=lambda action: -values[action])[:3]
        listed = ", ".join(f"{DuelAction(a).name} {values[a]:+.3f}" for a in best)
        return f"expected PG swing, with the hand it leaves: {listed}"

    def action_values(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray
    ) -> dict[int, float]:
        """The value of every legal action but surrender (the expert never gives up)."""
        table = DuelTable.read(observation)
        legal = [a for a in np.flatnonzero(action_mask).tolist() if a != DuelAction.SURRENDER]
        return {a: _action_value(table, a, self.HAND_WEIGHT) for a in legal}


@dataclass(frozen=True)
class DuelTable:
    """What the expert reads off the observation."""

    hand: tuple[Card, ...]
    """Own hand, sorted (the Reposition slots' order)."""
    threats: tuple[tuple[Card | None, float], ...]
    """The opponent's commit: the revealed card (None: a Reposition), or each unseen card
    with its share of the unseen ones."""
    unseen: tuple[int, ...]
    """Copies of each card not in sight: what a draw can bring."""
    ratings: tuple[int, int, int, int]
    """Own duel rating and Defense, the opponent's duel rating and Defense."""
    holds_foco: bool
    faithful: bool

    @classmethod
    def read(cls, observation: dict[str, np.ndarray]) -> DuelTable:
        read = DUEL_SPEC.read(observation)
        hand_counts = [int(read("cards", f"hand.{card.name.lower()}")) for card in Card]
        discard = [int(read("cards", f"discard.{card.name.lower()}")) for card in Card]
        revealed = next(i for i, at in enumerate(_REVEALED_AT) if read.values[at])
        face_up = [int(revealed == card) for card in Card]
        in_sight = sum(hand_counts) + sum(discard) + sum(face_up)
        total = (
            in_sight + int(read("cards", "deck_size")) + int(read("cards", "opponent_hand_size"))
        )
        copies = round(total / len(Card))  # the deck holds as many of each card
        unseen = tuple(
            max(copies - h - d - f, 0)
            for h, d, f in zip(hand_counts, discard, face_up, strict=True)
        )
        if revealed < len(Card):
            threats: tuple[tuple[Card | None, float], ...] = ((Card(revealed), 1.0),)
        elif revealed == REVEALED_REPOSITION:
            threats = ((None, 1.0),)
        else:
            threats = _shares(unseen)
        hand = tuple(card for card in Card for _ in range(hand_counts[card]))
        ratings = tuple(int(read("ratings", name)) for name in RATING_FIELDS)
        return cls(
            hand,
            threats,
            unseen,
            (ratings[0], ratings[1], ratings[2], ratings[3]),
            bool(read("foco")),
            read("cards", "opponent_hand_size") == 0,  # the PNJ holds no hand: faithful
        )


def _shares(unseen: tuple[int, ...]) -> tuple[tuple[Card | None, float], ...]:
    """Each unseen card with its share (all six alike when nothing is unseen)."""
    total = sum(unseen)
    if total == 0:
        return tuple((card, 1 / len(Card)) for card in Card)
    return tuple((Card(c), n / total) for c, n in enumerate(unseen) if n)


Context = tuple[tuple[int, int, int, int], bool, bool]
"""What every swing depends on besides the cards: the ratings, Foco, the variant."""


def _action_value(table: DuelTable, action: int, hand_weight: float) -> float:
    """This exchange's expected swing of `action`, plus `hand_weight` times the value of
    the hand it leaves (the kept cards and the draws that refill it)."""
    if action < REPOSITION:
        mine: Card | None = Card(action)
        kept = list(table.hand)
        kept.remove(Card(action))
    else:
        mine, discard = None, action - REPOSITION
        kept = [card for slot, card in enumerate(table.hand) if not discard >> slot & 1]
    context = (table.ratings, table.holds_foco, table.faithful)
    swing = sum(share * _pair_swing(mine, theirs, context) for theirs, share in table.threats)
    return swing + hand_weight * _refilled_value(tuple(sorted(kept)), table.unseen, context)


def _swing(table: DuelTable, mine: Card | None) -> float:
    """The expected PG swing of committing `mine` (None: Reposition) against the threats."""
    context = (table.ratings, table.holds_foco, table.faithful)
    return sum(share * _pair_swing(mine, theirs, context) for theirs, share in table.threats)


@lru_cache(maxsize=4096)
def _pair_swing(mine: Card | None, theirs: Card | None, context: Context) -> float:
    """The expected PG swing of `mine` against `theirs` (None: a Reposition): the exact
    chance that each card takes effect, weighed by what it is worth."""
    (own_duel, own_defense, their_duel, their_defense), holds_foco, faithful = context
    if theirs is None and mine is None:
        return 0.0  # two Repositions: nothing happens
    ratings = (
        own_duel if mine is not None else own_defense,
        their_duel if theirs is not None else their_defense,
    )
    chances = effect_chances((mine, theirs), ratings, 0 if holds_foco else 1, faithful)
    gain = 0.0 if mine is None else float(chances[0]) * card_value(mine, holds_foco)
    loss = 0.0 if theirs is None else float(chances[1]) * card_value(theirs, not holds_foco)
    return gain - loss


@lru_cache(maxsize=1 << 16)
def _refilled_value(kept: tuple[Card, ...], unseen: tuple[int, ...], context: Context) -> float:
    """The expected value of `kept` (sorted) refilled to a hand of three from the unseen
    cards: each handful of draws with its hypergeometric chance, and a hand worth the best
    swing it offers against a card drawn from the unseen ones (a Reposition always being
    one of its choices). The expert's dearest step, asked for some 40,000 different
    hands in 600 duels: a cache of 65,536 (about 27 MB) took a tournament's duels 35 to
    40 % faster than one of 4,096."""
    options = _option_values(unseen, context)
    kept_best = max([options[card] for card in kept] + [options[-1]])
    draws = min(HAND_SIZE - len(kept), sum(unseen))
    ways = math.comb(sum(unseen), draws)
    value = 0.0
    for drawn in combinations_with_replacement(range(len(Card)), draws):
        chance = math.prod(math.comb(unseen[c], drawn.count(c)) for c in set(drawn)) / ways
        value += chance * max([kept_best] + [options[c] for c in drawn])
    return value


@lru_cache(maxsize=1024)
def _option_values(unseen: tuple[int, ...], context: Context) -> tuple[float, ...]:
    """The expected swing of each card, then of a Reposition, against a card drawn from the
    unseen ones."""
    threats = _shares(unseen)
    return tuple(
        sum(share * _pair_swing(mine, theirs, context) for theirs, share in threats)
        for mine in (*Card, None)
    )


SKIRMISH_NPCS = {
    npc.name: npc for npc in (AggressiveSkirmisher, CautiousSkirmisher, ExpertSkirmisher)
}
DUEL_NPCS = {npc.name: npc for npc in (AggressiveFencer, CautiousFencer, ExpertFencer)}
