"""Infierno's NPCs decide in batch (`act_batch`, what `--engine fast` asks) exactly as
they decide row by row, on observations of real play in every scenario."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from duelo.agents.random_policy import RandomPolicy
from duelo.agents.registry import make_policy
from duelo.envs.core.policy import BatchPolicy
from duelo.envs.core.runner import line_up, play_duel
from duelo.envs.infierno.npcs import NPCS, InfiernoRows
from duelo.envs.infierno.observation import OBSERVATION_SPEC
from duelo.envs.infierno.state import Phase
from duelo.envs.systems import SYSTEMS

VARIANTS = [
    *({"scenario": name} for name in SYSTEMS["infierno"].scenarios),
    {"scenario": "ambush", "options": {"crit_choice": "agent"}},
]


def recorded() -> tuple[np.ndarray, np.ndarray]:
    """Every decision's flat observation and mask in duels of each NPC against the others
    and against random, in every scenario (a critical's choice left to the fighter too)."""
    observations, masks = [], []

    def watch(state: Any, seat: int, observation: Any, mask: np.ndarray) -> None:
        observations.append(OBSERVATION_SPEC.flatten(observation))
        masks.append(mask)

    for variant in VARIANTS:
        ruleset = SYSTEMS["infierno"].ruleset(**variant)
        players = [make_policy(name, "infierno", variant) for name in NPCS] + [RandomPolicy()]
        pairs = [(a, b) for a in players for b in players]
        for seed in range(3 * len(pairs)):
            a, b = pairs[seed % len(pairs)]
            play_duel(ruleset, line_up(ruleset, a, b), seed, watch=watch)
    return np.array(observations), np.array(masks)


@pytest.fixture(scope="module")
def decisions() -> tuple[np.ndarray, np.ndarray]:
    return recorded()


def test_the_recorded_play_reaches_every_kind_of_decision(
    decisions: tuple[np.ndarray, np.ndarray],
) -> None:
    """The record holds the honour question and the critical's choice (asked row by row),
    the surprise round, and fighters with and without guns (the two plans of the expert)."""
    rows = InfiernoRows(decisions[0])
    for phase in (Phase.BOTH_MISS_DECISION, Phase.CRIT_CHOICE, Phase.SURPRISE):
        assert rows.phase_is(phase).any(), phase
    assert rows.gunman(0).any() and (~rows.gunman(0)).any()


@pytest.mark.parametrize("name", sorted(NPCS))
def test_a_batch_decides_as_its_rows_do(
    name: str, decisions: tuple[np.ndarray, np.ndarray]
) -> None:
    observations, masks = decisions
    npc = make_policy(name, "infierno")
    assert isinstance(npc, BatchPolicy)
    rng = np.random.default_rng(0)
    rows = [
        npc.act(OBSERVATION_SPEC.view(o), m, rng) for o, m in zip(observations, masks, strict=True)
    ]
    assert npc.act_batch(observations, masks).tolist() == rows
    assert len(set(rows)) >= 6
