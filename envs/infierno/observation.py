"""What one Infierno duelist sees (digest §12 Observation), declared once as data.

Pairs are ordered [self, opponent] from the observing seat. Weapons are seen as
features (damage, range, crit threshold...) rather than ids, so one policy can
play any loadout of the weapon table. Nothing is hidden in this system except
future dice, so both sides' public state is shown.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from duelo.envs.core.observation import (
    MAX_CACHED,
    SIDES,
    ObservationSpec,
    ObsKey,
    by_identity,
    grid,
    one_hot,
)
from duelo.envs.infierno.setup import Character, Feat, Weapon
from duelo.envs.infierno.state import Carried, Fighter, InfiernoState, Phase, Place, Staredown

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
BUDGET = ("standard", "move", "full_round", "step", "nothing_done")
"""What is left of the own turn (digest §4 step 7)."""
LOADOUT = ("primary", "secondary")

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey(
            "initiative",
            "initiative totals [self, opponent]; 0 before rolling",
            -50,
            80,
            (2,),
            SIDES,
        ),
        ObsKey(
            "initiative_rolled",
            "1 once the initiative is rolled [self, opponent] (a total may be 0)",
            0,
            1,
            (2,),
            SIDES,
        ),
        ObsKey("acts_first", "1 if this seat acts first each round", 0, 1),
        ObsKey("hp", "lethal hit points left [self, opponent], floored at 0", 0, 999, (2,), SIDES),
        ObsKey("hp_max", "maximum hit points [self, opponent]", 0, 999, (2,), SIDES),
        ObsKey("nonlethal", "nonlethal damage taken [self, opponent]", 0, 999, (2,), SIDES),
        ObsKey("sequels", "moderate Sequels, -2 each [self, opponent]", 0, 99, (2,), SIDES),
        ObsKey("range", "distance in 1.5 m squares (1 = adjacent)", 1, 999),
        ObsKey("round", "current round (0 = surprise round)", 0, 999),
        ObsKey(
            "phase",
            "one-hot: surprise, round, both-miss decision, crit choice",
            0,
            1,
            (4,),
            one_hot(PHASES),
        ),
        ObsKey(
            "budget",
            "own turn left: standard, move, full-round, step, nothing done yet",
            0,
            1,
            (5,),
            BUDGET,
        ),
        ObsKey(
            "status",
            "flags " + ", ".join(STATUS_FLAGS) + " [self, opponent]",
            0,
            1,
            (2, len(STATUS_FLAGS)),
            grid(SIDES, STATUS_FLAGS),
        ),
        ObsKey(
            "stats",
            "stat block " + ", ".join(STATS) + " [self, opponent]",
            -50,
            99,
            (2, len(STATS)),
            grid(SIDES, STATS),
        ),
        ObsKey(
            "main_hand",
            "main-hand weapon: " + ", ".join(WEAPON_FEATURES),
            -99,
            999,
            (2, len(WEAPON_FEATURES)),
            grid(SIDES, WEAPON_FEATURES),
        ),
        ObsKey(
            "off_hand",
            "off-hand weapon, same features",
            -99,
            999,
            (2, len(WEAPON_FEATURES)),
            grid(SIDES, WEAPON_FEATURES),
        ),
        ObsKey(
            "holstered",
            "primary and secondary weapon still holstered (the opponent's: those it has drawn)",
            0,
            1,
            (2, 2),
            grid(SIDES, LOADOUT),
        ),
        ObsKey(
            "loadout",
            "primary and secondary weapon features wherever they are: all one's own, and the "
            "opponent's it has drawn (a weapon never drawn stays hidden)",
            -99,
            999,
            (2, 2, len(WEAPON_FEATURES)),
            grid(SIDES, LOADOUT, WEAPON_FEATURES),
        ),
        ObsKey(
            "lighting", "one-hot: clear, partial, total concealment", 0, 1, (3,), one_hot(LIGHTING)
        ),
        ObsKey("duel_repeats", "times the formal duel was repeated after a double miss", 0, 99),
    )
)


def observe(state: InfiernoState, seat: int, round_cap: int) -> np.ndarray:
    """The observation of `seat` (digest §12) as one float32 vector, in the order of
    OBSERVATION_SPEC.

    A hot path: the vector is joined from packed segments. What changes (HP,
    range, budget, flags...) is packed each time; what does not (stat blocks,
    feats, lighting) and each weapon's row at its ammo and jam state are packed
    once and reused, and each fighter's weapons are walked once.
    """
    me, them = state.fighters[seat], state.fighters[1 - seat]
    my_hands, my_holsters, my_loadout = _carried(me, own=True)
    their_hands, their_holsters, their_loadout = _carried(them, own=False)
    my_block, their_block = _constant(me.character), _constant(them.character)
    phase = None if state.result is not None else state.phase  # a finished duel has none
    head = [
        me.initiative or 0.0,
        them.initiative or 0.0,
        me.initiative is not None,
        them.initiative is not None,
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
        head += [budget.standard, budget.move, budget.full_round, budget.can_step, not budget.acted]
    else:
        head += NO_BUDGET
    return OBSERVATION_SPEC.join(
        (
            _pack(_HEAD, *head),
            _pack(_STATUS, *_status(me)),
            my_block.feats,
            _pack(_STATUS, *_status(them)),
            their_block.feats,
            my_block.stats,
            their_block.stats,
            my_hands[0],  # main hands [self, opponent], then off hands
            their_hands[0],
            my_hands[1],
            their_hands[1],
            _pack(_HOLSTERS, *my_holsters, *their_holsters),
            my_loadout,
            their_loadout,
            _LIGHTING[state.options.lighting],
            _pack("f", state.duel_repeats),
        )
    )


NO_BUDGET = [False] * 5
_pack = struct.pack
_FEATS = tuple(Feat(name) for name in STATUS_FLAGS[-3:])
"""The status flags a stat block fixes: its feats."""
_HEAD = f"{OBSERVATION_SPEC.slice_of('status').start}f"
"""The packed segments' formats: the head (initiative to budget), a fighter's changing
status flags, both fighters' holsters, one weapon row."""
_STATUS = f"{len(STATUS_FLAGS) - len(_FEATS)}f"
_HOLSTERS = f"{next(k.size for k in OBSERVATION_SPEC.keys if k.name == 'holstered')}f"
_ROW = f"{len(WEAPON_FEATURES)}f"
NO_WEAPON = _pack(_ROW, *[0.0] * len(WEAPON_FEATURES))
_SURPRISE, _ROUND, _BOTH_MISS, _CRIT_CHOICE = PHASES
_HOLSTERED, _MAIN_HAND, _OFF_HAND, _THROWN_AWAY = Place
_LOST, _COWED = Staredown.LOST, Staredown.COWED
_LIGHTING = {name: _pack("3f", *[name == each for each in LIGHTING]) for name in LIGHTING}


