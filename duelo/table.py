"""The browser table's fights (`duelo serve`, page `/table`): a duel or a skirmish
recorded decision by decision, a tournament duel replayed from its record, and a
fight a person plays one decision at a time.

Everything the page shows is read from the system's declarations: the fighters are
seats named by side ("A", "B"; "A0", "A1"... in a skirmish); what each fighter is, is
the part of its own observation about itself (the entries named "self" or "self.*",
`SELF_FIELDS`); the choices are the action enum and its meanings; the dice are the
rolls the rules made, each with its purpose; the why is the policy's `explain`. No
code here knows a system.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from duelo.agents.brain import NumpyBrain, check_fits
from duelo.agents.registry import is_imported
from duelo.envs.core.observation import ObservationSpec
from duelo.envs.core.policy import Policy
from duelo.envs.core.referee import PolicyFault, ask
from duelo.envs.core.ruleset import Ruleset, check_legal
from duelo.envs.core.runner import (
    DiceKind,
    duel_streams,
    forfeit_reason,
    line_up,
    move,
    play_duel,
)
from duelo.envs.core.state import Outcome
from duelo.evaluation.duels import duel_policy
from duelo.evaluation.report import Report, build_report, render
from duelo.evaluation.tournament import (
    RESULTS_FILE,
    SPEC_FILE,
    TournamentSpec,
    checked_records,
    read_records,
)

MOVE_TIME_LIMIT = 1.0
"""Seconds an NPC of the table may think per move, as in a tournament."""
MAX_SESSIONS = 32
"""Fights being played at once; the oldest is dropped past this."""


def seat_labels(sides: tuple[int, ...]) -> list[str]:
    """Each seat's name on the page: "A" and "B" in a duel, "A0", "A1"... in a skirmish."""
    if len(sides) == 2:
        return ["A", "B"]
    return [f"{'AB'[side]}{sides[:seat].count(side)}" for seat, side in enumerate(sides)]


def self_fields(spec: ObservationSpec) -> list[tuple[str, str | None, str]]:
    """The entries of an observation that describe the observer itself, with a label:
    a key's "self" field (labelled by the key), its "self.x" fields ("key x"), and every
    key of a single entry (the turn, a duel's range), as the observer sees them."""
    out: list[tuple[str, str | None, str]] = []
    for key in spec.keys:
        if not key.fields:
            out.append((key.name, None, key.name))
            continue
        for name in key.fields:
            if name == "self":
                out.append((key.name, name, key.name))
            elif name.startswith("self."):
                out.append((key.name, name, f"{key.name} {name.removeprefix('self.')}"))
    return out


def _values(
    spec: ObservationSpec, flat: np.ndarray, fields: list[tuple[str, str | None, str]]
) -> list[float]:
    return [round(float(flat[spec.index(key, name)]), 3) for key, name, _ in fields]


class _Recording:
    """A policy whose every answer is noted (the page shows what each chose)."""

    def __init__(self, policy: Policy, chosen: list[int]) -> None:
        self.policy, self.chosen = policy, chosen
        self.name, self.description = policy.name, policy.description

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        answer = self.policy.act(observation, action_mask, rng)
        self.chosen.append(int(answer))
        return answer


def record_fight(
    ruleset: Ruleset[Any], policies: tuple[Policy, ...], seed: int, dice: DiceKind = "keyed"
) -> dict[str, Any]:
    """A whole fight as the page steps through it: the opening (its narration and
    rolls), then a frame a decision (every fighter's view of itself before it, who
    decides, what it chose, its why, then the rolls and narration that followed), and
    the end. It is the fight `play_duel` plays with these policies, seed and dice."""
    spec = ruleset.observation_spec
    fields = self_fields(spec)
    chosen: list[int] = []
    seated = tuple(_Recording(p, chosen) for p in policies)
    rolls: list[tuple[int, str, int]] = []
    frames: list[dict[str, Any]] = []
    told = [0, 0]  # events and rolls already given to a frame
    opening: dict[str, Any] = {}

    def fighters(state: Any) -> list[list[float]]:
        return [_values(spec, ruleset.observe(state, s), fields) for s in range(len(policies))]

    def since(state: Any) -> dict[str, Any]:
        events = [e.text for e in state.log[told[0] :]]
        made = [[sides, purpose, face] for sides, purpose, face in rolls[told[1] :]]
        told[0], told[1] = len(state.log), len(rolls)
        return {"events": events, "rolls": made}

    def watch(
        state: Any, seat: int, observation: Mapping[str, np.ndarray], mask: np.ndarray
    ) -> None:
        after = since(state)
        if frames:
            frames[-1].update(after)
        else:
            opening.update(after)
        explain = getattr(policies[seat], "explain", None)
        frames.append(
            {
                "seat": seat,
                "fighters": fighters(state),
                "legal": int(mask.sum()),
                "why": explain(observation, mask) if explain else "",
            }
        )

    result = play_duel(ruleset, seated, seed, MOVE_TIME_LIMIT, watch, rolls, dice)
    state = result.state
    last = since(state)
    if frames:
        frames[-1].update(last)
    else:
        opening.update(last)
    for frame, action in zip(frames, chosen, strict=False):
        frame["action"] = action
        frame["name"] = ruleset.actions(action).name
        frame["meaning"] = ruleset.action_meanings[action]
    outcome = result.outcome
    return {
        "system": ruleset.system,
        "seed": seed,
        "seats": seat_labels(ruleset.sides),
        "policies": [p.name for p in policies],
        "columns": [label for _, _, label in fields],
        "opening": opening,
        "frames": frames,
        "end": {
            "fighters": fighters(state),
            "winner": _side(outcome),
            "reason": outcome.reason,
            "decisions": result.decisions,
        },
    }


