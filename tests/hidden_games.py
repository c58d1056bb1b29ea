"""Duels of hidden information small enough to know their answers or to walk whole with
OpenSpiel: the yardsticks of `tests/test_openspiel.py` and `tests/test_best_response.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from duelo.envs.core.dice import Dice
from duelo.envs.core.observation import ObservationSpec, ObsKey
from duelo.envs.core.state import DuelState, Outcome


class Sign(IntEnum):
    ROCK = 0
    PAPER = 1
    SCISSORS = 2


@dataclass(kw_only=True)
class SignState(DuelState):
    signs: list[Sign | None] = field(default_factory=lambda: [None, None])


class SealedSigns:
    """Rock, paper, scissors with sealed signs (the second sees nothing of the first's),
    a tie settled by a d2: a duel of hidden information whose equilibrium is known
    (uniform, value 0) and whose pure policies are exploitable by exactly 1."""

    system = "sealed_signs"
    version = 0
    sides = (0, 1)
    round_cap = 1
    perfect_information = False
    actions = Sign
    action_meanings = {s: s.name.lower() for s in Sign}
    observation_spec = ObservationSpec(
        (
            ObsKey("initiative", "always 0", 0, 1),
            ObsKey("hp", "always 1", 0, 1),
            ObsKey("range", "always 0", 0, 1),
        )
    )

    def new_duel(self, dice: Dice) -> SignState:
        state = SignState()
        state.start_round(self.round_cap)
        return state

    def to_act(self, state: SignState) -> int | None:
        return None if state.over else state.signs.index(None)

    def legal_actions(self, state: SignState, seat: int) -> np.ndarray:
        return np.ones(3, dtype=bool)

    def apply(self, state: SignState, seat: int, action: int, dice: Dice) -> None:
        state.signs[seat] = Sign(action)
        if None in state.signs:
            return
        a, b = state.signs
        winner = None if a == b else 0 if (a - b) % 3 == 1 else 1
        if winner is None:
            winner = dice.roll(2, "tie") - 1
        state.finish(Outcome(winner, "signs"))

    def observe(self, state: SignState, seat: int) -> np.ndarray:
        return np.array([0, 1, 0], dtype=np.float32)

    def hides(self, state: SignState, seat: int) -> bool:
        return state.signs[1 - seat] is not None and state.signs[seat] is None


class Always:
    name = description = "always rock"

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(Sign.ROCK)


class Move(IntEnum):
    LOW = 0
    MID = 1
    HIGH = 2
    PRESS = 3
    HOLD = 4


@dataclass(kw_only=True)
class StrikeState(DuelState):
    hp: list[int] = field(default_factory=lambda: [2, 2])
    stance: list[int | None] = field(default_factory=lambda: [None, None])
    edge: int = 0
    """This round's d2, 0 until rolled."""


class SealedStrikes:
    """A duel of rounds shaped like the systems' hidden plans: A seals a stance; B, not
    seeing it, answers with its own (which A sees); a d2 is rolled for all to see; B,
    still blind to A's stance, presses or holds; then the stances strike, rock, paper,
    scissors style, and A's stance is shown. Two hit points each, three rounds: small
    enough for OpenSpiel to walk whole, with states reached by many paths and a seat in
    the dark across a roll."""

    system = "sealed_strikes"
    version = 0
    sides = (0, 1)
    round_cap = 3
    perfect_information = False
    actions = Move
    action_meanings = {m: m.name.lower() for m in Move}
    observation_spec = ObservationSpec(
        (
            ObsKey("initiative", "who acts", 0, 1),
            ObsKey("hp", "both hit points", 0, 2, (2,), ("hp_a", "hp_b")),
            ObsKey("range", "always 0", 0, 1),
            ObsKey("round", "the round", 0, 3),
            ObsKey(
                "stances",
                "own stance, the rival's where seen (0 none)",
                0,
                3,
                (2,),
                ("mine", "theirs"),
            ),
            ObsKey("edge", "this round's d2, 0 until rolled", 0, 2),
        )
    )

    def new_duel(self, dice: Dice) -> StrikeState:
        state = StrikeState()
        state.start_round(self.round_cap)
        return state

    def to_act(self, state: StrikeState) -> int | None:
        if state.over:
            return None
        return 0 if state.stance[0] is None else 1

    def legal_actions(self, state: StrikeState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Move), dtype=bool)
        if state.stance[seat] is None:
            mask[: Move.PRESS] = True
        else:
            mask[Move.PRESS :] = True
        return mask

    def apply(self, state: StrikeState, seat: int, action: int, dice: Dice) -> None:
        if state.stance[seat] is None:
            state.stance[seat] = action
            if seat == 1:
                state.edge = dice.roll(2, "edge")
            return
        a, b = state.stance
        assert a is not None and b is not None
        press = action == Move.PRESS
        if a == b:
            loser = 0 if press and state.edge == 2 else 1 if press else None
        else:
            loser = 1 if (a - b) % 3 == 1 else 0
        if loser is not None:
            state.hp[loser] -= 1 + (press and loser == 0 and state.edge == 2)
            if state.hp[loser] <= 0:
                state.finish(Outcome(1 - loser, "struck down"))
                return
        state.stance, state.edge = [None, None], 0
        state.start_round(self.round_cap)

    def observe(self, state: StrikeState, seat: int) -> np.ndarray:
        mine, theirs = state.stance[seat], state.stance[1 - seat]
        shown = theirs if seat == 0 else None  # B never sees A's stance before it strikes
        return np.array(
            [
                self.to_act(state) == seat,
                *(max(hp, 0) for hp in state.hp),
                0,
                state.round,
                0 if mine is None else mine + 1,
                0 if shown is None else shown + 1,
                state.edge,
            ],
            dtype=np.float32,
        )

    def hides(self, state: StrikeState, seat: int) -> bool:
        return seat == 1 and state.stance[0] is not None


class Biased:
    """Draws at random, unevenly: a stance by (0.5, 0.3, 0.2), a press one time in four."""

    name = description = "biased"

    def action_distribution(self, observation: Any, action_mask: np.ndarray) -> np.ndarray:
        if action_mask[Move.LOW]:
            return np.array([0.5, 0.3, 0.2, 0.0, 0.0])
        return np.array([0.0, 0.0, 0.0, 0.25, 0.75])

    def act(self, observation: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        chances = self.action_distribution(observation, action_mask)
        return int(rng.choice(len(chances), p=chances))
