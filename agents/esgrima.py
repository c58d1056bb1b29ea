"""Scripted esgrima NPCs, for the skirmish and for the fencing duel.

They read only the observation and the mask. The duel expert computes, from
exact success distributions, the value of each card and each Reposition against
the opponent's revealed card, or against an unknown one.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.observation import SIDES, FieldReader
from duelo.envs.esgrima.duel import CARD_FIELDS, REPOSITION, DuelAction
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


class ExpertFencer:
    """Chooses the card (or Reposition) with the best expected PG swing.

    Seeing the opponent's card (it holds Foco), it weighs each of its cards by
    the exact chance that the card takes effect; committing first, it averages
    over the six cards the opponent might play. Both variants are handled: in
    the faithful duel (the opponent holds no hand) one roll of its own decides.
    """

    name = "expert"
    description = "exact odds of every card against the revealed or unknown opponent card"

    RATING = 3
    """The ratings it assumes on both sides (the observation does not show them)."""

    def act(
        self, observation: dict[str, np.ndarray], action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        read = DUEL_SPEC.read(observation)
        revealed = next(i for i, at in enumerate(_REVEALED_AT) if read.values[at])
        values = self._values(
            revealed,
            bool(read("foco")),
            # the PNJ holds no hand in the seed's own duel: faithful
            read("cards", "opponent_hand_size") == 0,
        )
        best, choice = None, int(DuelAction.REPOSITION_KEEP_ALL)
        for action in np.flatnonzero(action_mask).tolist():
            value = values[action]
            if value is not None and (best is None or value > best):
                best, choice = value, action
        return choice

    def _values(
        self, revealed: int, holds_foco: bool, faithful: bool
    ) -> tuple[Fraction | None, ...]:
        """The expected PG swing of every action (None: surrender, never chosen), by
        what the observation shows; cached, since the exact odds are slow to add up."""
        return _action_values(self.RATING, revealed, holds_foco, faithful)


SKIRMISH_NPCS = {
    npc.name: npc for npc in (AggressiveSkirmisher, CautiousSkirmisher, ExpertSkirmisher)
}
DUEL_NPCS = {npc.name: npc for npc in (AggressiveFencer, CautiousFencer, ExpertFencer)}


@lru_cache(maxsize=256)
def _action_values(
    rating: int, revealed: int, holds_foco: bool, faithful: bool
) -> tuple[Fraction | None, ...]:
    if revealed < len(Card):
        threats = [Card(revealed)]
    elif revealed == REVEALED_REPOSITION:
        threats = []
    else:
        threats = list(Card)
    values: list[Fraction | None] = []
    for action in DuelAction:
        if action == DuelAction.SURRENDER:
            values.append(None)
            continue
        mine = Card(action) if action < REPOSITION else None
        each = [_swing(rating, mine, theirs, holds_foco, faithful) for theirs in threats]
        value = (
            sum(each, Fraction(0)) / len(each)
            if each
            else (card_value(mine, holds_foco) if mine is not None else Fraction(0))
        )
        if mine is None and action != DuelAction.REPOSITION_KEEP_ALL:
            value -= Fraction(1, 100)  # discarding only helps a hand it cannot value
        values.append(value)
    return tuple(values)


def _swing(rating: int, mine: Card | None, theirs: Card, holds_foco: bool, faithful: bool) -> float:
    """The expected PG swing of playing `mine` (None: Reposition) against `theirs`: the
    exact chance that each card takes effect (`esgrima.odds`), weighed by its value."""
    chances = effect_chances((mine, theirs), (rating, rating), 0 if holds_foco else 1, faithful)
    gain = 0.0 if mine is None else chances[0] * card_value(mine, holds_foco)
    return gain - chances[1] * card_value(theirs, not holds_foco)
