"""Scripted Vampiro NPCs: they read only the observation and the mask.

The expert weighs each plan with the exact pool odds of the fighters in the duel (their
traits are observed): the health levels an attack is expected to take off the rival,
attack roll, extra successes, damage and soak counted through the pools' exact
distributions, against what the rival's best attack is expected to take back (less
when the plan keeps a Dodge).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal, first_legal_batch, first_legal_by_row
from duelo.envs.core.observation import FieldReader
from duelo.envs.vampiro.damage import soak_pool
from duelo.envs.vampiro.exchange import (
    ARMED,
    PLAN_MOVES,
    RANGE_REACH,
    STANDARD,
    TOUCH,
    move_shift,
    unskilled_shift,
)
from duelo.envs.vampiro.observation import OBSERVATION_SPEC
from duelo.envs.vampiro.odds import difficulty, pool
from duelo.envs.vampiro.setup import Damage
from duelo.envs.vampiro.state import PLANS, Action, modifier

A = Action


@lru_cache(maxsize=4096)
def hit_levels(damage_dice: int, soak_dice: int, halve: bool) -> float:
    """Expected health levels of a hit: damage successes less soak successes (§4, §7)."""
    total = 0.0
    for hit, p in pool(max(1, damage_dice)).items():
        for soak, q in pool(soak_dice).items():
            left = max(hit.net - soak.net, 0)
            total += float(p * q) * (left // 2 if halve else left)
    return total


@lru_cache(maxsize=4096)
def _attack(dice: int, target: int, base: int, defence: int, soak: int, halve: bool) -> float:
    """Expected levels of one attack: each net success beyond the defence's and the
    first adds a damage die (§3, §4)."""
    total = 0.0
    for rolled, p in pool(dice, difficulty(target)).items():
        left = rolled.net - defence
        if left >= 1:
            total += float(p) * hit_levels(base + left - 1, soak, halve)
    return total


@dataclass(frozen=True)
class Side:
    """What the observation says of one combatant, for the odds."""

    vampire: bool
    fortitude: int
    stamina: int
    strength: int
    dexterity: int
    brawl: int
    melee: int
    firearms: int
    dodge: int
    armour: int
    penalty: int
    wounds: int
    hp: int
    melee_weapon: bool
    bonus: int
    gun_damage: int
    gun_range: float
    gun_rate: int
    weapon_type: Damage
    clinched: bool

    @classmethod
    def of(cls, read: Callable[[str, str], float], side: str) -> Side:
        kind = next(d for d in Damage if read("weapon", f"{side}.type_{d.value}"))
        return cls(
            vampire=bool(read("traits", f"{side}.vampire")),
            fortitude=int(read("traits", f"{side}.fortaleza")),
            stamina=int(read("dots", f"{side}.resistencia")),
            strength=int(read("dots", f"{side}.fuerza")),
            dexterity=int(read("dots", f"{side}.destreza")),
            brawl=int(read("dots", f"{side}.pelea")),
            melee=int(read("dots", f"{side}.armas_cc")),
            firearms=int(read("dots", f"{side}.armas_fuego")),
            dodge=int(read("dots", f"{side}.esquivar")),
            armour=int(read("armour", f"{side}.rating")),
            penalty=int(read("armour", f"{side}.penalty")),
            wounds=int(read("wound_penalty", side)),
            hp=int(read("hp", side)),
            melee_weapon=bool(read("weapon", f"{side}.kind_melee")),
            bonus=int(read("weapon", f"{side}.bonus")),
            gun_damage=int(read("weapon", f"{side}.damage")),
            gun_range=float(read("weapon", f"{side}.range")),
            gun_rate=int(read("weapon", f"{side}.rate")),
            weapon_type=kind,
            clinched=bool(read("condition", f"{side}.clinched")),
        )

    def dodge_net(self, penalty: int) -> int:
        """About the net successes of its Dodge at `penalty` dice: its mean at difficulty 6
        (each die 1/2 a success, less 1/10 for a one), rounded down."""
        dice = self.dexterity + self.dodge - self.penalty - self.wounds - penalty
        return max(dice, 0) * 2 // 5

    def soak(self, kind: Damage) -> int:
        """Its soak pool against `kind` (§7)."""
        return soak_pool(kind, self.vampire, self.stamina, self.fortitude, self.armour)

    def threat(self, target: Side, distance: float, dodge: int | None) -> float:
        """Its best attack's expected levels on `target`, which keeps a Dodge at `dodge`
        dice of penalty (None: no Dodge kept)."""
        single = max(
            self.strike(target, move, 0, distance, dodge)
            for move in (A.SHOOT, A.WEAPON_STRIKE, A.KICK, A.STRIKE, A.BITE)
        )
        if self.gun_rate < 2:
            return single
        twice = self.strike(target, A.SHOOT, 2, distance, dodge)
        return max(single, twice + self.strike(target, A.SHOOT, 3, distance, dodge))

    def strike(
        self,
        target: Side,
        move: Action,
        penalty: int,
        distance: float,
        dodge: int | None,
        shift: int = 0,
    ) -> float:
        """Expected levels one attack of `move` takes off `target` (§5); 0 when it cannot
        reach from `distance`. `shift` adds to the difficulty (a skirmish's many
        opponents, §13.1 G1)."""
        gun = self.gun_damage > 0 and distance <= RANGE_REACH * self.gun_range
        if (move == A.SHOOT and not gun) or (move in (A.KICK, A.STRIKE) and distance > TOUCH):
            return 0.0
        if move == A.WEAPON_STRIKE and not (self.melee_weapon and distance <= ARMED):
            return 0.0
        if move == A.BITE and not (self.vampire and self.clinched):
            return 0.0
        if move == A.CLINCH:
            if distance > TOUCH or self.clinched:
                return 0.0  # clinched already, CLINCH breaks free
            dice = self.strength + self.brawl - self.wounds - penalty
            bashing = target.soak(Damage.BASHING)  # a vampire halves it (§7, §10 #10)
            hold = _attack(dice, STANDARD, self.strength, 0, bashing, target.vampire)
            if not self.vampire:
                return hold
            held = Side(**{**self.__dict__, "clinched": True})  # a bite follows (§5)
            chance = float(sum(p for o, p in pool(dice).items() if o.net >= 1))
            return hold + chance * held.strike(target, A.BITE, 0, distance, None)
        dex = self.dexterity - self.penalty - self.wounds - penalty
        if move == A.SHOOT:
            skill = self.firearms
            shift = move_shift(PLAN_MOVES[move], distance, self.gun_range, self.clinched)
            target_diff = STANDARD + unskilled_shift(skill, "armas_fuego") + shift
            dice, base, kind = dex + skill, self.gun_damage, self.weapon_type
        elif move == A.WEAPON_STRIKE:
            skill = self.melee
            target_diff = STANDARD + unskilled_shift(skill, "armas_cc")
            dice, base, kind = dex + skill, self.strength + self.bonus, self.weapon_type
        else:
            plus = move in (A.KICK, A.BITE)
            # a kick +1, a clinched Strike or Kick +1 more (§5, §10 #39)
            target_diff = STANDARD + move_shift(PLAN_MOVES[move], distance, 0.0, self.clinched)
            kind = Damage.AGGRAVATED if move == A.BITE else Damage.BASHING
            dice, base = dex + self.brawl, self.strength + plus
        if dice <= 0:
            return 0.0
        defence = 0 if dodge is None else target.dodge_net(dodge)
        halve = kind == Damage.BASHING and target.vampire
        return _attack(dice, target_diff + shift, base, defence, target.soak(kind), halve)


PASSIVE_PLANS = (A.DODGE, A.BLOCK_PARRY, A.CLOSE, A.OPEN, A.RELOAD, A.AIM, A.HEAL)
"""Declared plans that bring no blow this turn (a Celerity action repeats the plan)."""


@dataclass(frozen=True)
class Rival:
    """What the rival declared, where the observation shows it (it declared first, §12):
    whether it attacks at all this turn, and the Dodge penalty it declared (0 for a
    Dodge, 3 for Attack + Dodge; None without one)."""

    attacks: bool
    dodge: int | None

    @classmethod
    def of(cls, read: FieldReader) -> Rival:
        if not read("plan", "opponent.known"):
            return cls(attacks=True, dodge=None)
        plan = next((p for p in PLANS if read("plan", f"opponent.{p.name.lower()}")), None)
        dodge = {A.DODGE: 0, A.ATTACK_DODGE: 3}.get(plan) if plan is not None else None
        return cls(attacks=plan not in PASSIVE_PLANS, dodge=dodge)

    def threat(self, them: Side, me: Side, distance: float, dodge: int | None) -> float:
        """`them.threat`, or nothing when the rival declared no attack."""
        return them.threat(me, distance, dodge) if self.attacks else 0.0


_OWN_HP = OBSERVATION_SPEC.index("hp", "self")
"""Where a flat observation shows its own health levels left."""


def _read(observation: Mapping[str, np.ndarray]) -> FieldReader:
    return OBSERVATION_SPEC.read(observation)


def _phase(read: FieldReader) -> str:
    return next(n for n in ("declare", "modifiers", "interrupt", "delayed") if read("phase", n))


ATTACK_PLANS = (
    A.FULL_AUTO,
    A.BURST,
    A.SHOOT_TWICE,
    A.SHOOT,
    A.WEAPON_STRIKE,
    A.BITE,
    A.KICK,
    A.STRIKE,
)


class AggressiveKindred:
    """Attacks with the heaviest weapon at hand, closes in otherwise; every Celerity
    action and its Willpower go into the attack; never aborts."""

    name = "aggressive"
    description = "heaviest attack at hand, else closes in; all Celerity and Willpower on it"

    PLAN = (
        *ATTACK_PLANS,
        A.DOUBLE_ATTACK,
        A.CLINCH,
        A.RELOAD,
        A.CLOSE,
        *(modifier(k, wp) for k in range(5, -1, -1) for wp in (True, False)),
        A.NO_ABORT,
    )
    """Its preferences, the heaviest first."""

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


class CautiousKindred:
    """Keeps a Dodge with every attack, aborts to a Dodge by a Willpower roll, heals when
    it can and flees when badly hurt."""

    name = "cautious"
    description = "attacks with a Dodge kept back, heals, flees when badly hurt"

    HURT = 3
    """Health levels left at or below which it runs."""

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
        hurt = observations[:, _OWN_HP] <= self.HURT
        return first_legal_by_row(action_masks, self._plan(hurt))

    @staticmethod
    def _plan(hurt: np.ndarray | bool) -> list[tuple[int, np.ndarray | bool]]:
        """Each action in order of preference, with whether (or the rows where) it is
        wanted: run when hurt; heal, attack with a Dodge kept, reload, dodge."""
        return [
            (A.OPEN, hurt),
            (A.HEAL, True),
            (A.ATTACK_DODGE, True),
            (A.RELOAD, True),
            (A.DODGE, True),
            (A.K0, True),
            (A.ABORT_DODGE_ROLL, True),
        ]


class ExpertKindred:
    """Exact pool odds for the fighters in the duel (module docstring).

    - Plan: the attack (or attack with a kept Dodge) of best expected levels dealt less
      levels taken back from the rival's best attack; where it saw the rival's plan (the
      rival declared first, §12), its blows meet the Dodge the rival declared, and a
      rival that declared no attack takes nothing back; a gun that jammed or ran dry is
      reloaded; out of reach, it closes in when it hits harder up close, or keeps its
      distance and shoots; a vampire heals when badly hurt and the rival is out of reach.
    - Modifiers: every Celerity action it can pay for on an attack, keeping a blood point
      to heal; Willpower on the attack when it has points to spare.
    - Interrupt: keeps its attack (or its run in) while it has more than 3 levels left;
      else aborts to its better defence, by a point when that low.
    """

    name = "expert"
    description = (
        "exact pool odds of each attack for the fighters in the duel, against the rival's reply"
    )

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = _read(observation)
        phase = _phase(read)
        me, them = Side.of(read, "self"), Side.of(read, "opponent")
        distance = float(read("range"))
        if phase == "modifiers":
            return self._modifiers(read, action_mask)
        if phase == "interrupt":
            plans = (*ATTACK_PLANS, A.CLINCH, A.CLOSE, A.ATTACK_DODGE, A.DOUBLE_ATTACK)
            if me.hp > 3 and any(read("plan", f"self.{p.name.lower()}") for p in plans):
                return int(A.NO_ABORT)  # its own blow, or closing in, is worth more
            spend = [A.ABORT_BLOCK_WP, A.ABORT_DODGE_WP] if me.hp <= 3 else []
            parry = [A.ABORT_BLOCK_ROLL] if me.melee_weapon else []
            return first_legal(action_mask, [*spend, *parry, A.ABORT_DODGE_ROLL])
        rival = Rival.of(read)
        threat = rival.threat(them, me, distance, None)
        values = self._plan_values(action_mask, me, them, distance, rival)
        if action_mask[A.HEAL] and me.hp <= 3 and threat == 0:
            return int(A.HEAL)
        if values:
            return int(max(values, key=values.__getitem__))
        return first_legal(action_mask, [A.RELOAD, A.CLOSE, A.AIM, A.DODGE])

    @staticmethod
    def _plan_values(
        action_mask: np.ndarray, me: Side, them: Side, distance: float, rival: Rival
    ) -> dict[int, float]:
        """Each legal attack plan's expected health levels dealt (into the Dodge the rival
        declared, if it did) less those taken back (none from a rival that declared no
        attack)."""
        threat = rival.threat(them, me, distance, None)
        dodge = rival.dodge
        values: dict[int, float] = {}
        for plan in (A.SHOOT_TWICE, A.SHOOT, A.WEAPON_STRIKE, A.KICK, A.STRIKE, A.CLINCH, A.BITE):
            if action_mask[plan]:
                if plan == A.SHOOT_TWICE:
                    dealt = me.strike(them, A.SHOOT, 2, distance, dodge)
                    dealt += me.strike(them, A.SHOOT, 3, distance, dodge)
                else:
                    dealt = me.strike(them, plan, 0, distance, dodge)
                values[plan] = dealt - threat
        if action_mask[A.ATTACK_DODGE]:
            first = next(m for m in (A.WEAPON_STRIKE, A.STRIKE, A.SHOOT) if action_mask[m])
            dealt = me.strike(them, first, 2, distance, dodge)
            values[A.ATTACK_DODGE] = dealt - rival.threat(them, me, distance, 3)
        if action_mask[A.DOUBLE_ATTACK]:
            move = A.WEAPON_STRIKE if me.melee_weapon else A.STRIKE
            dealt = me.strike(them, move, 2, distance, dodge)
            dealt += me.strike(them, move, 3, distance, dodge)
            values[A.DOUBLE_ATTACK] = dealt - threat
        return values

    def explain(self, observation: Mapping[str, np.ndarray], action_mask: np.ndarray) -> str:
        """The plans it weighed at a declaration (`duelo duel --explain`), best first."""
        read = _read(observation)
        if _phase(read) not in ("declare", "delayed"):
            return ""
        me, them = Side.of(read, "self"), Side.of(read, "opponent")
        values = self._plan_values(action_mask, me, them, float(read("range")), Rival.of(read))
        best = sorted(values.items(), key=lambda item: -item[1])[:3]
        return "health levels dealt less taken: " + ", ".join(
            f"{A(a).name} {v:+.2f}" for a, v in best
        )

    @staticmethod
    def _modifiers(read: FieldReader, mask: np.ndarray) -> int:
        plans = (*ATTACK_PLANS, A.ATTACK_DODGE, A.DOUBLE_ATTACK)
        attack = any(read("plan", f"self.{plan.name.lower()}") for plan in plans)
        if not attack:
            return int(A.K0)
        spare = read("willpower", "self.points") >= 2
        for k in range(5, -1, -1):
            for wp in (spare, False):
                action = modifier(k, wp)
                if mask[action] and (k == 0 or read("blood", "self.points") > k):
                    return int(action)
        return int(A.K0)


NPCS = {npc.name: npc for npc in (AggressiveKindred, CautiousKindred, ExpertKindred)}
