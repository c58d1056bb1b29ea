"""Scripted Liminal NPCs: they read only the observation and the mask.

The expert weighs every legal move-and-action with the exact odds of the fighters in
the duel (their skills are observed: a GM-run fight hides nothing, digest §10 #20):
the damage it expects to deal now, against what the rival can do back from where
the move leaves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal
from duelo.envs.core.observation import FieldReader
from duelo.envs.liminal.observation import OBSERVATION_SPEC
from duelo.envs.liminal.odds import STANDARD_CL, Grade, challenge, chances
from duelo.envs.liminal.setup import OUT, TRACK
from duelo.envs.liminal.state import MOVE_STEPS, Action, Deed

A = Action
MEAN_D6 = 3.5
MOVES = ((A.HOLD, 0), (A.ADVANCE, -1), (A.RETREAT, 1))
"""The free moves and their step: action id of (move, no deed) and the distance change."""


def _read(observation: Mapping[str, np.ndarray]) -> FieldReader:
    return OBSERVATION_SPEC.read(observation)


def _phase(read: FieldReader) -> str:
    for name in ("crit_attack", "crit_defend"):
        if read("phase", name):
            return name
    return "main"


@dataclass(frozen=True)
class Side:
    """What the observation says of one fighter, for the odds."""

    melee: int
    shoot: int
    athletics: int
    defence_bonus: int
    talent: int
    hp: float
    hp_max: float
    weapons: tuple[tuple[bool, float, tuple[bool, bool, bool, bool], float], ...]
    """(melee, damage bonus, usable bands, adjacent penalty) of the held and spare weapon."""
    defending: bool
    perfect_cover: bool

    @classmethod
    def of(cls, read: FieldReader, side: str) -> Side:
        weapons = []
        for key in ("held", "spare"):
            if read(key, f"{side}.present"):
                bands = tuple(
                    bool(read(key, f"{side}.{b}")) for b in ("adjacent", "near", "medium", "far")
                )
                weapons.append(
                    (
                        bool(read(key, f"{side}.melee")),
                        read(key, f"{side}.bonus"),
                        bands,
                        read(key, f"{side}.adjacent_penalty"),
                    )
                )
        return cls(
            melee=int(read("skills", f"{side}.melee")),
            shoot=int(read("skills", f"{side}.shoot")),
            athletics=int(read("skills", f"{side}.athletics")),
            defence_bonus=int(read("traits", f"{side}.defence_bonus")),
            talent=int(read("traits", f"{side}.melee_damage_bonus")),
            hp=read("hp", side),
            hp_max=read("hp_max", side),
            weapons=tuple(weapons),
            defending=bool(read("status", f"{side}.defending")),
            perfect_cover=bool(read("status", f"{side}.perfect_cover")),
        )

    def best_damage(self) -> float:
        """The mean damage of its hardest-hitting weapon (a hit, no critical)."""
        bonuses = [w[1] + (self.talent if w[0] else 0) for w in self.weapons] or [self.talent]
        return MEAN_D6 + max(bonuses)

    def ranged_attack(self, target: Side, distance: int) -> float:
        """Expected damage of its best shot at `distance` (0 if none reaches)."""
        if distance >= OUT or target.perfect_cover:
            return 0.0
        band = TRACK[distance]
        return max(
            (
                _expected(
                    self.shoot,
                    target.athletics + target.defence_bonus,
                    bonus,
                    adjacent if distance == 0 else 0,
                    target.defending,
                )
                for is_melee, bonus, bands, adjacent in self.weapons
                if not is_melee and bands[band]
            ),
            default=0.0,
        )

    def best_attack(self, target: Side, distance: int) -> float:
        """Expected damage of this side's best attack on `target` at `distance` (0 if none)."""
        if distance >= OUT or target.perfect_cover:
            return 0.0
        band = TRACK[distance]
        best = 0.0
        if distance == 0:
            melee_bonus = max((w[1] for w in self.weapons if w[0]), default=0.0)
            defence = max(target.athletics, target.melee) + target.defence_bonus
            best = _expected(self.melee, defence, melee_bonus + self.talent, 0, target.defending)
        for is_melee, bonus, bands, adjacent in self.weapons:
            if not is_melee and bands[band]:
                penalty = adjacent if distance == 0 else 0
                value = _expected(
                    self.shoot,
                    target.athletics + target.defence_bonus,
                    bonus,
                    penalty,
                    target.defending,
                )
                best = max(best, value)
        return best


