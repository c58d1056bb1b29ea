"""Scripted NPCs for Vampiro fights of several a side: teams that read only their
observation.

Each fighter decides alone from its own seat's view, seeing only the declarations the
rules let it see (§13.2: those made before its own, allies' too). What makes them a
team is what they read there: which opponent is nearly out (focus fire), which
opponents declared attacks at whom, and how many already press a target in melee
(§13.1 G1). The odds are the duel expert's (`npcs.Side`), exact for each pair, with the
skirmish's extra difficulty.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.row_view import SELF, RowView
from duelo.envs.vampiro.group_observation import GROUP_SPEC, ROWS
from duelo.envs.vampiro.group_setup import MAX_SIDE
from duelo.envs.vampiro.group_state import ACTION_IDS as ID
from duelo.envs.vampiro.group_state import Plan
from duelo.envs.vampiro.npcs import Side
from duelo.envs.vampiro.state import Action

A = Action
ALLIES = range(1, MAX_SIDE)
ENEMIES = range(MAX_SIDE, 2 * MAX_SIDE)
SINGLE = ("SHOOT", "WEAPON_STRIKE", "KICK", "STRIKE")
"""The single attacks at one opponent, heaviest first for the aggressive."""
_ATTACKS = frozenset(
    {Plan.STRIKE, Plan.KICK, Plan.WEAPON_STRIKE, Plan.SHOOT, Plan.SHOOT_TWICE, Plan.BURST}
    | {Plan.FULL_AUTO, Plan.ATTACK_DODGE, Plan.DOUBLE_ATTACK}
)
_MELEE = frozenset({Plan.STRIKE, Plan.KICK, Plan.WEAPON_STRIKE, Plan.DOUBLE_ATTACK})
DODGES = {Plan.DODGE: 0, Plan.DODGE_TWICE: 2, Plan.ATTACK_DODGE: 3}
"""The dice a declared Dodge loses (§8.1)."""


class View(RowView):
    """Named reads of one observation, by row (0 self, 1-2 allies, 3-5 enemies), and what
    the duel expert's odds read of each row, worked out once a decision."""

    __slots__ = ("_sides", "_plans")
    SPEC, ROWS, MAX_SIDE = GROUP_SPEC, ROWS, MAX_SIDE
    PHASES = ("declare", "modifiers", "interrupt", "delayed")

    def __init__(self, observation: Mapping[str, np.ndarray]) -> None:
        super().__init__(observation)
        self._sides: dict[int, Side] = {}
        self._plans: dict[int, Plan | None] = {}

    def distance(self, row: int, other: int = SELF) -> float:
        return abs(self.get("position", row) - self.get("position", other))

    def side(self, row: int) -> Side:
        """What the duel expert's odds read of `row` (no clinches in a skirmish)."""
        if row not in self._sides:
            self._sides[row] = self._side(row)
        return self._sides[row]

    def _side(self, row: int) -> Side:
        name = ROWS[row]

        def read(key: str, field: str | None = None) -> float:
            if field == f"{name}.clinched":
                return 0.0
            return self(key, field)

        return Side.of(read, name)

    def plan(self, row: int) -> Plan | None:
        """`row`'s declared plan where this fighter sees it, else None."""
        if row not in self._plans:
            known = self.get("plan", row, "known")
            self._plans[row] = (
                next(p for p in Plan if self.get("plan", row, p.name.lower())) if known else None
            )
        return self._plans[row]

    def aims_at(self, row: int, target: int) -> bool:
        """`row`'s seen declaration aims an attack at `target` (rows from 1)."""
        return target + 1 in (self.get("targets", row, "first"), self.get("targets", row, "second"))

    def pressing(self, target: int) -> int:
        """Seen melee declarations at `target` by the other side's fighters."""
        attackers = ENEMIES if target in (SELF, *ALLIES) else (SELF, *ALLIES)
        return sum(
            self.plan(row) in _MELEE and self.aims_at(row, target)
            for row in attackers
            if self.active(row)
        )

    def slot(self, row: int) -> str:
        return f"E{row - MAX_SIDE}"


