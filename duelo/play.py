"""`duelo play`: a person against an NPC at the terminal.

The duel is narrated as it happens, every die shown. At each of the person's
decisions the observation is written out in words (each key's meaning and its
entries), then the legal actions, numbered; an answer is a number or an action's
name, and `help` or `?` shows them again. A bad answer asks again; the end of the
input, or Ctrl-C, leaves the table. A duel the rolls settle before the person's first
move says so, and which seed to play next.
The NPC sees what it would in a tournament, and forfeits as it would there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.runner import duel_streams, playing
from duelo.envs.core.state import Outcome
from duelo.envs.systems import system as system_of
from duelo.evaluation.tournament import TournamentSpec

MOVE_TIME_LIMIT = TournamentSpec.move_time_limit
"""Seconds the NPC may think per move, as in a tournament; past that it forfeits."""


class LeftTheTable(Exception):
    """The person's input ended before the duel did."""


def play(
    system: str,
    opponent: str,
    seed: int,
    seat: int,
    variant: dict[str, Any],
    answers: TextIO,
    out: TextIO,
) -> Outcome:
    """Play one duel: the person (reading `answers`) at `seat`, `opponent` at the other."""
    ruleset = system_of(system).ruleset(**variant)
    npc = make_policy(opponent, system, variant)
    with playing((npc,)):  # a sandboxed opponent: its process lives for this duel
        return _play(ruleset, npc, seed, seat, answers, out)


def _play(ruleset: Any, npc: Policy, seed: int, seat: int, answers: TextIO, out: TextIO) -> Outcome:
    dice, rngs = duel_streams(seed)
    state = ruleset.new_duel(dice)
    spec = ruleset.observation_spec
    told, decided = 0, False
    lines = iter(answers)
    print(f"You are side {'AB'[seat]}; {npc.name} plays side {'AB'[1 - seat]}.", file=out)
    while (to_act := ruleset.to_act(state)) is not None:
        told = _narrate(state, told, out)
        mask = ruleset.legal_actions(state, to_act)
        flat = ruleset.observe(state, to_act)
        if to_act == seat:
            _describe(spec, flat, out)
            action = _choose(ruleset.actions, mask, lines, out)
            decided = True
        else:
            try:
                action = ask(npc, spec.view(flat), mask, rngs[to_act], MOVE_TIME_LIMIT)
            except PolicyFault as fault:
                state.finish(Outcome(seat, f"{npc.name} forfeits: its policy {fault}"))
                break
        ruleset.apply(state, to_act, action, dice)
    _narrate(state, told, out)
    outcome = state.result
    verdict = (
        "a draw" if outcome.winner is None else "you win" if outcome.winner == seat else "you lose"
    )
    print(f"Result: {verdict} ({outcome.reason})", file=out)
    if not decided:  # the rolls before any choice of the person's settled it
        print(
            f"The duel was over before your first move: the rolls decided it. "
            f"Play another with --seed {seed + 1}.",
            file=out,
        )
    return outcome


def _narrate(state: Any, told: int, out: TextIO) -> int:
    for event in state.log[told:]:
        print(f"  {event.text}", file=out)
    return len(state.log)


def _describe(spec: Any, flat: np.ndarray, out: TextIO) -> None:
    """What the person may see now, key by key, in words: a key of several entries lists
    those that are not 0 (flags and one-hots are mostly 0)."""
    print("What you see:", file=out)
    for key in spec.keys:
        values = flat[spec.slice_of(key.name)]
        if key.fields:
            pairs = zip(key.fields, values, strict=True)
            shown = ", ".join(f"{n} {v:g}" for n, v in pairs if v) or "none"
        else:
            shown = f"{values[0]:g}"
        print(f"  {key.name} ({key.meaning}): {shown}", file=out)


def _choose(actions: Any, mask: np.ndarray, lines: Iterator[str], out: TextIO) -> int:
    """The person's action: its number in the list or its name; asked again until legal."""
    legal = [int(a) for a in np.flatnonzero(mask)]
    _list(actions, legal, out)
    while True:
        print("> ", end="", file=out, flush=True)
        answer = next(lines, None)
        if answer is None:
            raise LeftTheTable
        answer = answer.strip()
        if answer.lower() in ("help", "?"):
            _list(actions, legal, out)
            print("  answer with a number or an action's name", file=out)
            continue
        by_name = {actions(a).name.lower(): a for a in legal}
        chosen = by_name.get(answer.lower())
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            chosen = legal[int(answer) - 1]
        if chosen is not None:
            print(f"you: {actions(chosen).name}", file=out)
            return chosen
        print(f"  {answer!r} is not one of 1..{len(legal)} or a legal action's name", file=out)


def _list(actions: Any, legal: list[int], out: TextIO) -> None:
    print("Your move:", file=out)
    for number, action in enumerate(legal, start=1):
        print(f"  {number}) {actions(action).name}", file=out)
