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
from duelo.envs.vampiro.damage import multiple_action_penalties
from duelo.envs.vampiro.exchange import (
    ARMED,
    ATTACK_FIRST,
    K_WP,
    PLAN_MOVES,
    TOUCH,
    Exchanges,
    flee_range,
    melee_move,
    move_shift,
    named,
    speed,
)
from duelo.envs.vampiro.observation import OBSERVATION_SPEC, observe, sees_declaration
from duelo.envs.vampiro.setup import (
    Catalog,
    Character,
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
    Action,
    Fighter,
    Incoming,
    Move,
    Phase,
    Slot,
    VampiroState,
)


class VampiroRuleset(Exchanges):
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
    catalog: Catalog
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
            extras = _extras(me)
            for action, k, wp in _MODIFIER_ENTRIES:
                mask[action] = self._modifier_legal(me, k, wp, extras)
            return mask
        if state.phase == Phase.INTERRUPT:
            incoming = state.incoming
            assert incoming is not None
            mask[_ALWAYS_ABORTS] = True
            mask[Action.ABORT_DODGE_WP] = me.willpower >= 1
            blockable = self._blockable(state, seat, incoming.attacker, incoming.move)
            mask[Action.ABORT_BLOCK_ROLL] = blockable
            mask[Action.ABORT_BLOCK_WP] = blockable and me.willpower >= 1
            return mask
        self._plan_mask(state, seat, mask)
        if state.phase == Phase.DELAYED:  # §12: a single action, declared before
            mask[_NOT_DELAYED] = False
        return mask

    def apply(self, state: VampiroState, seat: int, action: int, dice: Dice) -> None:
        action = Action(action)
        me = state.fighters[seat]
        if state.phase == Phase.DECLARE:
            me.plan = action
            state.say_sealed(_sealed(state, seat), seat, "{} declares {}", me.name, named(action))
            extras = _extras(me)
            others = _MODIFIER_ENTRIES[1:]  # all but K0, which is always legal
            if not any(self._modifier_legal(me, k, wp, extras) for _, k, wp in others):
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
            state.say(seat, "{} acts now: {}", me.name, named(action))
            me.slots = self._slots(state, seat, action, 0)
            if me.slots and me.slots[0].move not in DEFENCES:
                if self._perform(state, seat, 0, dice):
                    return
                self._settle(state)
            self._next_action(state, dice, acted=seat)

    def observe(self, state: VampiroState, seat: int) -> np.ndarray:
        return observe(state, seat)

    def hides(self, state: VampiroState, seat: int) -> bool:
        """Whether `seat`'s observation hides part of the state now: a declaration its
        rival made after its own or beside it in a full tie, hidden all turn (§12, §10
        #29, #30), or, while it may abort to a defence, which attack comes beyond what
        it shows (§8.2). Read by the exact best response
        (`duelo.evaluation.best_response`)."""
        rival = 1 - seat
        if state.declared[rival] and not sees_declaration(state, seat):
            return True
        incoming = state.incoming
        attacked = incoming is not None and incoming.attacker == rival
        return state.phase == Phase.INTERRUPT and attacked

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

    @staticmethod
    def _ranked(state: VampiroState) -> tuple[int, int] | None:
        """(faster, slower) by this turn's score, then the rating Dex + Wits (§4); None
        when both tie: they act simultaneously (§10 #11)."""
        keys = [(f.initiative, f.character.destreza + f.character.astucia) for f in state.fighters]
        if keys[0] == keys[1]:
            return None
        return (0, 1) if keys[0] > keys[1] else (1, 0)

    def _modifiers(self, state: VampiroState, seat: int, action: Action, dice: Dice) -> None:
        me = state.fighters[seat]
        k = self._spend_modifiers(state, seat, action, _sealed(state, seat))
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
            melee = melee_move(me)
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
            with self._at_once(state, simultaneous):
                for each in pair:
                    if self._perform(state, *each, dice, simultaneous=simultaneous):
                        return  # waiting on the target's choice to abort (§8.2)
            self._settle(state)
            acted = pair[-1][0]

    def _perform(
        self, state: VampiroState, seat: int, index: int, dice: Dice, simultaneous: bool = False
    ) -> bool:
        """One declared action; True when it waits on its target's choice to abort."""
        slot = self._take(state, seat, index, simultaneous)
        if slot is None:
            return False
        me = state.fighters[seat]
        if slot.move not in ATTACKS:
            if self._move_possible(state, seat, slot.move):
                self._other_move(state, seat, slot.move)
            else:
                state.say(seat, "{} can no longer {}", me.name, named(slot.move))  # §10 #25
            return False
        if not self._attack_possible(state, seat, 1 - seat, slot.move):
            state.say(seat, "{} can no longer {}", me.name, named(slot.move))  # §10 #25
            return False
        incoming = Incoming(seat, index, slot.move)
        struggle = slot.move == Move.CLINCH and me.clinched  # an opposed roll, not a blow
        may_abort = self._may_abort(state, 1 - seat, seat, slot.move)
        if not (state.tied or struggle) and may_abort:
            state.incoming = incoming
            state.current, state.phase = 1 - seat, Phase.INTERRUPT
            return True
        self._attack(state, seat, 1 - seat, slot, dice)
        return False

    # --- aborting to a defence (§8.2) ------------------------------------------------------

    def _abort(self, state: VampiroState, seat: int, action: Action, dice: Dice) -> None:
        incoming = state.incoming
        assert incoming is not None
        state.incoming = None
        self._abort_to(state, seat, action, dice)
        attacker = state.fighters[incoming.attacker]
        self._attack(state, incoming.attacker, seat, attacker.slots[incoming.index], dice)
        self._settle(state)
        self._next_action(state, dice, acted=incoming.attacker)

    # --- the other actions (§5, §6) ----------------------------------------------------------

    def _other_move(self, state: VampiroState, seat: int, move: Move) -> None:
        me = state.fighters[seat]
        if move in (Move.CLOSE, Move.OPEN):
            run = speed(me)
            before = state.range
            state.range = max(TOUCH, before - run) if move == Move.CLOSE else before + run
            me.aiming = 0  # §5: aiming needs the shooter stationary
            state.say(seat, "{} runs: {} m -> {} m", me.name, before, state.range)
            if move == Move.OPEN and state.range > flee_range(state.fighters[1 - seat]):
                me.fled = True  # §9, §10 #24: settled with the turn's other outcomes
                state.say(seat, "{} has fled", me.name)
        else:
            self._tend(state, seat, move)

    # --- what may be declared (§12) -----------------------------------------------------------

    def _plan_mask(self, state: VampiroState, seat: int, mask: np.ndarray) -> None:
        """Mark each plan that may be declared now (§12), in one pass: what each attack
        can do is worked out once (§5, §6), and a clinched fighter may only escape or
        strike in Brawl (§10 #39)."""
        me = state.fighters[seat]
        c, weapon = me.character, me.weapon
        for move, plan in ATTACK_PLANS:
            mask[plan] = self._attack_possible(state, seat, 1 - seat, move)
        shot, melee = mask[Action.SHOOT], mask[PLAN_OF[melee_move(me)]]
        mask[Action.SHOOT_TWICE] = shot and weapon.rate >= 2 <= me.ammo
        mask[Action.ATTACK_DODGE] = any(mask[PLAN_OF[move]] for move in ATTACK_FIRST)
        mask[Action.DOUBLE_ATTACK] = melee
        mask[Action.CLOSE] = state.range > TOUCH and self._move_possible(state, seat, Move.CLOSE)
        mask[Action.OPEN] = self._move_possible(state, seat, Move.OPEN)
        mask[Action.RELOAD] = self._reload_legal(me)
        mask[Action.AIM] = weapon.kind == Kind.FIREARM
        mask[Action.HEAL] = c.vampire and self._move_possible(state, seat, Move.HEAL)
        mask[_ALWAYS_PLANS] = True
        if me.clinched:  # §10 #39: an escape, or a Brawl attack at +1
            allowed = mask[CLINCHED].copy()
            mask[:] = False
            mask[CLINCHED] = allowed
            mask[Action.BITE] &= c.vampire

    def _move_possible(self, state: VampiroState, seat: int, move: Move) -> bool:
        """A non-attack action's preconditions when it comes up (§10 #25): nobody closes
        in at touch range or runs out of a clinch, and a heal needs blood and a wound."""
        me = state.fighters[seat]
        if move == Move.CLOSE and state.range <= TOUCH:
            return False  # §10 #25: a Celerity Close at touch range is lost
        if move in (Move.CLOSE, Move.OPEN):
            return not me.clinched and speed(me) > 0
        if move == Move.HEAL:
            return self._heal_possible(me)
        return True

    def _attack_move(self, state: VampiroState, seat: int) -> Move | None:
        """§12: the "attack" of Attack + Dodge: the first legal of a weapon strike, a
        strike and a shot."""
        for move in ATTACK_FIRST:
            if self._attack_possible(state, seat, 1 - seat, move):
                return move
        return None

    # --- where the two stand (the hooks of `Exchanges`) ----------------------------------

    def _distance(self, state: VampiroState, seat: int, target: int) -> float:
        return state.range

    def _walk_in(self, state: VampiroState, seat: int, target: int, move: Move) -> None:
        """Walk to the attack's reach, if it is out of it (`_walk`)."""
        reach = ARMED if move == Move.WEAPON_STRIKE else TOUCH
        if move in MELEE_ATTACKS and state.range > reach:
            me, before = state.fighters[seat], state.range
            state.range = reach
            state.say(seat, "{} walks in: {} m -> {} m", me.name, before, state.range)

    def _cover(self, state: VampiroState, target: int) -> int:
        return self.scenario.cover[target]

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


