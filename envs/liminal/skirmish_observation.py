"""What one fighter of a Liminal skirmish sees (digest §13.8), declared once as data.

Individuals sit in fixed rows from the observer's seat: itself, the others of its side
in slot order, then the enemies in slot order; the mob's groups in rows of their own,
by the slot of the hero each is assigned to. An empty slot is all zeros, `present` 0.
A brain reads any fighter of any party up to `MAX_SIDE` a side the same way. Nothing
is hidden but future dice (§10 #20).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from duelo.envs.core.observation import MAX_CACHED, ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import slot_rows
from duelo.envs.liminal.mob import attack_level
from duelo.envs.liminal.observation import TURN, WEAPON_FIELDS, spare, weapon_row
from duelo.envs.liminal.setup import SKILLS, Character, Strength
from duelo.envs.liminal.skirmish_setup import MAX_MOB, MAX_SIDE
from duelo.envs.liminal.skirmish_state import SkirmishState
from duelo.envs.liminal.state import Phase

ROWS = ("self", *(f"ally{i}" for i in range(1, MAX_SIDE)), *(f"enemy{i}" for i in range(MAX_SIDE)))
"""The individuals' rows (§13.8 order: self, own side, other side)."""
GROUP_ROWS = tuple(f"group{i}" for i in range(MAX_SIDE))
"""The mob groups' rows, by the party slot of each one's hero."""
STATUS = ("active", "down", "surrendered", "withdrawn")
FLAGS = (
    "disarmed",
    "defending",
    "perfect_cover",
    "in_cover",
    "high_ground",
    "unseen",
    "shaken",
    "acted_this_round",
    "act_first",
)
BANDS = ("crit_first", "before", "enemy", "after")
"""§13.2: where a fighter acts in the round."""
TRAITS = ("melee_damage_bonus", "defence_bonus")
_R, _G = len(ROWS), len(GROUP_ROWS)
FAR = 99
"""The largest range and offset observed (a fighter 6 or more from every enemy has
left the fight, but allies may drift apart)."""


def _per_row(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R,), ROWS)


def _grid(name: str, meaning: str, low: float, high: float, fields: tuple[str, ...]) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R, len(fields)), grid(ROWS, fields))


