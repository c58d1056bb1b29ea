"""What a Dunwich duelist sees (digest §12): both stat blocks and registers (a GM-run
duel hides nothing, as in Liminal), except the rival's sealed plan for the turn: its
bid or its escape task shows only once both plans are in (§4, §10 #7)."""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, grid, one_hot, one_hots
from duelo.envs.dunwich.setup import HALF_METRES, MAX_ARENA, MAX_DICE, MAX_PV, Weapon
from duelo.envs.dunwich.state import INCAPACITATION, VITALITY, DunwichState, Maneuver, Phase

CAPACITIES = ("fisico", "lucha", "disparo", "ini")
ARMS = ("melee_dice", "melee_lethal", "ranged_dice", "firearm", "ballistic_armour")
STATUS = ("acted", "reacted", "task", "defend_only", "engaged_at_start", "bonus", "bid")
INCOMING = ("danar", "desplazar", "incapacitar")
BOXES = tuple(f"box{i}_{value}" for i, value in enumerate(VITALITY))
PHASE_HOT = one_hots(Phase)
NO_PHASE = (0.0,) * len(Phase)
INCOMING_HOT: dict[Maneuver | None, tuple[float, ...]] = {
    **one_hots((Maneuver.DANAR, Maneuver.DESPLAZAR, Maneuver.INCAPACITAR))
}
NO_INCOMING = (0.0,) * len(INCOMING)

PHASE_KEY = ObsKey("phase", "one-hot: plan, act, react, push", 0, 1, (4,), one_hot(Phase))
INCOMING_KEY = ObsKey(
    "incoming",
    "the maneuver to react to, one-hot danar, desplazar, incapacitar",
    0,
    1,
    (3,),
    INCOMING,
)
"""The decision's phase and the maneuver a reaction answers: the duel's and a skirmish's."""

OBSERVATION_SPEC = ObservationSpec(
    (
        PHASE_KEY,
        INCOMING_KEY,
        ObsKey(
            "initiative", "1 for the side acting first this turn, once ordered", 0, 1, (2,), SIDES
        ),
        ObsKey("turn", "current combat turn", 0, 999),
        ObsKey("position", "metres from the left wall [self, opponent]", 0, MAX_ARENA, (2,), SIDES),
        ObsKey("range", "metres between the two", 0, MAX_ARENA),
        ObsKey(
            "behind",
            "metres to the wall at each one's back [self, opponent]",
            0,
            MAX_ARENA,
            (2,),
            SIDES,
        ),
        ObsKey(
            "capacities",
            "Físico, Lucha, disparo, this turn's INI [self, opponent]",
            0,
            10,
            (2, 4),
            grid(SIDES, CAPACITIES),
        ),
        ObsKey("pv", "Advantage Points [self, opponent]", 0, MAX_PV, (2,), SIDES),
        ObsKey(
            "vitality",
            "1 per crossed Vitality box, valued 1 2 2 3 3 4 5 6 [self, opponent]",
            0,
            1,
            (2, 8),
            grid(SIDES, BOXES),
        ),
        ObsKey(
            "hp",
            "Incapacitation boxes left before the side is out [self, opponent]",
            0,
            INCAPACITATION,
            (2,),
            SIDES,
        ),
        ObsKey(
            "hp_max",
            "Incapacitation boxes of a human [self, opponent]",
            0,
            INCAPACITATION,
            (2,),
            SIDES,
        ),
        ObsKey(
            "arms",
            "melee dice, melee lethal, ranged dice, firearm, ballistic armour [self, opponent]",
            0,
            MAX_DICE,
            (2, 5),
            grid(SIDES, ARMS),
        ),
        ObsKey(
            "status",
            "this turn: acted, reacted, on the escape task, Defenderse only, engaged at the "
            "start of its Initiative Turn, bonus successes, bid (the rival's once both are "
            "in) [self, opponent]",
            0,
            10,
            (2, 7),
            grid(SIDES, STATUS),
        ),
    )
)


def observe(state: DunwichState, seat: int) -> np.ndarray:
    """The observation of `seat` as one float32 vector, in the order of OBSERVATION_SPEC."""
    over = state.result is not None
    me, them = state.fighters[seat], state.fighters[1 - seat]
    pending = state.pending if state.phase == Phase.REACT and not over else None
    incoming = pending.maneuver if pending is not None else None
    first = state.order[0] if state.ordered else None
    values: list[float] = [
        *(NO_PHASE if over else PHASE_HOT[state.phase]),
        *INCOMING_HOT.get(incoming, NO_INCOMING),
        first == seat,
        first == 1 - seat,
        min(state.round, 999),
        me.position / HALF_METRES,
        them.position / HALF_METRES,
        state.distance() / HALF_METRES,
        state.behind(seat) / HALF_METRES,
        state.behind(1 - seat) / HALF_METRES,
    ]
    for fighter in (me, them):
        c = fighter.character
        values += [c.fisico, c.lucha, c.disparo, fighter.initiative]
    values += [me.pv, them.pv]
    values += [*me.crossed, *them.crossed]
    values += [INCAPACITATION - me.incap, INCAPACITATION - them.incap]
    values += [INCAPACITATION, INCAPACITATION]
    for fighter in (me, them):
        values += [
            fighter.melee.dice,
            fighter.melee.lethal,
            *_ranged(fighter.ranged),
            fighter.character.ballistic_armour,
        ]
    for fighter in (me, them):
        values += [
            fighter.acted,
            fighter.reacted,
            fighter.task,
            fighter.defend_only,
            fighter.engaged_at_start,
            fighter.bonus,
            fighter.bid,
        ]
    return OBSERVATION_SPEC.pack(values)


def _ranged(weapon: Weapon | None) -> list[float]:
    return [0.0, 0.0] if weapon is None else [weapon.dice, weapon.firearm]
