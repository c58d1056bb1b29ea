"""Scripted NPCs for Dunwich fights of several a side: teams that read only their
observation.

Each fighter decides alone from its own seat's view, as the rules let it see the fight
(its allies' plans stay sealed, §13.6); what makes them a team is what they read there:
which opponent is nearly out (focus fire), which has not had its Initiative Turn yet (a
pairing takes it away, §13.3), and which opponents stand within 5 m of a shooter
(§13.4). The odds are the duel expert's (`npcs.Side`), exact for each pair.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.row_view import SELF, RowView
from duelo.envs.dunwich.group_observation import GROUP_SPEC, ROWS
from duelo.envs.dunwich.group_setup import MAX_SIDE
from duelo.envs.dunwich.group_state import ACTION_IDS as ID
from duelo.envs.dunwich.npcs import (
    ADJACENT_M,
    EVEN_FACES,
    MOVE_M,
    REACH_M,
    SHOT_M,
    Side,
    attack_value,
    best_attack,
    hit_chance,
    pairing_odds,
    reactions_of,
)
from duelo.envs.dunwich.observation import BOXES
from duelo.envs.dunwich.state import INCAPACITATION, REACTIONS, VITALITY, Maneuver

_MELEE = {
    "DANAR": Maneuver.DANAR,
    "DESPLAZAR": Maneuver.DESPLAZAR,
    "INCAPACITAR": Maneuver.INCAPACITAR,
}
_REACT_NAMES = {maneuver: action.name for action, maneuver in REACTIONS.items()}


class View(RowView):
    """Named reads of one observation, by row (0 self, 1-2 allies, 3-5 enemies)."""

    __slots__ = ()
    SPEC, ROWS, MAX_SIDE = GROUP_SPEC, ROWS, MAX_SIDE
    PHASES = ("plan", "act", "react", "push")

    def distance(self, row: int, other: int = SELF) -> float:
        return abs(self.get("position", row) - self.get("position", other))

    def room(self, row: int, away_from: int) -> float:
        """Metres from `row` to the wall straight away from `away_from` (§13.5: from the
        same point, toward the end with more room, on a tie toward 0)."""
        position, arena = self.get("position", row), self.get("arena")
        gap = position - self.get("position", away_from)
        if gap == 0:
            return max(position, arena - position)
        return arena - position if gap > 0 else position

    def side(self, row: int, against: int) -> Side:
        """What the duel expert's odds read of `row`, facing `against` (its room is the
        wall behind it, away from `against`)."""

        def flag(name: str) -> float:
            return self.get("flags", row, name)

        free = [
            value
            for box, value in zip(BOXES, VITALITY, strict=True)
            if value % 2 == 0 and not self.get("vitality", row, box)
        ]
        return Side(
            fisico=int(self.get("capacities", row, "fisico")),
            lucha=int(self.get("capacities", row, "lucha")),
            disparo=int(self.get("capacities", row, "disparo")),
            pv=int(self.get("pv", row)),
            incap=INCAPACITATION - int(self.get("hp", row)),
            free_even=tuple(free.count(value) for value in EVEN_FACES),
            melee_dice=int(self.get("arms", row, "melee_dice")),
            melee_lethal=bool(self.get("arms", row, "melee_lethal")),
            ranged_dice=int(self.get("arms", row, "ranged_dice")),
            firearm=bool(self.get("arms", row, "firearm")),
            armour=bool(self.get("arms", row, "ballistic_armour")),
            defend_only=bool(flag("defend_only") or flag("task")),
            acted=bool(flag("acted")),
            reacted=bool(flag("reacted")),
            bonus=int(flag("bonus")),
            behind=self.room(row, against),
        )

    def slot(self, row: int) -> str:
        return f"E{row - MAX_SIDE}"

    def partner(self) -> int:
        return next(row for row in range(len(ROWS)) if self.get("partner", row))

    def incoming(self) -> Maneuver:
        return next(m for name, m in _MELEE.items() if self.get("incoming", None, name.lower()))

    def to_come(self, row: int) -> bool:
        """`row` still has its Initiative Turn this combat turn."""
        return not (self.get("flags", row, "acted") or self.get("flags", row, "reacted"))


class AggressiveGroupNpc:
    """Charges the nearest opponent with Dañar, answers blows with blows, bids a PV."""

    name = "aggressive"
    description = "bid to act first, charge the nearest opponent with Dañar, answer with Dañar"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        plan = [ID["BID_1"], ID["BID_0"]]
        for row in view.nearest_foes():
            plan += [ID[f"DANAR_{view.slot(row)}"], ID[f"SHOOT_{view.slot(row)}"]]
        plan += [ID["ADVANCE"], ID["REACT_DANAR"], ID["REACT_DEFEND"], ID["PUSH_0"]]
        return first_legal(action_mask, plan)


class CautiousGroupNpc:
    """Shoots from range and falls back, defends, and escapes when hurt."""

    name = "cautious"
    description = "shoot and fall back, answer with Defenderse, escape when hurt"

    HURT = 2
    """Incapacitation boxes left at or below which it tries to escape."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        hurt = view.get("hp", SELF) <= self.HURT
        plan = [ID["ESCAPE"]] if hurt else []
        plan += [ID["BID_0"], ID["REACT_DEFEND"], ID["PUSH_0"]]
        foes = [view.slot(row) for row in view.nearest_foes()]
        plan += [ID[f"RETREAT_SHOOT_{slot}"] for slot in foes]
        plan += [ID[f"SHOOT_{slot}"] for slot in foes]
        if hurt:
            plan.append(ID["SPRINT"])
        else:
            plan += [ID[f"{kind}_{slot}"] for slot in foes for kind in ("POSITION_DANAR", "DANAR")]
        return first_legal(action_mask, [*plan, ID["RETREAT"]])


