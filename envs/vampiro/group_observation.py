"""What one fighter of a Vampiro fight of several a side sees (digest §13.8), declared
once as data.

Rows are fixed slots from the observer's seat: itself, the others of its side in slot
order, then the opponents in slot order (an empty slot is all zeros, `present` 0).
Public: initiative rolls and who has declared (the order of declarations), positions,
health, Willpower and blood, weapons, ammunition, armour. A declaration (plan,
targets, Celerity actions, Willpower flag, delay) shows only to those who declare
after it, allies included (§13.2), all turn; the points it spent are shown as they
stood before it (as in the duel, §10 #30), and a delayer's sealed "act now" choice
is never shown. `team_shared_plan` shows a side's declarations to each other.
"""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import slot_rows
from duelo.envs.vampiro.damage import wound_penalty
from duelo.envs.vampiro.group_setup import MAX_SIDE
from duelo.envs.vampiro.group_state import DECODED, GroupState, Plan
from duelo.envs.vampiro.observation import TRAITS, WEAPON, dots_of, traits_of, weapon_features
from duelo.envs.vampiro.setup import ABILITIES, ATTRIBUTES, HEALTH_LEVELS, Damage
from duelo.envs.vampiro.state import MELEE_ATTACKS, Phase, hit_type

ROWS = ("self", *(f"ally{i}" for i in range(1, MAX_SIDE)), *(f"enemy{i}" for i in range(MAX_SIDE)))
"""The fighter slots (§13.1 order: self, own side, other side)."""
STATUS = ("active", "down", "fled")
CONDITION = ("aiming", "off_balance", "delayed")
PLAN = ("known", *(p.name.lower() for p in Plan), "celerity", "willpower")
PHASES, DAMAGES, PLANS = tuple(Phase), tuple(Damage), tuple(Plan)
"""The enums' members once (iterating an Enum is slow, and observe runs every step)."""
MAX_LINE = 1000.0
"""Observed positions and distances are capped here (a fight is fled well before)."""
_R = len(ROWS)


def _per_row(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R,), ROWS)


def _grid(name: str, meaning: str, low: float, high: float, fields: tuple[str, ...]) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R, len(fields)), grid(ROWS, fields))


