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
from duelo.envs.esgrima.duel import REPOSITION, DuelAction
from duelo.envs.esgrima.mechanics import Card, matchup, successes_distribution
from duelo.envs.esgrima.skirmish import SkirmishAction as A

SELF, OPPONENT = 0, 1
LIGHT_MELEE, HEAVY_MELEE, LIGHT_RANGED, HEAVY_RANGED, LOADED = range(5)
FOCO, EVADING, HIDDEN, IN_COVER, SUPPRESSING, EDGE = range(6)


def _held(obs: dict[str, np.ndarray], who: int) -> tuple[bool, bool]:
    """(holds a melee weapon, holds a ranged weapon)."""
    weapon = obs["weapon"][who]
    return bool(weapon[LIGHT_MELEE] or weapon[HEAVY_MELEE]), bool(
        weapon[LIGHT_RANGED] or weapon[HEAVY_RANGED]
    )


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
        hp, hp_max = observation["hp"], observation["hp_max"]
        if hp[SELF] <= self.SURRENDER_AT and hp[OPPONENT] > hp_max[OPPONENT] / 2:
            return int(A.SURRENDER)
        away = [A.MOVE_AWAY] if observation["range"][0] == 0 else []
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
        distance = int(observation["range"][0])
        melee, ranged = _held(observation, SELF)
        their_melee, their_ranged = _held(observation, OPPONENT)
        flags = observation["flags"]
        plan: list[A] = [A.CANCEL_EDGE, A.LOCATE]
        if observation["zones"][SELF] != observation["zones"][OPPONENT]:
            plan.append(A.INTERACT_AREA)  # the blast cannot reach itself
        if distance == 0:
            plan += [A.MELEE_ATTACK] if melee else [A.DRAW_WEAPON, A.MELEE_ATTACK, A.SHOT]
        elif (
            distance == 1
            and their_melee
            and not their_ranged
            and observation["round"][0] <= self.WAIT_ROUNDS
        ):
            if not flags[SELF, EVADING]:
                plan.append(A.EVADE)
            plan += [A.FOCALIZAR]
        elif ranged:
            if their_ranged:
                plan.append(A.TAKE_COVER)
            elif their_melee:
                plan.append(A.INTERACT_BLOCK)  # a closed way keeps the blade off
            plan += [A.RELOAD, A.SHOT, A.MOVE_TOWARD]
        else:
            if not action_mask[A.MOVE_TOWARD] and observation["weapon"][SELF, 6] > 0:
                plan.append(A.DRAW_WEAPON)  # the way is closed: find something to shoot
            plan += [A.MOVE_TOWARD, A.MELEE_ATTACK]
        plan += [A.RELOAD, A.PASS]
        return first_legal(action_mask, plan)


# --- the fencing duel ----------------------------------------------------------------

HAND, REVEALED, DISCARD = slice(0, 6), slice(6, 14), slice(14, 20)
REVEALED_REPOSITION, NOT_REVEALED = 6, 7
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


@lru_cache(maxsize=4096)
def win_chance(
    mine: int, theirs: int, my_edge: int, their_edge: int, i_hold_foco: bool, strictly: bool = False
) -> float:
    """P(my Test beats theirs) in the symmetric duel; ties go to Foco (or need `strictly` more).

    Computed exactly, then cached as a float: the NPC decides every exchange.
    """
    chance = Fraction(0)
    for a, pa in successes_distribution(mine, my_edge).items():
        for b, pb in successes_distribution(theirs, their_edge).items():
            if a > b or (a == b and i_hold_foco and not strictly):
                chance += pa * pb
    return float(chance)


@lru_cache(maxsize=64)
def at_least_one(rating: int, edge: int) -> float:
    """P(a Test succeeds): the faithful duel's single roll."""
    return float(1 - successes_distribution(rating, edge)[0])


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
        hp, hp_max = observation["hp"], observation["hp_max"]
        if hp[SELF] <= self.SURRENDER_AT and hp[OPPONENT] >= hp_max[OPPONENT] - 1:
            return int(DuelAction.SURRENDER)
        if hp[SELF] < hp_max[SELF] and action_mask[DuelAction.PLAY_INSULTO]:
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
        cards = observation["cards"]
        values = self._values(
            int(np.argmax(cards[REVEALED])),
            bool(observation["foco"][0]),
            bool(cards[-1] == 0),  # the PNJ holds no hand in the seed's own duel: faithful
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
    """The expected PG swing of playing `mine` (None: Reposition) against `theirs`."""
    loss = card_value(theirs, not holds_foco)
    if mine is None:  # Reposition: a Defense Test
        if faithful:
            keep = at_least_one(rating, 0)
        else:
            keep = win_chance(rating, rating, 0, 0, holds_foco, strictly=True)
        return -(1 - keep) * loss
    edge = matchup(mine, theirs)
    if faithful:
        p = at_least_one(rating, edge)
    else:
        p = win_chance(rating, rating, edge, -edge, holds_foco)
    return p * card_value(mine, holds_foco) - (1 - p) * loss