class ExpertGroupNpc:
    """Fights as a team from exact pool odds.

    - Each maneuver at an opponent is worth, against the reaction worst for it, the
      chance it wins times the share of the opponent's Incapacitation boxes left that
      its effect takes (focus fire on the nearly out), less the chance it loses times
      the share of its own that the answer takes; choosing an opponent that has not
      had its Initiative Turn also takes that turn away (§13.3), worth `TEMPO` of the
      blow it would have struck.
    - A shot is worth its chance to hit times the share it takes, less the blow of an
      opponent that can still charge it this turn; falling back first when one could.
    - With nothing worth doing it closes on the nearest opponent if it fights better at
      close quarters, or falls back to shoot; it answers a pairing with the reaction of
      best value, spends on a won push the fewest PV that do most, bids all its PV
      whenever bids are open (they buy nothing else but a push's half metres, and an
      equal bid costs nothing), and escapes only as the last of its side standing,
      nearly out.
    """

    name = "expert"
    description = "focus fire from exact pool odds; strike the opponents yet to act; shoot clear"

    TEMPO = 1.0
    """The worth of taking an opponent's Initiative Turn, as a share of the best blow it
    could strike at my side."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        view = View(observation)
        phase = view.phase
        if phase == "react":
            values = _reaction_values(view, action_mask)
            return int(max(values, key=values.__getitem__))
        if phase == "push":
            partner = view.partner()
            me = view.side(SELF, partner)
            spend = me.push_spend(view.side(partner, SELF))
            return first_legal(action_mask, [ID[f"PUSH_{spend}"], ID["PUSH_0"]])
        if phase == "plan":
            return self._plan(view, action_mask)
        values = self.turn_values(view, action_mask)
        if values and max(values.values()) > 0:
            return int(max(values, key=values.__getitem__))
        return self._manoeuvre(view, action_mask, values)

    @staticmethod
    def _plan(view: View, mask: np.ndarray) -> int:
        if mask[ID["ESCAPE"]] and view.get("hp", SELF) <= 1 and not view.friends():
            return ID["ESCAPE"]  # a draw beats a fight it is about to lose alone
        # bids are open only with a pairing in reach (§13.6); PV buy nothing else but a
        # push's half metres, and an equal bid costs nothing: bid them all
        pv = int(view.get("pv", SELF))
        return first_legal(mask, [ID[f"BID_{pv}"], ID["BID_0"]])

    def turn_values(self, view: View, mask: np.ndarray) -> dict[int, float]:
        """Each legal attack's and shot's value, in shares of Incapacitation boxes."""
        values: dict[int, float] = {}
        threat = _threat(view)
        for row in view.nearest_foes():
            slot = view.slot(row)
            me, them = view.side(SELF, row), view.side(row, SELF)
            distance = view.distance(row)
            tempo = self.TEMPO * _menace(view, row) if view.to_come(row) else 0.0
            for name, maneuver in _MELEE.items():
                for action in (ID[f"{name}_{slot}"], ID[f"{name}_RETREAT_{slot}"]):
                    if mask[action]:
                        values[action] = _share(me, them, maneuver, distance) + tempo
            position = ID[f"POSITION_DANAR_{slot}"]
            if mask[position]:
                values[position] = _position_share(view, me, them, distance) + tempo
            if me.ranged_dice:
                hit = hit_chance(me.disparo - me.wounds)
                shot = hit * them.harm(me.ranged_dice, not (me.firearm and them.armour))
                shot /= max(them.left, 1)
                for action, danger in (
                    (ID[f"SHOOT_{slot}"], threat),
                    (ID[f"RETREAT_SHOOT_{slot}"], _threat(view, MOVE_M)),
                ):
                    if mask[action]:
                        values[action] = shot - danger
        return values

    @staticmethod
    def _manoeuvre(view: View, mask: np.ndarray, values: dict[int, float]) -> int:
        foes = view.nearest_foes()
        if not foes:
            return first_legal(mask, [ID["RETREAT"]])
        nearest = foes[0]
        me, them = view.side(SELF, nearest), view.side(nearest, SELF)
        if me.ranged_dice and view.distance(nearest) <= SHOT_M:
            # back beyond 5 m to shoot next turn, where the wall leaves room for it
            if view.distance(nearest) + view.room(SELF, nearest) > SHOT_M + ADJACENT_M:
                return first_legal(mask, [ID["SPRINT"], ID["RETREAT"]])
        elif best_attack(me, them) >= best_attack(them, me) or not me.ranged_dice:
            close = ID["ADVANCE"] if view.distance(nearest) < 2 * MOVE_M else ID["SPRINT_TOWARD"]
            if mask[close]:
                return close
        if values:
            return int(max(values, key=values.__getitem__))
        return first_legal(mask, [ID["ADVANCE"], ID["RETREAT"]])

    def explain(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray) -> str:
        """The values it weighed at an Initiative Turn or a reaction (`duelo duel
        --explain`), best first."""
        view = View(observation)
        if view.phase == "act":
            values = self.turn_values(view, action_mask)
        elif view.phase == "react":
            values = _reaction_values(view, action_mask)
        else:
            return ""
        best = sorted(values.items(), key=lambda item: -item[1])[:3]
        names = {i: name for name, i in ID.items()}
        return "value in shares of Incapacitation boxes: " + ", ".join(
            f"{names[a]} {v:+.2f}" for a, v in best
        )


def _share(me: Side, them: Side, maneuver: Maneuver, distance: float) -> float:
    """A maneuver's worth against the reaction worst for me: the share of the target's
    boxes left it takes, less the share of mine its answer takes."""
    me = me.charged(distance)
    return min(
        _pairing_share(me, maneuver, them, reaction)
        for reaction in reactions_of(them, maneuver, me)
    )


def _pairing_share(me: Side, mine: Maneuver, them: Side, theirs: Maneuver) -> float:
    win, lose = pairing_odds(me, mine, them, theirs)
    gain = win * me.effect_on(them, mine) / max(them.left, 1)
    return gain - lose * them.effect_on(me, theirs) / max(me.left, 1)


def _position_share(view: View, me: Side, them: Side, distance: float) -> float:
    """An advantageous position then Dañar (§8.3): as the duel expert weighs it, in
    shares of the target's boxes."""
    return attack_value(me, them, Maneuver.DANAR, distance) / max(them.left, 1)


