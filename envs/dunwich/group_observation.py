"""What one fighter of a Dunwich fight of several a side sees (digest §13.6, §13.8),
declared once as data.

Rows are fixed slots from the observer's seat: itself, the others of its side in slot
order, then the opponents in slot order (an empty slot is all zeros, `present` 0).
Everything is public (positions, registers, INI, PV, weapons, the turn's flags) but
the plan step: until every plan is in, nobody sees another's bid or task, allies
included (§13.6 G7), unless `team_shared_plan` shows a side's plans to each other.
"""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import slot_rows
from duelo.envs.dunwich.group_setup import MAX_SIDE
from duelo.envs.dunwich.group_state import Gone, GroupState
from duelo.envs.dunwich.observation import ARMS, BOXES, INCOMING_KEY, PHASE_KEY
from duelo.envs.dunwich.setup import HALF_METRES, MAX_ARENA, MAX_PV
from duelo.envs.dunwich.state import INCAPACITATION, PLAN, Maneuver, Phase

ROWS = ("self", *(f"ally{i}" for i in range(1, MAX_SIDE)), *(f"enemy{i}" for i in range(MAX_SIDE)))
"""The fighter slots (§13.1 order: self, own side, other side)."""
CAPACITIES = ("fisico", "lucha", "disparo", "ini")
FLAGS = ("acted", "reacted", "task", "defend_only", "engaged_at_start", "bonus", "bid", "pairings")
_R = len(ROWS)
_MANEUVERS = (Maneuver.DANAR, Maneuver.DESPLAZAR, Maneuver.INCAPACITAR)


def _per_row(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R,), ROWS)


def _grid(name: str, meaning: str, low: float, high: float, fields: tuple[str, ...]) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R, len(fields)), grid(ROWS, fields))


GROUP_SPEC = ObservationSpec(
    (
        PHASE_KEY,
        INCOMING_KEY,
        _per_row("partner", "1 for the other fighter of the pairing being resolved", 0, 1),
        ObsKey("turn", "current combat turn", 0, 999),
        ObsKey("arena", "the arena's length in metres", 0, MAX_ARENA),
        _per_row("present", "1 where a fighter holds the slot", 0, 1),
        _grid("status", "one-hot active, down, fled", 0, 1, one_hot(Gone)),
        _per_row(
            "initiative",
            "place in this turn's order, 1 = first; 0 until every plan is in",
            0,
            2 * MAX_SIDE,
        ),
        _per_row("current", "1 for the fighter deciding now", 0, 1),
        _per_row("position", "metres from the left wall", 0, MAX_ARENA),
        _per_row("offset", "position less the observer's, in metres", -MAX_ARENA, MAX_ARENA),
        _per_row("range", "metres from the observer", 0, MAX_ARENA),
        _grid("capacities", "Físico, Lucha, disparo, this turn's INI", 0, 10, CAPACITIES),
        _per_row("pv", "Advantage Points", 0, MAX_PV),
        _grid("vitality", "1 per crossed Vitality box, valued 1 2 2 3 3 4 5 6", 0, 1, BOXES),
        _per_row("hp", "Incapacitation boxes left before it is out", 0, INCAPACITATION),
        _per_row("hp_max", "Incapacitation boxes of a human", 0, INCAPACITATION),
        _grid(
            "arms",
            "melee dice, melee lethal, ranged dice, firearm, ballistic armour",
            0,
            6,
            ARMS,
        ),
        _grid(
            "flags",
            "acted, reacted, task, defend_only, engaged, bonus, bid, pairings",
            0,
            10,
            FLAGS,
        ),
        _per_row(
            "plan",
            "an ally's plan (team_shared_plan): bid + 1, 5 to escape, else 0",
            0,
            len(PLAN),
        ),
    )
)


def rows_of(state: GroupState, seat: int) -> list[int | None]:
    """The seat in each row for `seat`'s view (None: an empty slot)."""
    return slot_rows(seat, state.allies(seat), state.enemies(seat), MAX_SIDE)


def observe_group(state: GroupState, seat: int) -> np.ndarray:
    """The observation of `seat` (digest §13.8), in the order of GROUP_SPEC."""
    over = state.result is not None
    rows = rows_of(state, seat)
    fighters = [None if s is None else state.fighters[s] for s in rows]
    me = state.fighters[seat]
    pending = state.pending if not over and state.phase in (Phase.REACT, Phase.PUSH) else None
    incoming = pending.maneuver if pending is not None and state.phase == Phase.REACT else None
    partner = None
    if pending is not None:
        partner = pending.target if seat == pending.initiator else pending.initiator
    place = {s: i + 1 for i, s in enumerate(state.order)}
    values: list[float] = [*((not over and state.phase == p) for p in Phase)]
    values += [incoming == m for m in _MANEUVERS]
    values += [s is not None and s == partner for s in rows]
    values += [min(state.round, 999), state.arena / HALF_METRES]
    values += [f is not None for f in fighters]
    for s in rows:
        standing = None if s is None else state.standing[s]
        values += [standing == member for member in Gone]
    values += [0 if s is None else place.get(s, 0) for s in rows]
    values += [s is not None and not over and state.current == s for s in rows]
    for getter in (
        lambda f: f.position / HALF_METRES,
        lambda f: (f.position - me.position) / HALF_METRES,
        lambda f: abs(f.position - me.position) / HALF_METRES,
    ):
        values += [0 if f is None else getter(f) for f in fighters]
    for f in fighters:
        if f is None:
            values += [0] * len(CAPACITIES)
            continue
        c = f.character
        values += [c.fisico, c.lucha, c.disparo, f.initiative]
    values += [0 if f is None else f.pv for f in fighters]
    for f in fighters:
        values += [0] * len(BOXES) if f is None else f.crossed
    values += [0 if f is None else INCAPACITATION - f.incap for f in fighters]
    values += [0 if f is None else INCAPACITATION for f in fighters]
    for f in fighters:
        if f is None:
            values += [0] * len(ARMS)
            continue
        ranged = f.ranged
        values += [
            f.melee.dice,
            f.melee.lethal,
            0 if ranged is None else ranged.dice,
            ranged is not None and ranged.firearm,
            f.character.ballistic_armour,
        ]
    for s, f in zip(rows, fighters, strict=True):
        if s is None or f is None:
            values += [0] * len(FLAGS)
            continue
        values += [
            f.acted,
            f.reacted,
            f.task,
            f.defend_only,
            f.engaged_at_start,
            f.bonus,
            f.bid,
            state.pairings[s],
        ]
    sharing = state.options.team_shared_plan and not over and state.phase == Phase.PLAN
    for row, s in enumerate(rows):
        plan = state.plans[s] if sharing and s is not None and 0 < row < MAX_SIDE else None
        values.append(0 if plan is None else PLAN.index(plan) + 1)
    return GROUP_SPEC.pack(values)
