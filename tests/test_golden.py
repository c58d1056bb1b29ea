"""Golden playthroughs (STYLE #11, #19): one seeded duel per env id and scenario, written
decision by decision (rolls, legal actions, every observed field, the action, the
narration) and diffed line by line.

A change of rules or of encoding shows here: a rules change bumps the env version, an
encoding change also invalidates the shipped brains. Regenerate with
`DUELO_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from duelo.agents.registry import make_policy
from duelo.envs.core.testing import playthrough
from duelo.registration import SYSTEMS

GOLDEN = Path(__file__).parent / "golden"
SEED = 7
POLICIES = ("expert", "random")
CASES = [
    (name, options, scenario)
    for name, info in SYSTEMS.items()
    for options in info.env_ids.values()
    for scenario in info.scenarios or (None,)
]
"""Each system's scenarios under each of its env ids (a named id fixes options)."""


def _label(case: tuple[str, dict[str, str], str | None]) -> str:
    system, options, scenario = case
    return "_".join([system, *map(str, options.values()), scenario or "duel"])


@pytest.mark.parametrize(("system", "options", "scenario"), CASES, ids=map(_label, CASES))
def test_golden_playthrough(system: str, options: dict[str, str], scenario: str | None) -> None:
    variant: dict[str, object] = {"scenario": scenario} if scenario else {}
    if options:
        variant["options"] = options
    ruleset = SYSTEMS[system].ruleset(**variant)
    policies = tuple(make_policy(name, system, variant) for name in POLICIES)
    env_id = next(i for i, fixed in SYSTEMS[system].env_ids.items() if fixed == options)
    shown = {"scenario": scenario} if scenario else {}
    title = f"{env_id} {shown or 'default'}: A {POLICIES[0]}, B {POLICIES[1]}"
    text = playthrough(ruleset, policies, SEED, title)
    path = GOLDEN / f"{_label((system, options, scenario))}.txt"
    if os.environ.get("DUELO_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text.splitlines() == path.read_text(encoding="utf-8").splitlines()
