"""Scripted Dunwich NPCs: they read only the observation and the mask.

The expert weighs each maneuver with the exact pool odds of the fighters in the duel
(their Capacities, wounds and registers are observed): the chance that each side of
the pairing wins the opposed Lucha check, times what its maneuver then does, counted
in Incapacitation boxes (4 put a side out). As initiator it assumes the target answers
with the reaction that is worst for it; as target it answers with the best reaction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.observation import FieldReader
from duelo.envs.dunwich.observation import BOXES, OBSERVATION_SPEC
from duelo.envs.dunwich.odds import at_least_one, knockout, opposed, pool
from duelo.envs.dunwich.setup import HALF_METRES
from duelo.envs.dunwich.state import (
    ATTACKS,
    BIDS,
    INCAPACITATION,
    REACTIONS,
    VITALITY,
    WITH_PV,
    Action,
    Maneuver,
)

A = Action
MOVE_M = 7.0
"""Metres of a move with an action (§4 (a)); a charge reaches under this."""
SHOT_M = 5.0
"""A shot needs more than this to the rival (§4 (c))."""


@dataclass(frozen=True)
class Side:
    """What the observation says of one fighter, for the odds."""

    fisico: int
    lucha: int
    disparo: int
    pv: int
    incap: int
    free_even: tuple[int, ...]
    """Free Vitality boxes of each even value, 2, 4 and 6 (two 2s at most)."""
    melee_dice: int
    melee_lethal: bool
    ranged_dice: int
    firearm: bool
    armour: bool
    defend_only: bool
    acted: bool
    reacted: bool
    bonus: int
    behind: float

    @classmethod
    def of(cls, read: FieldReader, side: str) -> Side:
        free = [
            value
            for box, value in zip(BOXES, VITALITY, strict=True)
            if value % 2 == 0 and not read("vitality", f"{side}.{box}")
        ]
        return cls(
            fisico=int(read("capacities", f"{side}.fisico")),
            lucha=int(read("capacities", f"{side}.lucha")),
            disparo=int(read("capacities", f"{side}.disparo")),
            pv=int(read("pv", side)),
            incap=INCAPACITATION - int(read("hp", side)),
            free_even=tuple(free.count(value) for value in EVEN_FACES),
            melee_dice=int(read("arms", f"{side}.melee_dice")),
            melee_lethal=bool(read("arms", f"{side}.melee_lethal")),
            ranged_dice=int(read("arms", f"{side}.ranged_dice")),
            firearm=bool(read("arms", f"{side}.firearm")),
            armour=bool(read("arms", f"{side}.ballistic_armour")),
            defend_only=bool(read("status", f"{side}.defend_only")),
            acted=bool(read("status", f"{side}.acted")),
            reacted=bool(read("status", f"{side}.reacted")),
            bonus=int(read("status", f"{side}.bonus")),
            behind=float(read("behind", side)),
        )

    @property
    def wounds(self) -> int:
        """The wound penalty's dice (§10 #13: -1d per 2 Incapacitation boxes)."""
        return self.incap // 2

    @property
    def left(self) -> int:
        return INCAPACITATION - self.incap

    def lucha_pool(self, maneuver: Maneuver) -> tuple[int, int]:
        """The dice and rerolls of its Lucha check with `maneuver` (§5, §10 #5, #13, #28)."""
        size = self.lucha - self.wounds - (maneuver == Maneuver.INCAPACITAR)
        rerolls = self.lucha if maneuver == Maneuver.DEFENDERSE else 0
        return size, rerolls

    def harm(self, dice: int, lethal: bool) -> float:
        """Expected Incapacitation boxes `dice` damage dice add to this side (§7), exactly."""
        return _harm(dice, self.free_even if lethal else None, self.left)

    def effect_on(self, target: Side, maneuver: Maneuver, pv: int) -> float:
        """What this side's maneuver does to `target` when it wins (§5, §7, §8.2)."""
        if maneuver == Maneuver.DANAR:
            return target.harm(self.melee_dice, self.melee_lethal)
        if maneuver == Maneuver.INCAPACITAR:
            return min(_knockout_marks(self.melee_dice), target.left)
        if maneuver == Maneuver.DESPLAZAR:
            push = math.ceil(self.fisico / 2) + pv / HALF_METRES
            if push <= target.behind:
                return 0.0
            return min(math.floor(push) / 2, target.left)
        return 0.0


