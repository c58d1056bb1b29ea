"""What one fighter of an Esgrima fight of several a side sees (digest §13.8), declared
once as data.

Rows are fixed slots from the observer's seat: itself, the others of its side in slot
order, then the enemies in slot order (an empty slot is all zeros, `present` 0). A
brain reads any fighter of any fight up to `MAX_SIDE` a side the same way. Nothing is
hidden but future dice: a hidden enemy's zone stays observed (§12), it just cannot be
targeted.
"""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import slot_rows
from duelo.envs.esgrima.group_setup import MAX_SIDE
from duelo.envs.esgrima.group_state import Ammo, GroupState, Standing
from duelo.envs.esgrima.setup import MAX_OBJECTS, MAX_ZONES, RATINGS, Armour, Role, WeaponClass
from duelo.envs.esgrima.skirmish_observation import NO_OBJECT, OBJECT_FIELDS, WEAPON_FIELDS
from duelo.envs.esgrima.skirmish_state import band

ROWS = ("self", *(f"ally{i}" for i in range(1, MAX_SIDE)), *(f"enemy{i}" for i in range(MAX_SIDE)))
"""The fighter slots (§13.1 order: self, own side, other side)."""
STATUS = one_hot(Standing)
FLAGS = (
    "foco",
    "evading",
    "hidden",
    "in_cover",
    "used_projectiles",
    "delayed",
    "shield",
    "pj",
)
SKILLS = (*RATINGS, "melee")
"""The ratings the rules roll against, and the one a melee attack uses (§2)."""
_R = len(ROWS)
_CLASSES = tuple(WeaponClass)
_CLASS_NAMES = tuple(str(c) for c in WeaponClass)
_LIGHT, _HEAVY, _PJ = Armour.LIGHT, Armour.HEAVY, Role.PJ
_BOUNDARIES = range(MAX_ZONES - 1)


def _per_row(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R,), ROWS)


def _grid(name: str, meaning: str, low: float, high: float, fields: tuple[str, ...]) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R, len(fields)), grid(ROWS, fields))


GROUP_SPEC = ObservationSpec(
    (
        _per_row("present", "1 where a fighter holds the slot", 0, 1),
        _grid("status", "one-hot active, down, surrendered, fled", 0, 1, STATUS),
        _per_row("initiative", "initiative score (§13.2)", 0, 999),
        _per_row("place", "place in this round's order, 1 = first; 0 if none", 0, 2 * MAX_SIDE),
        _per_row("current", "1 for the fighter whose turn it is", 0, 1),
        _per_row("hp", "PG left", 0, 10),
        _per_row("hp_max", "maximum PG", 0, 10),
        _per_row("zone", "zone on the line (a hidden fighter's too)", 0, MAX_ZONES - 1),
        _per_row("offset", "zone less the observer's", -(MAX_ZONES - 1), MAX_ZONES - 1),
        _per_row("range", "zones from the observer (0 Adjacent, 1 Near, 2+ Far)", 0, 8),
        _grid("band", "one-hot band from the observer", 0, 1, ("adjacent", "near", "far")),
        _grid("armour", "light, heavy, points left", 0, 5, ("light", "heavy", "points")),
        _grid(
            "weapon",
            "the weapon in hand, as one on one's `weapon`",
            0,
            3 * 2 * MAX_SIDE,
            WEAPON_FIELDS,
        ),
        _grid("carried", "weapons carried by class, not lost (in hand too)", 0, 9, _CLASS_NAMES),
        _grid(
            "flags",
            "Foco, evading, hidden, cover, used guns, delayed, shield, PJ",
            0,
            1,
            FLAGS,
        ),
        _grid("ammo", "one-hot ammunition: some, shared, none (§13.7)", 0, 1, one_hot(Ammo)),
        _grid("skills", "ratings 1-5, and the one melee uses", 0, 5, SKILLS),
        _per_row("suppressing", "zone + 1 under its suppressive fire (0: none)", 0, MAX_ZONES),
        _per_row("edge_on", "row + 1 of the enemy it holds an edge over (0: none)", 0, _R),
        ObsKey("zones", "zones on the line", 0, MAX_ZONES),
        ObsKey(
            "objects",
            "per terrain object slot: present, zone, cover, hide, interact, spent",
            0,
            MAX_ZONES,
            (MAX_OBJECTS, 6),
            grid([f"slot{i}" for i in range(MAX_OBJECTS)], OBJECT_FIELDS),
        ),
        ObsKey(
            "blocked",
            "closed zone boundaries (boundary b between zones b and b+1)",
            0,
            1,
            (MAX_ZONES - 1,),
            tuple(f"boundary{b}" for b in _BOUNDARIES),
        ),
        ObsKey(
            "karma", "Karma pool of [own side, other side] (§13.7)", 0, 99, (2,), ("own", "other")
        ),
        ObsKey("round", "current round", 0, 999),
        ObsKey("turn", "own turn; Actions left in it", 0, 2, (2,), ("own_turn", "actions_left")),
    )
)


