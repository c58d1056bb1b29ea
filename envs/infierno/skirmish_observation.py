"""What one fighter of an Infierno skirmish sees (digest §13.9), declared once as data.

Rows are fixed slots from the observer's seat: itself, the others of its side in slot
order, then the enemies in slot order (an empty slot is all zeros, `present` 0). A
brain reads any fighter of any party up to `MAX_SIDE` a side the same way. Nothing is
hidden but future dice and the weapons a fighter never drew, as in the duel.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from duelo.envs.core.observation import MAX_CACHED, ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.core.ruleset import slot_rows
from duelo.envs.infierno.observation import (
    LIGHTING,
    STATS,
    WEAPON_FEATURES,
    stat_row,
    weapon_row,
)
from duelo.envs.infierno.setup import Feat
from duelo.envs.infierno.skirmish_setup import MAX_SIDE
from duelo.envs.infierno.skirmish_state import Gone, SkirmishState
from duelo.envs.infierno.state import Carried, Fighter, Phase, Place

ROWS = ("self", *(f"ally{i}" for i in range(1, MAX_SIDE)), *(f"enemy{i}" for i in range(MAX_SIDE)))
"""The observation's fighter slots (§13.9 order: self, own side, other side)."""
STATUS = ("active", "down", "knocked_out", "surrendered", "fled")
FLAGS = (
    "flat_footed",
    "stunned",
    "prone",
    "cover",
    "cover_nearby",
    "feint_ready",
    "uncanny_dodge",
    "quick_draw",
    "two_weapon_fighting",
)
PHASES = (Phase.SURPRISE, Phase.ROUND, Phase.CRIT_CHOICE)
BUDGET = ("standard", "move", "full_round", "step", "nothing_done")
_R = len(ROWS)


def _per_row(name: str, meaning: str, low: float, high: float) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R,), ROWS)


def _grid(name: str, meaning: str, low: float, high: float, fields: tuple[str, ...]) -> ObsKey:
    return ObsKey(name, f"{meaning}, by slot", low, high, (_R, len(fields)), grid(ROWS, fields))


SKIRMISH_SPEC = ObservationSpec(
    (
        _per_row("present", "1 where a fighter holds the slot", 0, 1),
        _grid("status", "one-hot " + ", ".join(STATUS), 0, 1, STATUS),
        _per_row("initiative", "initiative totals; 0 before rolling", -50, 80),
        _per_row("place", "place in the initiative list, 1 = first; 0 before it is set", 0, _R),
        _per_row("waiting", "1 if it is yet to act this round", 0, 1),
        _per_row("current", "1 for the fighter whose turn it is", 0, 1),
        _per_row("hp", "lethal hit points left, floored at 0", 0, 999),
        _per_row("hp_max", "maximum hit points", 0, 999),
        _per_row("nonlethal", "nonlethal damage taken", 0, 999),
        _per_row("sequels", "moderate Sequels, -2 each", 0, 99),
        _per_row("position", "square on the line (side A's home edge is 0)", 0, 999),
        _per_row("range", "range from the observer in squares (0 for itself)", 0, 999),
        _per_row("adjacent", "1 if within one square of the observer", 0, 1),
        _per_row("flank", "1 if the observer's attack on this enemy would flank (+2)", 0, 1),
        _per_row(  # all_adjacent participants: the target, 3 allies and its own 3
            "melee", "fighters a shot at it could hit (1: no ally beside it)", 0, 2 * MAX_SIDE - 1
        ),
        _grid("flags", "flat-footed, stunned, prone, cover, feats", 0, 1, FLAGS),
        _grid("stats", "the stat block (as the duel's `stats`)", -50, 99, STATS),
        _grid("main_hand", "main-hand weapon (as the duel's)", -99, 999, WEAPON_FEATURES),
        _grid("off_hand", "off-hand weapon, same features", -99, 999, WEAPON_FEATURES),
        ObsKey("round", "current round (0 = surprise round)", 0, 999),
        ObsKey("phase", "one-hot: surprise, round, crit choice", 0, 1, (3,), one_hot(PHASES)),
        ObsKey("budget", "own turn left: " + ", ".join(BUDGET), 0, 1, (5,), BUDGET),
        ObsKey(
            "lighting", "one-hot: clear, partial, total concealment", 0, 1, (3,), one_hot(LIGHTING)
        ),
    )
)


def rows_of(state: SkirmishState, seat: int) -> list[int | None]:
    """The seat in each of `seat`'s observation rows (None for an empty slot)."""
    return slot_rows(seat, state.allies(seat), state.enemies(seat), MAX_SIDE)


