"""The Vampiro ruleset: one-on-one fights of the Storyteller system.

Seed `004_28b7eda06dabcb9d.txt` ("Sistemas de Combate"), digest `rules/vampiro.md`.
Comments cite the digest's sections (§n) and its numbered defaults (§10 #n).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from duelo.envs.core.config import fight_of, options_of, require_known
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import DUEL_SIDES, seat_names
from duelo.envs.core.state import Outcome
from duelo.envs.vampiro.damage import (
    after_soak,
    damage_pool,
    defended,
    initiative,
    multiple_action_penalties,
    soak_pool,
    status,
    take,
    without_blood,
    wound_penalty,
)
from duelo.envs.vampiro.observation import OBSERVATION_SPEC, observe
from duelo.envs.vampiro.odds import Outcome as Roll
from duelo.envs.vampiro.odds import difficulty, read_pool
from duelo.envs.vampiro.setup import (
    Catalog,
    Character,
    Damage,
    Kind,
    Scenario,
    VampiroOptions,
    load_catalog,
)
from duelo.envs.vampiro.state import (
    ATTACKS,
    DEFENCES,
    MEANINGS,
    MELEE_ATTACKS,
    MODIFIERS,
    MULTIPLE,
    PLANS,
    SHOTS,
    Action,
    Fighter,
    Incoming,
    Move,
    Phase,
    Slot,
    VampiroState,
    damage_type,
)

STANDARD = 6
"""§3: almost every roll is at difficulty 6."""
TOUCH, ARMED = 1.0, 2.0
"""§6: unarmed fighters touch at 1 m, armed ones fight within 2 m (the range never drops
below 1 m: closing stops there)."""
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


class VampiroRuleset:
    """Vampiro fights between two combatants, mortal or vampire (DESIGN.md layer 2).

    Args:
        scenario: a scenario id of `configs/vampiro/scenarios.yaml` or a `Scenario`.
        fighters: two character ids or `Character`s; None takes the scenario's.
        options: `VampiroOptions` or a dict of its fields (edition flags, GM rulings).
        catalog: weapons, armour and characters; None loads the packaged ones.
    """

    system = "vampiro"
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = False
    """Hidden: blind declarations in a full tie."""
    version = 2
    actions = Action
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | Scenario = "alley",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: VampiroOptions | dict[str, Any] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.catalog = catalog or load_catalog()
        self.scenario, self.characters = fight_of(
            scenario,
            fighters,
            (Scenario, self.catalog.scenario),
            (Character, self.catalog.character),
        )
        for character in self.characters:
            where = character.id
            require_known(character.weapon, self.catalog.weapons, f"{where}.weapon", "weapon")
            require_known(character.armour, self.catalog.armour, f"{where}.armour", "armour")
        self.options = options_of(VampiroOptions, options, "vampiro options")
        self.round_cap = self.options.round_cap

    # --- the ruleset interface ---------------------------------------------------

    def new_duel(self, dice: Dice) -> VampiroState:
        names = seat_names(*(c.name for c in self.characters))
        fighters = []
        for seat, c in enumerate(self.characters):
            weapon = self.catalog.weapons[c.weapon]
            blood, _ = c.blood
            fighters.append(
                Fighter(
                    character=c,
                    name=names[seat],
                    weapon=weapon,
                    carried=weapon,
                    armour=self.catalog.armour[c.armour],
                    willpower=c.willpower,
                    blood=blood // 2,  # §10 #21: blood at half its maximum
                    ammo=weapon.clip,
                )
            )
        state = VampiroState(options=self.options, fighters=fighters, range=self.scenario.range)
        state.say(
            None, "Scenario {}: {} against {}, {} m apart", self.scenario.id, *names, state.range
        )
        self._start_turn(state, dice)
        return state

    def to_act(self, state: VampiroState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: VampiroState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Action), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        me = state.fighters[seat]
        if state.phase == Phase.MODIFIERS:
            for action in MODIFIERS:
                mask[action] = self._modifier_legal(me, *_k_wp(action))
            return mask
        if state.phase == Phase.INTERRUPT:
            incoming = state.incoming
            assert incoming is not None
            mask[[Action.NO_ABORT, Action.ABORT_DODGE_ROLL]] = True
            mask[Action.ABORT_DODGE_WP] = me.willpower >= 1
            blockable = self._blockable(state, seat, incoming.move)
            mask[Action.ABORT_BLOCK_ROLL] = blockable
            mask[Action.ABORT_BLOCK_WP] = blockable and me.willpower >= 1
            return mask
        for plan in PLANS:
            mask[plan] = self._plan_legal(state, seat, plan)
        if state.phase == Phase.DELAYED:  # §12: a single action, declared before
            mask[[*MULTIPLE, Action.DELAY]] = False
        return mask

    def apply(self, state: VampiroState, seat: int, action: int, dice: Dice) -> None:
        action = Action(action)
        me = state.fighters[seat]
        if state.phase == Phase.DECLARE:
            me.plan = action
            state.say(seat, "{} declares {}", me.name, _named(action))
            if [a for a in MODIFIERS if self._modifier_legal(me, *_k_wp(a))] == [Action.K0]:
                self._modifiers(state, seat, Action.K0, dice)
            else:
                state.phase = Phase.MODIFIERS
        elif state.phase == Phase.MODIFIERS:
            self._modifiers(state, seat, action, dice)
        elif state.phase == Phase.INTERRUPT:
            self._abort(state, seat, action, dice)
        else:  # §4, §12: a delayed character's moment
            me.delayed = False
            me.plan = action
            state.say(seat, "{} acts now: {}", me.name, _named(action))
            me.slots = self._slots(state, seat, action, 0)
            if me.slots and me.slots[0].move not in DEFENCES:
                if self._perform(state, seat, 0, dice):
                    return
                self._settle(state)
            self._next_action(state, dice, acted=seat)

    def observe(self, state: VampiroState, seat: int) -> np.ndarray:
        return observe(state, seat)

    # --- the turn: initiative and declarations (§4 Phase 1) ------------------------------

    def _start_turn(self, state: VampiroState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            return
        state.say(None, "--- Turn {} ---", state.round)
        state.declared = [False, False]
        state.incoming = None
        state.queue = []
        for seat, fighter in enumerate(state.fighters):
            fighter.plan = None
            fighter.celerity = 0
            fighter.willpower_success = fighter.declared_willpower = False
            fighter.slots = []
            fighter.delayed = False
            fighter.shots = 0
            fighter.declared_blood = 0
            # §4 (seed): 1d10 (or 6, fixed) + Dex + Wits - wounds + unused Celerity dots;
            # all unused while the order of declarations is set (§10 #22)
            fighter.roll = 6 if self.options.fixed_initiative else dice.roll(10, "initiative")
            score = self._initiative(fighter, used=0)
            fighter.declare_initiative = fighter.initiative = score
            state.say(seat, "{}: initiative {}", fighter.name, score)
        ranked = self._ranked(state)
        state.tied = ranked is None
        # §4: declarations in reverse order, the slowest first; a full tie declares blind
        state.current = 0 if ranked is None else ranked[1]
        state.first_declarer = None if ranked is None else ranked[1]
        state.phase = Phase.DECLARE

    def _initiative(self, fighter: Fighter, used: int) -> int:
        c = fighter.character
        dots = c.celeridad if self.options.celerity_initiative else used
        penalty = wound_penalty(fighter.health)
        return initiative(fighter.roll, c.destreza, c.astucia, penalty, dots, used)

    @staticmethod
    def _ranked(state: VampiroState) -> tuple[int, int] | None:
        """(faster, slower) by this turn's score, then the rating Dex + Wits (§4); None
        when both tie: they act simultaneously (§10 #11)."""
        keys = [(f.initiative, f.character.destreza + f.character.astucia) for f in state.fighters]
        if keys[0] == keys[1]:
            return None
        return (0, 1) if keys[0] > keys[1] else (1, 0)

    def _modifier_legal(self, me: Fighter, k: int, wp: bool) -> bool:
        """§12: k <= Celerity and affordable in blood (none for Delay or Heal); the
        Willpower success needs a point (§3)."""
        if wp and me.willpower < 1:
            return False
        if k == 0:
            return True
        cost = k if self.options.celerity_cost == "per_action" else 1
        no_extra = me.plan in (Action.DELAY, Action.HEAL)
        return not no_extra and k <= me.character.celeridad and cost <= me.blood

    def _modifiers(self, state: VampiroState, seat: int, action: Action, dice: Dice) -> None:
        me = state.fighters[seat]
        k, wp = _k_wp(action)
        if k:  # §8.3: blood for the extra actions
            me.declared_blood = k if self.options.celerity_cost == "per_action" else 1
            me.blood -= me.declared_blood
            me.celerity = k
        if wp:  # §3: one point, one automatic success this turn
            me.willpower -= 1
            me.willpower_success = me.declared_willpower = True
        if k or wp:
            state.say(
                seat, "{}: {} Celerity actions, Willpower {}", me.name, k, "spent" if wp else "kept"
            )
        assert me.plan is not None
        me.slots = self._slots(state, seat, me.plan, k)
        me.delayed = me.plan == Action.DELAY
        state.declared[seat] = True
        if not all(state.declared):
            state.current, state.phase = 1 - seat, Phase.DECLARE
            return
        self._begin_actions(state, dice)

    def _slots(self, state: VampiroState, seat: int, plan: Action, celerity: int) -> list[Slot]:
        """The declared actions (§8.1: action k of N loses N + k - 1 dice); Celerity
        actions repeat the first at full pool (§8.3, §12)."""
        me = state.fighters[seat]
        if plan == Action.DELAY:
            return []
        first, second = multiple_action_penalties(2)
        if plan == Action.SHOOT_TWICE:
            slots = [Slot(Move.SHOOT, first), Slot(Move.SHOOT, second)]
        elif plan == Action.ATTACK_DODGE:
            attack = self._attack_move(state, seat)
            assert attack is not None  # the mask allows it only with an attack at hand
            slots = [Slot(attack, first), Slot(Move.DODGE, second)]
        elif plan == Action.DOUBLE_ATTACK:
            melee = _melee_move(me)
            slots = [Slot(melee, first), Slot(melee, second)]
        else:
            slots = [Slot(PLAN_MOVES[plan])]
        return slots + [Slot(slots[0].move, celerity=True) for _ in range(celerity)]

    # --- the turn: actions (§4 Phase 2) --------------------------------------------------

    def _begin_actions(self, state: VampiroState, dice: Dice) -> None:
        """§10 #22: the dots spent on Celerity actions leave the score, and the order is
        sorted again. First actions come at each one's initiative, the rest at the end of
        the turn, interleaved fastest first (§4, §10 #5, #31)."""
        for fighter in state.fighters:
            fighter.initiative = self._initiative(fighter, used=fighter.celerity)
        ranked = self._ranked(state)
        state.tied = ranked is None
        state.order = (0, 1) if ranked is None else ranked
        batches: list[list[tuple[int, int]]] = []
        for seat in state.order:
            fighter = state.fighters[seat]
            acting: list[int | None] = [
                i for i, slot in enumerate(fighter.slots) if slot.move not in DEFENCES
            ]
            if self.options.all_multi_at_end and len(fighter.slots) > 1:
                acting.insert(0, None)  # its first action waits for the end too
            for place, index in enumerate(acting):
                while len(batches) <= place:
                    batches.append([])
                if index is not None:
                    batches[place].append((seat, index))
        state.queue = [entry for batch in batches for entry in batch]
        state.say(
            None,
            "Order: {} first",
            state.fighters[state.order[0]].name if ranked else "both at once",
        )
        self._next_action(state, dice, acted=None)

    def _next_action(self, state: VampiroState, dice: Dice, acted: int | None) -> None:
        """Take queued actions until one waits on a decision; a delayed fighter gets its
        moment right after its rival acts, or once its rival has nothing left (§4, §12)."""
        while state.result is None:
            for seat in state.order:  # §4: two delayers at once, the faster first (seed)
                fighter = state.fighters[seat]
                rival_left = any(s != seat for s, _ in state.queue)
                if fighter.delayed and (acted == 1 - seat or not rival_left):
                    state.current, state.phase = seat, Phase.DELAYED
                    return
            if not state.queue:
                self._start_turn(state, dice)
                return
            seat, index = state.queue.pop(0)
            pair = [(seat, index)]
            if state.tied and state.queue and state.queue[0][0] != seat:
                pair.append(state.queue.pop(0))  # §10 #11: both roll, then both apply
            simultaneous = len(pair) > 1
            for fighter in state.fighters if simultaneous else ():
                # §10 #11: both roll as they stood, before either blow lands
                fighter.held_penalty = wound_penalty(fighter.health)
            try:
                for each in pair:
                    if self._perform(state, *each, dice, simultaneous=simultaneous):
                        return  # waiting on the target's choice to abort (§8.2)
            finally:
                for fighter in state.fighters:
                    fighter.held_penalty = None
            self._settle(state)
            acted = pair[-1][0]

    def _perform(
        self, state: VampiroState, seat: int, index: int, dice: Dice, simultaneous: bool = False
    ) -> bool:
        """One declared action; True when it waits on its target's choice to abort."""
        me = state.fighters[seat]
        slot = me.slots[index]
        if slot.done or (me.out and not simultaneous):
            return False
        slot.done = True
        if me.off_balance:  # §7: a brawl botch costs the next action
            me.off_balance = False
            state.say(seat, "{} is off balance and loses an action", me.name)
            return False
        if slot.move not in ATTACKS:
            if self._move_possible(state, seat, slot.move):
                self._other_move(state, seat, slot.move)
            else:
                state.say(seat, "{} can no longer {}", me.name, _named(slot.move))  # §10 #25
            return False
        if not self._attack_possible(state, seat, slot.move):
            state.say(seat, "{} can no longer {}", me.name, _named(slot.move))  # §10 #25
            return False
        incoming = Incoming(seat, index, slot.move)
        struggle = slot.move == Move.CLINCH and me.clinched  # an opposed roll, not a blow
        if not (state.tied or struggle) and self._may_abort(state, 1 - seat, incoming):
            state.incoming = incoming
            state.current, state.phase = 1 - seat, Phase.INTERRUPT
            return True
        self._attack(state, seat, slot, dice)
        return False

    # --- aborting to a defence (§8.2) ------------------------------------------------------

    def _may_abort(self, state: VampiroState, seat: int, incoming: Incoming) -> bool:
        """§8.2: an untaken non-defensive action (or a delay, ASSUMPTION), and no unused
        declared defence that applies to this attack."""
        me = state.fighters[seat]
        if self._defence_for(state, seat, incoming.move) is not None:
            return False
        return me.delayed or self._next_untaken(me) is not None

    @staticmethod
    def _next_untaken(me: Fighter) -> int | None:
        for i, slot in enumerate(me.slots):
            if not slot.done and slot.move not in DEFENCES:
                return i
        return None

    def _abort(self, state: VampiroState, seat: int, action: Action, dice: Dice) -> None:
        incoming = state.incoming
        assert incoming is not None
        state.incoming = None
        me = state.fighters[seat]
        if action != Action.NO_ABORT:
            block = action in (Action.ABORT_BLOCK_ROLL, Action.ABORT_BLOCK_WP)
            if action in (Action.ABORT_DODGE_WP, Action.ABORT_BLOCK_WP):
                me.willpower -= 1  # §8.2: a point works automatically (§10 #23: apart)
                won = True
            else:  # §8.2, §10 #7: a Willpower roll, the permanent rating at 6
                faces = _roll(dice, me.character.willpower, "willpower")
                won = read_pool(faces, STANDARD).net >= 1
                state.say(
                    seat, "{} rolls Willpower {}: {}", me.name, faces, "aborts" if won else "fails"
                )
            if won:
                defence = Move.BLOCK_PARRY if block else Move.DODGE
                index = self._next_untaken(me)
                if index is None:  # it had delayed: the defence is its action
                    me.delayed = False
                    me.slots.append(Slot(defence))
                else:  # §10 #7, #38: the defence takes the slot, and its penalty
                    me.slots[index].move = defence
                state.say(seat, "{} aborts to {}", me.name, _named(defence))
        attacker = state.fighters[incoming.attacker]
        self._attack(state, incoming.attacker, attacker.slots[incoming.index], dice)
        self._settle(state)
        self._next_action(state, dice, acted=incoming.attacker)

    # --- attacks (§5) -------------------------------------------------------------------------

    def _attack(self, state: VampiroState, seat: int, slot: Slot, dice: Dice) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        move = slot.move
        if move == Move.CLINCH and me.clinched:
            self._struggle(state, seat, dice)
            return
        self._walk_in(state, seat, move)
        ability, attribute = _attack_traits(move)
        pool, target = self._action_pool(me, ability, attribute, slot.penalty)
        target += attack_difficulty(state, me, move)
        if move in SHOTS:
            target += self.scenario.cover[1 - seat]  # §6: the target's cover
            pool += me.aiming + {Move.BURST: 2, Move.FULL_AUTO: 10}.get(move, 0)
            me.aiming = 0
            me.ammo -= {Move.BURST: 3, Move.FULL_AUTO: me.ammo}.get(move, 1)  # §10 #33
            me.shots += 1
        result = self._roll_action(
            state, seat, pool, difficulty(target), ability, _named(move), dice
        )
        if result is None:
            return
        if result.botch:
            self._botch(state, seat, move)
            return
        if result.net == 0:
            state.say(seat, "{} misses", me.name)
            return
        extra = defended(result.net, self._defend(state, 1 - seat, move, dice))
        if extra is None:  # §3: the defence took every success
            state.say(seat, "{} is fended off", me.name)
            return
        if move == Move.CLINCH:
            me.clinched = them.clinched = True  # §5 (published): both are held
            state.say(seat, "{} and {} are clinched", me.name, them.name)
        self._damage(state, seat, move, extra, dice)

    def _struggle(self, state: VampiroState, seat: int, dice: Dice) -> None:
        """§5, §10 #39: a clinched fighter's escape: opposed Str + Brawl; the winner breaks
        free, or keeps the hold and deals Strength bashing damage (published)."""
        me, them = state.fighters[seat], state.fighters[1 - seat]
        nets = []
        for side, fighter in ((seat, me), (1 - seat, them)):
            pool, target = self._action_pool(fighter, "pelea", "fuerza", 0)
            faces = _roll(dice, pool, "struggle")
            nets.append(read_pool(faces, target).net)
            state.say(side, "{} struggles: {} = {}", fighter.name, faces, nets[-1])
        if nets[0] > nets[1]:
            me.clinched = them.clinched = False
            state.say(seat, "{} breaks free", me.name)
        elif nets[1] > nets[0]:
            self._damage(state, 1 - seat, Move.CLINCH, 0, dice)

    def _action_pool(
        self, me: Fighter, ability: str, attribute: str, penalty: int
    ) -> tuple[int, int]:
        """`action_pool`, with a die per unused Celerity dot on Dexterity pools under
        `celerity_dice` (§8.3, V20)."""
        pool, target = action_pool(me, ability, attribute, penalty)
        if self.options.celerity_dice and attribute == "destreza":
            pool += me.character.celeridad - me.celerity
        return pool, target

    def _roll_action(
        self,
        state: VampiroState,
        seat: int,
        pool: int,
        target: int,
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
        faces = _roll(dice, pool, what)
        result = read_pool(
            faces,
            target,
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
            target,
            " + Willpower" if willpower else "",
            "botch" if result.botch else f"{result.net} net",
        )
        return result

    def _defend(self, state: VampiroState, seat: int, move: Move, dice: Dice) -> int:
        """A declared (or aborted-to) defence that applies, rolled now: its net successes
        come off the attack's (§3, §5, §8.2); 0 without one."""
        index = self._defence_for(state, seat, move)
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
        pool, target = self._action_pool(me, ability, "destreza", slot.penalty)
        result = self._roll_action(state, seat, pool, target, ability, _named(slot.move), dice)
        return 0 if result is None else result.net

    def _defence_for(self, state: VampiroState, seat: int, move: Move) -> int | None:
        """The first unused declared defence that can meet `move` (§5; §10 #40: a Block
        that cannot apply waits for one it can)."""
        me = state.fighters[seat]
        for i, slot in enumerate(me.slots):
            if slot.done or slot.move not in DEFENCES:
                continue
            if slot.move == Move.DODGE or self._blockable(state, seat, move):
                return i
        return None

    def _blockable(self, state: VampiroState, seat: int, move: Move) -> bool:
        """§5: Block and Parry meet melee attacks only; a bare-handed Block meets a lethal
        weapon only with Fortitude or armour, never aggravated damage (§10 #8)."""
        if move not in MELEE_ATTACKS:
            return False
        me = state.fighters[seat]
        if _has_melee_weapon(me):
            return True
        kind = damage_type(state, 1 - seat, move)
        if kind == Damage.AGGRAVATED:
            return False
        return kind == Damage.BASHING or me.character.fortaleza >= 1 or me.armour.rating >= 1

    def _botch(self, state: VampiroState, seat: int, move: Move) -> None:
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

    def _damage(self, state: VampiroState, seat: int, move: Move, extra: int, dice: Dice) -> None:
        """§4 Phase 3: the damage pool (+1 die per extra success, never below 1) at 6, no
        botch; the target soaks by type (§7), and what is left marks its health."""
        me, them = state.fighters[seat], state.fighters[1 - seat]
        kind = damage_type(state, seat, move)
        pool = damage_pool(_damage_dice(me, move) + extra)
        ones = self.options.ones_cancel_on_damage_soak  # §10 #3
        faces = _roll(dice, pool, "damage")
        hits = read_pool(faces, STANDARD, ones_cancel=ones).net
        c = them.character
        soak_dice = soak_pool(kind, c.vampire, c.resistencia, c.fortaleza, them.armour.rating)
        soak_faces = _roll(dice, soak_dice, "soak")
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

    # --- the other actions (§5, §6) ----------------------------------------------------------

    def _other_move(self, state: VampiroState, seat: int, move: Move) -> None:
        me = state.fighters[seat]
        if move in (Move.CLOSE, Move.OPEN):
            speed = _speed(me)
            before = state.range
            state.range = max(TOUCH, before - speed) if move == Move.CLOSE else before + speed
            me.aiming = 0  # §5: aiming needs the shooter stationary
            state.say(seat, "{} runs: {} m -> {} m", me.name, before, state.range)
            if move == Move.OPEN and state.range > _flee_range(state.fighters[1 - seat]):
                me.fled = True  # §9, §10 #24: settled with the turn's other outcomes
                state.say(seat, "{} has fled", me.name)
        elif move == Move.RELOAD:
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

    # --- what may be declared (§12) -----------------------------------------------------------

    def _plan_legal(self, state: VampiroState, seat: int, plan: Action) -> bool:
        me = state.fighters[seat]
        c = me.character
        if me.clinched:  # §10 #39: an escape, or a Brawl attack at +1
            allowed = {Action.STRIKE, Action.KICK, Action.CLINCH}
            if c.vampire:
                allowed.add(Action.BITE)
            if plan not in allowed:
                return False
        if plan in PLAN_MOVES and PLAN_MOVES[plan] in ATTACKS:
            return self._attack_possible(state, seat, PLAN_MOVES[plan])
        weapon = me.weapon
        if plan == Action.SHOOT_TWICE:
            return self._attack_possible(state, seat, Move.SHOOT) and weapon.rate >= 2 <= me.ammo
        if plan == Action.ATTACK_DODGE:
            return self._attack_move(state, seat) is not None
        if plan == Action.DOUBLE_ATTACK:
            return self._attack_possible(state, seat, _melee_move(me))
        if plan == Action.CLOSE:
            return state.range > TOUCH and self._move_possible(state, seat, Move.CLOSE)
        if plan == Action.OPEN:
            return self._move_possible(state, seat, Move.OPEN)
        if plan == Action.RELOAD:
            dropped = weapon is not me.carried
            return dropped or (weapon.kind == Kind.FIREARM and (me.ammo < weapon.clip or me.jammed))
        if plan == Action.AIM:
            return weapon.kind == Kind.FIREARM
        if plan == Action.HEAL:
            return c.vampire and self._move_possible(state, seat, Move.HEAL)
        return True  # DODGE, BLOCK_PARRY, DELAY

    def _move_possible(self, state: VampiroState, seat: int, move: Move) -> bool:
        """A non-attack action's preconditions when it comes up (§10 #25): nobody closes
        in at touch range or runs out of a clinch, and a heal needs blood and a wound."""
        me = state.fighters[seat]
        if move == Move.CLOSE and state.range <= TOUCH:
            return False  # §10 #25: a Celerity Close at touch range is lost
        if move in (Move.CLOSE, Move.OPEN):
            return not me.clinched and _speed(me) > 0
        if move == Move.HEAL:
            return me.blood >= 1 and (Damage.BASHING in me.health or Damage.LETHAL in me.health)
        return True

    def _attack_possible(self, state: VampiroState, seat: int, move: Move) -> bool:
        """An attack's preconditions (§5, §6), checked when declared and again when it
        comes up (§10 #25)."""
        me = state.fighters[seat]
        weapon = me.weapon
        if move in (Move.STRIKE, Move.KICK, Move.CLINCH):
            return state.range <= TOUCH + self._walk(me)
        if move == Move.BITE:
            return me.character.vampire and me.clinched
        if move == Move.WEAPON_STRIKE:
            reach = ARMED + self._walk(me)
            return _has_melee_weapon(me) and state.range <= reach and not me.clinched
        if weapon.kind != Kind.FIREARM or me.jammed or me.clinched:
            return False
        in_range = state.range <= RANGE_REACH * weapon.range and me.shots < weapon.rate
        if move == Move.BURST:
            return in_range and weapon.burst and me.ammo >= 3
        if move == Move.FULL_AUTO:
            return in_range and weapon.auto and me.ammo >= max(1, weapon.clip // 2)  # §10 #19
        return in_range and me.ammo >= 1

    def _walk(self, me: Fighter) -> float:
        """How far a melee attack may walk in first (§6, §10 #15, `walk_with_action`):
        7 m, or the wounded's own pace below that; nobody walks out of a clinch."""
        if not self.options.walk_with_action or me.clinched:
            return 0.0
        return min(WALK, _speed(me))

    def _walk_in(self, state: VampiroState, seat: int, move: Move) -> None:
        """Walk to the attack's reach, if it is out of it (`_walk`)."""
        reach = ARMED if move == Move.WEAPON_STRIKE else TOUCH
        if move in MELEE_ATTACKS and state.range > reach:
            me, before = state.fighters[seat], state.range
            state.range = reach
            state.say(seat, "{} walks in: {} m -> {} m", me.name, before, state.range)

    def _attack_move(self, state: VampiroState, seat: int) -> Move | None:
        """§12: the "attack" of Attack + Dodge: the first legal of a weapon strike, a
        strike and a shot."""
        for move in (Move.WEAPON_STRIKE, Move.STRIKE, Move.SHOOT):
            if self._attack_possible(state, seat, move):
                return move
        return None

    # --- the end (§9) ---------------------------------------------------------------------------

    def _settle(self, state: VampiroState) -> None:
        """§9: the fight ends when a side is out or has fled; both out at once, or a flight,
        is a draw (§10 #24, #32)."""
        if state.result is not None:
            return
        fled = [f for f in state.fighters if f.fled]
        if fled:  # §9, §10 #24: a draw for both
            state.finish(Outcome(None, f"{fled[0].name} flees"))
            return
        out = [f.out for f in state.fighters]
        if all(out):
            state.finish(Outcome(None, "both are out"))
        elif any(out):
            loser = out.index(True)
            fighter = state.fighters[loser]
            state.finish(Outcome(1 - loser, f"{fighter.name} is {fighter.status.value}"))


SKILLS = ("armas_cc", "armas_fuego")
"""§3 (seed): a missing Skill rolls the Attribute alone at +1 difficulty (Talents: none)."""


def unskilled_shift(rating: int, ability: str) -> int:
    """§3 (seed): a missing Skill rolls at +1 difficulty; a missing Talent does not."""
    return 1 if rating == 0 and ability in SKILLS else 0


def action_pool(me: Fighter, ability: str, attribute: str, penalty: int) -> tuple[int, int]:
    """An action's dice and difficulty (§3): Attribute + Ability; missing a Skill rolls
    the Attribute at +1 difficulty; wounds, the multiple-action place (`penalty`) and, on
    Dexterity pools, armour cost dice (§7, §8.1)."""
    c = me.character
    rating = getattr(c, ability)
    target = STANDARD + unskilled_shift(rating, ability)
    wounds = wound_penalty(me.health) if me.held_penalty is None else me.held_penalty
    pool = getattr(c, attribute) + rating - wounds - penalty
    if attribute == "destreza":
        pool -= me.armour.penalty
    return pool, target


K_WP = {action: (k, bool(wp)) for action in MODIFIERS for k, wp in [divmod(action - Action.K0, 2)]}
"""A modifier action's Celerity actions and Willpower flag (id 19 + 2k + wp)."""


def _k_wp(action: Action) -> tuple[int, bool]:
    return K_WP[action]


def _named(value: Action | Move) -> str:
    return value.name.lower().replace("_", " ")


def _roll(dice: Dice, pool: int, purpose: str) -> list[int]:
    return [dice.roll(10, purpose) for _ in range(max(pool, 0))]


def _has_melee_weapon(me: Fighter) -> bool:
    return me.weapon.kind == Kind.MELEE


def _melee_move(me: Fighter) -> Move:
    return Move.WEAPON_STRIKE if _has_melee_weapon(me) else Move.STRIKE


def _attack_traits(move: Move) -> tuple[str, str]:
    """(Ability, Attribute) of an attack (§4 Phase 2, §5)."""
    if move == Move.WEAPON_STRIKE:
        return "armas_cc", "destreza"
    if move in SHOTS:
        return "armas_fuego", "destreza"
    if move == Move.CLINCH:
        return "pelea", "fuerza"
    return "pelea", "destreza"


def attack_difficulty(state: VampiroState, me: Fighter, move: Move) -> int:
    """What an attack adds to difficulty 6 in this duel (`move_shift`)."""
    return move_shift(move, state.range, me.weapon.range, me.clinched)


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


def _damage_dice(me: Fighter, move: Move) -> int:
    """§5, §7: Strength (+1 kick or bite, + the weapon's bonus), or a gun's damage."""
    strength = me.character.fuerza
    if move in (Move.KICK, Move.BITE):
        return strength + 1
    if move in (Move.STRIKE, Move.CLINCH):
        return strength
    if move == Move.WEAPON_STRIKE:
        return strength + me.weapon.bonus
    return me.weapon.damage


def _speed(me: Fighter) -> float:
    """§6 (published): metres a turn's run covers at its wound level."""
    filled = len(me.health)
    if filled >= len(SPEEDS):
        return 0.0
    run = 20 + 3 * me.character.destreza
    limit = SPEEDS[filled]
    if limit is None:
        return float(run)
    return run * limit if limit < 1 else limit


def _flee_range(rival: Fighter) -> float:
    """§9, §10 #24: beyond twice the rival's longest ranged weapon, or 30 m."""
    ranged = rival.carried.kind in (Kind.FIREARM, Kind.THROWN)
    return 2 * rival.carried.range if ranged else FLEE_WITHOUT_GUNS
