"""What a Vampiro combatant sees (digest §12): both stat blocks, health, Willpower and
blood, the range and the weapons, and the rival's declaration this turn only if the rival
declared earlier, the slower first (§12 "known only if the opponent declared earlier",
§10 #30): a declaration made after one's own, or beside it in a full tie (§10 #29), stays
hidden all turn, with everything that would tell it (`sees_declaration`).

Hidden with it: the plan, its Celerity actions and Willpower flag, the Willpower and blood
spent on them (the points shown are those before the declaration), whether it delays, and
the order of Phase 2 (the Celerity dots spent leave the initiative, §10 #22). The option
`public_declarations` shows a declaration to both once made (a full tie still blind)."""

from __future__ import annotations

from functools import cache

import numpy as np

from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.vampiro.damage import wound_penalty
from duelo.envs.vampiro.setup import (
    ABILITIES,
    ATTRIBUTES,
    HEALTH_LEVELS,
    Character,
    Damage,
    Kind,
    Weapon,
)
from duelo.envs.vampiro.state import MELEE_ATTACKS, PLANS, Fighter, Phase, VampiroState, damage_type

PHASES, KINDS, DAMAGES = tuple(Phase), tuple(Kind), tuple(Damage)
"""The enums' members once (iterating an Enum is slow, and observe runs every step)."""
MAX_RANGE = 1000.0
"""Observed range is capped here (a fight is fled well before)."""
TRAITS = ("vampire", "celeridad", "fortaleza", "potencia")
WEAPON = (
    *(f"kind_{k.value}" for k in Kind),
    "bonus",
    "damage",
    *(f"type_{d.value}" for d in Damage),
    "range",
    "rate",
    "clip",
    "ammo",
    "burst",
    "auto",
    "jammed",
    "dropped",
)
CONDITION = ("clinched", "aiming", "off_balance", "delayed")
PLAN = ("known", *(p.name.lower() for p in PLANS), "celerity", "willpower")

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey(
            "phase", "one-hot: declare, modifiers, interrupt, delayed", 0, 1, (4,), one_hot(Phase)
        ),
        ObsKey(
            "initiative",
            "1 for the side acting first this turn, once both have declared (0 for both in a tie)",
            0,
            1,
            (2,),
            SIDES,
        ),
        ObsKey(
            "score",
            "initiative rolled this turn, every Celerity dot unused [self, opponent]",
            -10,
            40,
            (2,),
            SIDES,
        ),
        ObsKey("hp", "health levels left [self, opponent]", 0, HEALTH_LEVELS, (2,), SIDES),
        ObsKey("hp_max", "health levels [self, opponent]", 0, HEALTH_LEVELS, (2,), SIDES),
        ObsKey(
            "health",
            "levels of bashing, lethal, aggravated damage [self, opponent]",
            0,
            HEALTH_LEVELS,
            (2, 3),
            grid(SIDES, (d.value for d in Damage)),
        ),
        ObsKey("wound_penalty", "dice lost to wounds [self, opponent]", 0, 5, (2,), SIDES),
        ObsKey("range", "metres between the two", 0, MAX_RANGE),
        ObsKey("turn", "current turn", 0, 999),
        ObsKey(
            "willpower",
            "points, rating [self, opponent]",
            0,
            10,
            (2, 2),
            grid(SIDES, ("points", "rating")),
        ),
        ObsKey(
            "blood",
            "points, pool, spendable a turn [self, opponent]",
            0,
            30,
            (2, 3),
            grid(SIDES, ("points", "pool", "per_turn")),
        ),
        ObsKey(
            "traits",
            "vampire, Celerity, Fortitude, Potence [self, opponent]",
            0,
            5,
            (2, 4),
            grid(SIDES, TRAITS),
        ),
        ObsKey(
            "dots",
            "Attributes and Abilities [self, opponent]",
            0,
            5,
            (2, 10),
            grid(SIDES, (*ATTRIBUTES, *ABILITIES)),
        ),
        ObsKey(
            "weapon",
            "the weapon in hand [self, opponent]",
            0,
            500,
            (2, len(WEAPON)),
            grid(SIDES, WEAPON),
        ),
        ObsKey(
            "armour",
            "rating, Dexterity penalty [self, opponent]",
            0,
            5,
            (2, 2),
            grid(SIDES, ("rating", "penalty")),
        ),
        ObsKey(
            "condition",
            "clinched, aiming dice, off balance, delaying [self, opponent]",
            0,
            5,
            (2, 4),
            grid(SIDES, CONDITION),
        ),
        ObsKey(
            "plan",
            "declared this turn: known, the plan (one-hot), Celerity actions, Willpower "
            "[self, opponent]",
            0,
            5,
            (2, len(PLAN)),
            grid(SIDES, PLAN),
        ),
        ObsKey(
            "incoming",
            "the attack met by an abort: melee, bashing, lethal, aggravated",
            0,
            1,
            (4,),
            ("melee", *(d.value for d in Damage)),
        ),
    )
)


