"""PettingZoo: every system's AEC env passes PettingZoo's own API, seed and render
tests, and its parallel env (`turn_based_aec_to_parallel`) the parallel API test; an
illegal move ends the game as PettingZoo classic's do."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import (  # noqa: E402
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from duelo.envs import pettingzoo as duelo_pz  # noqa: E402
from duelo.envs.core.duel_env import TAKE_RESULT  # noqa: E402
from duelo.envs.core.ruleset import IllegalActionError  # noqa: E402
from duelo.envs.core.state import Outcome  # noqa: E402
from duelo.envs.systems import SYSTEMS  # noqa: E402

VARIANTS = [(name, {}) for name in SYSTEMS] + [
    ("esgrima_duel", {"options": {"duel_variant": "faithful"}}),
    ("dunwich", {"scenario": "crossfire"}),
    ("vampiro", {"fighters": ("brujah", "brujah"), "options": {"fixed_initiative": True}}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(VARIANTS)]


# The agent names ("a", "b") and PettingZoo classic's observation, a Dict of the
# vector and its mask, are what api_test only advises against.
ADVICE = [
    "ignore:We recommend agents to be named:UserWarning",
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]


@pytest.mark.parametrize(("system", "variant"), VARIANTS, ids=IDS)
@pytest.mark.filterwarnings(*ADVICE)
def test_api_test(system: str, variant: dict) -> None:
    api_test(duelo_pz.env(system, **variant), num_cycles=300)


@pytest.mark.parametrize(("system", "variant"), VARIANTS, ids=IDS)
def test_seed_test(system: str, variant: dict) -> None:
    seed_test(lambda: duelo_pz.env(system, **variant), num_cycles=300)


@pytest.mark.parametrize(("system", "variant"), VARIANTS, ids=IDS)
@pytest.mark.filterwarnings(*ADVICE)
def test_parallel_api_and_seed_tests(system: str, variant: dict) -> None:
    parallel_api_test(duelo_pz.parallel_env(system, **variant), num_cycles=300)
    parallel_seed_test(lambda: duelo_pz.parallel_env(system, **variant), num_cycles=300)


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_render_test(system: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode: duelo_pz.env(system, render_mode=render_mode))
    assert capsys.readouterr().out  # "human" printed the narration


def test_an_illegal_move_ends_the_game_against_the_offender() -> None:
    env = duelo_pz.env("infierno")
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    other = next(agent for agent in env.possible_agents if agent != offender)
    assert env.rewards == {offender: -1.0, other: 0.0}
    assert all(env.terminations.values())
    assert env.infos[offender]["illegal_move"] and "illegal" in env.infos[offender]["outcome"]
    for _ in env.agent_iter():  # each agent is told, then the game is over
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_a_whole_duel_is_zero_sum_and_narrated(system: str) -> None:
    env = duelo_pz.env(system, render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            assert "outcome" in info
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    sides = {name[0]: [t for agent, t in totals.items() if agent[0] == name[0]] for name in totals}
    assert all(len(set(each)) == 1 for each in sides.values())  # a side shares its reward
    assert sides["a"][0] + sides["b"][0] == 0  # zero-sum between the sides
    assert "Duel over" in env.render()


def test_the_final_infos_hold_the_aftermath() -> None:
    """A digest's post-fight statistics (`DuelState.aftermath`) reach both agents."""
    env = duelo_pz.env("liminal_mob")
    env.reset(seed=3)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert {"members_downed", "members_saved"} <= set(info), agent
            env.step(None)
            continue
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))


def test_an_illegal_action_is_named_when_asked_to_raise() -> None:
    env = duelo_pz.env("infierno", illegal_action="raise")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} "):
        env.step(illegal)


def test_unknown_systems_and_render_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown system 'chess'"):
        duelo_pz.env("chess")
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'human'"):
        duelo_pz.env("dunwich", render_mode="rgb_array")
    with pytest.raises(ValueError, match="illegal_action must be 'terminate' or 'raise'"):
        duelo_pz.env("dunwich", illegal_action="ignore")


def test_a_non_integer_action_is_refused() -> None:
    env = duelo_pz.env("liminal")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="an action is an integer"):
        env.step(2.7)


def test_a_duel_the_rules_end_at_once_is_one_step_that_takes_its_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No shipped setup ends before anyone decides, so the rules are made to: agent "a"
    gets `TAKE_RESULT` alone, and taking it ends the duel with its result for both."""
    aec = duelo_pz.DuelAEC("infierno")
    deal = aec.ruleset.new_duel

    def over_at_once(dice):  # noqa: ANN001, ANN202
        state = deal(dice)
        state.finish(Outcome(1, "side B wins at once"))
        return state

    monkeypatch.setattr(aec.ruleset, "new_duel", over_at_once)
    aec.reset(seed=0)
    assert aec.agent_selection == "a"
    mask = aec.observe("a")["action_mask"]
    assert (
        np.flatnonzero(mask).tolist() == [TAKE_RESULT] and not aec.observe("b")["action_mask"].any()
    )
    aec.step(TAKE_RESULT)
    assert aec.rewards == {"a": -1.0, "b": 1.0} and all(aec.terminations.values())
    assert aec.infos["a"]["outcome"] == "side B wins at once"


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_the_supersuit_and_stable_baselines3_tutorial_path(system: str) -> None:
    """PettingZoo's SB3 tutorial as its users run it: the parallel env through SuperSuit's
    vector-env conversions into PPO, which ignores the masks, so its illegal moves end
    games the classic way (the offender penalised) instead of raising."""
    supersuit = pytest.importorskip("supersuit")
    stable_baselines3 = pytest.importorskip("stable_baselines3")
    envs = supersuit.pettingzoo_env_to_vec_env_v1(duelo_pz.parallel_env(system))
    envs = supersuit.concat_vec_envs_v1(envs, 2, num_cpus=1, base_class="stable_baselines3")
    model = stable_baselines3.PPO("MultiInputPolicy", envs, n_steps=32, batch_size=32)
    model.learn(128)
    assert model.num_timesteps >= 128
    envs.close()


def test_human_render_prints_each_event_once(capsys: pytest.CaptureFixture[str]) -> None:
    """A "human" render after every step narrates the duel once through, not the whole
    log again at each step."""
    env = duelo_pz.env("infierno", "human")
    env.reset(seed=3)
    for agent in env.agent_iter():
        *_, terminated, truncated, _ = env.last()
        mask = env.observe(agent)["action_mask"]
        env.step(None if terminated or truncated else int(np.flatnonzero(mask)[0]))
        env.render()
    log = env.unwrapped.state.log
    assert len(log) > 10
    assert capsys.readouterr().out == "".join(f"{event.text}\n" for event in log)
