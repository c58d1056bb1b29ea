"""What a skirmisher sees (digest §12): the declared keys and the one writer of them."""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, grid
from duelo.envs.esgrima.mechanics import ARMOUR_FIELDS
from duelo.envs.esgrima.setup import MAX_OBJECTS, MAX_ZONES, Armour, WeaponClass
from duelo.envs.esgrima.skirmish_state import SkirmishState, band

_LIGHT, _HEAVY = Armour.LIGHT, Armour.HEAVY  # bound once: read on every observation

WEAPON_FIELDS = (
    "light_melee",
    "heavy_melee",
    "light_ranged",
    "heavy_ranged",
    "loaded",
    "reload_pending",
    "to_draw",
    "lost",
)
"""The entries of one side's `weapon` row."""
FLAGS = ("foco", "evading", "hidden", "in_cover", "suppressing", "edge", "used_projectiles")
"""The entries of one side's `flags` row."""
OBJECT_FIELDS = ("present", "zone", "cover", "hide", "interact", "spent")
"""The entries of one terrain-object slot."""

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey("initiative", "initiative scores [self, opponent]", 0, 999, (2,), SIDES),
        ObsKey("hp", "PG left [self, opponent]", 0, 10, (2,), SIDES),
        ObsKey("hp_max", "maximum PG [self, opponent]", 0, 10, (2,), SIDES),
        ObsKey("range", "distance in zones (0 Adjacent, 1 Near, 2+ Far)", 0, 9),
        ObsKey("band", "one-hot: Adjacent, Near, Far", 0, 1, (3,), ("adjacent", "near", "far")),
        ObsKey(
            "zones", "zone of [self, opponent] (a hidden opponent's zone too)", 0, 9, (2,), SIDES
        ),
        ObsKey("turn", "own turn; Actions left in it", 0, 2, (2,), ("own_turn", "actions_left")),
        ObsKey("armour", "light, heavy, points left [self, opponent]", 0, 5, (2, 3), ARMOUR_FIELDS),
        ObsKey(
            "weapon",
            "in hand: light melee, heavy melee, light ranged, heavy ranged, loaded, reload "
            "pending; weapons left to draw; weapons lost [self, opponent]",
            0,
            3,
            (2, 8),
            grid(SIDES, WEAPON_FIELDS),
        ),
        ObsKey(
            "flags",
            "Foco for the next Action, evading, hidden, in cover, suppressing, edge active, "
            "used projectiles [self, opponent]",
            0,
            1,
            (2, 7),
            grid(SIDES, FLAGS),
        ),
        ObsKey(
            "objects",
            "per terrain object slot: present, zone, cover, hide, interact, spent",
            0,
            9,
            (MAX_OBJECTS, 6),
            grid([f"slot{i}" for i in range(MAX_OBJECTS)], OBJECT_FIELDS),
        ),
        ObsKey("round", "current round", 0, 999),
        ObsKey(
            "blocked",
            "closed zone boundaries (boundary b between zones b and b+1)",
            0,
            1,
            (MAX_ZONES - 1,),
            tuple(f"boundary{b}" for b in range(MAX_ZONES - 1)),
        ),
    )
)
CLASSES = tuple(WeaponClass)
NO_OBJECT = [0] * 6
"""An empty terrain-object slot of the observation."""
BOUNDARIES = range(MAX_ZONES - 1)
"""Zone boundaries the observation reports as blocked or not."""


def observe(state: SkirmishState, seat: int) -> np.ndarray:
    """The observation of `seat` (digest §12), in the order of OBSERVATION_SPEC (a hot
    path: no comprehension where a few terms do)."""
    me, them = state.fighters[seat], state.fighters[1 - seat]
    distance = state.distance()
    distance_band = band(distance)
    acting = state.result is None and state.current == seat
    values: list[float] = [
        me.initiative,
        them.initiative,
        me.body.pg,
        them.body.pg,
        me.body.pg_max,
        them.body.pg_max,
        distance,
        distance_band == 0,
        distance_band == 1,
        distance_band == 2,
        me.zone,
        them.zone,
        acting,
        state.actions_left if acting else 0,
    ]
    for f in (me, them):
        armour = f.body.armour
        values += [armour == _LIGHT, armour == _HEAVY, f.body.armour_pts]
    for f in (me, them):
        held = f.held
        cls = held.weapon.cls if held is not None else None
        kept = lost = 0
        for h in f.weapons:
            if h.lost:
                lost += 1
            else:
                kept += 1
        values += [
            cls == CLASSES[0],
            cls == CLASSES[1],
            cls == CLASSES[2],
            cls == CLASSES[3],
            held is not None and held.loaded,
            f.reload_pending,
            kept - (held is not None),
            lost,
        ]
    for f in (me, them):
        values += [
            f.foco_next,
            f.evading,
            f.hidden,
            f.in_cover,
            f.suppressing is not None,
            f.edge,
            f.used_projectiles,
        ]
    objects = state.layout.objects
    for slot, o in enumerate(objects):
        values += [1, o.zone, o.cover, o.hide, o.interact, state.spent[slot]]
    values += NO_OBJECT * (MAX_OBJECTS - len(objects))
    values.append(min(state.round, 999))
    blocked = state.blocked
    values += [boundary in blocked for boundary in BOUNDARIES]
    return OBSERVATION_SPEC.pack(values)