def _side(outcome: Outcome) -> str:
    return "draw" if outcome.winner is None else "AB"[outcome.winner]


def replay(
    record: Mapping[str, Any], policies: tuple[Policy, Policy], ruleset: Ruleset[Any]
) -> dict[str, Any]:
    """A tournament duel played again from its record (its seed, seat order and setup)
    with `policies` (a's, b's), and whether it ended as the record says."""
    a, b = policies
    seated = line_up(ruleset, *((a, b) if record["seat_of_a"] == 0 else (b, a)))
    fight = record_fight(ruleset, seated, record["seed"], record["dice"])
    seat_of = {record["seat_of_a"]: "a", 1 - record["seat_of_a"]: "b"}
    end = fight["end"]
    winner = None if end["winner"] == "draw" else seat_of["AB".index(end["winner"])]
    fight["identical"] = (
        winner == record["winner"]
        and end["reason"] == record["reason"]
        and end["decisions"] == record["decisions"]
    )
    return fight


def table_policy(
    name: str, system_name: str, variant: dict[str, Any], loaded: Mapping[str, NumpyBrain]
) -> Policy:
    """A policy the table may seat: a scripted NPC, a shipped brain, or a brain the
    server loaded, in a fight that fixes what its training fixed (`check_fits`); never
    code from a module (no sandbox serves the page)."""
    if is_imported(name):
        raise ValueError(f"{name}: the table seats NPCs and brains, not code from a module")
    own = name.removeprefix("brain:")
    if name.startswith("brain:") and own in loaded:
        policy: Policy = loaded[own]
    else:
        policy = duel_policy(name, system_name, MOVE_TIME_LIMIT, variant, None)
    if isinstance(policy, NumpyBrain):
        check_fits(policy, variant)
    return policy