EVEN_FACES = (2, 4, 6)


@lru_cache(maxsize=1024)
def _harm(dice: int, free: tuple[int, ...] | None, left: int) -> float:
    """E[min(boxes gained, `left`)] over the `dice` faces (§7): a lethal die crosses a free
    box of its value, and an even box adds one Incapacitation, so the dice showing one
    even value add at most that value's `free` boxes; Non-Lethal (`free` None): every even
    face adds one. The faces fall into 2, 4, 6 and the rest (multinomially)."""
    total = 0.0
    for counts in _compositions(dice, len(EVEN_FACES) + 1):
        *even, _ = counts
        gained = sum(even) if free is None else sum(map(min, even, free))
        total += _multinomial(counts) * min(gained, left)
    return total


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every way `n` dice fall into `parts` bins."""
    if parts == 1:
        return [(n,)]
    return [(k, *rest) for k in range(n + 1) for rest in _compositions(n - k, parts - 1)]


def _multinomial(counts: tuple[int, ...]) -> float:
    """The chance of these bin counts: each even face 1/6, the last bin (odd faces) 1/2."""
    ways = math.factorial(sum(counts))
    for c in counts:
        ways //= math.factorial(c)
    *even, rest = counts
    return ways * (1 / 6) ** sum(even) * (1 / 2) ** rest


@lru_cache(maxsize=16)
def _knockout_marks(dice: int) -> float:
    """The expected Incapacitation boxes of a knockout roll (§7)."""
    return float(sum(p * marks for marks, p in knockout(dice).items()))


def _read(observation: Mapping[str, np.ndarray]) -> FieldReader:
    return OBSERVATION_SPEC.read(observation)


def _incoming(read: FieldReader) -> tuple[Maneuver, int]:
    """The declared maneuver to react to, and the PV it commits."""
    maneuvers = (Maneuver.DANAR, Maneuver.DESPLAZAR, Maneuver.INCAPACITAR)
    incoming = next(m for m in maneuvers if read("incoming", m.name.lower()))
    return incoming, int(read("incoming", "pv"))


def _phase(read: FieldReader) -> str:
    return next(name for name in ("plan", "act", "react") if read("phase", name))


def pairing_value(
    me: Side, mine: Maneuver, my_pv: int, them: Side, theirs: Maneuver, their_pv: int
) -> float:
    """My expected gain in Incapacitation boxes from one pairing (theirs on me counted
    against it), with my bonus successes from a position."""
    win, lose = _odds(me.lucha_pool(mine), them.lucha_pool(theirs), me.bonus - them.bonus)
    return win * me.effect_on(them, mine, my_pv) - lose * them.effect_on(me, theirs, their_pv)


@lru_cache(maxsize=4096)
def _odds(mine: tuple[int, int], theirs: tuple[int, int], bonus: int) -> tuple[float, float]:
    """P(I win), P(I lose) of an opposed Lucha check: the exact odds, as floats."""
    win, tie = opposed(pool(*mine), pool(*theirs), bonus)
    return float(win), float(1 - win - tie)


def reactions_of(target: Side, incoming: Maneuver) -> list[tuple[Maneuver, int]]:
    """The reactions `target` may answer `incoming` with (§5), PV included."""
    if target.defend_only:
        return [(Maneuver.DEFENDERSE, 0)]
    out = [(Maneuver.DANAR, 0), (Maneuver.DEFENDERSE, 0), (Maneuver.DESPLAZAR, 0)]
    if incoming != Maneuver.INCAPACITAR:
        out.append((Maneuver.INCAPACITAR, 0))
    if target.pv:
        out.append((Maneuver.DESPLAZAR, 1))
    return out


def attack_value(me: Side, them: Side, maneuver: Maneuver, pv: int) -> float:
    """My maneuver against the target's worst reaction for me."""
    return min(
        pairing_value(me, maneuver, pv, them, reaction, their_pv)
        for reaction, their_pv in reactions_of(them, maneuver)
    )