@lru_cache(maxsize=4096)
def _expected(skill: int, defence: int, bonus: float, modifier: float, halved: bool) -> float:
    """Expected damage of one attack: hit chance times 1d6 + bonus, a critical's extra die
    (the best critical on average), halved against a stance."""
    odds = chances(skill + int(modifier), challenge(STANDARD_CL + defence, skill))
    hit = odds[Grade.SUCCESS] + odds[Grade.CRITICAL]
    damage = float(hit) * (MEAN_D6 + bonus) + float(odds[Grade.CRITICAL]) * MEAN_D6
    return damage / 2 if halved else damage


def _attack_critical(read: FieldReader, mask: np.ndarray) -> int:
    """+1d6 when it can finish the rival, disarm a rival with nothing else to draw, act first
    when not first, else +1d6 (the digest's preference, §10 #18, made greedy)."""
    them = Side.of(read, "opponent")
    me = Side.of(read, "self")
    if them.hp <= me.best_attack(them, 0) + MEAN_D6 and mask[A.CRIT_DAMAGE]:
        return int(A.CRIT_DAMAGE)
    if mask[A.CRIT_DISARM] and not read("spare", "opponent.present"):
        return int(A.CRIT_DISARM)
    return first_legal(mask, [A.CRIT_ACT_FIRST, A.CRIT_DAMAGE])


class AggressiveFighter:
    """Closes in and attacks with whatever reaches; +1d6 on every critical."""

    name = "aggressive"
    description = "attack whenever a weapon reaches, otherwise close in; crits for damage"

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        return first_legal(
            action_mask,
            [
                A.CRIT_DAMAGE,
                A.DEFEND_PERFECT_COVER,
                A.HOLD_MELEE,
                A.ADVANCE_MELEE,
                A.HOLD_SHOOT,
                A.ADVANCE_SHOOT,
                A.RECOVER,
                A.FAST_ADVANCE,
                A.ADVANCE,
                A.HOLD,
            ],
        )


