"""`SYSTEM:optimal`: the exact solver's moves as a policy that reads observations.

The solver plays from the full state; a policy sees only its observation. The table
here maps every observation a seat can meet (each state, at each round it may be
reached in) to the solver's move there, so the optimal play can sit in any seat of
any tournament, duel or env. Where two states look alike to a seat yet call for
different moves, the observation is not all the seat needs to know; the table keeps
the first and counts the clash (`clashes`), and `duelo solve` reports it.

A duel that hides information is served by the solved models its system names
(`System.solved`): the card duel's `esgrima_duel:optimal` is the faithful duel solved
as the PJ's own problem, and the symmetric one's equilibrium under a stated abstraction
(`duelo.envs.esgrima.card_models`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from duelo.envs.core.policy import Policy
from duelo.envs.core.system import load_part
from duelo.envs.systems import system
from duelo.evaluation.solver import Solution, at_round, enumerate_duel, solve

MAX_STATES = 1_000_000
MAX_SECONDS = 1800.0
"""How far `SYSTEM:optimal` walks a duel before it says the duel is too large."""


class OptimalPolicy:
    """Plays the solver's move for the observation (see the module docstring)."""

    name = "optimal"
    description = "the exact solver's move (small duels of perfect information)"

    def __init__(self, solution: Solution) -> None:
        self.system = solution.graph.ruleset.system
        self.spec = solution.graph.ruleset.observation_spec
        self.moves: dict[bytes, int] = {}
        self.clashes = 0
        g = solution.graph
        ruleset = g.ruleset
        for round_ in range(int(g.first_round.min(initial=1)), g.round_cap + 1):
            best = g.row_action[solution.best_rows(round_)]
            for i in np.flatnonzero(g.first_round <= round_).tolist():
                seat = int(g.seat[i])
                seen = _digest(ruleset.observe(at_round(g.states[i], round_), seat))
                move = int(best[i])
                known = self.moves.setdefault(seen, move)
                self.clashes += known != move

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        flat = getattr(observation, "flat", None)  # a view's, or an array's own
        if flat is None:  # a plain Dict observation: its keys in the spec's order
            flat = np.concatenate([np.ravel(observation[key.name]) for key in self.spec.keys])
        move = self.moves.get(_digest(flat))
        if move is None or not action_mask[move]:
            raise ValueError(
                f"{self.system}:optimal meets an observation its solved duel never reaches "
                "(another scenario or options than the duel it solved?)"
            )
        return move


def _digest(observation: np.ndarray) -> bytes:
    """A 16-byte digest of the observation's float32 bytes: the table's key (a standoff
    has millions of observations, each hundreds of bytes long)."""
    values = np.asarray(observation, dtype=np.float32).tobytes()
    return hashlib.blake2b(values, digest_size=16).digest()


def optimal_policy(system_name: str, variant: dict[str, Any]) -> Policy:
    """The optimal policy of `system_name`'s duel in `variant`, solved once per process."""
    return _solved(system_name, json.dumps(variant, sort_keys=True))


@lru_cache(maxsize=4)
def _solved(system_name: str, variant_json: str) -> Policy:
    record = system(system_name)
    ruleset = record.ruleset(**json.loads(variant_json))
    if record.solved:  # hidden information: solved by the system's own models
        return load_part(record.solved).optimal_policy(ruleset)
    return OptimalPolicy(solve(enumerate_duel(ruleset, MAX_STATES, MAX_SECONDS)))
