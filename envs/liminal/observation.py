"""What a Liminal duelist sees (digest §12): everything, the rival's stat block included
(a GM-run duel hides nothing, §10 #20); there are no cards and no hidden choices."""

from __future__ import annotations

import numpy as np

from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, grid, one_hot
from duelo.envs.liminal.setup import SKILLS, TRACK, Band, Kind, Strength, Weapon
from duelo.envs.liminal.state import Fighter, LiminalState, Phase

WEAPON_FIELDS = (
    "present",
    "melee",
    "bonus",
    "adjacent",
    "near",
    "medium",
    "far",
    "adjacent_penalty",
    "tier",
)
"""One weapon's row: 1d6 + bonus damage, the bands it works at."""
STATUS = (
    "disarmed",
    "defending",
    "perfect_cover",
    "in_cover",
    "high_ground",
    "unseen",
    "shaken",
    "acted_this_round",
    "first_next_round",
)
TURN = ("deciding", "moved", "drew")
"""Of the own turn: deciding now, the free move spent, the free draw spent."""
TRAITS = ("melee_damage_bonus", "defence_bonus")

OBSERVATION_SPEC = ObservationSpec(
    (
        ObsKey(
            "initiative",
            "1 for the side acting first this round [self, opponent]",
            0,
            1,
            (2,),
            SIDES,
        ),
        ObsKey("hp", "Endurance left, floored at 0 [self, opponent]", 0, 30, (2,), SIDES),
        ObsKey("hp_max", "Endurance at the start [self, opponent]", 0, 30, (2,), SIDES),
        ObsKey("range", "distance track: 0 adjacent, 1 near, 2-3 medium, 4-5 far", 0, 6),
        ObsKey("band", "one-hot: adjacent, near, medium, far", 0, 1, (4,), one_hot(Band)),
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
        ObsKey(
            "skills",
            "melee, shoot, athletics, perception, social, conviction [self, opponent]",
            0,
            4,
            (2, 6),
            grid(SIDES, SKILLS),
        ),
        ObsKey(
            "traits",
            "melee damage bonus, defence bonus [self, opponent]",
            0,
            4,
            (2, 2),
            grid(SIDES, TRAITS),
        ),
        ObsKey(
            "held",
            "weapon in hand: " + ", ".join(WEAPON_FIELDS) + " [self, opponent]",
            -4,
            10,
            (2, 9),
            grid(SIDES, WEAPON_FIELDS),
        ),
        ObsKey(
            "spare",
            "the other weapon carried, same features [self, opponent]",
            -4,
            10,
            (2, 9),
            grid(SIDES, WEAPON_FIELDS),
        ),
        ObsKey(
            "status", ", ".join(STATUS) + " [self, opponent]", 0, 1, (2, 9), grid(SIDES, STATUS)
        ),
    )
)
NO_WEAPON = [0.0] * len(WEAPON_FIELDS)


def observe(state: LiminalState, seat: int, strength_bonus: dict[Strength, int]) -> np.ndarray:
    """The observation of `seat` as one float32 vector, in the order of OBSERVATION_SPEC."""
    return OBSERVATION_SPEC.pack(observed(state, seat, strength_bonus))


def observed(state: LiminalState, seat: int, strength_bonus: dict[Strength, int]) -> list[float]:
    """The values of OBSERVATION_SPEC's keys for `seat`, in order (a mob's observation
    adds its own key after them)."""
    me, them = state.fighters[seat], state.fighters[1 - seat]
    over = state.result is not None
    deciding = not over and state.current == seat
    band = TRACK[min(state.distance, len(TRACK) - 1)]
    values: list[float] = [
        state.first == seat,
        state.first != seat,
        max(me.endurance, 0),
        max(them.endurance, 0),
        me.character.endurance_max,
        them.character.endurance_max,
        state.distance,
        *(band == b for b in Band),
        min(state.round, 999),
        *((not over and state.phase == p) for p in Phase),
        deciding,
        deciding and state.moved,
        me.drew_this_round,
    ]
    for fighter in (me, them):
        values += [getattr(fighter.character, skill) for skill in SKILLS]
    for fighter in (me, them):
        values += [strength_bonus[fighter.character.strength], fighter.character.defence_bonus]
    for fighter in (me, them):
        values += weapon_row(fighter.weapon)
    for fighter in (me, them):
        values += weapon_row(spare(fighter))
    for side, fighter in enumerate((me, them)):
        values += [
            bool(fighter.dropped),
            fighter.defending,
            fighter.perfect_cover,
            fighter.in_cover,
            fighter.high_ground,
            fighter.unseen,
            fighter.shaken,
            fighter.acted_this_round,
            state.next_first == (seat if side == 0 else 1 - seat),
        ]
    return values


def spare(fighter: Fighter) -> Weapon | None:
    """The carried weapon not in hand (and not knocked away)."""
    for index, weapon in enumerate(fighter.carried):
        if index != fighter.held and index not in fighter.dropped:
            return weapon
    return None


def weapon_row(weapon: Weapon | None) -> list[float]:
    if weapon is None:
        return NO_WEAPON
    return [
        1.0,
        weapon.kind == Kind.MELEE,
        weapon.bonus,
        *weapon.bands,
        weapon.adjacent_penalty,
        weapon.tier,
    ]
