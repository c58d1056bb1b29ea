"""Adding a system is one folder and one line: a toy system, written to a temporary
folder and put in the one list of system packages, gets its env id, its line in
`duelo systems`, the conformance checks, the PettingZoo env, its NPCs by name and a
tournament, with no generic module edited (docs/developing.md, "Adding a combat system")."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from duelo.agents.registry import make_policy, policy_names, scripted
from duelo.cli import main
from duelo.envs import systems
from duelo.envs.core.testing import check_ruleset
from duelo.registration import register_envs

TOY = {
    "rules.py": '''
        """A toy duel: each seat strikes (a d6 of 4 or more takes a point) or rests."""

        from dataclasses import dataclass
        from enum import IntEnum

        import numpy as np

        from duelo.envs.core.observation import ObsKey, ObservationSpec
        from duelo.envs.core.state import DuelState, Outcome

        class Action(IntEnum):
            STRIKE = 0
            REST = 1

        @dataclass(frozen=True)
        class ToyOptions:
            round_cap: int = 30

        @dataclass(kw_only=True)
        class ToyState(DuelState):
            hp: list[int]
            turn: int = 0

        SPEC = ObservationSpec((
            ObsKey("initiative", "who acts now", 0, 1, (2,), ("self", "opponent")),
            ObsKey("hp", "points left", 0, 3, (2,), ("self", "opponent")),
            ObsKey("range", "always in reach", 0, 1),
        ))

        class ToyRuleset:
            system = "toy"
            version = 0
            actions = Action
            action_meanings = {Action.STRIKE: "strike: a d6 of 4+ hurts", Action.REST: "rest"}
            observation_spec = SPEC
            sides = (0, 1)
            perfect_information = True

            def __init__(self, scenario="plain", options=None):
                if scenario != "plain":
                    raise ValueError(f"unknown scenario {scenario!r}")
                self.options = ToyOptions(**(options or {}))
                self.round_cap = self.options.round_cap

            def new_duel(self, dice):
                state = ToyState(hp=[3, 3])
                state.start_round(self.round_cap)
                return state

            def to_act(self, state):
                return None if state.over else state.turn

            def legal_actions(self, state, seat):
                mask = np.zeros(len(Action), dtype=bool)
                if not state.over and seat == state.turn:
                    mask[Action.STRIKE] = True
                    mask[Action.REST] = state.hp[seat] < 3
                return mask

            def apply(self, state, seat, action, dice):
                rival = 1 - seat
                if action == Action.STRIKE and dice.roll(6, "strike") >= 4:
                    state.hp[rival] -= 1
                    state.say(seat, "hits")
                elif action == Action.REST:
                    state.hp[seat] += 1
                if state.hp[rival] == 0:
                    state.finish(Outcome(seat, "down"))
                    return
                state.turn = rival
                if state.turn == 0:
                    state.start_round(self.round_cap)

            def observe(self, state, seat):
                rival = 1 - seat
                turn = [float(state.turn == seat), float(state.turn == rival)]
                return SPEC.pack([*turn, state.hp[seat], state.hp[rival], 0])
    ''',
    "env.py": '''
        """The toy duel as a Gymnasium env."""

        from duelo.envs.core.duel_env import DuelEnv
        from toy.rules import ToyRuleset

        class ToyEnv(DuelEnv):
            """A toy duel (docs/developing.md, "Adding a combat system", tested)."""

            def __init__(self, opponent, scenario="plain", options=None, **env_options):
                super().__init__(ToyRuleset(scenario, options), opponent, **env_options)
    ''',
    "npcs.py": '''
        """The toy's one NPC: strikes whenever it may."""

        class Striker:
            name = "striker"
            description = "always strikes"

            def act(self, observation, action_mask, rng):
                return 0

        NPCS = {"striker": Striker}
    ''',
    "system.py": '''
        """The toy's entry in the house."""

        from duelo.envs.core.system import System
        from toy.env import ToyEnv
        from toy.rules import ToyOptions, ToyRuleset

        SYSTEMS = (
            System(
                id="toy",
                game="a toy duel",
                name="Toy",
                ruleset=ToyRuleset,
                env=ToyEnv,
                options=ToyOptions,
                npcs="toy.npcs:NPCS",
                scenario_ids=lambda: ("plain",),
            ),
        )
    ''',
}


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy package written out, and its line added to `SYSTEM_PACKAGES`."""
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text('"""A toy system."""\n', encoding="utf-8")
    for name, text in TOY.items():
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    packages = (*systems.SYSTEM_PACKAGES, "toy")  # the one line
    for key, record in systems.discover(packages).items():
        monkeypatch.setitem(systems.SYSTEMS, key, record)
    register_envs()
    yield
    gym.registry.pop("duelo/Toy-v0", None)
    scripted.cache_clear()
    for name in [m for m in sys.modules if m == "toy" or m.startswith("toy.")]:
        del sys.modules[name]


@pytest.mark.usefixtures("toy")
def test_a_toy_system_gets_its_env_id_and_passes_the_checks() -> None:
    from toy.rules import ToyRuleset

    assert check_ruleset(lambda: ToyRuleset()) > 0
    env = gym.make("duelo/Toy-v0", opponent="toy:striker")
    check_env(env.unwrapped)
    _, info = env.reset(seed=1)
    assert info["action_mask"].dtype == bool


@pytest.mark.usefixtures("toy")
def test_a_toy_system_is_listed_and_its_npcs_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert policy_names("toy") == ["toy:random", "toy:striker"]
    assert make_policy("striker", "toy").name == "striker"
    assert main(["systems", "--json"]) == 0
    listed = {entry["id"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert listed["toy"]["env_ids"] == ["duelo/Toy-v0"]
    assert listed["toy"]["scenarios"] == ["plain"]


@pytest.mark.usefixtures("toy")
def test_a_toy_system_plays_in_pettingzoo() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from duelo.envs import pettingzoo as duelo_pz

    api_test(duelo_pz.env("toy"), num_cycles=50)


@pytest.mark.usefixtures("toy")
def test_a_toy_system_plays_a_tournament(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = main(
        [
            "tournament", "--system", "toy", "--policies", "random", "striker",
            "--duels", "40", "--seed", "0", "--workers", "1", "--out", str(out), "--quiet",
        ]
    )  # fmt: skip
    assert code == 0
    rows = (out / "pairings.csv").read_text(encoding="utf-8").splitlines()
    assert rows[1].startswith("toy,toy:random,toy:striker,")
    lines = [json.loads(line) for line in (out / "toy" / "results.jsonl").open()]
    assert len(lines) == 40 and {line["system"] for line in lines} == {"toy"}
    assert all(line["decisions"] > 0 and line["forfeit"] is None for line in lines)