def sees_declaration(state: VampiroState, seat: int) -> bool:
    """Whether `seat` may see its rival's declaration this turn (module docstring)."""
    rival = 1 - seat
    if not state.declared[rival]:
        return False
    if state.options.public_declarations:
        return not (state.tied and not all(state.declared))
    return state.first_declarer == rival


def observe(state: VampiroState, seat: int) -> np.ndarray:
    """The observation of `seat` as one float32 vector, in the order of OBSERVATION_SPEC."""
    over = state.result is not None
    me, them = state.fighters[seat], state.fighters[1 - seat]
    sees = sees_declaration(state, seat)
    hidden = state.declared[1 - seat] and not sees
    ordered = all(state.declared) and not state.tied and not over and sees
    values: list[float] = [*((not over and state.phase == p) for p in PHASES)]
    values += [ordered and state.order[0] == seat, ordered and state.order[0] == 1 - seat]
    values += [me.declare_initiative, them.declare_initiative]
    values += [HEALTH_LEVELS - len(me.health), HEALTH_LEVELS - len(them.health)]
    values += [HEALTH_LEVELS, HEALTH_LEVELS]
    for fighter in (me, them):
        values += [fighter.health.count(d) for d in DAMAGES]
    values += [wound_penalty(me.health), wound_penalty(them.health)]
    values += [min(state.range, MAX_RANGE), min(state.round, 999)]
    their_willpower = them.willpower + (them.declared_willpower if hidden else 0)
    values += [me.willpower, me.character.willpower, their_willpower, them.character.willpower]
    for fighter, blood in ((me, me.blood), (them, them.blood + hidden * them.declared_blood)):
        pool, per_turn = fighter.character.blood
        values += [blood, pool, per_turn]
    values += traits_of(me.character) + traits_of(them.character)
    values += dots_of(me.character) + dots_of(them.character)
    for fighter in (me, them):
        values += weapon_features(fighter)
    for fighter in (me, them):
        values += [fighter.armour.rating, fighter.armour.penalty]
    for fighter in (me, them):
        delayed = fighter.delayed and (fighter is me or not hidden)
        values += [fighter.clinched, fighter.aiming, fighter.off_balance, delayed]
    values += _plan(me, me.plan is not None)  # its own plan, from the moment it is chosen
    values += _plan(them, sees)
    incoming = state.incoming if state.phase == Phase.INTERRUPT and not over else None
    if incoming is None:
        values += [0.0] * 4
    else:
        kind = damage_type(state, incoming.attacker, incoming.move)
        values += [incoming.move in MELEE_ATTACKS, *(kind == d for d in DAMAGES)]
    return OBSERVATION_SPEC.pack(values)


@cache
def traits_of(c: Character) -> tuple[float, ...]:
    """A stat block's TRAITS (fixed: read once per character)."""
    return (c.vampire, c.celeridad, c.fortaleza, c.potencia)


@cache
def dots_of(c: Character) -> tuple[float, ...]:
    """A stat block's Attributes and Abilities, in the `dots` key's order."""
    return tuple(getattr(c, name) for name in (*ATTRIBUTES, *ABILITIES))


def weapon_features(fighter: Fighter) -> list[float]:
    """The weapon in hand, in WEAPON's order."""
    weapon = fighter.weapon
    return [
        *_arms(weapon),
        fighter.ammo,
        weapon.burst,
        weapon.auto,
        fighter.jammed,
        weapon is not fighter.carried,
    ]


@cache
def _arms(weapon: Weapon) -> tuple[float, ...]:
    """A weapon's fixed features, in WEAPON's order up to the ammunition."""
    return (
        *(weapon.kind == k for k in KINDS),
        weapon.bonus,
        weapon.damage,
        *(weapon.damage_type == d for d in DAMAGES),
        weapon.range,
        weapon.rate,
        weapon.clip,
    )


def _plan(fighter: Fighter, known: bool) -> list[float]:
    if not known or fighter.plan is None:
        return [0.0] * len(PLAN)
    return [1.0, *(fighter.plan == p for p in PLANS), fighter.celerity, fighter.declared_willpower]
