"""Each env docstring's tables agree with the data they describe (STYLE #5)."""

from __future__ import annotations

import re

import pytest

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.systems import SYSTEMS

ENVS = [(system.env, system.ruleset) for system in SYSTEMS.values()]


@pytest.mark.parametrize(("env", "ruleset"), ENVS)
def test_action_table_lists_every_action_with_its_id(env: type[DuelEnv], ruleset: type) -> None:
    rows = re.findall(r"^\s*\| (\d+) \| ([A-Z_0-9]+) \|", env.__doc__, re.MULTILINE)
    assert [(int(i), name) for i, name in rows] == [(a.value, a.name) for a in ruleset.actions]


@pytest.mark.parametrize(("env", "ruleset"), ENVS)
def test_observation_table_lists_every_key_with_its_shape(
    env: type[DuelEnv], ruleset: type
) -> None:
    rows = re.findall(r"^\s*\| `(\w+)` \| ([\dx]+) \|", env.__doc__, re.MULTILINE)
    spec = ruleset.observation_spec
    assert rows == [(k.name, "x".join(map(str, k.shape))) for k in spec.keys]