def best_attack(me: Side, them: Side) -> float:
    return max(attack_value(me, them, m, 0) for m in (Maneuver.DANAR, Maneuver.INCAPACITAR))


class AggressiveBrawler:
    """Charges in with Dañar, answers blows with blows, bids a PV when it has one."""

    name = "aggressive"
    description = "bids to act first, charges with Dañar, answers with Dañar"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        return first_legal(
            action_mask,
            [A.BID_1, A.BID_0, A.DANAR, A.SHOOT, A.ADVANCE, A.REACT_DANAR, A.REACT_DEFEND],
        )


class CautiousBrawler:
    """Shoots from range, keeps its distance, defends, and escapes when hurt."""

    name = "cautious"
    description = "shoots and falls back, answers with Defenderse, escapes when hurt"

    HURT = 2
    """Incapacitation boxes left at or below which it tries to escape."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = _read(observation)
        hurt = read("hp", "self") <= self.HURT
        plan = [A.ESCAPE] if hurt else []
        plan += [A.BID_0, A.REACT_DEFEND, A.RETREAT_SHOOT, A.SHOOT]
        plan += [A.SPRINT] if hurt else [A.POSITION_DANAR, A.DANAR]
        return first_legal(action_mask, [*plan, A.RETREAT])


class ExpertBrawler:
    """Exact pool odds for the fighters in the duel (module docstring).

    - Plan: bids what guarantees acting first (the rival's PV, plus one when the INI
      order is against it) when it can afford it and a pairing is in reach this turn,
      or its shot is (the rival could close within 5 m first); escapes, where it may,
      when the rival fights better at close quarters, or when nearly out and the rival
      is not.
    - Initiative Turn: the maneuver of best value against the worst reaction; an
      advantageous position when its expected value is higher; a shot (stepping back
      first when the rival could charge) when that beats every maneuver; else it closes
      in if it fights better at close quarters, or backs off to shoot.
    - Reaction: the answer of best value against the declared maneuver.
    """

    name = "expert"
    description = "exact pool odds of every maneuver and reaction for the fighters in the duel"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = _read(observation)
        me, them = Side.of(read, "self"), Side.of(read, "opponent")
        phase = _phase(read)
        if phase == "react":
            incoming, their_pv = _incoming(read)
            legal = [a for a in REACTIONS if action_mask[a]]
            return int(
                max(
                    legal,
                    key=lambda a: (
                        -pairing_value(
                            them, incoming, their_pv, me, REACTIONS[a], int(a in WITH_PV)
                        )
                    ),
                )
            )
        distance = float(read("range"))
        if phase == "plan":
            return self._plan(read, action_mask, me, them, distance)
        return self._turn(action_mask, me, them, distance)

    @staticmethod
    def _plan(read: FieldReader, mask: np.ndarray, me: Side, them: Side, distance: float) -> int:
        outmatched = best_attack(them, me) > best_attack(me, them)
        if mask[A.ESCAPE] and (outmatched or me.left <= 1 < them.left):
            return int(A.ESCAPE)  # a draw beats a fight it expects to lose
        melee = distance < MOVE_M
        # a shooter keeps its shot only if it acts before the rival closes within 5 m
        shot = me.ranged_dice > 0 and SHOT_M < distance <= SHOT_M + MOVE_M
        if not (melee or shot):
            return int(A.BID_0)
        mine, theirs = read("capacities", "self.ini"), read("capacities", "opponent.ini")
        ahead = (mine, me.lucha) > (theirs, them.lucha)
        needed = them.pv + (0 if ahead else 1)
        if 0 < needed < len(BIDS) and mask[BIDS[needed]]:
            return int(BIDS[needed])
        return int(A.BID_0)

    @staticmethod
    def _turn(mask: np.ndarray, me: Side, them: Side, distance: float) -> int:
        values = ExpertBrawler._turn_values(mask, me, them, distance)
        if values and max(values.values()) > 0:
            return int(max(values, key=values.__getitem__))
        if me.ranged_dice and distance <= SHOT_M:
            return first_legal(mask, [A.SPRINT, A.RETREAT])
        if best_attack(me, them) >= best_attack(them, me) and mask[A.ADVANCE]:
            return int(A.ADVANCE)
        if values:
            return int(max(values, key=values.__getitem__))
        return first_legal(mask, [A.RETREAT])

    @staticmethod
    def _turn_values(mask: np.ndarray, me: Side, them: Side, distance: float) -> dict[int, float]:
        """Each legal maneuver's and shot's value in expected Incapacitation boxes."""
        values: dict[int, float] = {}
        for action, maneuver in ATTACKS.items():
            if mask[action] and action != A.POSITION_DANAR:
                values[action] = attack_value(me, them, maneuver, int(action in WITH_PV))
        if mask[A.POSITION_DANAR]:
            values[A.POSITION_DANAR] = _position_value(me, them)
        their_turn = not (them.acted or them.reacted)
        if mask[A.SHOOT]:
            hit = _hit(me.disparo - me.wounds)
            shot = hit * them.harm(me.ranged_dice, not (me.firearm and them.armour))
            back = min(MOVE_M, me.behind)
            for action, after in ((A.SHOOT, distance), (A.RETREAT_SHOOT, distance + back)):
                threat = best_attack(them, me) if their_turn and after < MOVE_M else 0.0
                values[action] = shot - threat
        return values

    def explain(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray) -> str:
        """The values it weighed at an Initiative Turn or a reaction (`duelo duel
        --explain`), best first, in expected Incapacitation boxes."""
        read = _read(observation)
        me, them = Side.of(read, "self"), Side.of(read, "opponent")
        phase = _phase(read)
        if phase == "act":
            values = self._turn_values(action_mask, me, them, float(read("range")))
        elif phase == "react":
            incoming, their_pv = _incoming(read)
            values = {
                a: -pairing_value(them, incoming, their_pv, me, m, int(a in WITH_PV))
                for a, m in REACTIONS.items()
                if action_mask[a]
            }
        else:
            return ""
        best = sorted(values.items(), key=lambda item: -item[1])[:3]
        return "value in Incapacitation boxes: " + ", ".join(
            f"{A(a).name} {v:+.2f}" for a, v in best
        )


def _position_value(me: Side, them: Side) -> float:
    """An advantageous position then Dañar (§8.3): the Físico check's extra successes add
    to the roll; a failure leaves only Defenderse against the rival's best maneuver."""
    value = 0.0
    for total, p in _check(me.fisico - me.wounds):
        if total == 0:
            their_turn = not (them.acted or them.reacted)
            value -= p * (_defended(them, me) if their_turn else 0.0)
            continue
        boosted = Side(**{**me.__dict__, "bonus": total - 1})
        value += p * attack_value(boosted, them, Maneuver.DANAR, 0)
    return value


@lru_cache(maxsize=16)
def _check(size: int) -> tuple[tuple[int, float], ...]:
    """An unopposed check's successes and their chances, as floats."""
    return tuple((total, float(p)) for total, p in pool(size).items())


@lru_cache(maxsize=16)
def _hit(size: int) -> float:
    """A shot's chance to hit: one success or more (§10 #14)."""
    return float(at_least_one(size))


def _defended(attacker: Side, target: Side) -> float:
    """What `attacker`'s best maneuver does to a `target` that may only Defenderse."""
    return max(
        pairing_value(attacker, m, 0, target, Maneuver.DEFENDERSE, 0)
        for m in (Maneuver.DANAR, Maneuver.INCAPACITAR)
    )


NPCS = {npc.name: npc for npc in (AggressiveBrawler, CautiousBrawler, ExpertBrawler)}
