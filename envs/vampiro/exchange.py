"""One Vampiro attack between two named fighters, shared by the duel and the skirmish.

Everything here names its attacker and its target (never "the rival"): the pools and
their difficulty (§3), the Willpower success (§3, §10 #23), declared defences met one
per attack (§5, §13.4), aborts (§8.2), botches (§7), damage, soak and health (§4, §7),
and the actions that need nobody (reload, aim, heal). The duel (`rules`) and the fight
of several a side (`group`) each add who may act when, and where everyone stands,
through the hooks `_distance`, `_walk_in`, `_cover`, `_pressed` and `_mishap`.
Seed `004_28b7eda06dabcb9d.txt`, digest `rules/vampiro.md`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, Protocol

from duelo.envs.core.dice import Dice, roll_pool, runs
from duelo.envs.vampiro.damage import (
    after_soak,
    damage_pool,
    defended,
    initiative,
    soak_pool,
    status,
    take,
    without_blood,
    wound_penalty,
)
from duelo.envs.vampiro.odds import Outcome as Roll
from duelo.envs.vampiro.odds import SpecialtyMode, difficulty, read_pool
from duelo.envs.vampiro.setup import Damage, Kind, VampiroOptions, Weapon
from duelo.envs.vampiro.state import (
    DEFENCES,
    MELEE_ATTACKS,
    MODIFIERS,
    SHOTS,
    Action,
    Fighter,
    Move,
    Slot,
    hit_type,
)

STANDARD = 6
"""§3: almost every roll is at difficulty 6."""
TOUCH, ARMED = 1.0, 2.0
"""§6: unarmed fighters touch at 1 m, armed ones fight within 2 m (closing stops at 1 m)."""
WALK = 7.0
"""§6 (published): metres a walk covers, which may accompany an action (§10 #15)."""
POINT_BLANK = 2.0
"""§6 (published): difficulty 4 within 2 m."""
RANGE_REACH = 2
"""§6 (published): a gun reaches twice its listed range (at +2 past the range itself)."""
FLEE_WITHOUT_GUNS = 30.0
"""§9, §10 #24: fled past 30 m from a rival with no ranged weapon."""
PLAN_MOVES = {
    Action.STRIKE: Move.STRIKE,
    Action.KICK: Move.KICK,
    Action.WEAPON_STRIKE: Move.WEAPON_STRIKE,
    Action.SHOOT: Move.SHOOT,
    Action.BURST: Move.BURST,
    Action.FULL_AUTO: Move.FULL_AUTO,
    Action.DODGE: Move.DODGE,
    Action.BLOCK_PARRY: Move.BLOCK_PARRY,
    Action.CLOSE: Move.CLOSE,
    Action.OPEN: Move.OPEN,
    Action.RELOAD: Move.RELOAD,
    Action.AIM: Move.AIM,
    Action.CLINCH: Move.CLINCH,
    Action.BITE: Move.BITE,
    Action.HEAL: Move.HEAL,
}
"""The single-action plans and the move each declares."""
SPEEDS = (None, None, None, 0.5, 7.0, 3.0, 1.0)
"""§6 (published), by health levels filled 0..6: None runs 20 + 3 x Dex m, 0.5 runs at
half that (Injured), then walking 7 m (Wounded), 3 m (Mauled), 1 m (Crippled)."""
UNARMED = frozenset((Move.STRIKE, Move.KICK, Move.CLINCH))
_BITE, _WEAPON_STRIKE = Move.BITE, Move.WEAPON_STRIKE
_BURST, _FULL_AUTO, _FIREARM = Move.BURST, Move.FULL_AUTO, Kind.FIREARM
"""Members read at every mask (an Enum member read from its class costs 70 ns)."""
ATTACK_FIRST = (Move.WEAPON_STRIKE, Move.STRIKE, Move.SHOOT)
"""§12: the "attack" of Attack + Dodge, the first legal of these."""
SKILLS = ("armas_cc", "armas_fuego")
"""§3 (seed): a missing Skill rolls the Attribute alone at +1 difficulty (Talents: none)."""


class Armoury(Protocol):
    """What an exchange needs of a catalog: the weapons (fists, after a drop, §7)."""

    @property
    def weapons(self) -> dict[str, Weapon]: ...


class Exchanges:
    """The attack, the defence and the damage between two fighters (module docstring)."""

    catalog: Armoury
    options: VampiroOptions

    # --- hooks: where the fighters stand --------------------------------------------

    def _distance(self, state: Any, seat: int, target: int) -> float:
        """Metres between two fighters."""
        raise NotImplementedError

    def _walk_in(self, state: Any, seat: int, target: int, move: Move) -> None:
        """Bring `seat` to the reach of its melee `move` at `target` (`_walk`)."""
        raise NotImplementedError

    def _cover(self, state: Any, target: int) -> int:
        """Difficulty the target's cover adds to a shot at it (§6)."""
        return 0

    def _pressed(self, state: Any, seat: int) -> int:
        """Difficulty `seat`'s attack and defence rolls take from its many opponents
        (§13.1 G1); none in a duel."""
        return 0

    def _mishap(self, state: Any, seat: int, target: int, move: Move, dice: Dice) -> None:
        """A botched attack (§7): the §7 mishap unless a skirmish says otherwise."""
        self._botch(state, seat, move)

    # --- initiative and declarations (§4 Phase 1) ----------------------------------

    def _initiative(self, fighter: Fighter, used: int) -> int:
        c = fighter.character
        dots = c.celeridad if self.options.celerity_initiative else used
        penalty = wound_penalty(fighter.health)
        return initiative(fighter.roll, c.destreza, c.astucia, penalty, dots, used)

    def _modifier_legal(self, me: Fighter, k: int, wp: bool, extras: bool) -> bool:
        """§12: k <= Celerity and affordable in blood (`extras` False: none, for Delay or
        Heal); the Willpower success needs a point (§3)."""
        if wp and me.willpower < 1:
            return False
        if k == 0:
            return True
        cost = k if self.options.celerity_cost == "per_action" else 1
        return extras and k <= me.character.celeridad and cost <= me.blood

    def _spend_modifiers(
        self, state: Any, seat: int, action: Action, sealed_from: Sequence[int]
    ) -> int:
        """Pay for the declared Celerity actions (§8.3) and the Willpower success (§3),
        a line sealed, as the declaration is, from `sealed_from` (§12); returns the
        Celerity actions k."""
        me = state.fighters[seat]
        k, wp = K_WP[action]
        if k:  # §8.3: blood for the extra actions
            me.declared_blood = k if self.options.celerity_cost == "per_action" else 1
            me.blood -= me.declared_blood
            me.celerity = k
        if wp:  # §3: one point, one automatic success this turn
            me.willpower -= 1
            me.willpower_success = me.declared_willpower = True
        if k or wp:
            state.say_sealed(
                sealed_from,
                seat,
                "{}: {} Celerity actions, Willpower {}",
                me.name,
                k,
                "spent" if wp else "kept",
            )
        return k

    # --- what may be done --------------------------------------------------------------

    def _attack_possible(self, state: Any, seat: int, target: int, move: Move) -> bool:
        """An attack's preconditions (§5, §6), checked when declared and again when it
        comes up (§10 #25)."""
        me = state.fighters[seat]
        weapon = me.weapon
        distance = self._distance(state, seat, target)
        if move in UNARMED:
            return distance <= TOUCH + self._walk(me)
        if move == _BITE:
            return me.character.vampire and me.clinched
        if move == _WEAPON_STRIKE:
            reach = ARMED + self._walk(me)
            return _has_melee_weapon(me) and distance <= reach and not me.clinched
        if weapon.kind != _FIREARM or me.jammed or me.clinched:
            return False
        in_range = distance <= RANGE_REACH * weapon.range and me.shots < weapon.rate
        if move == _BURST:
            return in_range and weapon.burst and me.ammo >= 3
        if move == _FULL_AUTO:
            return in_range and weapon.auto and me.ammo >= max(1, weapon.clip // 2)  # §10 #19
        return in_range and me.ammo >= 1

    def _walk(self, me: Fighter) -> float:
        """How far a melee attack may walk in first (§6, §10 #15, `walk_with_action`):
        7 m, or the wounded's own pace below that; nobody walks out of a clinch."""
        if not self.options.walk_with_action or me.clinched:
            return 0.0
        return min(WALK, speed(me))

    def _reload_legal(self, me: Fighter) -> bool:
        """§5: a dropped weapon to pick up, or a spent or jammed firearm."""
        weapon = me.weapon
        dropped = weapon is not me.carried
        return dropped or (weapon.kind == Kind.FIREARM and (me.ammo < weapon.clip or me.jammed))

    @staticmethod
    def _heal_possible(me: Fighter) -> bool:
        return me.blood >= 1 and (Damage.BASHING in me.health or Damage.LETHAL in me.health)

    # --- taking a declared action (§4 Phase 2) -------------------------------------------

    @staticmethod
    @contextmanager
    def _at_once(state: Any, simultaneous: bool) -> Iterator[None]:
        """§10 #11: fighters tied in full roll as they stood, before any blow of the
        exchange lands (each one's wound penalty held until it is over)."""
        for fighter in state.fighters if simultaneous else ():
            fighter.held_penalty = wound_penalty(fighter.health)
        try:
            yield
        finally:
            for fighter in state.fighters:
                fighter.held_penalty = None

    @staticmethod
    def _take(state: Any, seat: int, index: int, simultaneous: bool) -> Slot | None:
        """The declared action `index` of `seat`, marked taken, or None where nothing
        comes of it: taken already, its fighter out (unless the exchange is
        simultaneous, §10 #11), or off balance from a brawl botch (§7)."""
        me = state.fighters[seat]
        slot: Slot = me.slots[index]
        if slot.done or (me.out and not simultaneous):
            return None
        slot.done = True
        if me.off_balance:  # §7: a brawl botch costs the next action
            me.off_balance = False
            state.say(seat, "{} is off balance and loses an action", me.name)
            return None
        return slot

    # --- an attack (§4 Phase 2, §5) ----------------------------------------------------

    def _attack(self, state: Any, seat: int, target: int, slot: Slot, dice: Dice) -> None:
        me, them = state.fighters[seat], state.fighters[target]
        move = slot.move
        if move == Move.CLINCH and me.clinched:
            self._struggle(state, seat, target, dice)
            return
        self._walk_in(state, seat, target, move)
        ability, attribute = attack_traits(move)
        pool, goal = self._action_pool(me, ability, attribute, slot.penalty)
        distance = self._distance(state, seat, target)
        goal += move_shift(move, distance, me.weapon.range, me.clinched)
        goal += self._pressed(state, seat)
        if move in SHOTS:
            goal += self._cover(state, target)  # §6: the target's cover
            pool += me.aiming + {Move.BURST: 2, Move.FULL_AUTO: 10}.get(move, 0)
            me.aiming = 0
            me.ammo -= {Move.BURST: 3, Move.FULL_AUTO: me.ammo}.get(move, 1)  # §10 #33
            me.shots += 1
        result = self._roll_action(state, seat, pool, difficulty(goal), ability, named(move), dice)
        if result is None:
            return
        if result.botch:
            self._mishap(state, seat, target, move, dice)
            return
        if result.net == 0:
            state.say(seat, "{} misses", me.name)
            return
        extra = defended(result.net, self._defend(state, target, seat, move, dice))
        if extra is None:  # §3: the defence took every success
            state.say(seat, "{} is fended off", me.name)
            return
        if move == Move.CLINCH:
            me.clinched = them.clinched = True  # §5 (published): both are held
            state.say(seat, "{} and {} are clinched", me.name, them.name)
        self._damage(state, seat, target, move, extra, dice)

    def _struggle(self, state: Any, seat: int, target: int, dice: Dice) -> None:
        """§5, §10 #39: a clinched fighter's escape: opposed Str + Brawl; the winner breaks
        free, or keeps the hold and deals Strength bashing damage (published)."""
        me, them = state.fighters[seat], state.fighters[target]
        nets = []
        for side, fighter in ((seat, me), (target, them)):
            pool, goal = self._action_pool(fighter, "pelea", "fuerza", 0)
            faces = roll(dice, pool, "struggle", goal)
            nets.append(read_pool(faces, goal).net)
            state.say(side, "{} struggles: {} = {}", fighter.name, faces, nets[-1])
        if nets[0] > nets[1]:
            me.clinched = them.clinched = False
            state.say(seat, "{} breaks free", me.name)
        elif nets[1] > nets[0]:
            self._damage(state, target, seat, Move.CLINCH, 0, dice)

    def _action_pool(
        self, me: Fighter, ability: str, attribute: str, penalty: int
    ) -> tuple[int, int]:
        """`action_pool`, with a die per unused Celerity dot on Dexterity pools under
        `celerity_dice` (§8.3, V20)."""
        pool, goal = action_pool(me, ability, attribute, penalty)
        if self.options.celerity_dice and attribute == "destreza":
            pool += me.character.celeridad - me.celerity
        return pool, goal

    def _roll_action(
        self,
        state: Any,
        seat: int,
        pool: int,
        goal: int,
        ability: str,
        what: str,
        dice: Dice,
    ) -> Roll | None:
        """An action roll with the turn's Willpower success if unused (§3, §10 #23); None
        when the pool is empty: the action cannot be attempted, Willpower or not (§10 #13)."""
        me = state.fighters[seat]
        if pool <= 0:  # §10 #13: not even Willpower rescues it; its success waits for a roll
            state.say(seat, "{} has no dice left to {}", me.name, what)
            return None
        willpower = me.willpower_success
        me.willpower_success = False
        specialty = self.options.specialty_mode if ability in me.character.specialties else "none"
        faces = roll(dice, pool, what, goal, specialty)
        result = read_pool(
            faces,
            goal,
            specialty,
            willpower=willpower,
            cancellable=self.options.willpower_cancellable,
            reroll=lambda: dice.roll(10, "specialty reroll"),
        )
        state.say(
            seat,
            "{} rolls {} at {}{}: {}",
            me.name,
            faces,
            goal,
            " + Willpower" if willpower else "",
            "botch" if result.botch else f"{result.net} net",
        )
        return result

    # --- defences (§5, §8.2, §13.4) -----------------------------------------------------

    def _defend(self, state: Any, seat: int, attacker: int, move: Move, dice: Dice) -> int:
        """A declared (or aborted-to) defence that applies, rolled now: its net successes
        come off the attack's (§3, §5, §8.2); 0 without one."""
        index = self._defence_for(state, seat, attacker, move)
        if index is None:
            return 0
        me = state.fighters[seat]
        slot = me.slots[index]
        slot.done = True
        ability: str
        if slot.move == Move.DODGE:
            ability = self.options.dodge_ability  # §5: Revised Dodge, or V20 Athletics
        else:
            ability = "armas_cc" if _has_melee_weapon(me) else "pelea"  # parry, else block
        pool, goal = self._action_pool(me, ability, "destreza", slot.penalty)
        goal = difficulty(goal + self._pressed(state, seat))
        result = self._roll_action(state, seat, pool, goal, ability, named(slot.move), dice)
        return 0 if result is None else result.net

    def _defence_for(self, state: Any, seat: int, attacker: int, move: Move) -> int | None:
        """The first unused declared defence that can meet `move`, the lowest slot and so
        the smallest penalty first (§5, §13.4 G3; §10 #40: a Block that cannot apply waits
        for one it can)."""
        me = state.fighters[seat]
        for i, slot in enumerate(me.slots):
            if slot.done or slot.move not in DEFENCES:
                continue
            if slot.move == Move.DODGE or self._blockable(state, seat, attacker, move):
                return i
        return None

    def _blockable(self, state: Any, seat: int, attacker: int, move: Move) -> bool:
        """§5: Block and Parry meet melee attacks only; a bare-handed Block meets a lethal
        weapon only with Fortitude or armour, never aggravated damage (§10 #8)."""
        if move not in MELEE_ATTACKS:
            return False
        me = state.fighters[seat]
        if _has_melee_weapon(me):
            return True
        kind = hit_type(self.options, state.fighters[attacker], me, move)
        if kind == Damage.AGGRAVATED:
            return False
        return kind == Damage.BASHING or me.character.fortaleza >= 1 or me.armour.rating >= 1

    def _may_abort(self, state: Any, seat: int, attacker: int, move: Move) -> bool:
        """§8.2: an untaken non-defensive action (or a delay, ASSUMPTION), and no unused
        declared defence that applies to this attack (§13.4)."""
        me = state.fighters[seat]
        if self._defence_for(state, seat, attacker, move) is not None:
            return False
        return me.delayed or next_untaken(me) is not None

    def _abort_to(self, state: Any, seat: int, action: Action, dice: Dice) -> None:
        """The choice made when attacked (§8.2): a point works, a Willpower roll may; the
        defence takes the next untaken action's slot and penalty (§10 #7, #38)."""
        if action == Action.NO_ABORT:
            return
        me = state.fighters[seat]
        block = action in (Action.ABORT_BLOCK_ROLL, Action.ABORT_BLOCK_WP)
        if action in (Action.ABORT_DODGE_WP, Action.ABORT_BLOCK_WP):
            me.willpower -= 1  # §8.2: a point works automatically (§10 #23: apart)
            won = True
        else:  # §8.2, §10 #7: a Willpower roll, the permanent rating at 6
            faces = roll(dice, me.character.willpower, "willpower", STANDARD)
            won = read_pool(faces, STANDARD).net >= 1
            state.say(
                seat, "{} rolls Willpower {}: {}", me.name, faces, "aborts" if won else "fails"
            )
        if not won:
            return
        defence = Move.BLOCK_PARRY if block else Move.DODGE
        index = next_untaken(me)
        if index is None:  # it had delayed: the defence is its action
            me.delayed = False
            me.slots.append(Slot(defence))
        else:  # §10 #7, #38: the defence takes the slot, and its penalty
            me.slots[index].move = defence
        state.say(seat, "{} aborts to {}", me.name, named(defence))

    # --- what a hit does (§4 Phase 3, §7) -----------------------------------------------

    def _botch(self, state: Any, seat: int, move: Move) -> None:
        """§7 (simulator defaults, §10 #16): a gun jams, a melee weapon drops, a brawler is
        off balance."""
        me = state.fighters[seat]
        if move in SHOTS:
            me.jammed = True
            state.say(seat, "{}'s {} jams", me.name, me.weapon.name)
        elif move == Move.WEAPON_STRIKE:
            state.say(seat, "{} drops the {}", me.name, me.weapon.name)
            me.weapon = self.catalog.weapons["fists"]
        else:
            me.off_balance = True
            state.say(seat, "{} is off balance", me.name)

    def _damage(
        self, state: Any, seat: int, target: int, move: Move, extra: int, dice: Dice
    ) -> None:
        """§4 Phase 3: the damage pool (+1 die per extra success, never below 1) at 6, no
        botch; the target soaks by type (§7), and what is left marks its health."""
        me, them = state.fighters[seat], state.fighters[target]
        kind = hit_type(self.options, me, them, move)
        pool = damage_pool(damage_dice(me, move) + extra)
        ones = self.options.ones_cancel_on_damage_soak  # §10 #3
        faces = roll(dice, pool, "damage", STANDARD, ones=ones)
        hits = read_pool(faces, STANDARD, ones_cancel=ones).net
        c = them.character
        soak_dice = soak_pool(kind, c.vampire, c.resistencia, c.fortaleza, them.armour.rating)
        soak_faces = roll(dice, soak_dice, "soak", STANDARD, ones=ones)
        soaked = read_pool(soak_faces, STANDARD, ones_cancel=ones).net
        halve = kind == Damage.BASHING and c.vampire and self.options.halve_bashing_vs_vampires
        levels = after_soak(hits, soaked, halve)
        them.status = without_blood(
            take(them.health, levels, kind, c.vampire), c.vampire, them.blood
        )
        state.say(
            seat,
            "Damage {} = {} {}; {} soaks {} = {}: {} level(s), {}",
            faces,
            hits,
            kind.value,
            them.name,
            soak_faces,
            soaked,
            levels,
            them.status.value,
        )

    def _tend(self, state: Any, seat: int, move: Move) -> None:
        """The actions that need nobody: reload (or pick up a dropped weapon, §7), aim,
        heal (§5, §10 #18, #36)."""
        me = state.fighters[seat]
        if move == Move.RELOAD:
            if me.weapon is not me.carried:
                me.weapon = me.carried  # §7: the dropped weapon, picked up
                state.say(seat, "{} picks up the {}", me.name, me.weapon.name)
            else:
                me.ammo, me.jammed = me.weapon.clip, False
                state.say(seat, "{} reloads the {}", me.name, me.weapon.name)
        elif move == Move.AIM:
            me.aiming = min(me.aiming + 1, me.character.percepcion)  # §5 (published)
            state.say(seat, "{} aims (+{} dice)", me.name, me.aiming)
        elif move == Move.HEAL:  # §5, §10 #18, #36: 1 blood heals 1 level, bashing first
            me.blood -= 1
            kind = Damage.BASHING if Damage.BASHING in me.health else Damage.LETHAL
            me.health.remove(kind)
            me.status = status(me.health, me.character.vampire)
            state.say(seat, "{} heals a {} level with blood", me.name, kind.value)


def unskilled_shift(rating: int, ability: str) -> int:
    """§3 (seed): a missing Skill rolls at +1 difficulty; a missing Talent does not."""
    return 1 if rating == 0 and ability in SKILLS else 0


def action_pool(me: Fighter, ability: str, attribute: str, penalty: int) -> tuple[int, int]:
    """An action's dice and difficulty (§3): Attribute + Ability; missing a Skill rolls
    the Attribute at +1 difficulty; wounds, the multiple-action place (`penalty`) and, on
    Dexterity pools, armour cost dice (§7, §8.1)."""
    c = me.character
    rating = getattr(c, ability)
    goal = STANDARD + unskilled_shift(rating, ability)
    wounds = wound_penalty(me.health) if me.held_penalty is None else me.held_penalty
    pool = getattr(c, attribute) + rating - wounds - penalty
    if attribute == "destreza":
        pool -= me.armour.penalty
    return pool, goal


def move_shift(move: Move, distance: float, weapon_range: float, clinched: bool) -> int:
    """What an attack adds to difficulty 6 (§5, §6): a kick +1; a clinched brawler +1
    (§10 #39); a shot -2 within 2 m, +2 beyond its listed range; a burst +1, full auto +2.
    Pure, so the NPCs weigh the very shifts the rules apply."""
    if move == Move.KICK:
        return 1 + (1 if clinched else 0)
    if move in (Move.STRIKE, Move.BITE):
        return 1 if clinched and move == Move.STRIKE else 0
    if move in SHOTS:
        shift = -2 if distance <= POINT_BLANK else 2 if distance > weapon_range else 0
        return shift + {Move.BURST: 1, Move.FULL_AUTO: 2}.get(move, 0)
    return 0


K_WP = {action: (k, bool(wp)) for action in MODIFIERS for k, wp in [divmod(action - Action.K0, 2)]}
"""A modifier action's Celerity actions and Willpower flag (id 19 + 2k + wp)."""


def next_untaken(me: Fighter) -> int | None:
    """The first declared action not yet taken that is no defence (what an abort replaces)."""
    for i, slot in enumerate(me.slots):
        if not slot.done and slot.move not in DEFENCES:
            return i
    return None


def named(value: Action | Move) -> str:
    return value.name.lower().replace("_", " ")


def roll(
    dice: Dice,
    pool: int,
    purpose: str,
    goal: int,
    specialty: SpecialtyMode = "none",
    ones: bool = True,
) -> list[int]:
    """A pool of d10 rolled at difficulty `goal` (§3)."""
    return roll_pool(dice, pool, 10, purpose, pool_classes(goal, specialty, ones))


@cache  # asked at every roll of a step: a handful of (goal, specialty, ones) in all
def pool_classes(
    goal: int, specialty: SpecialtyMode = "none", ones: bool = True
) -> tuple[int, ...]:
    """The faces a pool at `goal` tells apart, as `odds.read_pool` reads them
    (`dice.roll_pool`'s classes): a failure and a success; a 1 apart where ones are read
    (a botch, or cancelling: §3, §10 #3), a 10 apart under a specialty (§8.5)."""
    goal = max(2, min(goal, 10))
    firsts = {goal} | ({2} if ones else set()) | ({10} if specialty != "none" else set())
    return runs(10, *sorted(firsts))


def _has_melee_weapon(me: Fighter) -> bool:
    return me.weapon.kind == Kind.MELEE


def melee_move(me: Fighter) -> Move:
    """§12: a double attack's blow: a weapon strike with a melee weapon, else a strike."""
    return Move.WEAPON_STRIKE if _has_melee_weapon(me) else Move.STRIKE


def attack_traits(move: Move) -> tuple[str, str]:
    """(Ability, Attribute) of an attack (§4 Phase 2, §5)."""
    if move == Move.WEAPON_STRIKE:
        return "armas_cc", "destreza"
    if move in SHOTS:
        return "armas_fuego", "destreza"
    if move == Move.CLINCH:
        return "pelea", "fuerza"
    return "pelea", "destreza"


def damage_dice(me: Fighter, move: Move) -> int:
    """§5, §7: Strength (+1 kick or bite, + the weapon's bonus), or a gun's damage."""
    strength = me.character.fuerza
    if move in (Move.KICK, Move.BITE):
        return strength + 1
    if move in (Move.STRIKE, Move.CLINCH):
        return strength
    if move == Move.WEAPON_STRIKE:
        return strength + me.weapon.bonus
    return me.weapon.damage


def speed(me: Fighter) -> float:
    """§6 (published): metres a turn's run covers at its wound level."""
    filled = len(me.health)
    if filled >= len(SPEEDS):
        return 0.0
    run = 20 + 3 * me.character.destreza
    limit = SPEEDS[filled]
    if limit is None:
        return float(run)
    return run * limit if limit < 1 else limit


def flee_range(rival: Fighter) -> float:
    """§9, §10 #24: beyond twice the rival's longest ranged weapon, or 30 m."""
    ranged = rival.carried.kind in (Kind.FIREARM, Kind.THROWN)
    return 2 * rival.carried.range if ranged else FLEE_WITHOUT_GUNS
