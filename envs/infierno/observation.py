"""What one Infierno duelist sees (digest §12 Observation), declared once as data.

Pairs are ordered [self, opponent] from the observing seat. Weapons are seen as
features (damage, range, crit threshold...) rather than ids, so one policy can
play any loadout of the weapon table. Nothing is hidden in this system except
future dice, so both sides' public state is shown.
"""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import ObservationSpec, ObsKey
from duelo.envs.infierno.setup import Character, Weapon
from duelo.envs.infierno.state import Carried, DuelState, Fighter, Phase, Place, Staredown

WEAPON_FEATURES = (
    "present",
    "firearm",
    "throwable",
    "two_handed",
    "mean_damage",
    "crit_threshold",
    "range_increment",
    "max_range",
    "ammo",
    "capacity",
    "jammed",
    "reliability",
)
STATUS_FLAGS = (
    "flat_footed",
    "stunned",
    "prone",
    "cover",
    "cover_nearby",
    "lost_staredown",
    "cowed",
    "feint_ready",
    "uncanny_dodge",
    "quick_draw",
    "two_weapon_fighting",
)
STATS = (
    "attack_melee",
    "attack_ranged",
    "defense",
    "dodge",
    "rd",
    "init_bonus",
    "str_mod",
    "dex_mod",
    "reflex",
    "craft_mech",
    "intimidate",
    "deceive",
    "attention",
)
PHASES = (Phase.SURPRISE, Phase.ROUND, Phase.BOTH_MISS_DECISION, Phase.CRIT_CHOICE)
LIGHTING = ("clear", "partial_concealment", "total_concealment")

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey("initiative", "initiative totals [self, opponent]; 0 before rolling", -50, 80, (2,)),
        ObsKey("acts_first", "1 if this seat acts first each round", 0, 1),
        ObsKey("hp", "lethal hit points left [self, opponent], floored at 0", 0, 999, (2,)),
        ObsKey("hp_max", "maximum hit points [self, opponent]", 0, 999, (2,)),
        ObsKey("nonlethal", "nonlethal damage taken [self, opponent]", 0, 999, (2,)),
        ObsKey("sequels", "moderate Sequels, -2 each [self, opponent]", 0, 99, (2,)),
        ObsKey("range", "distance in 1.5 m squares (1 = adjacent)", 1, 999),
        ObsKey("round", "current round (0 = surprise round)", 0, 999),
        ObsKey("phase", "one-hot: surprise, round, both-miss decision, crit choice", 0, 1, (4,)),
        ObsKey(
            "budget",
            "own turn left: standard, move, full-round, step, nothing done yet",
            0,
            1,
            (5,),
        ),
        ObsKey(
            "status",
            "flags " + ", ".join(STATUS_FLAGS) + " [self, opponent]",
            0,
            1,
            (2, len(STATUS_FLAGS)),
        ),
        ObsKey(
            "stats",
            "stat block " + ", ".join(STATS) + " [self, opponent]",
            -50,
            99,
            (2, len(STATS)),
        ),
        ObsKey(
            "main_hand",
            "main-hand weapon: " + ", ".join(WEAPON_FEATURES),
            -99,
            999,
            (2, len(WEAPON_FEATURES)),
        ),
        ObsKey("off_hand", "off-hand weapon, same features", -99, 999, (2, len(WEAPON_FEATURES))),
        ObsKey("holstered", "primary and secondary weapon still holstered", 0, 1, (2, 2)),
        ObsKey(
            "loadout",
            "primary and secondary weapon features wherever they are (a duelist's guns show)",
            -99,
            999,
            (2, 2, len(WEAPON_FEATURES)),
        ),
        ObsKey("lighting", "one-hot: clear, partial, total concealment", 0, 1, (3,)),
        ObsKey("duel_repeats", "times the formal duel was repeated after a double miss", 0, 99),
    )
)


