"""`duelo play`: a person against an NPC at the terminal.

The screen names the person's fighter and the NPC's, narrates the duel as it happens
(every die shown), and at each of the person's decisions shows a status line (round,
both sides' HP, range, initiative, the cards in hand where the system has them) and
the legal actions, numbered and said in words (the ruleset's `action_meanings`). An
answer is a number or an action's name; `help` or `?` shows the moves again and
what may be typed, `look` all the observation in words. A bad answer asks again; the
end of the input, or Ctrl-C, leaves the table. Colours where the output is a terminal
that takes them (not with NO_COLOR set, nor TERM=dumb).

Without a seed the table deals the first duel, from seed 0 on, in which the person
gets a decision (in some systems' duels the rolls and the NPC can settle it before);
a duel settled before the person's first move says who won it and how. After each
duel the table offers a rematch on the next such seed.
The NPC sees what it would in a tournament, and forfeits as it would there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from duelo.agents.registry import make_policy
from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.runner import duel_streams, forfeit_reason, move, playing
from duelo.envs.core.state import Outcome
from duelo.envs.systems import system as system_of
from duelo.evaluation.tournament import TournamentSpec

MOVE_TIME_LIMIT = TournamentSpec.move_time_limit
"""Seconds the NPC may think per move, as in a tournament; past that it forfeits."""
SEEDS_TRIED = 100
"""Seeds the table looks through for a duel where the person gets a move."""
CARD_GROUPS = ("hand", "revealed")
"""Observation fields (`hand.<card>` counts, the `revealed.<card>` one-hot) shown in
the status line, where a system has cards."""


class LeftTheTable(Exception):
    """The person's input ended before the duel did."""


class _YourMove(Exception):
    """A looked-ahead duel reached the person's first decision."""


Chooser = Callable[[Any, int, np.ndarray, np.ndarray], int]
"""The person's decision in a state for a seat, given the mask and the flat observation."""


def _your_move_reached(state: Any, seat: int, mask: np.ndarray, flat: np.ndarray) -> int:
    raise _YourMove


