"""Scripted Infierno NPCs: they read only the observation and the mask.

Each NPC is one small class whose `act` walks a priority list of the moves its
style prefers, taking the first one the mask allows. Tuning constants are named
on the class. `InfiernoView` decodes the observation arrays into named fields.

Each also decides many duels in one call (`act_batch`, what `--engine fast` asks):
the same priority lists, each preference kept for the rows whose reads call for it
(`InfiernoRows`, `first_legal_by_row`). The two rare decisions of `decide_phase`
(the honour question, the critical effect) are asked of `act` row by row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from duelo.agents.plans import first_legal, first_legal_by_row
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


class InfiernoRows:
    """`InfiernoView`'s reads for many flat observations at once (N, size), a column each."""

    def __init__(self, observations: np.ndarray) -> None:
        self.values = observations

    def column(self, index: int) -> np.ndarray:
        return self.values[:, index]

    def phase_is(self, phase: Phase) -> np.ndarray:
        """Rows in `phase` (the first one-hot entry set, else the first phase)."""
        hot = np.stack([self.column(index) == 1 for index, _ in _PHASES], axis=1)
        first = np.where(hot.any(axis=1), hot.argmax(axis=1), 0)
        return first == [p for _, p in _PHASES].index(phase)

    @property
    def distance(self) -> np.ndarray:
        return self.column(_RANGE).astype(np.int64)

    def hp_fraction(self, who: int) -> np.ndarray:
        hp = self.column(_PAIRS["hp"][who]) - self.column(_PAIRS["nonlethal"][who])
        return hp / self.column(_PAIRS["hp_max"][who])

    def flag(self, who: int, name: str) -> np.ndarray:
        return self.column(_STATUS[who][name]) != 0

    def weapon(self, who: int, feature: str) -> np.ndarray:
        return self.column(_HANDS["main_hand"][who][feature])

    def gunman(self, who: int) -> np.ndarray:
        loadout = np.stack([self.column(i) != 0 for i in _LOADOUT_FIREARM[who].values()], axis=1)
        present = self.weapon(who, "present") != 0
        return np.where(present, self.weapon(who, "firearm") != 0, loadout.any(axis=1))

    @property
    def move_left(self) -> np.ndarray:
        return self.column(_MOVE_LEFT) != 0


Plan = list[tuple[int, "np.ndarray | bool"]]
"""Preferences in order, each with the rows that hold it (`first_legal_by_row`)."""


