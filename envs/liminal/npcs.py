"""Scripted Liminal NPCs: they read only the observation and the mask.

The expert weighs every legal move-and-action with the exact odds of the fighters in
the duel (their skills are observed: a GM-run fight hides nothing, digest §10 #20):
the damage it expects to deal now, against what the rival can do back from where
the move leaves them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from duelo.agents.plans import first_legal, first_legal_batch, first_legal_by_row
from duelo.envs.core.dice import dice_sum, expectation, probability, transform
from duelo.envs.core.observation import FieldReader
from duelo.envs.liminal.mob import OBSERVATION_SPEC as MOB_SPEC
from duelo.envs.liminal.observation import OBSERVATION_SPEC
from duelo.envs.liminal.odds import STANDARD_CL, Grade, challenge, chances
from duelo.envs.liminal.rules import MODIFIER
from duelo.envs.liminal.setup import OUT, TRACK, Band
from duelo.envs.liminal.state import MOVE_STEPS, Action, Deed

A = Action
MEAN_D6 = 3.5
MOVES = ((A.HOLD, 0), (A.ADVANCE, -1), (A.RETREAT, 1))
"""The free moves and their step: action id of (move, no deed) and the distance change."""
_HP = [OBSERVATION_SPEC.index("hp", side) for side in ("self", "opponent")]
_HP_MAX = [OBSERVATION_SPEC.index("hp_max", side) for side in ("self", "opponent")]
"""Columns of a flat observation, the duel's and a mob fight's alike (its key comes last)."""


def _read(observation: Mapping[str, np.ndarray]) -> FieldReader:
    """The duel's fields, and a mob fight's `mob` key where it has one."""
    spec = MOB_SPEC if "mob" in observation else OBSERVATION_SPEC
    return spec.read(observation)


def _phase(read: FieldReader) -> str:
    for name in ("crit_attack", "crit_defend"):
        if read("phase", name):
            return name
    return "main"


@dataclass(frozen=True)
class Weapon:
    """What the observation says of one weapon carried."""

    melee: bool
    bonus: int
    bands: tuple[bool, bool, bool, bool]
    adjacent_penalty: int
    tier: int


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
    held: Weapon | None
    spare: Weapon | None
    """The carried weapon not in hand and not knocked away."""
    drew: bool
    """Its free draw of the round is spent (a spare cannot come to hand)."""
    defending: bool
    perfect_cover: bool
    in_cover: bool
    high_ground: bool
    unseen: bool
    shaken: bool
    mob: bool = False
    """A mob: it defends at skill 0 (§8 ASSUMPTION), whatever its attack level."""

    @classmethod
    def of(cls, read: FieldReader, side: str, mob: bool = False, flags: str = "status") -> Side:
        """`side`'s row of the observation (`flags`: the key of its status flags)."""
        values = read.many(_row_entries(side, flags))
        weapons: list[Weapon | None] = []
        for at in (0, len(_WEAPON_READ)):
            present, melee, bonus, adjacent, near, medium, far, penalty, tier = values[
                at : at + len(_WEAPON_READ)
            ]
            weapons.append(
                Weapon(
                    melee=bool(melee),
                    bonus=int(bonus),
                    bands=(bool(adjacent), bool(near), bool(medium), bool(far)),
                    adjacent_penalty=int(penalty),
                    tier=int(tier),
                )
                if present
                else None
            )
        rest = values[2 * len(_WEAPON_READ) :]
        melee_skill, shoot, athletics, defence_bonus, talent, hp, hp_max = rest[:7]
        defending, perfect_cover, in_cover, high_ground, unseen, shaken = map(bool, rest[7:13])
        return cls(
            melee=int(melee_skill),
            shoot=int(shoot),
            athletics=int(athletics),
            defence_bonus=int(defence_bonus),
            talent=int(talent),
            hp=hp,
            hp_max=hp_max,
            held=weapons[0],
            spare=weapons[1],
            drew=side == "self" and bool(rest[13]),
            defending=defending,
            perfect_cover=perfect_cover,
            in_cover=in_cover,
            high_ground=high_ground,
            unseen=unseen,
            shaken=shaken,
            mob=mob,
        )

    @property
    def weapons(self) -> tuple[Weapon, ...]:
        return tuple(w for w in (self.held, self.spare) if w is not None)

    @property
    def holds_blade(self) -> bool:
        """It holds a melee weapon (not fists): no better-weapon +2 against it (§8)."""
        return self.held is not None and self.held.melee and self.held.tier > 0

    def moved(self) -> Side:
        """After a step: cover and high ground are places, lost by moving (§8, §10 #24)."""
        return dataclasses.replace(self, in_cover=False, high_ground=False)

    def melee_weapon(self) -> Weapon:
        """What the rules strike with (§4, §10 #23): the held melee weapon, else the spare
        blade drawn free, once a round, else fists."""
        if self.held is not None and self.held.melee:
            return self.held
        spare = self.spare
        if spare is not None and spare.melee and spare.tier > 0 and not self.drew:
            return spare
        return FISTS

    def gun(self, distance: int, engaged: bool = False) -> Weapon | None:
        """What the rules shoot with at `distance` (§4, §6): the held ranged weapon that
        reaches, else the spare one drawn free, once a round; `engaged` (a skirmish's
        shooter beside an enemy, §13.1): only one that also fires adjacent."""
        bands = (TRACK[distance], Band.ADJACENT) if engaged else (TRACK[distance],)
        for weapon, at_hand in ((self.held, True), (self.spare, not self.drew)):
            if weapon is not None and not weapon.melee and at_hand:
                if all(weapon.bands[b] for b in bands):
                    return weapon
        return None

    def _modifier(self) -> int:
        """A shaken roller's -2 on its next test (§10 #21)."""
        return -MODIFIER if self.shaken else 0

    def defence(self, melee: bool) -> int:
        """What it adds to the CL of an attack on it (§3); a mob defends at 0 (§8)."""
        if self.mob:
            return 0
        skill = max(self.athletics, self.melee) if melee else self.athletics
        return skill + self.defence_bonus

    def best_damage(self) -> float:
        """The mean damage of its hardest-hitting weapon (a hit, no critical)."""
        bonuses = [w.bonus + (self.talent if w.melee else 0) for w in self.weapons]
        return MEAN_D6 + max(bonuses or [self.talent])

    def melee_attack(self, target: Side, extra: int = 0) -> float:
        """Expected damage of its melee attack on an adjacent `target` (§5, §8): the
        better weapon's +2, high ground's +2, an unseen target's -2 (a modifier on both
        sides cancels, seed L67), and an `extra` modifier (a skirmish's)."""
        if target.perfect_cover:
            return 0.0
        weapon = self.melee_weapon()
        modifier = self._modifier() + extra
        if weapon.tier > 0 and not target.holds_blade:
            modifier += MODIFIER
        if self.high_ground and not target.high_ground:
            modifier += MODIFIER
        if target.unseen and not self.unseen:
            modifier -= MODIFIER
        return _expected(
            self.melee,
            target.defence(melee=True),
            modifier,
            weapon.bonus + self.talent,
            target.defending,
        )

    def shot(self, weapon: Weapon, target: Side, distance: int, extra: int = 0) -> float:
        """Expected damage of a shot with `weapon` (§5, §8): the adjacent penalty, an
        unseen target's -2, cover's +2 to the CL unless the shooter has cover too, and
        an `extra` modifier (a skirmish's)."""
        modifier = self._modifier() + extra + (weapon.adjacent_penalty if distance == 0 else 0)
        if target.unseen and not self.unseen:
            modifier -= MODIFIER
        cover = MODIFIER if target.in_cover and not self.in_cover else 0
        return _expected(
            self.shoot,
            target.defence(melee=False) + cover,
            modifier,
            weapon.bonus,
            target.defending,
        )

    def ranged_attack(self, target: Side, distance: int) -> float:
        """Expected damage of its shot at `distance` (0 if no weapon reaches)."""
        if distance >= OUT or target.perfect_cover:
            return 0.0
        weapon = self.gun(distance)
        return 0.0 if weapon is None else self.shot(weapon, target, distance)

    def best_attack(self, target: Side, distance: int) -> float:
        """Expected damage of this side's best attack on `target` at `distance` (0 if none)."""
        if distance >= OUT or target.perfect_cover:
            return 0.0
        melee = self.melee_attack(target) if distance == 0 else 0.0
        return max(melee, self.ranged_attack(target, distance))


