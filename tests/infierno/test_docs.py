"""The env docstring's tables agree with the data they describe (STYLE #5)."""

from __future__ import annotations

import re

from duelo.envs.infierno import Action, InfiernoEnv, InfiernoRuleset


def test_action_table_lists_every_action_with_its_id() -> None:
    rows = re.findall(r"^\s*\| (\d+) \| ([A-Z_]+) \|", InfiernoEnv.__doc__, re.MULTILINE)
    assert [(int(i), name) for i, name in rows] == [(a.value, a.name) for a in Action]


def test_observation_table_lists_every_key_with_its_shape() -> None:
    rows = re.findall(r"^\s*\| `(\w+)` \| ([\dx]+) \|", InfiernoEnv.__doc__, re.MULTILINE)
    spec = InfiernoRuleset.observation_spec
    assert rows == [(k.name, "x".join(map(str, k.shape))) for k in spec.keys]
