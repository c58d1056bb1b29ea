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

import struct
from dataclasses import dataclass

import numpy as np

from duelo.envs.core.observation import (
    SIDES,
    ObservationSpec,
    ObsKey,
    by_identity,
    grid,
    one_hot,
    one_hots,
)
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
PHASE_HOT = one_hots(PHASES)
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
    """The observation of `seat` as one float32 vector, in the order of OBSERVATION_SPEC.

    A hot path: the vector is joined from packed segments, what a stat block and a
    plan show packed once (`by_identity`, `_PLAN_ROWS`) and the rest each time.
    """
    over = state.result is not None
    me, them = state.fighters[seat], state.fighters[1 - seat]
    sees = sees_declaration(state, seat)
    hidden = state.declared[1 - seat] and not sees
    ordered = all(state.declared) and not state.tied and not over and sees
    my_health, their_health = me.health, them.health
    my_blood, their_blood = me.character.blood, them.character.blood
    head = [
        *(NO_PHASE if over else PHASE_HOT[state.phase]),
        ordered and state.order[0] == seat,
        ordered and state.order[0] == 1 - seat,
        me.declare_initiative,
        them.declare_initiative,
        HEALTH_LEVELS - len(my_health),
        HEALTH_LEVELS - len(their_health),
        HEALTH_LEVELS,
        HEALTH_LEVELS,
        *[my_health.count(d) for d in DAMAGES],
        *[their_health.count(d) for d in DAMAGES],
        wound_penalty(my_health),
        wound_penalty(their_health),
        min(state.range, MAX_RANGE),
        min(state.round, 999),
        me.willpower,
        me.character.willpower,
        them.willpower + (them.declared_willpower if hidden else 0),
        them.character.willpower,
        me.blood,
        *my_blood,
        them.blood + hidden * them.declared_blood,
        *their_blood,
    ]
    incoming = state.incoming if state.phase == Phase.INTERRUPT and not over else None
    met: tuple[float, ...] = NO_INCOMING
    if incoming is not None:
        kind = damage_type(state, incoming.attacker, incoming.move)
        met = (incoming.move in MELEE_ATTACKS, *(kind == d for d in DAMAGES))
    return OBSERVATION_SPEC.join(
        (
            _pack(_HEAD, *head),
            _packed(me.character).traits,
            _packed(them.character).traits,
            _packed(me.character).dots,
            _packed(them.character).dots,
            _pack(
                _MIDDLE,
                *weapon_features(me),
                *weapon_features(them),
                me.armour.rating,
                me.armour.penalty,
                them.armour.rating,
                them.armour.penalty,
                *_condition(me, shown=True),
                *_condition(them, shown=not hidden),
            ),
            _plan_row(me, me.plan is not None),  # its own plan, from the moment it is chosen
            _plan_row(them, sees),
            _pack(_INCOMING, *met),
        )
    )


def _condition(fighter: Fighter, shown: bool) -> tuple[float, ...]:
    """CONDITION's entries; whether it delays is hidden with its declaration."""
    return (fighter.clinched, fighter.aiming, fighter.off_balance, fighter.delayed and shown)


@by_identity
def traits_of(c: Character) -> tuple[float, ...]:
    """A stat block's TRAITS (fixed: read once per character)."""
    return (c.vampire, c.celeridad, c.fortaleza, c.potencia)


@by_identity
def dots_of(c: Character) -> tuple[float, ...]:
    """A stat block's Attributes and Abilities, in the `dots` key's order."""
    return tuple(getattr(c, name) for name in (*ATTRIBUTES, *ABILITIES))


@dataclass(frozen=True)
class _Packed:
    """What the duel's observation shows of a stat block, packed once."""

    traits: bytes
    dots: bytes


@by_identity
def _packed(c: Character) -> _Packed:
    traits, dots = traits_of(c), dots_of(c)
    return _Packed(_pack(f"{len(traits)}f", *traits), _pack(f"{len(dots)}f", *dots))


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


@by_identity
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


def _plan_row(fighter: Fighter, known: bool) -> bytes:
    """PLAN's entries of `fighter`'s declaration, packed (zeros where it is not `known`):
    the known flag and the plan's one-hot from `_PLAN_ROWS`, then its Celerity actions
    and Willpower."""
    if not known or fighter.plan is None:
        return _NO_PLAN
    return _PLAN_ROWS[fighter.plan] + _pack("2f", fighter.celerity, fighter.declared_willpower)


_pack = struct.pack
_PLAN_ROWS = {p: _pack(f"{1 + len(PLANS)}f", 1.0, *hot) for p, hot in one_hots(PLANS).items()}
"""A known plan's flag and one-hot, packed once per plan."""
_NO_PLAN = _pack(f"{len(PLAN)}f", *[0.0] * len(PLAN))
NO_PHASE = (0.0,) * len(PHASES)
NO_INCOMING = (0.0,) * 4
_HEAD = f"{OBSERVATION_SPEC.slice_of('traits').start}f"
"""The packed segments' formats: phase to blood, weapon to condition, the incoming attack."""
_MIDDLE = f"{OBSERVATION_SPEC.slice_of('plan').start - OBSERVATION_SPEC.slice_of('weapon').start}f"
_INCOMING = f"{len(NO_INCOMING)}f"
