"""What one Infierno duelist sees (digest §12 Observation), declared once as data.

Pairs are ordered [self, opponent] from the observing seat. Weapons are seen as
features (damage, range, crit threshold...) rather than ids, so one policy can
play any loadout of the weapon table. Nothing is hidden in this system except
future dice, so both sides' public state is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def observe(state: DuelState, seat: int, round_cap: int) -> np.ndarray:
    """The observation of `seat` (digest §12) as one float32 vector, in the order of
    OBSERVATION_SPEC.

    A hot path: each fighter's carried weapons are walked once, the constant parts
    (stat blocks, feats, weapon profiles) come from caches, and the values go into
    one list that becomes the vector.
    """
    me, them = state.fighters[seat], state.fighters[1 - seat]
    mine, theirs = _carried(me), _carried(them)
    my_block, their_block = _constant(me.character), _constant(them.character)
    phase = state.phase
    values: list[float] = [
        me.initiative or 0.0,
        them.initiative or 0.0,
        state.order[0] == seat,
        max(me.hp, 0),
        max(them.hp, 0),
        my_block.hp_max,
        their_block.hp_max,
        me.nonlethal,
        them.nonlethal,
        me.sequels,
        them.sequels,
        state.distance,
        min(state.round, round_cap + 1),
        phase == _SURPRISE,
        phase == _ROUND,
        phase == _BOTH_MISS,
        phase == _CRIT_CHOICE,
    ]
    budget = state.budget
    if state.current == seat and (phase == _SURPRISE or phase == _ROUND):
        values += [
            budget.standard,
            budget.move,
            budget.full_round,
            budget.can_step,
            not budget.acted,
        ]
    else:
        values += NO_BUDGET
    values += _status(me, my_block)
    values += _status(them, their_block)
    values += my_block.stats
    values += their_block.stats
    values += mine.main
    values += theirs.main
    values += mine.off
    values += theirs.off
    values += mine.holstered
    values += theirs.holstered
    values += mine.loadout
    values += theirs.loadout
    values += _LIGHTING[state.options.lighting]
    values.append(state.duel_repeats)
    return OBSERVATION_SPEC.pack(values)


NO_BUDGET = [False] * 5
NO_WEAPON = [0.0] * len(WEAPON_FEATURES)
_SURPRISE, _ROUND, _BOTH_MISS, _CRIT_CHOICE = PHASES
_HOLSTERED, _MAIN_HAND, _OFF_HAND, _THROWN_AWAY = Place
_LOST, _COWED = Staredown.LOST, Staredown.COWED
_LIGHTING = {name: [name == each for each in LIGHTING] for name in LIGHTING}


@dataclass(frozen=True)
class _Constant:
    """What an observation shows of a stat block, the same all duel long."""

    hp_max: int
    stats: list[float]
    feats: list[bool]
    """uncanny_dodge, quick_draw, two_weapon_fighting: the status flags that never change."""


@dataclass
class _Carried:
    """One fighter's weapons as the observation shows them."""

    main: list[float]
    off: list[float]
    holstered: list[bool]
    loadout: list[float]
    """The primary and the secondary weapon's features, one after the other."""


def _carried(fighter: Fighter) -> _Carried:
    """One walk over the carried weapons: hands, holsters and the loadout slots."""
    main = off = None
    holstered = [False, False]
    loadout = [NO_WEAPON, NO_WEAPON]
    for slot, item in enumerate(fighter.carried):
        place = item.place
        if place == _THROWN_AWAY:
            continue  # neither in a hand nor shown in the loadout
        row = _weapon(item)
        if slot < 2:
            loadout[slot] = row
            holstered[slot] = place == _HOLSTERED
        if place == _MAIN_HAND and main is None:
            main = row
        elif place == _OFF_HAND and off is None:
            off = row
    return _Carried(main or NO_WEAPON, off or NO_WEAPON, holstered, [*loadout[0], *loadout[1]])


def _status(fighter: Fighter, block: _Constant) -> list[float]:
    return [
        not fighter.has_acted,  # flat-footed
        fighter.stunned,
        fighter.prone,
        fighter.cover,
        fighter.cover_nearby,
        fighter.staredown == _LOST,
        fighter.staredown == _COWED,
        fighter.feint_turns > 0,
        *block.feats,
    ]


def _constant(c: Character) -> _Constant:
    """A stat block's constant part (cached by identity: hashing the block costs more)."""
    cached = _CONSTANTS.get(id(c))
    if cached is None or cached[0] is not c:
        cached = _CONSTANTS[id(c)] = (c, _constant_part(c))
    return cached[1]


_CONSTANTS: dict[int, tuple[Character, _Constant]] = {}
_WEAPONS: dict[int, tuple[Weapon, tuple[list[float], float, float]]] = {}


def _constant_part(c: Character) -> _Constant:
    stats = [
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
    feats = [feat in c.feats for feat in ("uncanny_dodge", "quick_draw", "two_weapon_fighting")]
    return _Constant(c.hp_max, stats, feats)


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


def _weapon(item: Carried) -> list[float]:
    head, capacity, reliability = _weapon_static(item.weapon)
    return [*head, item.ammo, capacity, item.jammed, reliability]