@dataclass(frozen=True)
class Style:
    """ANSI colours on a terminal that takes them; plain text elsewhere."""

    on: bool

    @classmethod
    def of(cls, out: TextIO) -> Style:
        tty = getattr(out, "isatty", lambda: False)()
        dumb = os.environ.get("TERM") == "dumb" or "NO_COLOR" in os.environ
        return cls(on=bool(tty) and not dumb)

    def _paint(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.on else text

    def bold(self, text: str) -> str:
        return self._paint("1", text)

    def you(self, text: str) -> str:
        return self._paint("32", text)

    def them(self, text: str) -> str:
        return self._paint("31", text)

    def dim(self, text: str) -> str:
        return self._paint("2", text)


def play(
    system: str,
    opponent: str,
    seed: int | None,
    seats: tuple[int, ...],
    variant: dict[str, Any],
    answers: TextIO,
    out: TextIO,
) -> Outcome:
    """Duels of the person (reading `answers`) at `seats` (one seat, or every fighter of
    a skirmish side) against `opponent`, the first on `seed` (None: the first seed where
    the person gets a move), then rematches while the person wants them; the last duel's
    outcome."""
    ruleset = system_of(system).ruleset(**variant)
    npc = make_policy(opponent, system, variant)
    table = Table(ruleset, npc, seats, iter(answers), out, Style.of(out))
    if seed is None:
        seed = table.first_seed_you_act(0)
        print(table.style.dim(f"seed {seed} (--seed N deals another duel)"), file=out)
    while True:
        outcome = table.duel(seed)
        seed = table.first_seed_you_act(seed + 1)
        if not table.wants_rematch(seed):
            return outcome


class Table:
    """One person and one NPC, seated for as many duels as the person plays. The person
    plays one seat, or every fighter of a skirmish side (and so knows what each of them
    chose, as one mind would)."""

    def __init__(
        self,
        ruleset: Any,
        npc: Policy,
        seats: tuple[int, ...],
        lines: Iterator[str],
        out: TextIO,
        style: Style,
    ) -> None:
        self.ruleset = ruleset
        self.npc = npc
        self.seats = seats
        self.lines = lines
        self.out = out
        self.style = style
        self.names = names = [c.name for c in ruleset.characters]
        self.side = ruleset.sides[seats[0]]
        assert all(ruleset.sides[s] == self.side for s in seats), "one side's fighters"
        self.yours = ", ".join(names[s] for s in seats)
        self.allies = ", ".join(
            n for s, n in enumerate(names) if ruleset.sides[s] == self.side and s not in seats
        )
        self.theirs = ", ".join(n for s, n in enumerate(names) if ruleset.sides[s] != self.side)

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def first_seed_you_act(self, start: int) -> int:
        """The first seed from `start` whose duel reaches a decision of the person's
        (the NPC choosing as it will in the duel itself); `start` if none of
        `SEEDS_TRIED` does."""
        for seed in range(start, start + SEEDS_TRIED):
            try:
                with playing((self.npc,)):
                    self._run(seed, _your_move_reached, narrate=False)
            except _YourMove:
                return seed
        return start

    def duel(self, seed: int) -> Outcome:
        """One duel on `seed`, narrated; its outcome."""
        style, side = self.style, "AB"[self.side]
        allies = f" beside {self.allies} (played by {self.npc.name})" if self.allies else ""
        self.say(
            style.bold(f"You play {style.you(self.yours)} (side {side}){allies} against ")
            + style.bold(f"{style.them(self.theirs)}, played by {self.npc.name}.")
        )
        decided = False

        def choose(state: Any, seat: int, mask: np.ndarray, flat: np.ndarray) -> int:
            nonlocal decided
            decided = True
            if len(self.seats) > 1:
                self.say(style.bold(f"{style.you(self.names[seat])} decides:"))
            self.say(self._status(state, flat))
            return self._choose(mask, flat)

        with playing((self.npc,)):  # a sandboxed opponent: its process lives for this duel
            outcome = self._run(seed, choose, narrate=True)
        if outcome.winner is None:
            verdict = "a draw"
        else:
            verdict = (
                style.you("you win") if outcome.winner == self.side else style.them("you lose")
            )
        self.say(style.bold(f"Result: {verdict} ({outcome.reason})"))
        if not decided:  # the rolls (and the NPC) settled it before any choice of the person's
            won = "nobody" if outcome.winner is None else self._name(outcome.winner)
            self.say(
                f"The duel was over before your first move: {won} won it before you could act."
            )
        return outcome

    def wants_rematch(self, seed: int) -> bool:
        self.say(f"Rematch? (y: a new duel on --seed {seed}; anything else leaves)")
        answer = next(self.lines, None)
        return answer is not None and answer.strip().lower() in ("y", "yes")

    def _name(self, side: int) -> str:
        """Who won, as the side the person is on or not."""
        if side != self.side:
            return f"{self.theirs}, the NPC"
        return f"you ({self.yours})" + (f" and {self.allies}" if self.allies else "")

    def _run(self, seed: int, choose: Chooser, narrate: bool) -> Outcome:
        """The duel on `seed`: the person's decisions from `choose`, the NPC's asked as a
        tournament asks them (a fault forfeits)."""
        ruleset = self.ruleset
        dice, rngs = duel_streams(seed, len(ruleset.sides))
        state = ruleset.new_duel(dice)
        spec = ruleset.observation_spec
        told: set[int] = set()
        while (to_act := ruleset.to_act(state)) is not None:
            if narrate:
                self._narrate(state, told)
            mask = ruleset.legal_actions(state, to_act)
            flat = ruleset.observe(state, to_act)
            if to_act in self.seats:
                action = choose(state, to_act, mask, flat)
            else:
                try:
                    action = ask(self.npc, spec.view(flat), mask, rngs[to_act], MOVE_TIME_LIMIT)
                except PolicyFault as fault:  # as in a tournament
                    side = ruleset.sides[to_act]
                    state.finish(Outcome(1 - side, forfeit_reason(side, str(fault))))
                    break
            move(ruleset, state, to_act, action, dice)
        if narrate:
            self._narrate(state, told)
        result: Outcome = state.result
        return result

    def _narrate(self, state: Any, told: set[int]) -> None:
        """The lines not told yet that the person may read now: a line sealed from its
        seats (a declaration made after its own, say) waits for the end of its round
        (`Event.seen_by`)."""
        for number, event in enumerate(state.log):
            if number not in told and event.seen_by(self.seats, state):
                self.say(f"  {event.text}")
                told.add(number)

    def _status(self, state: Any, flat: np.ndarray) -> str:
        """One line: the round, both sides' HP, range, initiative, cards in hand."""
        spec, style = self.ruleset.observation_spec, self.style

        def value(name: str) -> np.ndarray:
            return flat[spec.slice_of(name)]

        hp, hp_max, initiative = value("hp"), value("hp_max"), value("initiative")
        if len(hp) > 2:  # a skirmish: a slot a fighter, self first (`present` says who is)
            parts = [f"round {state.round}", *self._slots(flat)]
        else:
            parts = [
                f"round {state.round}",
                style.you(f"you {hp[0]:g}/{hp_max[0]:g} HP"),
                style.them(f"{self.theirs} {hp[1]:g}/{hp_max[1]:g} HP"),
                f"range {value('range')[0]:g}",
                f"initiative {initiative[0]:g} to {initiative[1]:g}",
            ]
        fields = [
            (field.split(".", 1), v)
            for key in spec.keys
            if key.fields
            for field, v in zip(key.fields, value(key.name), strict=True)
            if "." in field
        ]
        for group in CARD_GROUPS:
            cards = [(card, v) for (prefix, card), v in fields if prefix == group and v]
            if cards:
                parts.append(
                    f"{group}: "
                    + ", ".join(f"{c}" + (f" x{v:g}" if v > 1 else "") for c, v in cards)
                )
        return style.bold("-- ") + " | ".join(parts)

    def _slots(self, flat: np.ndarray) -> list[str]:
        """A skirmish's fighters as the person's observation rows them: each present
        slot's HP and range, allies in the person's colour, enemies in the NPC's."""
        spec, style = self.ruleset.observation_spec, self.style
        key = next(k for k in spec.keys if k.name == "hp")
        rows = []
        for row, slot in enumerate(key.fields):
            if not flat[spec.index("present", slot)]:
                continue
            hp, top = flat[spec.index("hp", slot)], flat[spec.index("hp_max", slot)]
            where = "" if row == 0 else f" at {flat[spec.index('range', slot)]:g}"
            text = f"{'you' if row == 0 else slot} {hp:g}/{top:g} HP{where}"
            rows.append(style.them(text) if slot.startswith("enemy") else style.you(text))
        return rows

    def _describe(self, flat: np.ndarray) -> None:
        """All the person may see now, key by key, in words: a key of several entries
        lists those that are not 0 (flags and one-hots are mostly 0)."""
        spec = self.ruleset.observation_spec
        self.say("What you see:")
        for key in spec.keys:
            values = flat[spec.slice_of(key.name)]
            if key.fields:
                pairs = zip(key.fields, values, strict=True)
                shown = ", ".join(f"{n} {v:g}" for n, v in pairs if v) or "none"
            else:
                shown = f"{values[0]:g}"
            self.say(f"  {key.name} ({key.meaning}): {shown}")

    def _choose(self, mask: np.ndarray, flat: np.ndarray) -> int:
        """The person's action: its number in the list or its name; asked again until legal."""
        actions = self.ruleset.actions
        legal = [int(a) for a in np.flatnonzero(mask)]
        self._legend(legal)
        while True:
            print("> ", end="", file=self.out, flush=True)
            answer = next(self.lines, None)
            if answer is None:
                raise LeftTheTable
            answer = answer.strip()
            if answer.lower() in ("help", "?"):
                self._legend(legal)
                self.say("  answer with a number or an action's name; look: all you see")
                continue
            if answer.lower() == "look":
                self._describe(flat)
                continue
            by_name = {actions(a).name.lower(): a for a in legal}
            chosen = by_name.get(answer.lower())
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                chosen = legal[int(answer) - 1]
            if chosen is not None:
                self.say(self.style.you(f"you: {actions(chosen).name}"))
                return chosen
            self.say(f"  {answer!r} is not one of 1..{len(legal)} or a legal action's name")

    def _legend(self, legal: list[int]) -> None:
        actions, meanings = self.ruleset.actions, self.ruleset.action_meanings
        self.say("Your move (? for help):")
        width = max(len(actions(a).name) for a in legal)
        for number, action in enumerate(legal, start=1):
            name = actions(action).name
            self.say(f"  {number:>2}) {name:<{width}}  {self.style.dim(meanings[action])}")