class CautiousFighter:
    """Shoots from range, defends when hurt, demands surrender of a hurt rival, and
    withdraws on a critical stance when nearly beaten."""

    name = "cautious"
    description = "keeps its distance, defends when hurt, demands surrender of a hurt rival"

    HURT = 0.5
    """Share of maximum Endurance below which it counts itself (or the rival) hurt."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = _read(observation)
        me_hurt = read("hp", "self") <= self.HURT * read("hp_max", "self")
        them_hurt = read("hp", "opponent") <= self.HURT * read("hp_max", "opponent")
        crits = [A.DEFEND_WITHDRAW] if me_hurt else [A.DEFEND_PERFECT_COVER]
        plan = [*crits, A.DEFEND_PERFECT_COVER, A.CRIT_ACT_FIRST, A.CRIT_DAMAGE]
        if them_hurt:
            plan += [A.HOLD_SOCIAL, A.RETREAT_SOCIAL]
        if me_hurt:
            plan += [A.RETREAT_DEFEND, A.HOLD_DEFEND]
        plan += [A.RETREAT_SHOOT, A.HOLD_SHOOT, A.RECOVER, A.HOLD_MELEE, A.HOLD_DEFEND]
        return first_legal(action_mask, plan)


class ExpertFighter:
    """Fights at the range that favours it, with exact odds for the fighters in the duel.

    - When an attack is at hand, it takes the move-and-attack of best expected damage
      now minus what the rival can do back next turn from the distance the move leaves
      (the rival may step once and strike): a gunman steps back and shoots rather than
      stand beside a swordsman; a swordsman steps in and cuts.
    - When none is, it closes on (or backs off to) the nearest distance where one of its
      attacks works: a fast move when that is two steps or more away, else a step with
      the defensive stance; a disarmed fighter recovers its weapon first.
    - It demands surrender of a rival at the threshold when the test is likelier to
      succeed than its best attack is to hit.
    - Criticals: +1d6 when that can finish, disarm a rival with nothing else to draw,
      else act first; on a critical stance it withdraws only when it is losing and nearly
      down, else takes perfect cover.
    """

    name = "expert"
    description = (
        "fights at its best range; exact odds of every attack for the fighters in the duel"
    )

    SURRENDER_AT = 0.5
    """The surrender threshold it assumes (the option's default, digest §10 #14)."""

    def act(
        self,
        observation: Mapping[str, np.ndarray],
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        read = _read(observation)
        phase = _phase(read)
        if phase == "crit_attack":
            return _attack_critical(read, action_mask)
        me, them = Side.of(read, "self"), Side.of(read, "opponent")
        if phase == "crit_defend":
            losing = me.hp < them.hp and me.hp <= MEAN_D6
            return int(A.DEFEND_WITHDRAW if losing else A.DEFEND_PERFECT_COVER)
        distance = int(read("range"))
        social = self._surrender_demand(read, action_mask, me, them, distance)
        if social is not None:
            return social
        attacks = [
            action
            for action in range(A.RETREAT_SOCIAL + 1)
            if action_mask[action] and action % len(Deed) in (Deed.MELEE, Deed.SHOOT)
        ]
        if attacks:
            return max(attacks, key=lambda action: _attack_value(action, me, them, distance))
        if action_mask[A.RECOVER]:
            return int(A.RECOVER)
        return self._approach(action_mask, me, them, distance)

    def _surrender_demand(
        self, read: FieldReader, mask: np.ndarray, me: Side, them: Side, distance: int
    ) -> int | None:
        if them.hp > self.SURRENDER_AT * them.hp_max:
            return None
        social = int(read("skills", "self.social"))
        cl = challenge(STANDARD_CL + int(read("skills", "opponent.conviction")), social)
        odds = chances(social, cl)
        success = float(odds[Grade.SUCCESS] + odds[Grade.CRITICAL])
        if success < _hit_chance(me, them, distance):
            return None
        for action in (A.RETREAT_SOCIAL, A.HOLD_SOCIAL, A.ADVANCE_SOCIAL):
            if mask[action]:
                return int(action)
        return None

    @staticmethod
    def _approach(mask: np.ndarray, me: Side, them: Side, distance: int) -> int:
        reach = [d for d in range(OUT) if me.best_attack(them, d) > 0]
        if not reach:
            return first_legal(mask, [A.HOLD_DEFEND, A.HOLD])
        goal = min(reach, key=lambda d: (abs(d - distance), d))
        gap = goal - distance
        if gap <= -2:
            plan = [A.FAST_ADVANCE, A.ADVANCE_DEFEND]
        elif gap == -1:
            plan = [A.ADVANCE_DEFEND, A.FAST_ADVANCE]
        elif gap >= 2:
            plan = [A.FAST_RETREAT, A.RETREAT_DEFEND]
        elif gap == 1:
            plan = [A.RETREAT_DEFEND, A.FAST_RETREAT]
        else:
            plan = []
        return first_legal(mask, [*plan, A.HOLD_DEFEND, A.HOLD])


def _attack_value(action: int, me: Side, them: Side, distance: int) -> float:
    """Expected damage of the attack now, minus the rival's best attack next turn from
    where the move leaves the two (it may step once before striking)."""
    move, deed = divmod(action, len(Deed))
    after = max(0, distance + MOVE_STEPS[move])
    if deed == Deed.MELEE:
        gain = me.best_attack(them, after) if after == 0 else 0.0
    else:
        gain = me.ranged_attack(them, after)
    return gain - _threat(them, me, after)


def _hit_chance(me: Side, them: Side, distance: int) -> float:
    """About how likely its best attack from here is to hit: expected damage over the
    damage of a hit (for weighing a demand to surrender)."""
    best = 0.0
    for after in (max(0, distance - 1), distance, distance + 1):
        if after < OUT:
            best = max(best, me.best_attack(them, after) / me.best_damage())
    return best


def _threat(attacker: Side, target: Side, distance: int) -> float:
    """`attacker`'s best attack next turn: from `distance`, or one step closer."""
    return max(attacker.best_attack(target, d) for d in (distance, max(0, distance - 1)))


NPCS = {npc.name: npc for npc in (AggressiveFighter, CautiousFighter, ExpertFighter)}