def _menace(view: View, row: int) -> float:
    """The best blow opponent `row` could strike this turn at any fighter of my side in
    its reach (under 7 m), as a share of that fighter's boxes left: what taking its
    Initiative Turn away spares the team (§13.3)."""
    worst = 0.0
    for friend in (SELF, *view.friends()):
        distance = view.distance(row, friend)
        if distance < MOVE_M:
            them, victim = view.side(row, friend), view.side(friend, row)
            blow = best_attack(them, victim, distance if distance > REACH_M else 0.0)
            worst = max(worst, blow / max(victim.left, 1))
    return worst


def _threat(view: View, back: float = 0.0) -> float:
    """The best blow, as a share of my boxes left, of an opponent yet to act that could
    charge me this turn (under 7 m once I fall back `back` metres, to the wall)."""
    worst = 0.0
    left = max(view.get("hp", SELF), 1)
    arena = view.get("arena")
    for row in view.nearest_foes():
        if not view.to_come(row):
            continue
        toward = view.get("position", row) - view.get("position", SELF)
        position = view.get("position", SELF)
        room = position if toward > 0 else arena - position
        distance = view.distance(row) + min(back, room)
        if distance < MOVE_M:
            them, me = view.side(row, SELF), view.side(SELF, row)
            worst = max(worst, best_attack(them, me, distance if distance > REACH_M else 0.0))
    return worst / left


def _reaction_values(view: View, mask: np.ndarray) -> dict[int, float]:
    """Each legal reaction's value to me against the declared maneuver, in shares."""
    partner = view.partner()
    me, them = view.side(SELF, partner), view.side(partner, SELF)
    incoming = view.incoming()
    return {
        ID[_REACT_NAMES[reaction]]: -_pairing_share(them, incoming, me, reaction)
        for reaction in (
            Maneuver.DANAR,
            Maneuver.DEFENDERSE,
            Maneuver.DESPLAZAR,
            Maneuver.INCAPACITAR,
        )
        if mask[ID[_REACT_NAMES[reaction]]]
    }


NPCS = {npc.name: npc for npc in (AggressiveGroupNpc, CautiousGroupNpc, ExpertGroupNpc)}