def rows_of(state: GroupState, seat: int) -> list[int | None]:
    """The seat in each row for `seat`'s view (None: an empty slot)."""
    return slot_rows(seat, state.allies(seat), state.enemies(seat), MAX_SIDE)


def observe_group(state: GroupState, seat: int) -> np.ndarray:
    """The observation of `seat` (digest §13.8), in the order of GROUP_SPEC."""
    rows = rows_of(state, seat)
    row_of = {s: r for r, s in enumerate(rows) if s is not None}
    me = state.fighters[seat]
    fighters = [state.fighters[s] if s is not None else None for s in rows]
    place = {s: i + 1 for i, s in enumerate(state.order)}
    values: list[float] = []
    for f in fighters:
        values.append(f is not None)
    for s in rows:
        standing = state.standing[s] if s is not None else None
        values += [standing == member for member in Standing]
    for getter in (
        lambda s, f: f.initiative,
        lambda s, f: place.get(s, 0),
        lambda s, f: state.result is None and state.current == s,
        lambda s, f: max(f.body.pg, 0),
        lambda s, f: f.body.pg_max,
        lambda s, f: f.zone,
        lambda s, f: f.zone - me.zone,
        lambda s, f: abs(f.zone - me.zone),
    ):
        values += [0 if f is None else getter(s, f) for s, f in zip(rows, fighters, strict=True)]
    for f in fighters:
        b = -1 if f is None else band(abs(f.zone - me.zone))
        values += [b == 0, b == 1, b == 2]
    for f in fighters:
        if f is None:
            values += [0, 0, 0]
            continue
        values += [f.body.armour == _LIGHT, f.body.armour == _HEAVY, f.body.armour_pts]
    for f in fighters:
        if f is None:
            values += [0] * len(WEAPON_FIELDS)
            continue
        held = f.held
        cls = held.weapon.cls if held is not None else None
        lost = sum(1 for h in f.weapons if h.lost)
        values += [
            cls == _CLASSES[0],
            cls == _CLASSES[1],
            cls == _CLASSES[2],
            cls == _CLASSES[3],
            held is not None and held.loaded,
            f.reload_pending,
            len(f.weapons) - lost - (held is not None),
            lost,
        ]
    for f in fighters:
        if f is None:
            values += [0] * len(_CLASSES)
            continue
        kept = [h.weapon.cls for h in f.weapons if not h.lost]
        values += [kept.count(cls) for cls in _CLASSES]
    for s, f in zip(rows, fighters, strict=True):
        if f is None:
            values += [0] * len(FLAGS)
            continue
        values += [
            f.foco_next,
            f.evading,
            f.hidden,
            f.in_cover,
            f.used_projectiles,
            s in state.delayed,
            f.character.shield,
            f.character.role == _PJ,
        ]
    for s in rows:
        ammo = state.ammo[s] if s is not None else None
        values += [ammo == member for member in Ammo]
    for f in fighters:
        if f is None:
            values += [0] * len(SKILLS)
            continue
        c = f.character
        values += [getattr(c, rating) for rating in RATINGS]
        values.append(c.melee_rating)
    for f in fighters:
        values.append(0 if f is None or f.suppressing is None else f.suppressing + 1)
    for s in rows:
        over = state.edge_over[s] if s is not None else None
        values.append(0 if over is None else row_of.get(over, -1) + 1)
    values.append(state.scenario.zones)
    objects = state.scenario.objects
    for slot, o in enumerate(objects):
        values += [1, o.zone, o.cover, o.hide, o.interact, state.spent[slot]]
    values += NO_OBJECT * (MAX_OBJECTS - len(objects))
    values += [boundary in state.blocked for boundary in _BOUNDARIES]
    own = state.sides[seat]
    values += [state.karma[own], state.karma[1 - own]]
    values.append(min(state.round, 999))
    acting = state.result is None and state.current == seat
    values += [acting, state.actions_left if acting else 0]
    return GROUP_SPEC.pack(values)