def _per_group(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by group", low, high, (_G,), GROUP_ROWS)


MEMBERS = tuple(f"member{i}" for i in range(MAX_MOB))
SKIRMISH_SPEC = ObservationSpec(
    (
        _per_row("present", "1 where a fighter holds the slot", 0, 1),
        _grid("status", "one-hot " + ", ".join(STATUS), 0, 1, STATUS),
        _per_row("hp", "Endurance left, floored at 0", 0, 30),
        _per_row("hp_max", "Endurance at the start", 0, 30),
        _grid("skills", ", ".join(SKILLS), 0, 4, SKILLS),
        _grid("traits", "melee damage bonus, defence bonus", 0, 4, TRAITS),
        _grid("held", "weapon in hand (as the duel's `held`)", -4, 10, WEAPON_FIELDS),
        _grid("spare", "the other weapon carried, same features", -4, 10, WEAPON_FIELDS),
        _grid("flags", "disarmed, stance, cover, places, shaken, acted, act first", 0, 1, FLAGS),
        _grid("initiative", "band one-hot: crit-first, before, enemy, after (§13.2)", 0, 1, BANDS),
        _per_row("place", "place in this round's order, 1 = first; 0 if none", 0, 2 * _R),
        _per_row("current", "1 for the fighter whose turn it is", 0, 1),
        _per_row("offset", "position less the observer's, toward the enemy positive", -FAR, FAR),
        _per_row("range", "range from the observer on the track (0 adjacent)", 0, FAR),
        _per_row("tight", "1 if it shares its position with another unit (-2 to pick)", 0, 1),
        _per_row(
            "bound_to",
            "row + 1 of the individual it must target next turn (0: free)",
            0,
            _R,
        ),
        _per_group("group_present", "1 where the mob has a group for that hero", 0, 1),
        _per_group("group_hostile", "1 if the group is the observer's enemy", 0, 1),
        _per_group("group_standing", "members standing", 0, MAX_MOB),
        ObsKey(
            "group_members",
            "standing members' Endurance in list order, then zeros, by group",
            0,
            3,
            (_G, MAX_MOB),
            grid(GROUP_ROWS, MEMBERS),
        ),
        _per_group("group_level", "attack level (1 per 2 standing, at most 3)", 0, 3),
        _per_group("group_armed", "1 if armed (1d6+1)", 0, 1),
        _per_group("group_hero", "row + 1 of the hero it is assigned to", 0, _R),
        _per_group("group_acted", "1 if it has had its turn this round", 0, 1),
        _per_group("group_place", "place in this round's order, 1 = first", 0, 2 * _R),
        _per_group(
            "group_offset", "position less the observer's, toward the enemy positive", -FAR, FAR
        ),
        _per_group("group_range", "range from the observer", 0, FAR),
        _per_group("group_bound_to", "row + 1 of the individual it must attack next", 0, _R),
        ObsKey(
            "mob",
            "the whole mob: members at the start, members down (0 without a mob)",
            0,
            MAX_MOB,
            (2,),
            ("members_start", "members_down"),
        ),
        ObsKey(
            "struck",
            "one-hot: the unit an attack critical struck, awaiting its effect",
            0,
            1,
            (_R + _G,),
            ROWS + GROUP_ROWS,
        ),
        ObsKey("round", "current round", 0, 999),
        ObsKey(
            "phase",
            "one-hot: main, attack critical, defence critical, bonus action",
            0,
            1,
            (4,),
            one_hot(Phase),
        ),
        ObsKey(
            "turn", "own turn: deciding now, free move spent, free draw spent", 0, 1, (3,), TURN
        ),
    )
)


def rows_of(state: SkirmishState, seat: int) -> list[int | None]:
    """The seat in each of `seat`'s individual rows (None for an empty slot)."""
    return slot_rows(seat, state.allies(seat), state.enemies(seat), MAX_SIDE)


_AT = {key.name: SKIRMISH_SPEC.slice_of(key.name).start for key in SKIRMISH_SPEC.keys}
"""Where each key starts in the flat vector."""
_WIDTH = {key.name: key.size // key.shape[0] for key in SKIRMISH_SPEC.keys if key.shape}
"""The entries a row holds in each key of a row per slot."""


@lru_cache(maxsize=MAX_CACHED)
def _skills(character: Character) -> list[int]:
    """A stat block's skills, read once (bounded: each new catalog brings new blocks)."""
    return [getattr(character, skill) for skill in SKILLS]


_weapon = lru_cache(maxsize=MAX_CACHED)(weapon_row)
"""A weapon's row, computed once."""


_ROW_AT = [
    {key.name: _AT[key.name] + row * _WIDTH[key.name] for key in SKIRMISH_SPEC.keys}
    for row in range(_R)
]
"""Where each key's entries for an individual row start (the vector is written a
decision at a time, so the sums are done once)."""


def observe_skirmish(
    state: SkirmishState,
    seat: int,
    strength_bonus: dict[Strength, int],
    holders: list[int],
) -> np.ndarray:
    """`seat`'s observation as one float32 vector, in the order of SKIRMISH_SPEC;
    `holders`: the fighters an "act first" critical puts ahead this round."""
    out = [0.0] * SKIRMISH_SPEC.size
    at = _AT

    def put(key: str, row: int, values: list[float] | list[int] | list[bool]) -> None:
        start = at[key] + row * _WIDTH[key]
        out[start : start + len(values)] = values

    over = state.result is not None
    rows = rows_of(state, seat)
    row_of = {other: row for row, other in enumerate(rows) if other is not None}
    places = {unit: i for i, unit in enumerate(state.order)}
    ahead = 1 if state.sides[seat] == 0 else -1
    first = set(state.crit_first + state.crit_first_next)
    alive = [state.active(unit) for unit in range(len(state.positions))]
    positions = state.positions
    crowd = Counter(p for p, up in zip(positions, alive, strict=True) if up)
    here = positions[seat]
    for row, other in enumerate(rows):
        if other is None:
            continue
        fighter = state.fighters[other]
        character = fighter.character
        start = _ROW_AT[row]
        out[start["present"]] = 1
        out[start["status"] + int(state.standing[other])] = 1
        out[start["hp"]] = max(fighter.endurance, 0)
        out[start["hp_max"]] = character.endurance_max
        for key, values in (
            ("skills", _skills(character)),
            ("traits", [strength_bonus[character.strength], character.defence_bonus]),
            ("held", _weapon(fighter.weapon)),
            ("spare", _weapon(spare(fighter))),
            (
                "flags",
                [
                    bool(fighter.dropped),
                    fighter.defending,
                    fighter.perfect_cover,
                    fighter.in_cover,
                    fighter.high_ground,
                    fighter.unseen,
                    fighter.shaken,
                    fighter.acted_this_round,
                    other in first,
                ],
            ),
        ):
            at_key = start[key]
            out[at_key : at_key + len(values)] = values
        side = state.sides[other]
        band = 0 if other in holders else 2 if side == 1 else 1 if state.before[other] else 3
        out[start["initiative"] + band] = 1
        if other in places:
            out[start["place"]] = places[other] + 1
        out[start["current"]] = not over and state.current == other
        there = positions[other]
        out[start["offset"]] = max(-FAR, min(FAR, (there - here) * ahead))
        out[start["range"]] = min(FAR, abs(there - here))
        out[start["tight"]] = alive[other] and crowd[there] > 1  # §13.3
        bound = state.must_target.get(other)
        out[start["bound_to"]] = row_of[bound] + 1 if bound in row_of else 0
    for index, group in enumerate(state.groups):
        unit = state.seats + index
        out[at["group_present"] + index] = 1
        out[at["group_hostile"] + index] = state.sides[seat] == 0
        standing = 0 if state.broken else group.standing
        out[at["group_standing"] + index] = standing
        put("group_members", index, [m for m in group.members if m > 0])
        out[at["group_level"] + index] = attack_level(standing)
        out[at["group_armed"] + index] = state.mob_armed
        out[at["group_hero"] + index] = row_of[group.hero] + 1
        out[at["group_acted"] + index] = group.acted
        if unit in places:
            out[at["group_place"] + index] = places[unit] + 1
        offset = (state.positions[unit] - state.positions[seat]) * ahead
        out[at["group_offset"] + index] = max(-FAR, min(FAR, offset))
        out[at["group_range"] + index] = min(FAR, state.between(seat, unit))
        bound = state.must_target.get(unit)
        out[at["group_bound_to"] + index] = row_of[bound] + 1 if bound in row_of else 0
    if state.mob_start:
        down = state.mob_start - sum(g.standing for g in state.groups)
        out[at["mob"] : at["mob"] + 2] = [state.mob_start, down]
    if state.hit is not None and not over:
        target = state.hit.target
        struck = target - state.seats + _R if target >= state.seats else row_of[target]
        out[at["struck"] + struck] = 1
    out[at["round"]] = min(state.round, 999)
    phase = None if over else state.phase
    out[at["phase"] : at["phase"] + len(Phase)] = [phase == p for p in Phase]
    deciding = not over and state.current == seat
    me = state.fighters[seat]
    out[at["turn"] : at["turn"] + len(TURN)] = [
        deciding,
        deciding and state.moved,
        me.drew_this_round,
    ]
    return SKIRMISH_SPEC.pack(out)
