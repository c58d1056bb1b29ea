"""PettingZoo's face of every duelo system: an AEC env over its ruleset.

`duelo.envs.pettingzoo.env("dunwich", scenario="warehouse")` plays a duel between
two agents, "a" and "b" (seats 0 and 1), through the ruleset contract alone, so
every system, present and future, has one; a skirmish has an agent a fighter, "a0",
"a1"... for side A and "b0"... for side B, each rewarded as its side. As in
PettingZoo's classic games the observation is `{"observation": the flat float32
vector, "action_mask": int8}`, and the mask of an agent not to act is all zeros;
rewards come at the end (+1, -1, 0 for a draw or the round cap, a withdrawal's stake
where a system has one).
What an agent may not see stays hidden, exactly as in the Gymnasium env: both
read `ruleset.observe`. The engine owns the dice. An illegal action follows PettingZoo
classic's convention by default (`illegal_action="terminate"`): the offender gets
`illegal_reward` (-1), the other 0, the game ends for both, and the offender's info
says `illegal_move`; `illegal_action="raise"` raises `IllegalActionError` naming it,
to debug an agent. Every duelo system decides one seat at a time (a sealed bid, too,
is two decisions in turn), so `parallel_env` is PettingZoo's own
`turn_based_aec_to_parallel` over it: each parallel step is the one agent to act.
`render_mode="ansi"` returns the narration, `"human"` prints what happened since
the last render.

A duel that the rules end before anyone decides still counts, as in the Gymnasium
env: agent "a" gets one step whose only legal action, `TAKE_RESULT`, ends it with that
duel's result (no shipped setup does so: dealing again would drop those duels).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.duel_env import DRAW, action_number, take_result_mask
from duelo.envs.core.ruleset import IllegalActionError, check_legal
from duelo.envs.core.spaces import flat_space
from duelo.envs.systems import system as system_of

AGENTS = ("a", "b")
"""A duel's agents: "a" plays seat 0 (side A), "b" seat 1."""


def agent_names(sides: tuple[int, ...]) -> tuple[str, ...]:
    """Each seat's agent: `AGENTS` in a duel; in a skirmish the side and the fighter's
    place in it ("a0", "a1", "b0"...)."""
    if len(sides) == 2:
        return AGENTS
    return tuple(f"{'ab'[side]}{sides[:seat].count(side)}" for seat, side in enumerate(sides))


ILLEGAL_ACTIONS = ("terminate", "raise")
RENDER_MODES = ("ansi", "human")


class DuelAEC(AECEnv):
    """A duel of `system` between two PettingZoo agents; `variant` as for `gym.make`
    (scenario, fighters, options...). `render_mode` "ansi" returns the narration,
    "human" prints what happened since it last did; `illegal_action` and
    `illegal_reward` as the module says."""

    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": True, "render_fps": 4}

    def __init__(
        self,
        system: str,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        **variant: Any,
    ) -> None:
        super().__init__()
        info = system_of(system)
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', not {illegal_action!r}"
            )
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.ruleset = info.ruleset(**variant)
        self.metadata = {
            **self.metadata,
            "name": f"duelo_{info.name.lower()}_v{info.ruleset.version}",
        }
        self.render_mode = render_mode
        self.names = agent_names(self.ruleset.sides)
        self.possible_agents = list(self.names)
        actions = len(self.ruleset.actions)
        space = spaces.Dict(
            {
                "observation": flat_space(self.ruleset.observation_spec),
                "action_mask": spaces.Box(0, 1, shape=(actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.names, space)
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.names}
        self._seeds = np.random.default_rng()
        self.state: Any = None
        self.dice: GeneratorDice | None = None
        self._printed = 0
        """"human": the narration's events printed so far in this duel."""

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.dice = GeneratorDice(int(self._seeds.integers(2**63)))
        self.state = self.ruleset.new_duel(self.dice)
        self._printed = 0
        seat = self.ruleset.to_act(self.state)  # None: over before anyone decides
        names = self.names
        self.agents = list(names)
        self.rewards = dict.fromkeys(names, 0.0)
        self._cumulative_rewards = dict.fromkeys(names, 0.0)
        self.terminations = dict.fromkeys(names, False)
        self.truncations = dict.fromkeys(names, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in names}
        self.agent_selection = names[0 if seat is None else seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.names.index(agent)
        mask = self._mask(seat)
        return {
            "observation": self.ruleset.observe(self.state, seat),
            "action_mask": mask.astype(np.int8),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.names.index(agent)
        self._cumulative_rewards[agent] = 0.0
        number = action_number(action)  # 2.7 or "3" is an error, as in the Gymnasium env
        try:
            check_legal(self.ruleset, self.state, seat, number, self._mask(seat))
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self._end_for_an_illegal_move(agent, str(error))
            return
        if not self._unplayed:
            self.ruleset.apply(self.state, seat, number, self.dice)
        outcome = self.state.result
        if outcome is None:
            self.agent_selection = self.names[self.ruleset.to_act(self.state)]
        else:
            for each, name in enumerate(self.names):
                self.rewards[name] = outcome.reward(self.ruleset.sides[each])
                self.terminations[name] = not outcome.truncated
                self.truncations[name] = outcome.truncated
                winner = DRAW if outcome.winner is None else outcome.winner
                self.infos[name] = {
                    "outcome": outcome.reason,
                    "winner": winner,
                    **self.state.aftermath(),
                }
        self._accumulate_rewards()

    def _end_for_an_illegal_move(self, agent: str, why: str) -> None:
        """PettingZoo classic's rule: the offender loses `illegal_reward`, the other gets
        nothing, and the game is over for both."""
        for name in self.names:
            self.rewards[name] = self.illegal_reward if name == agent else 0.0
            self.terminations[name] = True
            self.infos[name] = {"outcome": why, "winner": DRAW}
        self.infos[agent]["illegal_move"] = True
        self._accumulate_rewards()

    def _mask(self, seat: int) -> np.ndarray:
        """`seat`'s legal actions; `TAKE_RESULT` alone for agent "a" in a duel the rules
        ended before anyone decided."""
        if self._unplayed:
            return take_result_mask(len(self.ruleset.actions), legal=seat == 0)
        return self.ruleset.legal_actions(self.state, seat)

    @property
    def _unplayed(self) -> bool:
        """The rules ended the duel before anyone decided, and its result is not taken yet."""
        ended = any(self.terminations.values()) or any(self.truncations.values())
        return self.state.result is not None and not ended

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        if self.render_mode == "human":  # what happened since the last render
            for event in self.state.log[self._printed :]:
                print(event.text)
            self._printed = len(self.state.log)
            return None
        return "\n".join(event.text for event in self.state.log) + "\n"

    def close(self) -> None:
        """Nothing to release."""


def env(system: str, render_mode: str | None = None, **kwargs: Any) -> AECEnv:
    """The AEC env of `system` (an id of `duelo systems`), guarded by PettingZoo's
    `OrderEnforcingWrapper` (no step before reset); `kwargs` as `DuelAEC` takes them."""
    return wrappers.OrderEnforcingWrapper(DuelAEC(system, render_mode, **kwargs))


def parallel_env(system: str, render_mode: str | None = None, **kwargs: Any) -> ParallelEnv:
    """The same duel as a parallel env: PettingZoo's `turn_based_aec_to_parallel` over
    `env`, each step's actions those of the one agent to act."""
    return turn_based_aec_to_parallel(env(system, render_mode, **kwargs))
