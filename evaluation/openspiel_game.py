"""A duelo duel as an OpenSpiel game (the `openspiel` extra), so that OpenSpiel's tools
(CFR, best responses, exploitability) run on the rules themselves.

The game is the ruleset, untouched: a state is the list of decisions and chance
outcomes so far, played again from the start through the rules (`new_duel`,
`apply`). Where the rules roll a die the list does not hold yet, the state is a
chance node, one outcome a face, each as likely (a re-rolled tie is one die of the
accepted throws, as the solver reads it: `dice.roll_until`). A pool the rules read
as a whole (`dice.roll_pool`) is one chance node, an outcome a count of each class of
faces the rules tell apart, exactly distributed (`dice.pool_outcomes`): six d10 at a
difficulty are 84 outcomes, not a million, which is what makes a dice-pool duel's
tree small enough to walk. A seat's information state is what it
observed at each of its decisions and what it chose (perfect recall), its
observation what `observe` shows it now: the rules' own hiding, nothing added.
Returns are the duel's rewards. Duels only: a skirmish's fighters share their side's
reward, which OpenSpiel's two-player tools do not read.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as openspiel_policy

from duelo.envs.core.dice import pool_outcomes
from duelo.envs.core.policy import Policy
from duelo.envs.core.ruleset import Ruleset

MAX_CHANCE = 5_000
"""Outcomes a chance node may have: the faces of the largest die the rules roll, or
the class counts of the largest pool (a pool with more is refused)."""
MAX_LENGTH = 10_000
"""Decisions and faces a game may hold (OpenSpiel asks for a bound)."""


class _NeedRoll(Exception):
    """The rules ask for a roll the history does not hold yet: a chance node, with the
    chance of each outcome."""

    def __init__(self, chances: list[float]) -> None:
        super().__init__(len(chances))
        self.chances = chances


class _Replay:
    """Dice that give the outcomes recorded so far (a face, or a pool's class counts by
    number), then stop the rules at the next roll."""

    def __init__(self, faces: list[int]) -> None:
        self.faces, self.used = faces, 0

    def roll(self, sides: int, purpose: str) -> int:
        return self._next(lambda: [1.0 / sides] * sides)

    def _next(self, chances: Callable[[], list[float]]) -> int:
        """The next outcome recorded (numbered from 1), else a chance node of `chances`."""
        if self.used == len(self.faces):
            raise _NeedRoll(chances())
        face = self.faces[self.used]
        self.used += 1
        return face

    def roll_pool(
        self, count: int, sides: int, purpose: str, classes: tuple[int, ...] | None
    ) -> list[int]:
        """One outcome of the pool by class (`dice.roll_pool`); no dice, no chance node."""
        outcomes = _pool_outcomes(count, sides, classes)
        if len(outcomes) == 1:
            return outcomes[0][1]
        if len(outcomes) > MAX_CHANCE:
            raise ValueError(
                f"a pool of {count} d{sides} ({purpose}) has {len(outcomes):,} outcomes, "
                f"more than the game's {MAX_CHANCE:,}"
            )
        return outcomes[self._next(lambda: [p for p, _ in outcomes]) - 1][1]

    def roll_until(
        self,
        sides: tuple[int, ...],
        purposes: tuple[str, ...],
        accept: Callable[[tuple[int, ...]], bool],
    ) -> tuple[int, ...]:
        """The accepted throws as one die with a face for each (`dice.roll_until`)."""
        throws = itertools.product(*(range(1, n + 1) for n in sides))
        accepted = [faces for faces in throws if accept(faces)]
        return accepted[self.roll(len(accepted), purposes[0]) - 1]


@functools.cache
def _pool_outcomes(
    count: int, sides: int, classes: tuple[int, ...] | None
) -> list[tuple[float, list[int]]]:
    return [(float(p), faces) for p, faces in pool_outcomes(count, sides, classes)]


def game_type(ruleset: Ruleset[Any]) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=f"python_duelo_{ruleset.system}",
        long_name=f"duelo {ruleset.system}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification={},
    )


class DueloGame(pyspiel.Game):
    """One ruleset (a system and its variant) as an OpenSpiel game."""

    def __init__(self, ruleset: Ruleset[Any]) -> None:
        if len(ruleset.sides) != 2:
            raise ValueError(
                f"{ruleset.system}: OpenSpiel plays duels; a skirmish's sides share rewards"
            )
        self.ruleset = ruleset
        info = pyspiel.GameInfo(
            num_distinct_actions=len(ruleset.actions),
            max_chance_outcomes=MAX_CHANCE,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_LENGTH,
        )
        super().__init__(game_type(ruleset), info, {})

    def new_initial_state(self) -> DueloState:
        return DueloState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(perfect_recall)


class DueloState(pyspiel.State):
    """The duel after the decisions and faces of its history (module docstring)."""

    def __init__(self, game: DueloGame) -> None:
        super().__init__(game)
        self.ruleset = game.ruleset
        self.faces: list[int] = []
        self.decisions: list[int] = []
        self._replay()

    def _replay(self) -> None:
        """Play the history again through the rules; stop at a roll it lacks."""
        dice = _Replay(self.faces)
        self.pending: list[float] | None = None
        self.seen: dict[int, list[tuple[bytes, int]]] = {0: [], 1: []}
        ruleset = self.ruleset
        try:
            self.engine = ruleset.new_duel(dice)
            for action in self.decisions:
                seat = ruleset.to_act(self.engine)
                assert seat is not None
                self.seen[seat].append((ruleset.observe(self.engine, seat).tobytes(), action))
                ruleset.apply(self.engine, seat, action, dice)
        except _NeedRoll as need:
            self.pending = need.chances

    # --- pyspiel.State ---------------------------------------------------------------

    def current_player(self) -> int:
        if self.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.ruleset.to_act(self.engine)
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else int(seat)

    def _legal_actions(self, player: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.ruleset.legal_actions(self.engine, player))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.pending is not None
        return list(enumerate(self.pending))

    def _apply_action(self, action: int) -> None:
        if self.pending is not None:
            self.faces.append(action + 1)
        else:
            self.decisions.append(action)
        self._replay()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action + 1}"
        return self.ruleset.actions(action).name

    def is_terminal(self) -> bool:
        return self.pending is None and self.engine.result is not None

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        result = self.engine.result
        return [result.reward(0), result.reward(1)]

    def __str__(self) -> str:
        return f"decisions {self.decisions} faces {self.faces}"


class _Observer:
    """What a seat sees (`observe`), and with perfect recall all it saw and chose."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: DueloState, player: int) -> None:
        """No tensor: the game gives strings (`provides_observation_tensor` is off)."""

    def string_from(self, state: DueloState, player: int) -> str:
        now = state.ruleset.observe(state.engine, player).tobytes().hex()
        if not self.perfect_recall:
            return now
        past = ";".join(f"{seen.hex()}>{action}" for seen, action in state.seen[player])
        return f"{past}|{now}"


class DueloPolicy(openspiel_policy.Policy):
    """A duelo policy as an OpenSpiel policy, for its exploitability: the chance of each
    action, from the policy's `action_distribution` where it has one (random), else all
    on the action it chooses (a scripted NPC decides from what it sees)."""

    def __init__(self, game: DueloGame, policies: Mapping[int, Policy]) -> None:
        super().__init__(game, [0, 1])
        self.policies = policies

    def action_probabilities(
        self, state: DueloState, player_id: int | None = None
    ) -> dict[int, float]:
        seat = state.current_player() if player_id is None else player_id
        ruleset = state.ruleset
        mask = ruleset.legal_actions(state.engine, seat)
        observation = ruleset.observation_spec.view(ruleset.observe(state.engine, seat))
        policy = self.policies[seat]
        distribution = getattr(policy, "action_distribution", None)
        if distribution is not None:
            chances = distribution(observation, mask)
            return {int(a): float(chances[a]) for a in np.flatnonzero(mask)}
        choice = policy.act(observation, mask.copy(), np.random.default_rng(0))
        return {int(a): float(a == choice) for a in np.flatnonzero(mask)}