def observe(state: DuelState, seat: int, round_cap: int) -> dict[str, np.ndarray]:
    """The observation of `seat` (digest §12), in the order of OBSERVATION_SPEC.

    A hot path: the values go into one list, become one float32 array, and
    each key is a view into it.
    """
    me, them = state.fighters[seat], state.fighters[1 - seat]
    values: list[float] = [
        me.initiative or 0.0,
        them.initiative or 0.0,
        state.order[0] == seat,
        max(me.hp, 0),
        max(them.hp, 0),
        me.character.hp_max,
        them.character.hp_max,
        me.nonlethal,
        them.nonlethal,
        me.sequels,
        them.sequels,
        state.distance,
        min(state.round, round_cap + 1),
    ]
    values += [state.phase == phase for phase in PHASES]
    budget = state.budget
    if state.current == seat and state.phase in (Phase.SURPRISE, Phase.ROUND):
        values += [
            budget.standard,
            budget.move,
            budget.full_round,
            budget.can_step,
            not budget.acted,
        ]
    else:
        values += NO_BUDGET
    values += _status(me) + _status(them)
    values += _stats(me.character) + _stats(them.character)
    for hand in (Place.MAIN_HAND, Place.OFF_HAND):
        values += _weapon(me.in_hand(hand)) + _weapon(them.in_hand(hand))
    for fighter in (me, them):
        values += [
            slot < len(fighter.carried) and fighter.carried[slot].place == Place.HOLSTERED
            for slot in (0, 1)
        ]
    for fighter in (me, them):
        for slot in (0, 1):
            item = fighter.carried[slot] if slot < len(fighter.carried) else None
            values += _weapon(item if item and item.place != Place.THROWN_AWAY else None)
    values += [state.options.lighting == lighting for lighting in LIGHTING]
    values.append(state.duel_repeats)
    return OBSERVATION_SPEC.split(np.array(values, dtype=np.float32))


NO_BUDGET = [False] * 5
NO_WEAPON = [0.0] * len(WEAPON_FEATURES)


def _status(fighter: Fighter) -> list[float]:
    feats = fighter.character.feats
    return [
        fighter.flat_footed,
        fighter.stunned,
        fighter.prone,
        fighter.cover,
        fighter.cover_nearby,
        fighter.staredown == Staredown.LOST,
        fighter.staredown == Staredown.COWED,
        fighter.feint_turns > 0,
        "uncanny_dodge" in feats,
        "quick_draw" in feats,
        "two_weapon_fighting" in feats,
    ]


def _stats(c: Character) -> list[float]:
    """A stat block's row (constant: cached by identity, as hashing the block costs more)."""
    cached = _STATS.get(id(c))
    if cached is None or cached[0] is not c:
        cached = _STATS[id(c)] = (c, _stats_row(c))
    return cached[1]


_STATS: dict[int, tuple[Character, list[float]]] = {}
_WEAPONS: dict[int, tuple[Weapon, tuple[list[float], float, float]]] = {}


def _stats_row(c: Character) -> list[float]:
    return [
        c.melee_attack,
        c.ranged_attack,
        c.defense,
        c.dodge,
        c.rd,
        c.init_bonus,
        c.str_mod,
        c.dex_mod,
        c.reflex,
        c.craft_mech,
        c.intimidate,
        c.deceive,
        c.attention,
    ]


def _weapon_static(w: Weapon) -> tuple[list[float], float, float]:
    """A weapon's constant features: the first eight, capacity, reliability (cached)."""
    cached = _WEAPONS.get(id(w))
    if cached is None or cached[0] is not w:
        cached = _WEAPONS[id(w)] = (w, _weapon_row(w))
    return cached[1]


def _weapon_row(w: Weapon) -> tuple[list[float], float, float]:
    count, sides = w.damage
    head = [
        1.0,
        w.is_firearm,
        w.throwable,
        w.hands == 2,
        count * (sides + 1) / 2,
        w.crit_low - 10,
        w.increment,
        w.max_range,
    ]
    return head, w.capacity, w.reliability


def _weapon(item: Carried | None) -> list[float]:
    if item is None:
        return NO_WEAPON
    head, capacity, reliability = _weapon_static(item.weapon)
    return [*head, item.ammo, capacity, item.jammed, reliability]
