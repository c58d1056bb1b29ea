"""Scripted Infierno NPCs: they read only the observation and the mask.

Each NPC is one small class whose `act` walks a priority list of the moves its
style prefers, taking the first one the mask allows. Tuning constants are named
on the class. `InfiernoView` decodes the observation arrays into named fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.observation import SIDES
from duelo.envs.infierno.observation import (
    LOADOUT,
    OBSERVATION_SPEC,
    PHASES,
    STATS,
    STATUS_FLAGS,
    WEAPON_FEATURES,
)
from duelo.envs.infierno.odds import hit_chance
from duelo.envs.infierno.state import Action, Phase

SELF, OPPONENT = 0, 1
"""Indexes of `SIDES`, the two sides an observation shows."""


def _entries(key: str, names: tuple[str, ...]) -> list[dict[str, int]]:
    """Per side, where each named entry of `key` lies in the flat vector (read once)."""
    index = OBSERVATION_SPEC.index
    return [{name: index(key, f"{side}.{name}") for name in names} for side in SIDES]


_PHASES = [(OBSERVATION_SPEC.index("phase", phase.name.lower()), phase) for phase in PHASES]
_PAIRS = {
    key: [OBSERVATION_SPEC.index(key, side) for side in SIDES]
    for key in ("hp", "hp_max", "nonlethal")
}
_STATUS = _entries("status", STATUS_FLAGS)
_STATS = _entries("stats", STATS)
_HANDS = {hand: _entries(hand, WEAPON_FEATURES) for hand in ("main_hand", "off_hand")}
_LOADOUT_FIREARM = _entries("loadout", tuple(f"{slot}.firearm" for slot in LOADOUT))
_RANGE = OBSERVATION_SPEC.index("range")
_MOVE_LEFT = OBSERVATION_SPEC.index("budget", "move")


class InfiernoView:
    """Named reads of one Infierno observation; `who` is SELF (0) or OPPONENT (1).

    The flat vector is read once as a Python list, at the indexes the observation
    spec gives each named entry (looked up once, at import): an NPC reads a dozen
    entries a decision, and list items cost far less than numpy scalars.
    """

    __slots__ = ("values",)

    def __init__(self, observation: Mapping[str, np.ndarray]) -> None:
        self.values: list[float] = OBSERVATION_SPEC.flatten(observation).tolist()

    @property
    def phase(self) -> Phase:
        values = self.values
        for index, phase in _PHASES:  # the one-hot's set entry (argmax)
            if values[index] == 1:
                return phase
        return PHASES[0]

    @property
    def distance(self) -> int:
        return int(self.values[_RANGE])

    def hp(self, who: int) -> float:
        return self.values[_PAIRS["hp"][who]] - self.values[_PAIRS["nonlethal"][who]]

    def hp_fraction(self, who: int) -> float:
        return self.hp(who) / self.values[_PAIRS["hp_max"][who]]

    def flag(self, who: int, name: str) -> bool:
        return bool(self.values[_STATUS[who][name]])

    def stat(self, who: int, name: str) -> int:
        return int(self.values[_STATS[who][name]])

    def weapon(self, who: int, feature: str, hand: str = "main_hand") -> float:
        return self.values[_HANDS[hand][who][feature]]

    def gunman(self, who: int) -> bool:
        """Holds a firearm, or has one to draw with empty hands."""
        if self.weapon(who, "present"):
            return bool(self.weapon(who, "firearm"))
        return any(self.values[index] for index in _LOADOUT_FIREARM[who].values())

    @property
    def move_left(self) -> bool:
        """The turn's move action is unspent (the standard may still replace it)."""
        return bool(self.values[_MOVE_LEFT])

    def threat(self, attacker: int) -> float:
        """Expected damage of one main-hand attack of `attacker` now (a rough read)."""
        target = 1 - attacker
        if not self.weapon(attacker, "present"):
            return 0.0
        defense = self.stat(target, "defense") + 4 * self.flag(target, "cover")
        if self.flag(target, "flat_footed") and not self.flag(target, "uncanny_dodge"):
            defense -= self.stat(target, "dodge")
        bonus_name = "attack_ranged" if self.weapon(attacker, "firearm") else "attack_melee"
        chance = hit_chance(self.stat(attacker, bonus_name), defense)
        return float(chance) * self.weapon(attacker, "mean_damage")


def decide_phase(view: InfiernoView, mask: np.ndarray, insist: Callable[[], bool]) -> int | None:
    """The two non-turn decisions: the honour question and the critical effect."""
    if view.phase == Phase.BOTH_MISS_DECISION:
        return int(Action.INSIST if insist() else Action.SETTLE)
    if view.phase == Phase.CRIT_CHOICE:
        # maximum damage (about twice the mean) when that drops the target, else the multiplier
        if view.weapon(SELF, "mean_damage") * 2 >= view.hp(OPPONENT) and mask[Action.CRIT_MAXIMUM]:
            return int(Action.CRIT_MAXIMUM)
        return first_legal(mask, [Action.CRIT_MULTIPLY, Action.CRIT_MAXIMUM])
    return None


