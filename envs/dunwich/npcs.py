"""Scripted Dunwich NPCs: they read only the observation and the mask.

The expert weighs each maneuver with the exact pool odds of the fighters in the duel
(their Capacities, wounds and registers are observed): the chance that each side of
the pairing wins the opposed Lucha check, times what its maneuver then does, counted
in Incapacitation boxes (4 put a side out). As initiator it assumes the target answers
with the reaction that is worst for it; as target it answers with the best reaction.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal, first_legal_batch, first_legal_by_row
from duelo.envs.core.observation import FieldReader
from duelo.envs.dunwich.observation import BOXES, OBSERVATION_SPEC
from duelo.envs.dunwich.odds import at_least_one, knockout, opposed, pool
from duelo.envs.dunwich.setup import HALF_METRES
from duelo.envs.dunwich.state import (
    ATTACKS,
    BIDS,
    INCAPACITATION,
    PUSHES,
    REACTIONS,
    STRIKE_AND_RETREAT,
    VITALITY,
    Action,
    Maneuver,
)

A = Action
MOVE_M = 7.0
"""Metres of a move with an action (§4 (a)); a charge reaches under this."""
SHOT_M = 5.0
"""A shot needs more than this to the rival (§4 (c))."""
REACH_M = 1.5
"""Within this a fighter strikes without a charge (§6, §10 #15)."""
ADJACENT_M = 0.5
"""A charger ends this far from its target (§6)."""
PUSHABLE_M = 1.0
"""No push against a wall the target stands under 1 m from (§5, §8.2)."""


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

    def effect_on(self, target: Side, maneuver: Maneuver) -> float:
        """What this side's maneuver does to `target` when it wins (§5, §7, §8.2); a
        push spends the PV whose wall impact does most (`push_spend`)."""
        if maneuver == Maneuver.DANAR:
            return target.harm(self.melee_dice, self.melee_lethal)
        if maneuver == Maneuver.INCAPACITAR:
            return min(_knockout_marks(self.melee_dice), target.left)
        if maneuver == Maneuver.DESPLAZAR:
            return self.impact(target, self.push_spend(target))
        return 0.0

    def impact(self, target: Side, pv: int) -> float:
        """A push's harm with `pv` spent (§8.2): D = ceil(Físico / 2) m + 0.5 m per PV;
        stopped by the wall short of D, floor(D) Non-Lethal dice."""
        push = math.ceil(self.fisico / 2) + pv / HALF_METRES
        if push <= target.behind:
            return 0.0
        return target.harm(math.floor(push), lethal=False)

    def push_spend(self, target: Side) -> int:
        """The PV a won push spends: the fewest that do the most harm."""
        return max(range(self.pv + 1), key=lambda pv: (self.impact(target, pv), -pv))

    def charged(self, distance: float) -> Side:
        """This side after charging a rival `distance` metres away (§6): it ends 0.5 m
        from it, with that much more room at its back."""
        if distance <= REACH_M:
            return self
        return dataclasses.replace(self, behind=self.behind + distance - ADJACENT_M)


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


_HP_SELF = OBSERVATION_SPEC.index("hp", "self")
"""A flat observation's column of the learner's Incapacitation boxes left."""


def _read(observation: Mapping[str, np.ndarray]) -> FieldReader:
    return OBSERVATION_SPEC.read(observation)


def _incoming(read: FieldReader) -> Maneuver:
    """The declared maneuver to react to."""
    maneuvers = (Maneuver.DANAR, Maneuver.DESPLAZAR, Maneuver.INCAPACITAR)
    return next(m for m in maneuvers if read("incoming", m.name.lower()))


def _phase(read: FieldReader) -> str:
    return next(name for name in ("plan", "act", "react", "push") if read("phase", name))


def pairing_value(me: Side, mine: Maneuver, them: Side, theirs: Maneuver) -> float:
    """My expected gain in Incapacitation boxes from one pairing (theirs on me counted
    against it), with my bonus successes from a position."""
    win, lose = pairing_odds(me, mine, them, theirs)
    return win * me.effect_on(them, mine) - lose * them.effect_on(me, theirs)


def pairing_odds(me: Side, mine: Maneuver, them: Side, theirs: Maneuver) -> tuple[float, float]:
    """P(I win), P(I lose) of one pairing, each side with its maneuver's pool, rerolls and
    bonus successes (§5, §8.3)."""
    return _odds(me.lucha_pool(mine), them.lucha_pool(theirs), me.bonus - them.bonus)


@lru_cache(maxsize=4096)
def _odds(mine: tuple[int, int], theirs: tuple[int, int], bonus: int) -> tuple[float, float]:
    """P(I win), P(I lose) of an opposed Lucha check: the exact odds, as floats."""
    win, tie = opposed(pool(*mine), pool(*theirs), bonus)
    return float(win), float(1 - win - tie)


def reactions_of(target: Side, incoming: Maneuver, initiator: Side) -> list[Maneuver]:
    """The reactions `target` may answer `incoming` with (§5): a Desplazar only if the
    `initiator`, where it stands when the target answers, has 1 m at its back."""
    if target.defend_only:
        return [Maneuver.DEFENDERSE]
    out = [Maneuver.DANAR, Maneuver.DEFENDERSE]
    if initiator.behind >= PUSHABLE_M:
        out.append(Maneuver.DESPLAZAR)
    if incoming != Maneuver.INCAPACITAR:
        out.append(Maneuver.INCAPACITAR)
    return out


@lru_cache(maxsize=8192)
def attack_value(me: Side, them: Side, maneuver: Maneuver, distance: float = 0.0) -> float:
    """My maneuver, charging from `distance` if need be, against the target's worst
    reaction for me (the mask's, from where the charge leaves me). Remembered: a fight
    meets the same two sides again and again, and each answer weighs every reaction."""
    me = me.charged(distance)
    return min(
        pairing_value(me, maneuver, them, reaction) for reaction in reactions_of(them, maneuver, me)
    )


def best_attack(me: Side, them: Side, distance: float = 0.0) -> float:
    return max(attack_value(me, them, m, distance) for m in (Maneuver.DANAR, Maneuver.INCAPACITAR))


class AggressiveBrawler:
    """Charges in with Dañar, answers blows with blows, bids a PV when it has one."""

    name = "aggressive"
    description = "bids to act first, charges with Dañar, answers with Dañar"

    PLAN = (A.BID_1, A.BID_0, A.DANAR, A.SHOOT, A.ADVANCE, A.REACT_DANAR, A.REACT_DEFEND)

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        return first_legal(action_mask, self.PLAN)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`: a batched tournament asks this way)."""
        return first_legal_batch(action_masks, self.PLAN)


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
        hurt = _read(observation)("hp", "self") <= self.HURT
        return first_legal(action_mask, [action for action, wanted in self._plan(hurt) if wanted])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`): the same plan, row by row."""
        hurt = observations[:, _HP_SELF] <= self.HURT
        return first_legal_by_row(action_masks, self._plan(hurt))

    @staticmethod
    def _plan(hurt: np.ndarray | bool) -> list[tuple[int, np.ndarray | bool]]:
        """Each action in order of preference, with whether (or the rows where) it is
        wanted: escape when hurt; no bid; Defenderse; shoot; sprint away when hurt, else
        a position and Dañar; fall back."""
        steady = ~hurt if isinstance(hurt, np.ndarray) else not hurt
        return [
            (A.ESCAPE, hurt),
            (A.BID_0, True),
            (A.REACT_DEFEND, True),
            (A.RETREAT_SHOOT, True),
            (A.SHOOT, True),
            (A.SPRINT, hurt),
            (A.POSITION_DANAR, steady),
            (A.DANAR, steady),
            (A.RETREAT, True),
        ]


class ExpertBrawler:
    """Exact pool odds for the fighters in the duel (module docstring).

    - Plan: bids what guarantees acting first (the rival's PV, plus one when the INI
      order is against it), nothing when the INI order already gives it the turn and
      the rival has no PV to outbid it, when it can afford it and a pairing is in reach
      this turn (bids are open only then); escapes, where it may, when the rival fights
      better at close quarters, or when nearly out and the rival is not.
    - Initiative Turn: the maneuver of best value against the worst reaction the mask
      leaves the target (a Desplazar back only if the charge left it room to push); an
      advantageous position when its expected value is higher; a shooter strikes and
      falls back beyond 5 m; a shot (stepping back first when the rival could charge)
      when that beats every maneuver; else it closes in (sprinting when one walk cannot
      bring it within a charge) if it fights better at close quarters, or backs off to
      shoot.
    - Reaction: the answer of best value against the declared maneuver.
    - A won push: the fewest PV whose wall impact does most.
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
            values = _reaction_values(action_mask, me, them, _incoming(read))
            return int(max(values, key=values.__getitem__))
        if phase == "push":
            return int(PUSHES[min(me.push_spend(them), me.pv)])
        distance = float(read("range"))
        if phase == "plan":
            return self._plan(read, action_mask, me, them, distance)
        return self._turn(action_mask, me, them, distance)

    @staticmethod
    def _plan(read: FieldReader, mask: np.ndarray, me: Side, them: Side, distance: float) -> int:
        outmatched = best_attack(them, me) > best_attack(me, them)
        if mask[A.ESCAPE] and (outmatched or me.left <= 1 < them.left):
            return int(A.ESCAPE)  # a draw beats a fight it expects to lose
        if distance >= MOVE_M:
            return int(A.BID_0)  # no pairing in reach: bids are closed (§8.1)
        mine, theirs = read("capacities", "self.ini"), read("capacities", "opponent.ini")
        ahead = (mine, me.lucha) > (theirs, them.lucha)
        needed = them.pv + (0 if ahead else 1)  # equal bids keep the INI order (§10 #7)
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
        if best_attack(me, them) >= best_attack(them, me):
            # a walk that leaves it a charge away or closer, else a sprint
            close = A.ADVANCE if distance - MOVE_M < MOVE_M else A.SPRINT_TOWARD
            if mask[close]:
                return int(close)
        if values:
            return int(max(values, key=values.__getitem__))
        return first_legal(mask, [A.RETREAT])

    @staticmethod
    def _turn_values(mask: np.ndarray, me: Side, them: Side, distance: float) -> dict[int, float]:
        """Each legal maneuver's and shot's value in expected Incapacitation boxes."""
        values: dict[int, float] = {}
        shot = 0.0
        if me.ranged_dice:
            hit = hit_chance(me.disparo - me.wounds)
            shot = hit * them.harm(me.ranged_dice, not (me.firearm and them.armour))
        for action, maneuver in ATTACKS.items():
            if mask[action] and action != A.POSITION_DANAR:
                values[action] = attack_value(me, them, maneuver, distance)
                if action in STRIKE_AND_RETREAT:
                    # worth it to a shooter that falls back beyond 5 m: its shot next turn
                    charge = max(0.0, distance - ADJACENT_M) if distance > REACH_M else 0.0
                    room = min(MOVE_M - charge, me.charged(distance).behind)
                    values[action] += 0.5 * shot if ADJACENT_M + room > SHOT_M else -0.01
        if mask[A.POSITION_DANAR]:
            values[A.POSITION_DANAR] = _position_value(me, them, distance)
        their_turn = not (them.acted or them.reacted)
        back = min(MOVE_M, me.behind)
        for action, after in (
            (A.SHOOT, distance),
            (A.RETREAT_SHOOT, distance + back),
            (A.ADVANCE_SHOOT, max(SHOT_M + ADJACENT_M, distance - MOVE_M)),
        ):
            if mask[action]:
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
            values = _reaction_values(action_mask, me, them, _incoming(read))
        else:
            return ""
        best = sorted(values.items(), key=lambda item: -item[1])[:3]
        return "value in Incapacitation boxes: " + ", ".join(
            f"{A(a).name} {v:+.2f}" for a, v in best
        )


