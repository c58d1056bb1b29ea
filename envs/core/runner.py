"""Play one duel between two policies over a ruleset, without Gymnasium.

The CLI's narrated duel and the tournaments run duels through this function:
one injected generator drives both the dice and the policies, so a seed
replays a duel exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.policy import Policy
from duelo.envs.core.ruleset import Outcome, Ruleset, check_legal


@dataclass(frozen=True)
class DuelResult:
    outcome: Outcome
    decisions: int
    state: Any


def play_duel(
    ruleset: Ruleset[Any], policies: tuple[Policy, Policy], rng: np.random.Generator
) -> DuelResult:
    """Play a whole duel; `policies[s]` plays seat s."""
    dice = GeneratorDice(rng)
    state = ruleset.new_duel(dice)
    decisions = 0
    while (seat := ruleset.to_act(state)) is not None:
        mask = ruleset.legal_actions(state, seat)
        action = int(policies[seat].act(ruleset.observe(state, seat), mask, rng))
        check_legal(ruleset, state, seat, action)
        ruleset.apply(state, seat, action, dice)
        decisions += 1
    outcome = ruleset.outcome(state)
    if outcome is None:  # to_act and outcome disagree: a ruleset bug, not bad input
        raise RuntimeError(f"{ruleset.system}: nobody is to act but the duel has no outcome")
    return DuelResult(outcome, decisions, state)