@dataclass
class Session:
    """A fight a person plays from the page: the seats it plays, the NPC at the others,
    the same dice, generators and referee as `duelo play` and a tournament."""

    ruleset: Ruleset[Any]
    people: frozenset[int]
    policies: tuple[Policy, ...]
    seed: int
    state: Any = None
    dice: Any = None
    rngs: tuple[np.random.Generator, ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Held by each move: the server answers requests in threads, and a button clicked
    twice sends two."""

    def __post_init__(self) -> None:
        self.dice, self.rngs = duel_streams(self.seed, len(self.ruleset.sides))
        self.state = self.ruleset.new_duel(self.dice)
        self._advance()

    def act(self, action: int) -> dict[str, Any]:
        """The person's choice for the seat to act, then what it sees (`view`); refused
        (`IllegalActionError`) unless it is legal now."""
        with self.lock:
            seat = self.ruleset.to_act(self.state)
            if seat is None or seat not in self.people:
                raise ValueError("the fight is over" if seat is None else "it is not your turn")
            check_legal(self.ruleset, self.state, seat, action)
            move(self.ruleset, self.state, seat, action, self.dice)
            self._advance()
            return self.view()

    def _advance(self) -> None:
        """The NPC's decisions until a person's seat is to act or the fight ends; an NPC
        that faults forfeits for its side, as in a tournament."""
        ruleset, state = self.ruleset, self.state
        while (seat := ruleset.to_act(state)) is not None and seat not in self.people:
            mask = ruleset.legal_actions(state, seat)
            observation = ruleset.observation_spec.view(ruleset.observe(state, seat))
            try:
                action = ask(
                    self.policies[seat], observation, mask, self.rngs[seat], MOVE_TIME_LIMIT
                )
            except PolicyFault as fault:
                side = ruleset.sides[seat]
                state.finish(Outcome(1 - side, forfeit_reason(side, str(fault))))
                return
            move(ruleset, state, seat, action, self.dice)

    def view(self) -> dict[str, Any]:
        """What the person sees now: the narration it may read (`Event.seen_by`: not a
        declaration sealed from its seats before the round is over), and at its turn its
        seat's whole observation (entry by entry, named) and its legal actions with
        their meanings."""
        ruleset, state = self.ruleset, self.state
        events = [e.text for e in state.log if e.seen_by(self.people, state)]
        seat = ruleset.to_act(state)
        view: dict[str, Any] = {"events": events, "seats": seat_labels(ruleset.sides)}
        if seat is None:
            outcome = state.result
            view["end"] = {"winner": _side(outcome), "reason": outcome.reason}
            return view
        spec = ruleset.observation_spec
        flat = ruleset.observe(state, seat)
        mask = ruleset.legal_actions(state, seat)
        view["seat"] = seat
        view["observation"] = [
            [name, round(float(value), 3)]
            for name, value in zip(spec.field_names(), flat, strict=True)
        ]
        view["legal"] = [
            {
                "id": int(a),
                "name": ruleset.actions(int(a)).name,
                "meaning": ruleset.action_meanings[int(a)],
            }
            for a in np.flatnonzero(mask)
        ]
        return view


class Sessions:
    """The fights being played, by an unguessable id; the oldest goes past `MAX_SESSIONS`."""

    def __init__(self) -> None:
        self._open: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: Session) -> str:
        key = secrets.token_urlsafe(16)
        with self._lock:
            self._open[key] = session
            while len(self._open) > MAX_SESSIONS:
                self._open.popitem(last=False)
        return key

    def get(self, key: str) -> Session:
        with self._lock:
            if key not in self._open:
                raise KeyError(key)
            self._open.move_to_end(key)
            return self._open[key]


@dataclass(frozen=True)
class Tournament:
    """A finished tournament the server shows (`duelo serve --tournament DIR`): each
    system's checked records and its report as HTML."""

    records: dict[str, list[dict[str, Any]]]
    pages: dict[str, str]
    heatmaps: dict[str, bytes]


def load_tournament(folder: Path) -> Tournament:
    """Every system's tournament under `folder` (as `duelo tournament --out` wrote it),
    its records checked against its saved spec and HMACs (`checked_records`)."""
    records: dict[str, list[dict[str, Any]]] = {}
    pages: dict[str, str] = {}
    heatmaps: dict[str, bytes] = {}
    for spec_path in sorted(folder.glob(f"*/{SPEC_FILE}")):
        saved = json.loads(spec_path.read_text(encoding="utf-8"))
        spec = TournamentSpec(
            **{
                **saved,
                "policies": tuple(saved["policies"]),
                "suite": tuple(saved.get("suite", ())),
            }
        )
        if spec.seed is None:
            raise ValueError(f"{spec_path}: the tournament is not over (its seed is secret)")
        results = spec_path.parent / RESULTS_FILE
        kept = checked_records(results, read_records(results), spec)
        records[spec.system] = kept
        report = build_report(kept, list(spec.policies), spec.seed)
        pages[spec.system] = report_html(report, kept)
        heatmap = folder / f"heatmap_{spec.system}.png"
        if heatmap.exists():
            heatmaps[spec.system] = heatmap.read_bytes()
    if not records:
        raise ValueError(f"{folder}: no tournament here (no */{SPEC_FILE})")
    return Tournament(records, pages, heatmaps)


DUELS_SHOWN = 3
"""Duels linked from each pairing of a report page."""


def report_html(report: Report, records: list[dict[str, Any]]) -> str:
    """A report's tables (`render`, in markdown) as HTML, and under them a link to the
    first `DUELS_SHOWN` duels of each pairing, each opening its replay."""
    parts: list[str] = []
    table: list[list[str]] = []

    def close_table() -> None:
        if table:
            head, *body = table
            rows = "".join(
                "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                for row in body
            )
            header = "".join(f"<th>{html.escape(c)}</th>" for c in head)
            parts.append(f"<table><tr>{header}</tr>{rows}</table>")
            table.clear()

    for line in render(report, markdown=True).splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not all(set(c) <= {"-"} for c in cells):
                table.append(cells)
            continue
        close_table()
        if line.startswith("## "):
            parts.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.strip():
            parts.append(f"<p>{html.escape(line)}</p>")
    close_table()
    links: list[str] = []
    for pairing in report.pairings:
        shown = [i for i, r in enumerate(records) if (r["a"], r["b"]) == (pairing.a, pairing.b)]
        anchors = " ".join(
            f"<a class='replay' href='/table?replay={report.system}:{i}'>duel {i + 1}</a>"
            for i in shown[:DUELS_SHOWN]
        )
        links.append(f"<li>{html.escape(pairing.a)} vs {html.escape(pairing.b)}: {anchors}</li>")
    parts.append("<h3>Duels of each pairing</h3><ul>" + "".join(links) + "</ul>")
    return "\n".join(parts)