_AT = {key.name: SKIRMISH_SPEC.slice_of(key.name).start for key in SKIRMISH_SPEC.keys}
"""Where each key starts in the flat vector."""
_WIDTH = {key.name: key.size // _R for key in SKIRMISH_SPEC.keys if key.shape[0] == _R}
"""The entries a row holds in each key of a row per slot."""


def observe_skirmish(state: SkirmishState, seat: int, round_cap: int) -> np.ndarray:
    """`seat`'s observation as one float32 vector, in the order of SKIRMISH_SPEC (written
    into a list and made an array once: a step observes every fighter's decision)."""
    out = [0.0] * SKIRMISH_SPEC.size
    at = _AT

    def put(key: str, row: int, values: list[float] | list[int] | list[bool]) -> None:
        start = at[key] + row * _WIDTH[key]
        out[start : start + len(values)] = values

    places = {s: i for i, s in enumerate(state.order)}
    over = state.result is not None
    for row, other in enumerate(rows_of(state, seat)):
        if other is None or not state.present[other]:  # an empty slot, or not yet arrived
            continue
        fighter = state.fighters[other]
        out[at["present"] + row] = 1
        out[at["status"] + row * len(STATUS) + _status(state, other)] = 1
        out[at["initiative"] + row] = fighter.initiative or 0.0
        if other in places:
            out[at["place"] + row] = places[other] + 1
            out[at["waiting"] + row] = not over and places[other] > state.turn_index
        out[at["current"] + row] = not over and state.current == other
        out[at["hp"] + row] = max(fighter.hp, 0)
        out[at["hp_max"] + row] = fighter.character.hp_max
        out[at["nonlethal"] + row] = fighter.nonlethal
        out[at["sequels"] + row] = fighter.sequels
        out[at["position"] + row] = state.positions[other]
        out[at["range"] + row] = 0 if other == seat else state.between(seat, other)
        out[at["adjacent"] + row] = other != seat and state.adjacent(seat, other)
        if row >= MAX_SIDE:  # an enemy row
            out[at["flank"] + row] = state.flanked(seat, other)
            out[at["melee"] + row] = len(state.participants(seat, other))
        put("flags", row, _flags(fighter))
        put("stats", row, _stats(fighter.character))
        main, off = _in_hand(fighter)
        put("main_hand", row, main)
        put("off_hand", row, off)
    out[at["round"]] = min(state.round, round_cap + 1)
    phase = None if over else state.phase
    out[at["phase"] : at["phase"] + len(PHASES)] = [phase == p for p in PHASES]
    budget = state.budget
    if not over and state.current == seat and phase in (Phase.SURPRISE, Phase.ROUND):
        out[at["budget"] : at["budget"] + len(BUDGET)] = [
            budget.standard,
            budget.move,
            budget.full_round,
            budget.can_step,
            not budget.acted,
        ]
    lighting = state.options.lighting
    out[at["lighting"] : at["lighting"] + len(LIGHTING)] = [lighting == each for each in LIGHTING]
    return SKIRMISH_SPEC.pack(out)


def _status(state: SkirmishState, seat: int) -> int:
    """The index of `seat`'s status in STATUS."""
    gone = state.gone[seat]
    if gone == Gone.SURRENDERED:
        return 3
    if gone == Gone.FLED:
        return 4
    fighter = state.fighters[seat]
    if fighter.hp <= 0:
        return 1
    return 2 if fighter.out else 0


def _flags(fighter: Fighter) -> list[bool]:
    feats = fighter.character.feats
    return [
        not fighter.has_acted,
        fighter.stunned,
        fighter.prone,
        fighter.cover,
        fighter.cover_nearby,
        fighter.feint_turns > 0,
        Feat.UNCANNY_DODGE in feats,
        Feat.QUICK_DRAW in feats,
        Feat.TWO_WEAPON_FIGHTING in feats,
    ]


_stats = lru_cache(maxsize=MAX_CACHED)(stat_row)
"""A character's stat row, computed once (bounded: every new catalog brings new blocks)."""


def _in_hand(fighter: Fighter) -> tuple[list[float], list[float]]:
    """The weapon rows of the main and the off hand (zeros for an empty hand)."""
    empty = [0.0] * len(WEAPON_FEATURES)
    main: Carried | None = fighter.in_hand(Place.MAIN_HAND)
    off: Carried | None = fighter.in_hand(Place.OFF_HAND)
    return (
        weapon_row(main) if main is not None else empty,
        weapon_row(off) if off is not None else empty,
    )
