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
    (name, scenario) for name, info in SYSTEMS.items() for scenario in info.scenarios or (None,)
]


@pytest.mark.parametrize(("system", "scenario"), CASES)
def test_golden_playthrough(system: str, scenario: str | None) -> None:
    variant = {"scenario": scenario} if scenario else {}
    ruleset = SYSTEMS[system].ruleset(**variant)
    policies = tuple(make_policy(name, system) for name in POLICIES)
    title = f"{SYSTEMS[system].env_id} {variant or 'default'}: A {POLICIES[0]}, B {POLICIES[1]}"
    text = playthrough(ruleset, policies, SEED, title)
    path = GOLDEN / f"{system}_{scenario or 'duel'}.txt"
    if os.environ.get("DUELO_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text.splitlines() == path.read_text(encoding="utf-8").splitlines()