def _reaction_values(
    mask: np.ndarray, me: Side, them: Side, incoming: Maneuver
) -> dict[int, float]:
    """Each legal reaction's value to me against the declared maneuver."""
    return {a: -pairing_value(them, incoming, me, m) for a, m in REACTIONS.items() if mask[a]}


def _position_value(me: Side, them: Side, distance: float) -> float:
    """An advantageous position then Dañar (§8.3): the Físico check's extra successes add
    to the roll; a failure leaves only Defenderse against the rival's best maneuver."""
    value = 0.0
    for total, p in _check(me.fisico - me.wounds):
        if total == 0:
            their_turn = not (them.acted or them.reacted)
            value -= p * (_defended(them, me) if their_turn else 0.0)
            continue
        boosted = dataclasses.replace(me, bonus=total - 1)
        value += p * attack_value(boosted, them, Maneuver.DANAR, distance)
    return value


@lru_cache(maxsize=16)
def _check(size: int) -> tuple[tuple[int, float], ...]:
    """An unopposed check's successes and their chances, as floats."""
    return tuple((total, float(p)) for total, p in pool(size).items())


@lru_cache(maxsize=16)
def hit_chance(size: int) -> float:
    """A shot's chance to hit: one success or more (§10 #14)."""
    return float(at_least_one(size))


def _defended(attacker: Side, target: Side) -> float:
    """What `attacker`'s best maneuver does to a `target` that may only Defenderse."""
    return max(
        pairing_value(attacker, m, target, Maneuver.DEFENDERSE)
        for m in (Maneuver.DANAR, Maneuver.INCAPACITAR)
    )


NPCS = {npc.name: npc for npc in (AggressiveBrawler, CautiousBrawler, ExpertBrawler)}
