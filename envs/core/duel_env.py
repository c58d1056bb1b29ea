"""One Gymnasium adapter for every ruleset.

The env only encodes, masks and rewards (STYLE #1): the learner holds one seat,
an opponent policy plays the other seat inside `step`, and every rule lives in
the ruleset. Each subclass only picks its ruleset and documents its system.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.policy import BLIND, Policy, reads_observation, served_by_process
from duelo.envs.core.referee import PolicyFault, ask, summary
from duelo.envs.core.ruleset import IllegalActionError, Ruleset, check_legal
from duelo.envs.core.spaces import dict_space, flat_space
from duelo.envs.core.state import Outcome

IllegalActionMode = Literal["raise", "penalize"]
TAKE_RESULT = 0
"""The one legal action of a duel that ended before the learner's first decision: taking
it ends the episode with that duel's result."""


def take_result_mask(actions: int, legal: bool = True) -> np.ndarray:
    """The mask of such a duel: `TAKE_RESULT` alone (or nothing, for a seat not to act)."""
    mask = np.zeros(actions, dtype=bool)
    mask[TAKE_RESULT] = legal
    return mask


PROCESS_OPPONENT_KEY = secrets.token_bytes(16)
"""The default `opponent_key`: drawn from the operating system's entropy once per process."""


def opponent_seed(draw: int, key: bytes) -> int:
    """The seed of the opponent's generator from `np_random`'s draw for it: a BLAKE2b keyed
    by `key`, so that without the key nothing the opponent holds leads back to `np_random`
    (and so to the dice seed drawn just before), nor can it be found by trying seeds."""
    digest = hashlib.blake2b(str(draw).encode(), key=key, digest_size=16).digest()
    return int.from_bytes(digest, "little")


DRAW = -1
"""`info["winner"]` of a duel that nobody won (an int, like a winning seat, so that vector
envs can stack it)."""


class UnsupportedRenderModeError(TypeError, ValueError):
    """A render mode the env does not have.

    A `TypeError` as well, because that is how stable-baselines3's `make_vec_env`
    learns to retry without the `render_mode="rgb_array"` it asks for by default.
    """