@dataclass(frozen=True)
class _Constant:
    """What an observation shows of a stat block, the same all duel long (packed)."""

    hp_max: int
    stats: bytes
    feats: bytes
    """The `_FEATS` flags, which never change."""


def _carried(fighter: Fighter, own: bool) -> tuple[tuple[bytes, bytes], list[bool], bytes]:
    """One walk over the carried weapons: the main and off hand's rows, the two
    holsters, and the primary and secondary weapon's rows (the loadout). Of the
    opponent's (`own` False), only weapons it has drawn show (digest §12: the opponent's
    weapon in hand; what it never drew, a derringer in a boot, stays hidden)."""
    main = off = None
    holstered = [False, False]
    loadout = [NO_WEAPON, NO_WEAPON]
    for slot, item in enumerate(fighter.carried):
        place = item.place
        if place == _THROWN_AWAY or not (own or item.shown):
            continue  # neither in a hand nor shown in the loadout
        row = _weapon(item)
        if slot < 2:
            loadout[slot] = row
            holstered[slot] = place == _HOLSTERED
        if place == _MAIN_HAND and main is None:
            main = row
        elif place == _OFF_HAND and off is None:
            off = row
    return (main or NO_WEAPON, off or NO_WEAPON), holstered, loadout[0] + loadout[1]


def _status(fighter: Fighter) -> list[bool]:
    """The status flags that change, in STATUS_FLAGS order (the feats follow them)."""
    return [
        not fighter.has_acted,  # flat-footed
        fighter.stunned,
        fighter.prone,
        fighter.cover,
        fighter.cover_nearby,
        fighter.staredown == _LOST,
        fighter.staredown == _COWED,
        fighter.feint_turns > 0,
    ]


@by_identity
def _constant(c: Character) -> _Constant:
    """A stat block's constant part."""
    stats = stat_row(c)
    feats = [feat in c.feats for feat in _FEATS]
    return _Constant(c.hp_max, _pack(f"{len(stats)}f", *stats), _pack("3f", *feats))


def stat_row(c: Character) -> list[int]:
    """The stat block as the `stats` key lists it (STATS order)."""
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


def _weapon(item: Carried) -> bytes:
    """A carried weapon's packed row (cached by weapon identity, ammo and jam)."""
    key = (id(item.weapon), item.ammo, item.jammed)
    cached = _ROWS.get(key)
    if cached is None or cached[0] is not item.weapon:
        if len(_ROWS) >= MAX_CACHED:
            _ROWS.clear()
        cached = _ROWS[key] = (item.weapon, _pack(_ROW, *weapon_row(item)))
    return cached[1]


def weapon_row(item: Carried) -> list[float]:
    w = item.weapon
    count, sides = w.damage
    return [
        1.0,
        w.is_firearm,
        w.throwable,
        w.hands == 2,
        count * (sides + 1) / 2,
        w.crit_low - 10,
        w.increment,
        w.max_range,
        item.ammo,
        w.capacity,
        item.jammed,
        w.reliability,
    ]


_ROWS: dict[tuple[int, int, bool], tuple[Weapon, bytes]] = {}
