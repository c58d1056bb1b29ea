"""The generic DuelEnv: errors, penalised no-ops, seats, rewards and rendering."""

from __future__ import annotations

from enum import IntEnum

import gymnasium as gym
import numpy as np
import pytest

import duelo  # noqa: F401
from duelo.agents import RandomPolicy
from duelo.agents.registry import make_policy
from duelo.envs.core.duel_env import DRAW, TAKE_RESULT, DuelEnv
from duelo.envs.core.observation import ObservationSpec, ObsKey
from duelo.envs.core.ruleset import IllegalActionError
from duelo.envs.core.runner import play_duel
from duelo.envs.core.state import DuelState, Outcome
from duelo.envs.infierno import Action
from duelo.envs.infierno.env import InfiernoEnv
from duelo.envs.systems import SYSTEMS


def play_to_end(env: gym.Env, seed: int) -> tuple[float, dict]:
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return reward, info


def test_illegal_action_raises_naming_the_action() -> None:
    env = gym.make("duelo/Infierno-v2", illegal_action="raise")
    _, info = env.reset(seed=0)
    assert not info["action_mask"][Action.CLEAR_JAM]
    with pytest.raises(IllegalActionError, match=r"action 16 \(CLEAR_JAM\) is illegal"):
        env.step(Action.CLEAR_JAM)
    with pytest.raises(IllegalActionError, match="action 99"):
        env.step(99)


def test_penalize_mode_makes_illegal_actions_a_costly_no_op() -> None:
    env = gym.make("duelo/Infierno-v2", illegal_penalty=0.5)  # "penalize" is the default
    observation, _ = env.reset(seed=0)
    after, reward, terminated, truncated, info = env.step(Action.CLEAR_JAM)
    assert reward == -0.5 and not terminated and not truncated and info["illegal_action"]
    assert all(np.array_equal(observation[k], after[k]) for k in observation)


def test_step_after_the_end_and_before_reset_raise() -> None:
    env = gym.make("duelo/Infierno-v2")
    with pytest.raises(RuntimeError, match="before reset"):
        env.unwrapped.step(0)
    play_to_end(env, seed=1)
    with pytest.raises(RuntimeError, match="after the duel ended"):
        env.step(Action.END_TURN)


def test_rewards_follow_the_winner() -> None:
    env = gym.make("duelo/Infierno-v2")
    seen = set()
    for seed in range(30):
        reward, info = play_to_end(env, seed)
        expected = (
            0.0 if info["winner"] == DRAW else (1.0 if info["winner"] == info["seat"] else -1.0)
        )
        assert reward == expected
        seen.add(reward)
    assert seen >= {1.0, -1.0}


def test_learner_seat_fixed_or_drawn() -> None:
    fixed = gym.make("duelo/Infierno-v2", learner_seat=1)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(10)} == {1}
    drawn = gym.make("duelo/Infierno-v2")
    assert {drawn.reset(seed=s)[1]["seat"] for s in range(20)} == {0, 1}
    with pytest.raises(ValueError, match="learner_seat"):
        InfiernoEnv(RandomPolicy(), learner_seat=2)


def test_opponent_must_be_a_policy() -> None:
    with pytest.raises(TypeError, match="opponent must have act"):
        InfiernoEnv(opponent=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown policy 'sharpshooter'"):
        gym.make("duelo/Infierno-v2", opponent="sharpshooter")


def test_variants_are_keyword_arguments() -> None:
    env = gym.make(
        "duelo/Infierno-v2",
        scenario="brawl",
        fighters=("johny", "drunk"),
        options={"round_cap": 3},
    )
    env.reset(seed=0)
    ruleset = env.unwrapped.ruleset
    assert ruleset.scenario.id == "brawl" and ruleset.round_cap == 3
    assert [c.id for c in ruleset.characters] == ["johny", "drunk"]


def test_ansi_render_narrates_every_die() -> None:
    env = gym.make("duelo/Infierno-v2", render_mode="ansi")
    play_to_end(env, seed=2)
    text = env.render()
    assert "Staredown:" in text and "Initiative:" in text and "d20" in text
    assert "Duel over" in text or "round cap" in text
    silent = gym.make("duelo/Infierno-v2")
    silent.reset(seed=2)
    assert silent.render() is None


class FirstMoveWins:
    """A toy ruleset: seat 0 always moves first, and its move ends the duel."""

    system = "toy"
    version = 0
    actions = IntEnum("ToyAction", {"WIN": 0})
    observation_spec = ObservationSpec(
        tuple(ObsKey(name, name, 0, 1) for name in ("initiative", "hp", "range"))
    )
    round_cap = 1
    sides = (0, 1)

    def new_duel(self, dice):  # noqa: ANN001, ANN201
        return DuelState()

    def to_act(self, state):  # noqa: ANN001, ANN201
        return None if state.over else 0

    def legal_actions(self, state, seat):  # noqa: ANN001, ANN201
        return np.array([self.to_act(state) == seat])

    def apply(self, state, seat, action, dice):  # noqa: ANN001, ANN201
        state.finish(Outcome(0, "first move"))

    def observe(self, state, seat):  # noqa: ANN001, ANN201
        return np.zeros(3, np.float32)


def test_a_duel_the_opponent_ends_at_once_is_one_step_the_learner_loses() -> None:
    """Every duel ends at the opponent's first move: each still reaches the learner, as an
    episode of one step that takes the result (a loss), never dealt again (issue 27)."""
    env = DuelEnv(FirstMoveWins(), RandomPolicy(), learner_seat=1)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].tolist() == [True] and "outcome" not in info
        _, reward, terminated, truncated, info = env.step(TAKE_RESULT)
        assert (reward, terminated, truncated) == (-1.0, True, False)
        assert info["outcome"] == "first move" and info["winner"] == 0
    env = DuelEnv(FirstMoveWins(), RandomPolicy(), learner_seat=0)
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [True]


class _Looking(RandomPolicy):
    """The random baseline, but saying it reads its observation."""

    reads_observation = True


def test_no_observation_is_built_for_a_seat_whose_policy_reads_none() -> None:
    """The runner and the env skip `observe` for the random baseline's seats, and the
    fight is the same as when it is handed one."""
    ruleset = SYSTEMS["vampiro_skirmish"].ruleset()
    seen: list[int] = []
    observe = ruleset.observe

    def counting(state: object, seat: int) -> np.ndarray:
        seen.append(seat)
        return observe(state, seat)

    ruleset.observe = counting  # type: ignore[method-assign]
    expert = make_policy("expert", "vampiro_skirmish")
    blind = play_duel(ruleset, (RandomPolicy(), RandomPolicy(), expert, expert), seed=4)
    assert seen and set(seen) <= {2, 3}
    looked = play_duel(ruleset, (_Looking(), _Looking(), expert, expert), seed=4)
    assert {0, 1} <= set(seen)
    assert [e.text for e in blind.state.log] == [e.text for e in looked.state.log]

    env = InfiernoEnv(opponent=RandomPolicy(), learner_seat=0)
    seen.clear()
    observe = env.ruleset.observe
    env.ruleset.observe = counting  # type: ignore[method-assign]
    env.reset(seed=1)
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert set(seen) == {0}