def attack_difficulty(state: VampiroState, me: Fighter, move: Move) -> int:
    """What an attack adds to difficulty 6 in this duel (`move_shift`)."""
    return move_shift(move, state.range, me.weapon.range, me.clinched)


PLAN_OF = {move: plan for plan, move in PLAN_MOVES.items()}
"""The single-action plan of each move."""
ATTACK_PLANS = tuple((move, int(PLAN_OF[move])) for move in ATTACKS)
"""Each attack and the plan that declares it alone."""
CLINCHED = np.array([Action.STRIKE, Action.KICK, Action.CLINCH, Action.BITE])
"""What a clinched fighter may declare (§10 #39)."""
_ALWAYS_ABORTS = np.array([Action.NO_ABORT, Action.ABORT_DODGE_ROLL])
_NOT_DELAYED = np.array([*MULTIPLE, Action.DELAY])
_ALWAYS_PLANS = np.array([Action.DODGE, Action.BLOCK_PARRY, Action.DELAY])
"""Index arrays of the masks' fixed entries (a list of members indexes ten times slower)."""
_MODIFIER_ENTRIES = tuple((int(action), *K_WP[action]) for action in MODIFIERS)
"""Each modifier's index, Celerity actions and Willpower flag."""


def _sealed(state: VampiroState, seat: int) -> tuple[int, ...]:
    """Who may not read `seat`'s declaration this turn (§12, §10 #29, #30): its rival,
    unless `seat` declares first; with `public_declarations`, only in a full tie."""
    if state.options.public_declarations:
        return (1 - seat,) if state.tied else ()
    return () if state.first_declarer == seat else (1 - seat,)


def _extras(me: Fighter) -> bool:
    """§12: Celerity actions repeat a plan, never a Delay or a Heal."""
    return me.plan not in (Action.DELAY, Action.HEAL)