def action_number(action: Any) -> int:
    """An action of the `Discrete` space as an int: an integer, a numpy integer or a 0-d
    integer array (what agents pass); 2.7 or "3" is an error, not action 2 or 3."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise IllegalActionError(f"an action is an integer of the action space, not {action!r}")
    return int(action)


class DuelEnv(gym.Env):
    """A duel, or a skirmish of several fighters a side, seen from one learning seat.

    Args:
        ruleset: the combat system's rules (`ruleset.sides` gives each seat's side).
        opponent: the policy that plays the other seat, or every fighter of the other side.
        learner_seat: a seat (0 or 1 in a duel, a fighter of a skirmish), or None to draw
            the seat at each reset.
        ally: the policy that plays the learner's allies in a skirmish; None: `opponent`.
        illegal_action: "penalize" (default) makes an illegal action a no-op costing
            `illegal_penalty`, so every action of the action space is accepted, as
            Gymnasium's checkers and maskless libraries expect; "raise" raises
            `IllegalActionError` naming the action (to debug a masked agent).
        illegal_penalty: the reward of an illegal action under "penalize" (> 0: an illegal
            action never pays).
        illegal_limit: consecutive illegal actions under "penalize" after which the episode
            is truncated (`info["outcome"]` says so), so an agent that repeats one cannot
            stall an evaluation forever.
        flat_observation: observe one float32 vector instead of the Dict.
        opponent_key: the key (up to 64 bytes) of the opponent's generator
            (`opponent_seed`); None: this process's key (`PROCESS_OPPONENT_KEY`). Pass
            the same bytes to replay a stochastic opponent's draws in another process.
        render_mode: None or "ansi" (the narrated duel, every die shown); any other is
            refused with `UnsupportedRenderModeError`.

    `info` always holds `action_mask` and `seat`; once the duel is over, `outcome` (the
    reason), `winner` (the winning side, which is the seat in a duel, or `DRAW`, -1;
    the learner's side is `ruleset.sides[seat]`) and whatever the state's
    `aftermath` reports (a digest's post-fight statistics, never part of the reward);
    `illegal_action` is True on a penalised illegal step. Each key keeps one type, so
    vector envs can stack them.

    The dice roll from a stream of their own, seeded from `np_random` whenever
    that is (re)seeded, so the same seed replays the same dice and seats. The
    opponent gets a generator of its own, seeded at the same moment by a keyed
    hash (`opponent_seed`), and a copy of its mask: it can reach neither the dice,
    nor the learner's draws, nor the engine's mask, and cannot search seeds for
    them without the key (though anyone who can run the rules can guess a small
    seed from the dice it sees). An opponent that raises, exits, answers with
    anything but a legal action number forfeits: the learner wins, and
    `info["outcome"]` says why (`referee.ask`).

    A duel that the opponent ends before the learner's first decision (a kill in
    a surprise round, a surrender) still counts: since a Gymnasium episode cannot
    start terminated, it reaches the learner as an episode of one step whose only
    legal action, `TAKE_RESULT`, ends it with that duel's result. Dealing another
    one instead would drop exactly the duels the opponent wins at once, and score
    the learner above what a tournament measures.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        ruleset: Ruleset[Any],
        opponent: Policy,
        learner_seat: int | None = None,
        illegal_action: IllegalActionMode = "penalize",
        illegal_penalty: float = 0.1,
        illegal_limit: int = 100,
        flat_observation: bool = False,
        opponent_key: bytes | None = None,
        render_mode: str | None = None,
        ally: Policy | None = None,
    ) -> None:
        seats = len(ruleset.sides)
        if learner_seat is not None and (
            type(learner_seat) is not int or learner_seat not in range(seats)
        ):
            raise ValueError(
                f"learner_seat must be a seat of 0..{seats - 1} or None, not {learner_seat!r}"
            )
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(
                f"illegal_action must be 'raise' or 'penalize', not {illegal_action!r}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise UnsupportedRenderModeError(
                f"render_mode must be None or 'ansi' (the narrated duel), not {render_mode!r}"
            )
        if not illegal_penalty > 0:
            raise ValueError(f"illegal_penalty must be positive, not {illegal_penalty!r}")
        if type(illegal_limit) is not int or illegal_limit < 1:
            raise ValueError(f"illegal_limit must be a positive integer, not {illegal_limit!r}")
        if opponent_key is not None and (
            not isinstance(opponent_key, bytes) or not 1 <= len(opponent_key) <= 64
        ):
            raise ValueError(f"opponent_key must be 1 to 64 bytes, not {opponent_key!r}")
        for role, policy in (("opponent", opponent), ("ally", ally)):
            if policy is not None and not isinstance(policy, Policy):
                raise TypeError(
                    f"{role} must have act(observation, action_mask, rng); got {policy!r}"
                )
        self.ruleset = ruleset
        self.opponent = opponent
        self.ally = opponent if ally is None else ally
        self.opponent_key = PROCESS_OPPONENT_KEY if opponent_key is None else opponent_key
        self.fixed_seat = learner_seat
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.illegal_limit = illegal_limit
        self._illegal_streak = 0
        self.flat_observation = flat_observation
        self.render_mode = render_mode
        self.action_space: gym.spaces.Discrete = gym.spaces.Discrete(len(ruleset.actions))
        self.observation_spec = ruleset.observation_spec
        self.observation_space = (
            flat_space(self.observation_spec)
            if flat_observation
            else dict_space(self.observation_spec)
        )
        self.state: Any = None
        self.dice: GeneratorDice | None = None
        self._opponent_rng: np.random.Generator | None = None
        self._dice_source: np.random.Generator | None = None
        """The `np_random` that seeded `dice` and the opponent's generator."""
        self.seat = 0
        self.result: Outcome | None = None
        self._mask: np.ndarray | None = None
        """The learner's mask in the current state (cleared whenever the state moves)."""
        self._processes = [
            p for p in {id(p): p for p in (opponent, self.ally)}.values() if served_by_process(p)
        ]
        """Sandboxed policies: a fresh process each episode, stopped by `close`."""

    # --- Gymnasium API ---------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if self._dice_source is not self.np_random:  # newly seeded (or replaced)
            self._dice_source = self.np_random
            self.dice = GeneratorDice(int(self.np_random.integers(2**63)))
            draw = int(self.np_random.integers(2**63))
            self._opponent_rng = np.random.default_rng(opponent_seed(draw, self.opponent_key))
        seats = len(self.ruleset.sides)
        self.seat = (
            self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(seats))
        )
        self._illegal_streak = 0
        for process in self._processes:
            process.new_duel()
        self._mask = None
        assert self.dice is not None  # made above on the first reset
        self.state = self.ruleset.new_duel(self.dice)
        self._play_opponent()
        self.result = None  # a duel over already waits for TAKE_RESULT (`_unplayed`)
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("step() called before reset()")
        if self.result is not None:
            raise RuntimeError(
                f"step() called after the duel ended ({self.result.reason}); call reset() first"
            )
        action = action_number(action)
        try:
            check_legal(self.ruleset, self.state, self.seat, action, self.action_masks())
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._illegal_streak += 1
            if self._illegal_streak >= self.illegal_limit:
                self.result = Outcome(
                    None, f"{self._illegal_streak} illegal actions in a row", truncated=True
                )
            info = self._info()
            info["illegal_action"] = True
            truncated = self.result is not None
            return self._observation(), -self.illegal_penalty, False, truncated, info
        self._illegal_streak = 0
        self._mask = None
        if not self._unplayed:
            assert self.dice is not None  # reset made them
            self.ruleset.apply(self.state, self.seat, action, self.dice)
            self._play_opponent()
        self.result = self.state.result
        reward = 0.0 if self.result is None else self.result.reward(self.ruleset.sides[self.seat])
        terminated = self.result is not None and not self.result.truncated
        truncated = self.result is not None and self.result.truncated
        return self._observation(), reward, terminated, truncated, self._info()

    def close(self) -> None:
        for process in self._processes:
            process.close()
        super().close()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        return "\n".join(event.text for event in self.state.log) + "\n"

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (sb3-contrib's MaskablePPO reads this)."""
        if self.result is not None:
            return np.zeros(self.action_space.n, dtype=bool)
        if self._unplayed:
            return take_result_mask(int(self.action_space.n))
        if self._mask is None:
            self._mask = self.ruleset.legal_actions(self.state, self.seat)
        return self._mask.copy()

    # --- internals ---------------------------------------------------------------

    @property
    def _unplayed(self) -> bool:
        """The duel ended before the learner's first decision: its result is not taken yet."""
        return self.result is None and self.state.result is not None

    def _play_opponent(self) -> None:
        """Let the other fighters decide until the learner must act or the fight ends (the
        opponent plays the other side, the ally the learner's allies; one generator of
        theirs, which the learner cannot reach)."""
        ruleset, state, learner = self.ruleset, self.state, self.seat
        dice, rng = self.dice, self._opponent_rng
        assert dice is not None and rng is not None  # reset made them
        side = ruleset.sides[learner]
        while (seat := ruleset.to_act(state)) is not None and seat != learner:
            mask = ruleset.legal_actions(state, seat)
            ally = ruleset.sides[seat] == side
            policy = self.ally if ally else self.opponent
            observation = (
                self.observation_spec.view(ruleset.observe(state, seat))
                if reads_observation(policy)
                else BLIND
            )
            try:
                action = ask(policy, observation, mask, rng)
            except PolicyFault as fault:  # a fault loses the fight for the faulty side
                role = "ally" if ally else "opponent"
                reason = f"the {role} {policy.name!r} forfeits: its policy {fault}"
                state.finish(Outcome(1 - side if ally else side, summary(reason)))
                return
            ruleset.apply(state, seat, action, dice)

    def _observation(self) -> Any:
        flat = self.ruleset.observe(self.state, self.seat)
        return flat if self.flat_observation else self.observation_spec.split(flat)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks(), "seat": self.seat}
        if self.result is not None:
            info["outcome"] = self.result.reason
            info["winner"] = DRAW if self.result.winner is None else self.result.winner
            info.update(self.state.aftermath())
        return info