class AggressiveNpc:
    """Draws and attacks every turn; closes in with melee weapons; never backs down."""

    name = "aggressive"
    description = "draw and attack every turn, charge with blades, insist on honour"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = InfiernoView(observation)
        decided = decide_phase(view, action_mask, insist=lambda: True)
        if decided is not None:
            return decided
        melee = view.weapon(SELF, "present") and not view.weapon(SELF, "firearm")
        closing = [Action.ADVANCE, Action.STEP_IN] if melee and view.distance > 1 else []
        return first_legal(
            action_mask,
            [
                Action.TWO_WEAPON_ATTACK,
                Action.ATTACK_MAIN,
                Action.CLEAR_JAM,
                Action.RELOAD,
                Action.DRAW_PRIMARY,
                *closing,
                Action.ATTACK_MAIN,
                Action.ATTACK_UNARMED,
                Action.ADVANCE,
                Action.END_TURN,
            ],
        )


class CautiousNpc:
    """Takes cover before anything else, fires from it, settles, gives up when badly hurt."""

    name = "cautious"
    description = "cover first, then draw and fire from cover; settles; surrenders when losing"

    SURRENDER_BELOW = 0.25
    """Surrender at this fraction of own HP..."""
    OPPONENT_ABOVE = 0.5
    """...while the opponent still has more than this fraction of theirs (digest §10.2)."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = InfiernoView(observation)
        decided = decide_phase(view, action_mask, insist=lambda: False)
        if decided is not None:
            return decided
        losing = (
            view.hp_fraction(SELF) <= self.SURRENDER_BELOW
            and view.hp_fraction(OPPONENT) > self.OPPONENT_ABOVE
        )
        if losing and action_mask[Action.SURRENDER]:
            return int(Action.SURRENDER)
        escape = [Action.STEP_OUT] if view.distance == 1 else []
        return first_legal(
            action_mask,
            [
                *escape,
                Action.TAKE_COVER,
                Action.DRAW_PRIMARY,
                Action.CLEAR_JAM,
                Action.RELOAD,
                Action.ATTACK_MAIN,
                Action.ATTACK_UNARMED,
                Action.END_TURN,
            ],
        )


class ExpertNpc:
    """Plays the rules well: tempo, cover, prone against guns, range, jams, honour.

    - Draws and fires at once, since the first shot meets a flat-footed target.
    - Spends spare move actions on cover, and drops prone (free) when no blade
      can reach it: +4 and +4 Defense against shots, and firearms lose nothing prone.
    - Steps in when one square removes a range penalty; charges with blades.
    - Clears jams, reloads empty guns, fights with two weapons only with the feat.
    - Insists on a repeat only when it out-guns the opponent, else settles.
    - Never surrenders: a surrender scores as a loss, so fighting on is never worse.
    """

    name = "expert"
    description = "draws and fires first, cover and prone against guns, range-aware, clears jams"

    MELEE_REACH = 7
    """A blade this close can advance and strike this round: stay standing."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = InfiernoView(observation)
        decided = decide_phase(
            view, action_mask, insist=lambda: view.threat(SELF) > view.threat(OPPONENT)
        )
        if decided is not None:
            return decided
        if view.gunman(SELF):
            return first_legal(action_mask, self._gunfight(view, action_mask))
        return first_legal(action_mask, self._melee(view))

    def _gunfight(self, view: InfiernoView, mask: np.ndarray) -> list[Action]:
        plan: list[Action] = []
        blade_near = not view.gunman(OPPONENT) and view.distance <= self.MELEE_REACH
        if not view.flag(SELF, "prone") and not blade_near and view.distance > 1:
            plan.append(Action.PRONE_TOGGLE)  # +4 against shots from beyond adjacent
        if view.flag(SELF, "prone") and blade_near and view.move_left:
            plan.append(Action.PRONE_TOGGLE)  # stand up against a blade
        increment = view.weapon(SELF, "range_increment")
        if increment and view.distance > increment and (view.distance - 1) % increment == 0:
            plan.append(Action.STEP_IN)  # one square less is one increment less
        if view.weapon(SELF, "jammed"):
            plan.append(Action.CLEAR_JAM)
        elif view.weapon(SELF, "present") and not view.weapon(SELF, "ammo"):
            plan.append(Action.RELOAD)
        two_guns = view.flag(SELF, "two_weapon_fighting")
        if two_guns:
            plan.append(Action.TWO_WEAPON_ATTACK)
        plan.append(Action.DRAW_PRIMARY)
        spare_move = view.move_left and view.phase != Phase.SURPRISE  # one action there
        if spare_move:  # these must not cost the shot
            if two_guns:
                plan.append(Action.DRAW_SECONDARY)
            plan.append(Action.TAKE_COVER)
        plan += [Action.ATTACK_MAIN, Action.ATTACK_UNARMED]
        if spare_move:
            plan.append(Action.TAKE_COVER)
        plan.append(Action.END_TURN)
        return plan

    def _melee(self, view: InfiernoView) -> list[Action]:
        if view.flag(SELF, "prone"):
            return [Action.PRONE_TOGGLE, Action.END_TURN]
        if view.distance > self.MELEE_REACH:
            return [Action.RUN_IN, Action.ADVANCE, Action.END_TURN]
        plan = [Action.ADVANCE, Action.STEP_IN]  # close in with the move action...
        if view.flag(SELF, "two_weapon_fighting"):
            plan.append(Action.TWO_WEAPON_ATTACK)
        if view.move_left:  # ...or draw with it, if already adjacent
            plan.append(Action.DRAW_PRIMARY)
        # then strike with the standard action: a fist now beats a knife next turn
        return [*plan, Action.ATTACK_MAIN, Action.ATTACK_UNARMED, Action.END_TURN]


NPCS = {npc.name: npc for npc in (AggressiveNpc, CautiousNpc, ExpertNpc)}
"""Infierno's own NPCs, registered as "infierno:NAME"."""