GROUP_SPEC = ObservationSpec(
    (
        ObsKey(
            "phase", "one-hot: declare, modifiers, interrupt, delayed", 0, 1, (4,), one_hot(Phase)
        ),
        ObsKey(
            "incoming",
            "the attack met by an abort: melee, bashing, lethal, aggravated",
            0,
            1,
            (4,),
            ("melee", *(d.value for d in Damage)),
        ),
        _per_row("attacker", "1 for the fighter whose attack waits on an abort", 0, 1),
        ObsKey("turn", "current turn", 0, 999),
        _per_row("present", "1 where a fighter holds the slot", 0, 1),
        _grid("status", "one-hot active, down, fled", 0, 1, STATUS),
        _per_row("current", "1 for the fighter deciding now", 0, 1),
        _per_row("declared", "1 once it has declared this turn", 0, 1),
        _per_row("initiative", "initiative rolled this turn, every Celerity dot unused", -10, 40),
        _per_row("position", "metres along the line", -MAX_LINE, MAX_LINE),
        _per_row("offset", "position less the observer's, in metres", -MAX_LINE, MAX_LINE),
        _per_row("range", "metres from the observer", 0, MAX_LINE),
        _per_row("hp", "health levels left", 0, HEALTH_LEVELS),
        _per_row("hp_max", "health levels", 0, HEALTH_LEVELS),
        _grid(
            "health",
            "levels of bashing, lethal, aggravated damage",
            0,
            HEALTH_LEVELS,
            tuple(d.value for d in Damage),
        ),
        _per_row("wound_penalty", "dice lost to wounds", 0, 5),
        _grid("willpower", "points, rating", 0, 10, ("points", "rating")),
        _grid("blood", "points, pool, spendable a turn", 0, 30, ("points", "pool", "per_turn")),
        _grid("traits", "vampire, Celerity, Fortitude, Potence", 0, 5, TRAITS),
        _grid("dots", "Attributes and Abilities", 0, 5, (*ATTRIBUTES, *ABILITIES)),
        _grid("weapon", "the weapon in hand", 0, 500, WEAPON),
        _grid("armour", "rating, Dexterity penalty", 0, 5, ("rating", "penalty")),
        _grid("condition", "aiming dice, off balance, delaying", 0, 5, CONDITION),
        _grid(
            "plan",
            "where seen: known, plan (one-hot), Celerity actions, Willpower",
            0,
            5,
            PLAN,
        ),
        _grid(
            "targets",
            "where seen, the slot (1-6) of its 1st and 2nd targets; 0 none",
            0,
            _R,
            ("first", "second"),
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
    me = state.fighters[seat]
    incoming = state.incoming if state.phase == Phase.INTERRUPT and not over else None
    values: list[float] = [*((not over and state.phase == p) for p in PHASES)]
    if incoming is None:
        values += [0.0] * 4
    else:
        attacker = state.fighters[incoming.attacker]
        kind = hit_type(state.options, attacker, me, incoming.move)
        values += [incoming.move in MELEE_ATTACKS, *(kind == d for d in DAMAGES)]
    values += [incoming is not None and s == incoming.attacker for s in rows]
    values.append(min(state.round, 999))
    values += [s is not None for s in rows]
    for s in rows:
        if s is None:
            values += [0.0] * len(STATUS)
            continue
        f = state.fighters[s]
        values += [not f.out, f.out and not f.fled, f.fled]
    values += [s is not None and not over and state.current == s for s in rows]
    values += [s is not None and state.fighters[s].declared for s in rows]
    values += [0 if s is None else state.fighters[s].declare_initiative for s in rows]
    for getter in (
        lambda s: state.fighters[s].position,
        lambda s: state.fighters[s].position - me.position,
        lambda s: state.between(seat, s),
    ):
        values += [0 if s is None else max(-MAX_LINE, min(MAX_LINE, getter(s))) for s in rows]
    values += [0 if s is None else HEALTH_LEVELS - len(state.fighters[s].health) for s in rows]
    values += [0 if s is None else HEALTH_LEVELS for s in rows]
    for s in rows:
        health = [] if s is None else state.fighters[s].health
        values += [health.count(d) for d in DAMAGES]
    values += [0 if s is None else wound_penalty(state.fighters[s].health) for s in rows]
    seen = [s is not None and state.sees(seat, s) for s in rows]
    for s, sees in zip(rows, seen, strict=True):
        if s is None:
            values += [0.0, 0.0]
            continue
        f = state.fighters[s]
        values += [f.willpower + (0 if sees else f.declared_willpower), f.character.willpower]
    for s, sees in zip(rows, seen, strict=True):
        if s is None:
            values += [0.0] * 3
            continue
        f = state.fighters[s]
        pool, per_turn = f.character.blood
        values += [f.blood + (0 if sees else f.declared_blood), pool, per_turn]
    for s in rows:
        if s is None:
            values += [0.0] * len(TRAITS)
            continue
        values += traits_of(state.fighters[s].character)
    for s in rows:
        if s is None:
            values += [0.0] * (len(ATTRIBUTES) + len(ABILITIES))
            continue
        values += dots_of(state.fighters[s].character)
    for s in rows:
        values += [0.0] * len(WEAPON) if s is None else weapon_features(state.fighters[s])
    for s in rows:
        armour = None if s is None else state.fighters[s].armour
        values += [0, 0] if armour is None else [armour.rating, armour.penalty]
    for s, sees in zip(rows, seen, strict=True):
        if s is None:
            values += [0.0] * len(CONDITION)
            continue
        f = state.fighters[s]
        values += [f.aiming, f.off_balance, f.delayed and sees]
    for s, sees in zip(rows, seen, strict=True):
        shown = None if s is None or not sees else state.fighters[s]
        plan = None if shown is None else shown.plan_of
        if shown is None or plan is None:
            values += [0.0] * len(PLAN)
            continue
        values += [1.0, *(plan == p for p in PLANS), shown.celerity, shown.declared_willpower]
    for s, sees in zip(rows, seen, strict=True):
        aimed: list[float] = [0.0, 0.0]
        choice = None if s is None or not sees else state.fighters[s].choice
        if s is not None and choice is not None:
            targets = [state.enemies(s)[e] for e in DECODED[choice].enemies]
            for i, target in enumerate(targets):
                aimed[i] = rows.index(target) + 1
        values += aimed
    return GROUP_SPEC.pack(values)