_WEAPON_READ = (
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
_STATUS_READ = ("defending", "perfect_cover", "in_cover", "high_ground", "unseen", "shaken")


@lru_cache(maxsize=64)
def _row_entries(side: str, flags: str) -> tuple[tuple[str, str | None], ...]:
    """What `Side.of` reads of `side`'s row, in its order (the turn's draw last)."""
    return (
        *((key, f"{side}.{name}") for key in ("held", "spare") for name in _WEAPON_READ),
        ("skills", f"{side}.melee"),
        ("skills", f"{side}.shoot"),
        ("skills", f"{side}.athletics"),
        ("traits", f"{side}.defence_bonus"),
        ("traits", f"{side}.melee_damage_bonus"),
        ("hp", side),
        ("hp_max", side),
        *((flags, f"{side}.{name}") for name in _STATUS_READ),
        ("turn", "drew"),
    )


FISTS = Weapon(melee=True, bonus=0, bands=(True, False, False, False), adjacent_penalty=0, tier=0)


@lru_cache(maxsize=4096)
def _expected(skill: int, defence: int, modifier: int, bonus: int, halved: bool) -> float:
    """Expected damage of one attack, exactly: each grade of 2d6 + skill + modifier against
    8 + defence (+2 unskilled), a hit's 1d6 + bonus, a critical's extra die (the +1d6
    critical), floored halves against a stance (§3, §7)."""
    odds = chances(skill + modifier, challenge(STANDARD_CL + defence, skill))

    def damage(dice: int) -> Fraction:
        dealt = dice_sum(dice, 6, bonus)
        return expectation(transform(dealt, lambda x: x // 2) if halved else dealt)

    return float(odds[Grade.SUCCESS] * damage(1) + odds[Grade.CRITICAL] * damage(2))


@lru_cache(maxsize=4096)
def knockout(damage: int, extra_die: bool, hp: float, halved: bool) -> Fraction:
    """The chance that this hit (1d6 + `damage`, with the critical's die or not) leaves a
    rival of `hp` Endurance at 0 or less (§7, §9)."""
    dealt = dice_sum(2 if extra_die else 1, 6, damage)
    return probability(dealt, lambda x: (x // 2 if halved else x) >= hp)


def _attack_critical(read: FieldReader, mask: np.ndarray, against_mob: bool) -> int:
    """The critical of a hit (§7): +1d6 when it makes the knockout likelier than not and
    likelier than the hit alone, or against a mob (more members fall); else disarm a rival
    with nothing else to draw; else act first; else +1d6.

    The held weapon is the one that hit (an attack draws it; a punch leaves a gun in hand,
    read as the gun's)."""
    if against_mob:
        return first_legal(mask, [A.CRIT_DAMAGE])
    me, them = Side.of(read, "self"), Side.of(read, "opponent")
    held = me.held or FISTS
    damage = held.bonus + (me.talent if held.melee else 0)
    plain = knockout(damage, False, them.hp, them.defending)
    extra = knockout(damage, True, them.hp, them.defending)
    if mask[A.CRIT_DAMAGE] and extra > max(plain, Fraction(1, 2)):
        return int(A.CRIT_DAMAGE)
    if mask[A.CRIT_DISARM] and not read("spare", "opponent.present"):
        return int(A.CRIT_DISARM)
    return first_legal(mask, [A.CRIT_ACT_FIRST, A.CRIT_DAMAGE])


class AggressiveFighter:
    """Closes in and attacks with whatever reaches; +1d6 on every critical."""

    name = "aggressive"
    description = "attack whenever a weapon reaches, otherwise close in; crits for damage"

    PLAN = (
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
    )

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
        plan = self._plan(me_hurt, them_hurt)
        return first_legal(action_mask, [action for action, wanted in plan if wanted])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for every row at once (`BatchPolicy`): the same plan, row by row."""
        hp, hp_max = observations[:, _HP], observations[:, _HP_MAX]
        hurt = hp <= self.HURT * hp_max
        return first_legal_by_row(action_masks, self._plan(hurt[:, 0], hurt[:, 1]))

    @staticmethod
    def _plan(
        me_hurt: np.ndarray | bool, them_hurt: np.ndarray | bool
    ) -> list[tuple[int, np.ndarray | bool]]:
        """Each action in order of preference, with whether (or the rows where) it is
        wanted: withdraw on a critical stance when hurt, else perfect cover; demand
        surrender of a hurt rival; defend when hurt; shoot, recover, strike, defend."""
        return [
            (A.DEFEND_WITHDRAW, me_hurt),
            (A.DEFEND_PERFECT_COVER, True),
            (A.CRIT_ACT_FIRST, True),
            (A.CRIT_DAMAGE, True),
            (A.HOLD_SOCIAL, them_hurt),
            (A.RETREAT_SOCIAL, them_hurt),
            (A.RETREAT_DEFEND, me_hurt),
            (A.HOLD_DEFEND, me_hurt),
            (A.RETREAT_SHOOT, True),
            (A.HOLD_SHOOT, True),
            (A.RECOVER, True),
            (A.HOLD_MELEE, True),
            (A.HOLD_DEFEND, True),
        ]


class ExpertFighter:
    """Fights at the range that favours it, with exact odds for the fighters in the duel.

    - When an attack is at hand, it takes the move-and-attack of best expected damage
      now minus what the rival can do back next turn from the distance the move leaves
      (the rival may step once and strike): a gunman steps back and shoots rather than
      stand beside a swordsman; a swordsman steps in and cuts. The expected damage is
      exact for the weapon the rules would use: every modifier (a better weapon, high
      ground, cover, an unseen target, a pistol adjacent, shaken; one on both sides
      cancels), floored halves against a stance, and a mob's defence of 0.
    - When none is, it closes on (or backs off to) the nearest distance where one of its
      attacks works: a fast move when that is two steps or more away, else a step with
      the defensive stance; a disarmed fighter recovers its weapon first.
    - It demands surrender of a rival at the threshold (a mob: half its members down)
      when the test is likelier to succeed than its best attack is to hit.
    - Criticals: +1d6 when this hit's exact knockout chance with it is above one half
      and above the hit's alone (always against a mob), else disarm a rival with nothing
      else to draw, else act first; on a critical stance it withdraws only when it is
      losing and nearly down, else takes perfect cover.
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
        # A mob's fight shows the `mob` key to both sides; the mob is the side that may
        # never take the stance a hero always may (its mask), and it decides no critical.
        in_mob_fight = "mob" in observation
        i_am_mob = in_mob_fight and phase == "main" and not action_mask[A.HOLD_DEFEND]
        if phase == "crit_attack":
            return _attack_critical(read, action_mask, against_mob=in_mob_fight)
        me = Side.of(read, "self", mob=i_am_mob)
        them = Side.of(read, "opponent", mob=in_mob_fight and not i_am_mob)
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
        """A demand when it would work (a rival at the threshold; a mob with half its
        members down, §8) and is likelier to than its best attack is to hit."""
        if them.mob:
            members = read("mob", "members_start")
            if members - read("mob", "members_standing") < members / 2:
                return None
        elif them.hp > self.SURRENDER_AT * them.hp_max:
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
    after = max(0, distance + MOVE_STEPS[action // len(Deed)])
    return attack_gain(action, me, them, distance) - _threat(them, me, after)


def attack_gain(action: int, me: Side, them: Side, distance: int) -> float:
    """Expected damage of a move-and-attack action (ids 0-14) from `distance`."""
    move, deed = divmod(action, len(Deed))
    after = max(0, distance + MOVE_STEPS[move])
    if MOVE_STEPS[move]:
        me = me.moved()
    if deed == Deed.MELEE:
        return me.melee_attack(them) if after == 0 else 0.0
    return me.ranged_attack(them, after)


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