class AggressiveGroupNpc:
    """The heaviest attack at the nearest opponent it reaches, else runs at it; every
    Celerity action and Willpower on the attack; never aborts."""

    name = "aggressive"
    description = "heaviest attack at the nearest opponent, else runs at it; all Celerity on it"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        plan: list[int] = []
        for row in view.nearest_foes():
            slot = view.slot(row)
            plan += [ID[f"FULL_AUTO_{slot}"], ID[f"BURST_{slot}"], ID[f"SHOOT_TWICE_{slot}_{slot}"]]
            plan += [ID[f"{kind}_{slot}"] for kind in SINGLE]
            plan.append(ID[f"DOUBLE_ATTACK_{slot}_{slot}"])
        plan.append(ID["RELOAD"])
        plan += [ID[f"CLOSE_{view.slot(row)}"] for row in view.nearest_foes()]
        modifiers = [ID[f"K{k}{wp}"] for k in range(5, -1, -1) for wp in ("_WP", "")]
        return first_legal(action_mask, [*plan, *modifiers, ID["NO_ABORT"], ID["WAIT"]])


class CautiousGroupNpc:
    """Attacks the nearest opponent with a Dodge kept back, heals, runs when badly hurt,
    and aborts to a Dodge by a Willpower roll."""

    name = "cautious"
    description = "attack with a Dodge kept back, heal, run when badly hurt"

    HURT = 3
    """Health levels left at or below which it runs."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        plan = [ID["OPEN"]] if view.get("hp", SELF) <= self.HURT else []
        plan.append(ID["HEAL"])
        plan += [ID[f"ATTACK_DODGE_{view.slot(row)}"] for row in view.nearest_foes()]
        plan += [ID["RELOAD"], ID["DODGE"]]
        return first_legal(action_mask, [*plan, ID["K0"], ID["ABORT_DODGE_ROLL"], ID["WAIT"]])


class ExpertGroupNpc:
    """Fights as a team from exact pool odds.

    - Plan: each legal attack plan is worth the expected health levels it takes off its
      target(s) as a share of the levels each has left (focus fire on the nearly out),
      into the Dodge a target was seen to declare and at the difficulty its many
      opponents add (§13.1 G1), less the share of its own levels the opponents' attacks
      are expected to take back: an opponent seen to aim elsewhere takes nothing, one
      not yet seen is shared among the fighters of its side (less with a Dodge kept).
      Out of reach it runs at the nearest opponent if it hits harder up close, else
      keeps its gun on them; it reloads a dry or jammed gun and a vampire heals when
      badly hurt with nobody able to reach it.
    - Modifiers, aborts: as the duel's expert (every Celerity action it can pay for,
      keeping blood to heal; Willpower with points to spare; keeps its blow while
      above 3 levels, else aborts to its better defence).
    - A delay's moment (it never delays, but may be seated after one): its best
      single plan, or WAIT when none is worth anything.
    """

    name = "expert"
    description = "focus fire from exact pool odds, into declared dodges, against seen threats"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        phase = view.phase
        if phase == "modifiers":
            return self._modifiers(view, action_mask)
        if phase == "interrupt":
            attacking = view.plan(SELF) in _ATTACKS or view.plan(SELF) == Plan.CLOSE
            if view.get("hp", SELF) > 3 and attacking:
                return ID["NO_ABORT"]
            low = view.get("hp", SELF) <= 3
            spend = [ID["ABORT_BLOCK_WP"], ID["ABORT_DODGE_WP"]] if low else []
            parry = [ID["ABORT_BLOCK_ROLL"]] if view.get("weapon", SELF, "kind_melee") else []
            return first_legal(action_mask, [*spend, *parry, ID["ABORT_DODGE_ROLL"]])
        values = self.plan_values(view, action_mask)
        me = view.side(SELF)
        if action_mask[ID["HEAL"]] and me.hp <= 3 and self._threat(view, None) == 0:
            return ID["HEAL"]
        if values and max(values.values()) > 0:
            return int(max(values, key=values.__getitem__))
        return self._manoeuvre(view, action_mask, values)

    def plan_values(self, view: View, mask: np.ndarray) -> dict[int, float]:
        """Each legal attack plan's share of levels dealt less its share taken back."""
        me = view.side(SELF)
        shift = max(view.pressing(SELF) - 1, 0)
        exposed = self._threat(view, None)
        guarded = self._threat(view, 3)
        values: dict[int, float] = {}
        foes = view.nearest_foes()
        for row in foes:
            slot = view.slot(row)
            for kind in SINGLE:
                action = ID[f"{kind}_{slot}"]
                if mask[action]:
                    values[action] = self._dealt(view, me, row, Action[kind], 0, shift) - exposed
            move = A.WEAPON_STRIKE if view.get("weapon", SELF, "kind_melee") else A.STRIKE
            attack = ID[f"ATTACK_DODGE_{slot}"]
            if mask[attack]:
                blows = (A.WEAPON_STRIKE, A.STRIKE, A.SHOOT)
                first = next((m for m in blows if mask[ID[f"{m.name}_{slot}"]]), move)
                values[attack] = self._dealt(view, me, row, first, 2, shift) - guarded
            for other in foes:
                pair = f"{slot}_{view.slot(other)}"
                for name, hit in (("SHOOT_TWICE", A.SHOOT), ("DOUBLE_ATTACK", move)):
                    action = ID[f"{name}_{pair}"]
                    if mask[action]:
                        dealt = self._dealt(view, me, row, hit, 2, shift)
                        dealt += self._dealt(view, me, other, hit, 3, shift)
                        values[action] = dealt - exposed
        return values

    @staticmethod
    def _dealt(view: View, me: Side, row: int, move: Action, penalty: int, shift: int) -> float:
        """Expected levels an attack takes off `row`, as a share of those it has left,
        into the Dodge it was seen to declare."""
        them = view.side(row)
        plan = view.plan(row)  # its seen Dodge: the penalty of the one it uses first
        dodge = None if plan is None else DODGES.get(plan)
        levels = me.strike(them, move, penalty, view.distance(row), dodge, shift)
        return levels / max(them.hp, 1)

    @staticmethod
    def _threat(view: View, dodge: int | None) -> float:
        """The share of its levels left the opponents' attacks are expected to take off
        it this turn (module docstring)."""
        me = view.side(SELF)
        shift = max(view.pressing(SELF) - 1, 0)
        team = 1 + len(view.friends())
        total = 0.0
        for row in view.nearest_foes():
            plan = view.plan(row)
            if plan is not None and not (plan in _ATTACKS and view.aims_at(row, SELF)):
                continue
            threat = view.side(row).threat(me, view.distance(row), dodge)
            total += threat if plan is not None else threat / team
        return total * (1 + shift / 2) / max(me.hp, 1)

    @staticmethod
    def _manoeuvre(view: View, mask: np.ndarray, values: dict[int, float]) -> int:
        foes = view.nearest_foes()
        if not foes:
            return first_legal(mask, [ID["DODGE"], ID["WAIT"]])
        nearest = foes[0]
        me, them = view.side(SELF), view.side(nearest)
        gun = me.gun_damage > 0
        near = max(me.strike(them, m, 0, 0.9, None) for m in (A.WEAPON_STRIKE, A.STRIKE, A.KICK))
        far = me.strike(them, A.SHOOT, 0, view.distance(nearest), None) if gun else 0.0
        plan = [ID["RELOAD"]] if gun else []
        if near >= far:
            plan.append(ID[f"CLOSE_{view.slot(nearest)}"])
        if values:
            return int(max(values, key=values.__getitem__))
        return first_legal(mask, [*plan, ID["AIM"], ID["DODGE"], ID["WAIT"]])

    @staticmethod
    def _modifiers(view: View, mask: np.ndarray) -> int:
        if view.plan(SELF) not in _ATTACKS:
            return ID["K0"]
        spare = view.get("willpower", SELF, "points") >= 2
        blood = view.get("blood", SELF, "points")
        for k in range(5, -1, -1):
            for wp in (spare, False):
                action = ID[f"K{k}{'_WP' if wp else ''}"]
                if mask[action] and (k == 0 or blood > k):
                    return action
        return ID["K0"]

    def explain(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray) -> str:
        """The plans it weighed at a declaration (`duelo duel --explain`), best first."""
        view = View(observation)
        if view.phase not in ("declare", "delayed"):
            return ""
        values = self.plan_values(view, action_mask)
        best = sorted(values.items(), key=lambda item: -item[1])[:3]
        names = {i: name for name, i in ID.items()}
        return "shares of health levels dealt less taken: " + ", ".join(
            f"{names[a]} {v:+.2f}" for a, v in best
        )


NPCS = {npc.name: npc for npc in (AggressiveGroupNpc, CautiousGroupNpc, ExpertGroupNpc)}
