"""Play one duel between two policies over a ruleset, without Gymnasium.

The CLI's narrated duel and the tournaments run duels through this function.
One integer seed fixes the duel: it is split (numpy SeedSequence) into a dice
stream and one stream per seat, so the dice do not depend on how much
randomness the policies consume, and a duel replays exactly from its seed.

A policy asked through `referee.ask` gets a copy of the mask and its seat's own
generator; one that raises, exits, returns an illegal action or exceeds the
per-move time limit forfeits the duel, and the outcome says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.policy import Policy
from duelo.envs.core.record import Outcome
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.ruleset import Ruleset


@dataclass(frozen=True)
class DuelResult:
    outcome: Outcome
    decisions: int
    state: Any
    forfeit: int | None = None
    """The seat that forfeited, if one did."""


def duel_streams(
    seed: int,
) -> tuple[GeneratorDice, tuple[np.random.Generator, np.random.Generator]]:
    """The dice and the two seats' generators of the duel with this seed.

    They are the three children that `SeedSequence(seed).spawn(3)` would give,
    made directly (spawn keys 0, 1, 2) without first building their parent.
    """
    dice, seat0, seat1 = (np.random.SeedSequence(seed, spawn_key=(i,)) for i in range(3))
    return (
        GeneratorDice(dice),
        (np.random.default_rng(seat0), np.random.default_rng(seat1)),
    )


Watch = Callable[[Any, int, Mapping[str, np.ndarray], np.ndarray], None]
"""Called before each decision with the state, the seat, its observation and its mask."""


def play_duel(
    ruleset: Ruleset[Any],
    policies: tuple[Policy, Policy],
    seed: int,
    move_time_limit: float | None = None,
    watch: Watch | None = None,
) -> DuelResult:
    """Play a whole duel; `policies[s]` plays seat s; `watch` sees each decision coming."""
    dice, rngs = duel_streams(seed)
    state = ruleset.new_duel(dice)
    decisions = 0
    while (seat := ruleset.to_act(state)) is not None:
        mask = ruleset.legal_actions(state, seat)
        observation = ruleset.observation_spec.view(ruleset.observe(state, seat))
        if watch is not None:
            watch(state, seat, observation, mask.copy())
        try:
            action = ask(policies[seat], observation, mask, rngs[seat], move_time_limit)
        except PolicyFault as fault:  # a broken policy loses the duel, not the tournament
            return _forfeit(state, decisions, seat, str(fault))
        ruleset.apply(state, seat, action, dice)
        decisions += 1
    outcome = state.result
    if outcome is None:  # to_act and outcome disagree: a ruleset bug, not bad input
        raise RuntimeError(f"{ruleset.system}: nobody is to act but the duel has no outcome")
    return DuelResult(outcome, decisions, state)


def forfeit_reason(seat: int, why: str) -> str:
    """The outcome's reason when `seat`'s policy faults (`why`: the referee's words)."""
    return f"side {'AB'[seat]} forfeits: its policy {why}"


def _forfeit(state: Any, decisions: int, seat: int, why: str) -> DuelResult:
    outcome = Outcome(1 - seat, forfeit_reason(seat, why))
    state.finish(outcome)
    return DuelResult(outcome, decisions, state, forfeit=seat)
