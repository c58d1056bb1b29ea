"""What one Infierno duelist sees (digest §12 Observation), declared once as data.

Pairs are ordered [self, opponent] from the observing seat. Weapons are seen as
features (damage, range, crit threshold...) rather than ids, so one policy can
play any loadout of the weapon table. Nothing is hidden in this system except
future dice, so both sides' public state is shown.
"""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import ObservationSpec, ObsKey
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
    """The observation of `seat` (digest §12)."""
    me, them = state.fighters[seat], state.fighters[1 - seat]
    pair = (me, them)
    obs = OBSERVATION_SPEC.empty()
    obs["initiative"][:] = [f.initiative or 0.0 for f in pair]
    obs["acts_first"][0] = float(state.order[0] == seat)
    obs["hp"][:] = [max(f.hp, 0) for f in pair]
    obs["hp_max"][:] = [f.character.hp_max for f in pair]
    obs["nonlethal"][:] = [f.nonlethal for f in pair]
    obs["sequels"][:] = [f.sequels for f in pair]
    obs["range"][0] = state.distance
    obs["round"][0] = min(state.round, round_cap + 1)
    if state.phase in PHASES:
        obs["phase"][PHASES.index(state.phase)] = 1.0
    budget = state.budget
    if state.current == seat and state.phase in (Phase.SURPRISE, Phase.ROUND):
        obs["budget"][:] = [
            budget.standard,
            budget.move,
            budget.full_round,
            budget.can_step,
            not budget.acted,
        ]
    for row, fighter in enumerate(pair):
        obs["status"][row] = _status(fighter)
        obs["stats"][row] = _stats(fighter)
        obs["main_hand"][row] = _weapon(fighter.main)
        obs["off_hand"][row] = _weapon(fighter.off)
        for slot, item in enumerate(fighter.carried):
            obs["holstered"][row, slot] = item.place == Place.HOLSTERED
            if item.place != Place.THROWN_AWAY:
                obs["loadout"][row, slot] = _weapon(item)
    obs["lighting"][LIGHTING.index(state.options.lighting)] = 1.0
    obs["duel_repeats"][0] = state.duel_repeats
    return obs


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


def _stats(fighter: Fighter) -> list[float]:
    c = fighter.character
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


def _weapon(item: Carried | None) -> list[float]:
    if item is None:
        return [0.0] * len(WEAPON_FEATURES)
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
