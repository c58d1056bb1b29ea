"""One duel env on the batched engine: `gymnasium.make(id, engine="fast")` (extra `fast`).

The same env as `gymnasium.make(id)` (`DuelEnv`) for everything it serves (any
opponent, no narration): the same spaces, seeds, observations, masks, rewards and
`info`, decision for decision, with the rules, the random opponent's turns, the mask
and the observation stepped in one compiled call (another opponent decides between
calls, as `BatchedDuels` says). A library that builds its envs by id
(stable-baselines3's `make_vec_env`, rl-zoo3) gets it by passing `engine="fast"` in
the env kwargs.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from duelo.envs.core.duel_env import DRAW, DuelEnv, action_number
from duelo.envs.core.ruleset import check_legal, seat_names
from duelo.envs.fast.engine import BatchedDuels


class FastDuelEnv(gym.Env):
    """`env`'s duel on the batched engine, one row (`DuelEnv`'s docstring says what each
    argument and `info` key means; `env` must be unnarrated)."""

    metadata = {"render_modes": []}

    def __init__(self, env: DuelEnv) -> None:
        if env.render_mode is not None:
            raise ValueError(
                f"render_mode {env.render_mode!r}: the batched engine does not narrate its "
                "duels; make the env without engine='fast' to render it"
            )
        self.engine = BatchedDuels(env, 1)
        self.ruleset = env.ruleset
        self.observation_spec = env.observation_spec
        self.flat_observation = env.flat_observation
        self.observation_space = env.observation_space
        self.action_space = env.action_space
        self.illegal_action = env.illegal_action
        self.illegal_penalty = env.illegal_penalty
        self.illegal_limit = env.illegal_limit
        batched: Any = env.ruleset  # a batched system's ruleset: its two characters
        self._names = seat_names(*(c.name for c in batched.characters))
        self._action = np.zeros(1, np.int64)
        engine = self.engine  # views of its row, made once (a step costs a few microseconds)
        self._mask, self._flat = engine.masks[0], engine.observations[0]
        self._seat, self._over, self._winner = (
            engine.seats["seat"],
            engine.duels["over"],
            engine.duels["winner"],
        )
        self._row = np.zeros(1, np.int64)
        """The one row, as the rows `aftermath` reads."""
        self._ended: str | None = None
        """The ended duel's reason (None while it goes on)."""
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """A new duel; `seed` reseeds the dice, the opponent and the seat draws as
        `DuelEnv.reset(seed=...)` does, else they go on from where they are."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"reset takes no options, not {options!r}")
        if seed is not None or not self._started:
            self.engine.reset([seed])
        else:
            self.engine.deal(np.zeros(1, np.int64))
        self._started = True
        self._ended = None
        return self._observation(), self._info(illegal=False)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("step() called before reset()")
        if self._ended is not None:
            raise RuntimeError(
                f"step() called after the duel ended ({self._ended}); call reset() first"
            )
        engine, mask = self.engine, self._mask
        number = action if type(action) is int else action_number(action)
        illegal = not (0 <= number < mask.size and mask[number])
        self._action[0] = -1 if illegal else number  # -1: illegal to the engine, and fits int64
        if illegal and self.illegal_action == "raise":
            check_legal(self.ruleset, None, int(self._seat[0]), number, mask)
        engine.advance(self._action)
        terminated, truncated = bool(engine.terminated[0]), bool(engine.truncated[0])
        if terminated or truncated:
            self._ended = self._reason(illegal)
        info = self._info(illegal)
        return self._observation(), float(engine.rewards[0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (sb3-contrib's MaskablePPO reads this)."""
        return self._mask.copy()

    def _observation(self) -> Any:
        flat = self._flat.copy()
        return flat if self.flat_observation else self.observation_spec.split(flat)

    def _reason(self, illegal: bool) -> str:
        if illegal:  # only the illegal-action limit ends a duel on an illegal action
            return f"{self.illegal_limit} illegal actions in a row"
        if 0 in self.engine.forfeits:
            return self.engine.forfeits[0]
        duel = self.engine.duels[0]
        return str(self.engine.module.ending_reason(duel, self.engine.rules, self._names))

    def _info(self, illegal: bool) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "seat": int(self._seat[0])}
        if illegal:
            info["illegal_action"] = True
        if self._ended is not None:
            info["outcome"] = self._ended
            decided = self._over[0] and not illegal  # an illegal-action truncation is no result
            info["winner"] = int(self._winner[0]) if decided else DRAW
            for key, values in self.engine.aftermath(self._row).items():
                value = values[0]  # as the state reports it: a Python number, or a tuple
                info[key] = value.item() if isinstance(value, np.generic) else value
        return info
