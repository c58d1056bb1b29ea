"""One Gymnasium adapter for every ruleset.

The env only encodes, masks and rewards (STYLE #1): the learner holds one seat,
an opponent policy plays the other seat inside `step`, and every rule lives in
the ruleset. Each subclass only picks its ruleset and documents its system.
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium as gym
import numpy as np

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.policy import Policy
from duelo.envs.core.record import Outcome
from duelo.envs.core.ruleset import IllegalActionError, Ruleset, check_legal
from duelo.envs.core.spaces import dict_space, flat_space

IllegalActionMode = Literal["raise", "penalize"]
MAX_DEALS = 1000
"""Duels dealt at one reset before giving up on an opponent that never lets the learner act."""


class DuelEnv(gym.Env):
    """A two-seat duel seen from one learning seat.

    Args:
        ruleset: the combat system's rules.
        opponent: the policy that plays the other seat.
        learner_seat: 0 or 1, or None to draw the seat at each reset.
        illegal_action: "raise" (default) raises `IllegalActionError`;
            "penalize" makes an illegal action a no-op costing `illegal_penalty`,
            for libraries that cannot mask.
        illegal_penalty: the reward of an illegal action under "penalize".
        flat_observation: observe one float32 vector instead of the Dict.
        render_mode: None or "ansi" (the narrated duel, every die shown).

    The dice roll from a stream of their own, seeded from `np_random` whenever
    that is (re)seeded, so the same seed replays the same duels, and the dice do
    not shift with the randomness the opponent draws from `np_random`.

    A duel that the opponent ends before the learner's first decision (a kill in
    a surprise round, a surrender) is discarded at reset and a new one dealt from
    the same generator, since a Gymnasium episode cannot start terminated.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        ruleset: Ruleset[Any],
        opponent: Policy,
        learner_seat: int | None = None,
        illegal_action: IllegalActionMode = "raise",
        illegal_penalty: float = 0.1,
        flat_observation: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if learner_seat not in (0, 1, None):
            raise ValueError(f"learner_seat must be 0, 1 or None, not {learner_seat!r}")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(
                f"illegal_action must be 'raise' or 'penalize', not {illegal_action!r}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if not isinstance(opponent, Policy):
            raise TypeError(
                f"opponent must have act(observation, action_mask, rng); got {opponent!r}"
            )
        self.ruleset = ruleset
        self.opponent = opponent
        self.fixed_seat = learner_seat
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.flat_observation = flat_observation
        self.render_mode = render_mode
        self.action_space = gym.spaces.Discrete(len(ruleset.actions))
        self.observation_spec = ruleset.observation_spec
        self.observation_space = (
            flat_space(self.observation_spec)
            if flat_observation
            else dict_space(self.observation_spec)
        )
        self.state: Any = None
        self.dice: GeneratorDice | None = None
        self._dice_source: np.random.Generator | None = None
        """The `np_random` that seeded `dice`."""
        self.seat = 0
        self.result: Outcome | None = None
        self._mask: np.ndarray | None = None
        """The learner's mask in the current state (cleared whenever the state moves)."""

    # --- Gymnasium API ---------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if self._dice_source is not self.np_random:  # newly seeded (or replaced)
            self._dice_source = self.np_random
            self.dice = GeneratorDice(int(self.np_random.integers(2**63)))
        self.seat = (
            self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(2))
        )
        for _ in range(MAX_DEALS):  # Gymnasium has no terminal first observation: deal again
            self._mask = None
            self.state = self.ruleset.new_duel(self.dice)
            self._play_opponent()
            self.result = self.state.result
            if self.result is None:
                return self._observation(), self._info()
        raise RuntimeError(
            f"{self.ruleset.system}: the opponent {self.opponent.name!r} ended {MAX_DEALS} duels "
            f"in a row before seat {self.seat} could decide anything"
        )

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("step() called before reset()")
        if self.result is not None:
            raise RuntimeError(
                f"step() called after the duel ended ({self.result.reason}); call reset() first"
            )
        action = int(action)
        try:
            check_legal(self.ruleset, self.state, self.seat, action, self.action_masks())
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -self.illegal_penalty, False, False, info
        self._mask = None
        self.ruleset.apply(self.state, self.seat, action, self.dice)
        self._play_opponent()
        self.result = self.state.result
        reward = 0.0 if self.result is None else self.result.reward(self.seat)
        terminated = self.result is not None and not self.result.truncated
        truncated = self.result is not None and self.result.truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        return "\n".join(event.text for event in self.state.log) + "\n"

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (sb3-contrib's MaskablePPO reads this)."""
        if self.result is not None:
            return np.zeros(self.action_space.n, dtype=bool)
        if self._mask is None:
            self._mask = self.ruleset.legal_actions(self.state, self.seat)
        return self._mask.copy()

    # --- internals ---------------------------------------------------------------

    def _play_opponent(self) -> None:
        """Let the opponent decide until the learner must act or the duel ends."""
        ruleset, state, opponent_seat = self.ruleset, self.state, 1 - self.seat
        while ruleset.to_act(state) == opponent_seat:
            mask = ruleset.legal_actions(state, opponent_seat)
            observation = self.observation_spec.view(ruleset.observe(state, opponent_seat))
            action = int(self.opponent.act(observation, mask, self.np_random))
            check_legal(ruleset, state, opponent_seat, action, mask)
            ruleset.apply(state, opponent_seat, action, self.dice)

    def _observation(self) -> Any:
        flat = self.ruleset.observe(self.state, self.seat)
        return flat if self.flat_observation else self.observation_spec.split(flat)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.result is not None:
            info["outcome"] = self.result.reason
            info["winner"] = self.result.winner
        return info