def decide_by_row(
    npc: Any, observations: np.ndarray, masks: np.ndarray, plan: Callable[[InfiernoRows], Plan]
) -> np.ndarray:
    """`npc.act` for every row: the rows at a phase decision (`decide_phase`) asked one by
    one, the others by the preferences `plan` reads off them, all at once."""
    rows = InfiernoRows(observations)
    actions = first_legal_by_row(masks, plan(rows))
    special = rows.phase_is(Phase.BOTH_MISS_DECISION) | rows.phase_is(Phase.CRIT_CHOICE)
    rng = np.random.default_rng(0)  # unread: the NPCs draw nothing
    for i in np.flatnonzero(special):
        actions[i] = npc.act(OBSERVATION_SPEC.view(observations[i]), masks[i], rng)
    return actions


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

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`)."""
        return decide_by_row(self, observations, action_masks, self._plan)

    @staticmethod
    def _plan(rows: InfiernoRows) -> Plan:
        melee = (rows.weapon(SELF, "present") != 0) & (rows.weapon(SELF, "firearm") == 0)
        closing = melee & (rows.distance > 1)
        return [
            (Action.TWO_WEAPON_ATTACK, True),
            (Action.ATTACK_MAIN, True),
            (Action.CLEAR_JAM, True),
            (Action.RELOAD, True),
            (Action.DRAW_PRIMARY, True),
            (Action.ADVANCE, closing),
            (Action.STEP_IN, closing),
            (Action.ATTACK_UNARMED, True),
            (Action.ADVANCE, True),
            (Action.END_TURN, True),
        ]


class CautiousNpc:
    """Takes cover before anything else, fires from it, settles, gives up when badly hurt."""

    name = "cautious"
    description = "cover first, then draw and fire from cover; settles; surrenders when losing"

    SURRENDER_BELOW = 0.25
    """Surrender at this fraction of own HP..."""
    OPPONENT_ABOVE = 0.5
    """...while the opponent still has more than this fraction of theirs (digest §10.2)."""
    PREFERENCES = (
        Action.TAKE_COVER,
        Action.DRAW_PRIMARY,
        Action.CLEAR_JAM,
        Action.RELOAD,
        Action.ATTACK_MAIN,
        Action.ATTACK_UNARMED,
        Action.END_TURN,
    )
    """What it does once it neither surrenders nor steps out of reach, in order."""

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
        return first_legal(action_mask, [*escape, *self.PREFERENCES])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`)."""
        return decide_by_row(self, observations, action_masks, self._plan)

    def _plan(self, rows: InfiernoRows) -> Plan:
        losing = (rows.hp_fraction(SELF) <= self.SURRENDER_BELOW) & (
            rows.hp_fraction(OPPONENT) > self.OPPONENT_ABOVE
        )
        return [
            (Action.SURRENDER, losing),
            (Action.STEP_OUT, rows.distance == 1),
            *((action, True) for action in self.PREFERENCES),
        ]


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

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`): `_gunfight` and `_melee` as one
        plan, each preference kept for the rows whose reads call for it."""
        return decide_by_row(self, observations, action_masks, self._plan)

    def _plan(self, rows: InfiernoRows) -> Plan:
        gun = rows.gunman(SELF)
        return [*self._gunfight_rows(rows, gun), *self._melee_rows(rows, ~gun)]

    def _gunfight_rows(self, rows: InfiernoRows, gun: np.ndarray) -> Plan:
        distance, prone = rows.distance, rows.flag(SELF, "prone")
        blade_near = ~rows.gunman(OPPONENT) & (distance <= self.MELEE_REACH)
        increment = rows.weapon(SELF, "range_increment")
        step = increment != 0
        step &= (distance > increment) & ((distance - 1) % np.where(step, increment, 1) == 0)
        jammed = rows.weapon(SELF, "jammed") != 0
        empty = (rows.weapon(SELF, "present") != 0) & (rows.weapon(SELF, "ammo") == 0)
        two_guns = rows.flag(SELF, "two_weapon_fighting")
        spare_move = rows.move_left & ~rows.phase_is(Phase.SURPRISE)
        return [
            (Action.PRONE_TOGGLE, gun & ~prone & ~blade_near & (distance > 1)),
            (Action.PRONE_TOGGLE, gun & prone & blade_near & rows.move_left),
            (Action.STEP_IN, gun & step),
            (Action.CLEAR_JAM, gun & jammed),
            (Action.RELOAD, gun & ~jammed & empty),
            (Action.TWO_WEAPON_ATTACK, gun & two_guns),
            (Action.DRAW_PRIMARY, gun),
            (Action.DRAW_SECONDARY, gun & spare_move & two_guns),
            (Action.TAKE_COVER, gun & spare_move),
            (Action.ATTACK_MAIN, gun),
            (Action.ATTACK_UNARMED, gun),
            (Action.END_TURN, gun),
        ]

    def _melee_rows(self, rows: InfiernoRows, blade: np.ndarray) -> Plan:
        prone = blade & rows.flag(SELF, "prone")
        far = blade & ~prone & (rows.distance > self.MELEE_REACH)
        near = blade & ~prone & ~far
        return [
            (Action.PRONE_TOGGLE, prone),
            (Action.RUN_IN, far),
            (Action.ADVANCE, far | near),
            (Action.STEP_IN, near),
            (Action.TWO_WEAPON_ATTACK, near & rows.flag(SELF, "two_weapon_fighting")),
            (Action.DRAW_PRIMARY, near & rows.move_left),
            (Action.ATTACK_MAIN, near),
            (Action.ATTACK_UNARMED, near),
            (Action.END_TURN, blade),
        ]


NPCS = {npc.name: npc for npc in (AggressiveNpc, CautiousNpc, ExpertNpc)}
"""Infierno's own NPCs, registered as "infierno:NAME"."""
