"""Vampiro fights of several a side (digest §13): the duel's exchanges for many.

An attack, its defence and its damage are the duel's (`exchange.Exchanges`); what
several fighters bring is here: one initiative roll each and one order for everyone,
declarations slowest first across both sides, each seeing only those made before its
own (§13.2); a target for each attack of a plan (§13.3); declared dodges met one per
incoming attack, whoever attacks (§13.4); delayers offered "act now or keep waiting",
sealed, before every later initiative slot and once after the last (§13.5); a botch
that hits an ally beside the target (§13.6); the end-of-turn actions in rounds of one
each (§13.7); +1 difficulty per melee attacker beyond the first (§13.1 G1); and the end
when a side has no active fighter (§13.9).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from duelo.envs.core.config import entry_of, options_of, party_of, require_known
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import fighter_names
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
    named,
    speed,
)
from duelo.envs.vampiro.group_observation import GROUP_SPEC, observe_group
from duelo.envs.vampiro.group_setup import (
    GroupCatalog,
    GroupOptions,
    GroupScenario,
    load_group_catalog,
)
from duelo.envs.vampiro.group_state import (
    ABORT_IDS,
    DECODED,
    MEANINGS,
    MODIFIER_IDS,
    MULTIPLE,
    PLAN_IDS,
    WAIT_ID,
    Entry,
    GroupAction,
    GroupFighter,
    GroupState,
    Incoming,
    Plan,
)
from duelo.envs.vampiro.setup import Character, Kind
from duelo.envs.vampiro.state import (
    ATTACKS,
    DEFENCES,
    MELEE_ATTACKS,
    Action,
    Move,
    Phase,
    Slot,
)

SIDE_A, SIDE_B = 0, 1
BESIDE = 1.0
"""§13.6 G6: an ally this near the target takes a botched attack."""
_MELEE = frozenset({Move.STRIKE, Move.KICK, Move.WEAPON_STRIKE})
_SINGLE = {
    Plan.DODGE: Move.DODGE,
    Plan.BLOCK_PARRY: Move.BLOCK_PARRY,
    Plan.OPEN: Move.OPEN,
    Plan.RELOAD: Move.RELOAD,
    Plan.AIM: Move.AIM,
    Plan.HEAL: Move.HEAL,
}
"""The untargeted single-action plans and their move."""


class VampiroGroupRuleset(Exchanges):
    """Vampiro fights of up to three a side on a line (DESIGN.md layer 2).

    Args:
        scenario: a skirmish id of `configs/vampiro/skirmishes.yaml` or a
            `GroupScenario`.
        fighters: a character id or `Character` for every fighter, side A's first;
            None takes the scenario's.
        options: `GroupOptions` or a dict of its fields (the duel's rulings and
            §13.11's).
        catalog: weapons, armour, characters and skirmishes; None loads the packaged
            ones.
    """

    system = "vampiro_skirmish"
    version = 0
    perfect_information = False
    """Hidden: declarations made after one's own, allies' too (§13.2, §13.8)."""
    actions = GroupAction
    action_meanings = MEANINGS
    observation_spec = GROUP_SPEC
    catalog: GroupCatalog
    options: GroupOptions

    def __init__(
        self,
        scenario: str | GroupScenario = "two_on_two",
        fighters: tuple[str | Character, ...] | None = None,
        options: GroupOptions | dict[str, Any] | None = None,
        catalog: GroupCatalog | None = None,
    ) -> None:
        self.catalog = catalog or load_group_catalog()
        self.scenario = entry_of(scenario, GroupScenario, self.catalog.skirmish, "scenario")
        self.characters = party_of(
            self.scenario.fighters if fighters is None else fighters,
            len(self.scenario.posts),
            Character,
            self.catalog.character,
            "side A's first",
        )
        for character in self.characters:
            where = character.id
            require_known(character.weapon, self.catalog.weapons, f"{where}.weapon", "weapon")
            require_known(character.armour, self.catalog.armour, f"{where}.armour", "armour")
        self.options = options_of(GroupOptions, options, "vampiro skirmish options")
        self.round_cap = self.options.round_cap
        self.sides = tuple(
            [SIDE_A] * len(self.scenario.side_a) + [SIDE_B] * len(self.scenario.side_b)
        )

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> GroupState:
        names = fighter_names([c.name for c in self.characters], self.sides)
        fighters = []
        for seat, (c, post) in enumerate(zip(self.characters, self.scenario.posts, strict=True)):
            weapon = self.catalog.weapons[c.weapon]
            blood, _ = c.blood
            fighters.append(
                GroupFighter(
                    character=c,
                    name=names[seat],
                    weapon=weapon,
                    carried=weapon,
                    armour=self.catalog.armour[c.armour],
                    willpower=c.willpower,
                    blood=blood // 2,  # §10 #21: blood at half its maximum
                    ammo=weapon.clip,
                    side=self.sides[seat],
                    position=post.pos,
                )
            )
        state = GroupState(
            scenario=self.scenario, options=self.options, fighters=fighters, sides=self.sides
        )
        state.say(
            None,
            "Skirmish {}: {} against {}",
            self.scenario.id,
            _roll_call(state, SIDE_A),
            _roll_call(state, SIDE_B),
        )
        self._start_turn(state, dice)
        return state

    def to_act(self, state: GroupState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: GroupState, seat: int) -> np.ndarray:
        mask = np.zeros(len(GroupAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        me = state.fighters[seat]
        if state.phase == Phase.MODIFIERS:
            extras = me.plan_of not in (Plan.DELAY, Plan.HEAL)
            for action, i in MODIFIER_IDS.items():
                mask[i] = self._modifier_legal(me, *K_WP[action], extras)
            return mask
        if state.phase == Phase.INTERRUPT:
            incoming = state.incoming
            assert incoming is not None
            blockable = self._blockable(state, seat, incoming.attacker, incoming.move)
            mask[ABORT_IDS[Action.NO_ABORT]] = mask[ABORT_IDS[Action.ABORT_DODGE_ROLL]] = True
            mask[ABORT_IDS[Action.ABORT_DODGE_WP]] = me.willpower >= 1
            mask[ABORT_IDS[Action.ABORT_BLOCK_ROLL]] = blockable
            mask[ABORT_IDS[Action.ABORT_BLOCK_WP]] = blockable and me.willpower >= 1
            return mask
        delayed = state.phase == Phase.DELAYED
        self._plan_mask(state, seat, mask, delayed)
        mask[WAIT_ID] = delayed
        return mask

    def apply(self, state: GroupState, seat: int, action: int, dice: Dice) -> None:
        me = state.fighters[seat]
        if state.phase == Phase.DECLARE:
            me.choice = action
            words = self._words(state, seat, action)
            state.say_sealed(_sealed(state, seat), seat, "{} declares: {}", me.name, words)
            extras = me.plan_of not in (Plan.DELAY, Plan.HEAL)
            legal = [a for a in MODIFIER_IDS if self._modifier_legal(me, *K_WP[a], extras)]
            if legal == [Action.K0]:
                self._declared(state, seat, Action.K0, dice)
            else:
                state.phase = Phase.MODIFIERS
        elif state.phase == Phase.MODIFIERS:
            duel = DECODED[action].duel
            assert duel is not None
            self._declared(state, seat, duel, dice)
        elif state.phase == Phase.INTERRUPT:
            self._abort(state, seat, action, dice)
        else:  # §13.5: sealed until every delayer at this moment has chosen
            state.choices[seat] = action
            state.asking.pop(0)
            if not state.asking:
                self._delayers_choose(state)
            self._advance(state, dice)

    def observe(self, state: GroupState, seat: int) -> np.ndarray:
        return observe_group(state, seat)

    # --- the turn: initiative and declarations (§13.2) -------------------------------

    def _start_turn(self, state: GroupState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            return
        state.say(None, "--- Turn {} ---", state.round)
        state.incoming = None
        state.queue, state.asking, state.acting = [], [], []
        state.choices = {}
        for seat, fighter in enumerate(state.fighters):
            fighter.plan = None
            fighter.choice = None
            fighter.declared = False
            fighter.celerity = 0
            fighter.willpower_success = fighter.declared_willpower = False
            fighter.slots = []
            fighter.delayed = False
            fighter.shots = 0
            fighter.declared_blood = 0
            if not state.active(seat):
                fighter.declare_initiative = fighter.initiative = 0  # out: no roll (§13.1)
                continue
            # §13.2: everyone rolls, in id order; Celerity dots unused (§10 #22)
            fighter.roll = 6 if self.options.fixed_initiative else dice.roll(10, "initiative")
            score = self._initiative(fighter, used=0)
            fighter.declare_initiative = fighter.initiative = score
            state.say(seat, "{}: initiative {}", fighter.name, score)
        active = [s for s in range(len(state.fighters)) if state.active(s)]
        # §13.2: the slowest declares first, across both sides
        state.declaring = sorted(
            active, key=lambda s: (state.fighters[s].declare_initiative, state.rating(s), s)
        )
        state.phase = Phase.DECLARE
        state.current = state.declaring[0]

    def _declared(self, state: GroupState, seat: int, modifier: Action, dice: Dice) -> None:
        me = state.fighters[seat]
        k = self._spend_modifiers(state, seat, modifier, _sealed(state, seat))
        assert me.choice is not None
        me.slots = self._slots(state, seat, me.choice, k)
        me.delayed = me.plan_of == Plan.DELAY
        me.declared = True
        state.declaring.remove(seat)
        if state.declaring:
            state.phase, state.current = Phase.DECLARE, state.declaring[0]
            return
        self._begin_actions(state, dice)

    def _slots(self, state: GroupState, seat: int, choice: int, celerity: int) -> list[Slot]:
        """The declared actions, each attack with its target (§13.3; §8.1: action k of N
        loses N + k - 1 dice); Celerity actions repeat the first, at its target, at full
        pool (§8.3, §12)."""
        decoded = DECODED[choice]
        plan = decoded.plan
        assert plan is not None
        if plan == Plan.DELAY:
            return []
        me = state.fighters[seat]
        targets = [state.enemies(seat)[e] for e in decoded.enemies]
        first, second = multiple_action_penalties(2)
        if plan == Plan.SHOOT_TWICE:
            slots = [Slot(Move.SHOOT, first, target=targets[0])]
            slots.append(Slot(Move.SHOOT, second, target=targets[1]))
        elif plan == Plan.DOUBLE_ATTACK:
            slots = [Slot(melee_move(me), first, target=targets[0])]
            slots.append(Slot(melee_move(me), second, target=targets[1]))
        elif plan == Plan.ATTACK_DODGE:
            attack = self._attack_move(state, seat, targets[0])
            assert attack is not None  # the mask allows it only with an attack at hand
            slots = [Slot(attack, first, target=targets[0]), Slot(Move.DODGE, second)]
        elif plan == Plan.DODGE_TWICE:
            slots = [Slot(Move.DODGE, first), Slot(Move.DODGE, second)]
        elif targets:
            assert decoded.duel is not None
            slots = [Slot(PLAN_MOVES[decoded.duel], target=targets[0])]
        else:
            slots = [Slot(_SINGLE[plan])]
        head = slots[0]
        return slots + [Slot(head.move, celerity=True, target=head.target) for _ in range(celerity)]

    # --- the turn: actions (§13.2, §13.5, §13.7) ----------------------------------------

    def _begin_actions(self, state: GroupState, dice: Dice) -> None:
        """§10 #22: the dots spent on Celerity leave each score; one order for everyone,
        fastest first. First actions come at each one's initiative (a delayer's slot
        stays, for its moment), the rest in rounds of one each at the end (§13.7)."""
        for seat, fighter in enumerate(state.fighters):
            if state.active(seat):
                fighter.initiative = self._initiative(fighter, used=fighter.celerity)
        order = self._order(state)
        rounds: list[list[Entry]] = [[]]
        for seat in order:
            fighter = state.fighters[seat]
            if fighter.delayed:
                rounds[0].append(Entry(seat, None, 0))
                continue
            acting = [i for i, slot in enumerate(fighter.slots) if slot.move not in DEFENCES]
            start = 1 if self.options.all_multi_at_end and len(fighter.slots) > 1 else 0
            for place, index in enumerate(acting, start):
                while len(rounds) <= place:
                    rounds.append([])
                rounds[place].append(Entry(seat, index, place))
        state.queue = [entry for batch in rounds for entry in batch]
        state.offered = False
        state.say(None, "Order: {}", ", ".join(state.fighters[s].name for s in order))
        self._advance(state, dice)

    def _order(self, state: GroupState) -> list[int]:
        """The active fighters by this turn's final initiative, then Dex + Wits, highest
        first (§4, §13.2); full ties keep seat order and act simultaneously."""
        active = [s for s in range(len(state.fighters)) if state.active(s)]
        return sorted(active, key=lambda s: (-state.fighters[s].initiative, -state.rating(s), s))

    def _rank(self, state: GroupState, seat: int) -> tuple[int, int]:
        return state.fighters[seat].initiative, state.rating(seat)

    def _advance(self, state: GroupState, dice: Dice) -> None:
        """Take Phase 2 until a decision is needed: the delayers' moment before each
        first-round slot and once after the last (§13.5), the delayers who chose to
        act, then the queue, simultaneous entries together (§10 #11, §13.2)."""
        while state.result is None:
            if state.asking:
                state.current, state.phase = state.asking[0], Phase.DELAYED
                return
            if state.acting:
                seat = state.acting.pop(0)
                fighter = state.fighters[seat]
                if fighter.slots and fighter.slots[0].move not in DEFENCES:
                    if self._perform(state, seat, 0, dice):
                        return
                    self._settle(state)
                continue
            if not state.offered:
                state.offered = True
                state.asking = self._moment(state)
                state.choices = {}
                continue
            if not state.queue:
                self._start_turn(state, dice)
                return
            batch = self._batch(state)
            if batch[0].place == 0:
                state.offered = False  # a new moment before the next slot
            simultaneous = len(batch) > 1
            with self._at_once(state, simultaneous):
                for entry in batch:
                    if entry.index is None:
                        continue
                    if self._perform(state, entry.seat, entry.index, dice, simultaneous):
                        return  # waiting on the target's choice to abort (§8.2)
            self._settle(state)

    def _batch(self, state: GroupState) -> list[Entry]:
        """The queue's head and the entries simultaneous with it: the same round, the
        same score and rating (§10 #11, #29 for many)."""
        head = state.queue.pop(0)
        batch = [head]
        rank = self._rank(state, head.seat)
        while (
            state.queue
            and state.queue[0].place == head.place
            and self._rank(state, state.queue[0].seat) == rank
        ):
            batch.append(state.queue.pop(0))
        return batch

    def _moment(self, state: GroupState) -> list[int]:
        """The delayers offered "act now" before the queue's next first-round slot: those
        whose own slot has come (a faster score, or this very slot), fastest first; after
        the last first-round slot, every delayer still waiting (§13.5, G5)."""
        head = state.queue[0] if state.queue and state.queue[0].place == 0 else None
        waiting = [s for s in self._order(state) if state.fighters[s].delayed]
        if head is None:
            return waiting
        rank = self._rank(state, head.seat)
        return [s for s in waiting if self._rank(state, s) >= rank]

    def _delayers_choose(self, state: GroupState) -> None:
        """§13.5: every choice of the moment revealed at once; those who act go fastest
        first with the single action they chose."""
        for seat in self._order(state):
            choice = state.choices.get(seat)
            if choice is None or choice == WAIT_ID:
                continue
            fighter = state.fighters[seat]
            fighter.delayed = False
            fighter.choice = choice
            fighter.slots = self._slots(state, seat, choice, 0)
            state.say(seat, "{} acts now: {}", fighter.name, self._words(state, seat, choice))
            state.acting.append(seat)
        state.choices = {}

    def _perform(
        self, state: GroupState, seat: int, index: int, dice: Dice, simultaneous: bool = False
    ) -> bool:
        """One declared action; True when it waits on its target's choice to abort."""
        slot = self._take(state, seat, index, simultaneous)
        if slot is None:
            return False
        me = state.fighters[seat]
        if slot.move not in ATTACKS:
            if self._move_possible(state, seat, slot):
                self._other_move(state, seat, slot)
            else:
                state.say(seat, "{} can no longer {}", me.name, named(slot.move))  # §10 #25
            return False
        target = self._target(state, seat, slot)
        if target is None:  # §13.3 G4: the target is out or out of reach
            state.say(seat, "{} can no longer {}", me.name, named(slot.move))
            return False
        may_abort = self._may_abort(state, target, seat, slot.move)
        if may_abort and not simultaneous:
            state.incoming = Incoming(seat, index, slot.move)
            state.current, state.phase = target, Phase.INTERRUPT
            return True
        self._attack(state, seat, target, slot, dice)
        return False

    def _target(self, state: GroupState, seat: int, slot: Slot) -> int | None:
        """The declared target, if it is active and the attack reaches it; else, under
        `retarget_if_out`, the nearest active opponent it reaches (§13.3 G4)."""
        target = slot.target
        assert target is not None
        if state.active(target) and self._attack_possible(state, seat, target, slot.move):
            return target
        if not self.options.retarget_if_out:
            return None
        foes = sorted(state.foes(seat), key=lambda s: (state.between(seat, s), s))
        return next((s for s in foes if self._attack_possible(state, seat, s, slot.move)), None)

    def _abort(self, state: GroupState, seat: int, action: int, dice: Dice) -> None:
        incoming = state.incoming
        assert incoming is not None
        state.incoming = None
        choice = DECODED[action].duel
        assert choice is not None
        self._abort_to(state, seat, choice, dice)
        attacker = state.fighters[incoming.attacker]
        self._attack(state, incoming.attacker, seat, attacker.slots[incoming.index], dice)
        self._settle(state)
        self._advance(state, dice)

    # --- the hooks of `Exchanges`: where everyone stands (§13.1) ----------------------

    def _distance(self, state: GroupState, seat: int, target: int) -> float:
        return state.between(seat, target)

    def _walk_in(self, state: GroupState, seat: int, target: int, move: Move) -> None:
        """Walk toward the target to the attack's reach, if out of it (`_walk`)."""
        reach = ARMED if move == Move.WEAPON_STRIKE else TOUCH
        if move not in MELEE_ATTACKS or state.between(seat, target) <= reach:
            return
        me, them = state.fighters[seat], state.fighters[target]
        before = me.position
        me.position = them.position + (reach if before > them.position else -reach)
        state.say(seat, "{} walks in: {} m -> {} m", me.name, before, me.position)

    def _pressed(self, state: GroupState, seat: int) -> int:
        """§13.1 G1: +1 difficulty per distinct opponent beyond the first that declared a
        melee attack on `seat` this turn (any attack under "all"; none under "off")."""
        rule = self.options.multi_opponent_difficulty
        if rule == "off":
            return 0
        moves = _MELEE if rule == "melee" else frozenset(ATTACKS)
        attackers = {
            other
            for other in state.enemies(seat)
            if any(s.target == seat and s.move in moves for s in state.fighters[other].slots)
        }
        return max(len(attackers) - 1, 0)

    def _mishap(self, state: GroupState, seat: int, target: int, move: Move, dice: Dice) -> None:
        """§13.6 G6: a botch hits the attacker's active ally nearest the target within
        1 m (then the lower seat) with the attack's base damage, instead of §7's
        mishap; with none there, the mishap."""
        near = [
            ally
            for ally in state.allies(seat)
            if state.active(ally) and state.between(ally, target) <= BESIDE
        ]
        if not (self.options.botch_hits_ally and near):
            self._botch(state, seat, move)
            return
        ally = min(near, key=lambda s: (state.between(s, target), s))
        me, them = state.fighters[seat], state.fighters[ally]
        state.say(seat, "{} botches and hits {}", me.name, them.name)
        self._damage(state, seat, ally, move, 0, dice)

    # --- the other actions (§5, §6, §13.1) -----------------------------------------------

    def _other_move(self, state: GroupState, seat: int, slot: Slot) -> None:
        me = state.fighters[seat]
        if slot.move == Move.CLOSE:  # §13.1: toward its target, stopping 1 m from it
            assert slot.target is not None
            them = state.fighters[slot.target]
            before = me.position
            step = min(speed(me), state.between(seat, slot.target) - TOUCH)
            me.position += step if them.position > before else -step
            me.aiming = 0  # §5: aiming needs the shooter stationary
            state.say(seat, "{} runs at {}: {} m -> {} m", me.name, them.name, before, me.position)
        elif slot.move == Move.OPEN:  # §13.1: away from the nearest active opponent
            nearest = state.nearest(seat)
            assert nearest is not None
            before = me.position
            away = 1.0 if before >= state.fighters[nearest].position else -1.0
            me.position += away * speed(me)
            me.aiming = 0
            state.say(seat, "{} runs: {} m -> {} m", me.name, before, me.position)
            foes = state.foes(seat)
            if all(state.between(seat, s) > flee_range(state.fighters[s]) for s in foes):
                me.fled = True  # §9, §10 #24 for many: beyond every opponent's reach
                state.say(seat, "{} has fled", me.name)
        else:
            self._tend(state, seat, slot.move)

    def _move_possible(self, state: GroupState, seat: int, slot: Slot) -> bool:
        """A non-attack action's preconditions when it comes up (§10 #25, §13.3 G4): a run
        at a target still active and more than 1 m away; a heal with blood and a wound."""
        me = state.fighters[seat]
        if slot.move == Move.CLOSE:
            target = slot.target
            assert target is not None
            reachable = state.active(target) and state.between(seat, target) > TOUCH
            return reachable and speed(me) > 0
        if slot.move == Move.OPEN:
            return speed(me) > 0 and state.nearest(seat) is not None
        if slot.move == Move.HEAL:
            return self._heal_possible(me)
        return True

    # --- what may be declared (§12, §13.10) -----------------------------------------------

    def _plan_mask(self, state: GroupState, seat: int, mask: np.ndarray, delayed: bool) -> None:
        """Mark each legal plan (§12, §13.10): an attack at an active opponent it reaches
        with that move, each of two attacks likewise; after a delay, a single action
        (§13.5). What an opponent slot can be hit with is worked out once per slot."""
        me = state.fighters[seat]
        enemies = state.enemies(seat)
        reach: dict[tuple[int, Move], bool] = {}

        def can(e: int, move: Move) -> bool:
            if (e, move) not in reach:
                target = enemies[e] if e < len(enemies) else None
                reach[e, move] = (
                    target is not None
                    and state.active(target)
                    and self._attack_possible(state, seat, target, move)
                )
            return reach[e, move]

        runs = speed(me) > 0
        melee = melee_move(me)
        two_shots = me.weapon.rate >= 2 <= me.ammo
        for i in PLAN_IDS:
            decoded = DECODED[i]
            plan, targets = decoded.plan, decoded.enemies
            if delayed and (plan in MULTIPLE or plan == Plan.DELAY):
                continue  # §13.5: a single-action plan, with its target
            if plan == Plan.SHOOT_TWICE:
                legal = two_shots and all(can(e, Move.SHOOT) for e in targets)
            elif plan == Plan.DOUBLE_ATTACK:
                legal = all(can(e, melee) for e in targets)
            elif plan == Plan.ATTACK_DODGE:
                legal = any(can(targets[0], m) for m in ATTACK_FIRST)
            elif plan == Plan.CLOSE:
                e = targets[0]
                active = e < len(enemies) and state.active(enemies[e])
                legal = runs and active and state.between(seat, enemies[e]) > TOUCH
            elif targets:
                assert decoded.duel is not None
                legal = can(targets[0], PLAN_MOVES[decoded.duel])
            elif plan == Plan.OPEN:
                legal = runs
            elif plan == Plan.RELOAD:
                legal = self._reload_legal(me)
            elif plan == Plan.AIM:
                legal = me.weapon.kind == Kind.FIREARM
            elif plan == Plan.HEAL:
                legal = me.character.vampire and self._heal_possible(me)
            else:
                legal = True  # DODGE, DODGE_TWICE, BLOCK_PARRY, DELAY
            mask[i] = legal

    def _attack_move(self, state: GroupState, seat: int, target: int) -> Move | None:
        """§12: the "attack" of Attack + Dodge: the first legal of a weapon strike, a
        strike and a shot."""
        for move in ATTACK_FIRST:
            if self._attack_possible(state, seat, target, move):
                return move
        return None

    def _words(self, state: GroupState, seat: int, choice: int) -> str:
        """A declaration in words, each target by name."""
        decoded = DECODED[choice]
        assert decoded.plan is not None
        names = [state.fighters[state.enemies(seat)[e]].name for e in decoded.enemies]
        return decoded.plan.name.lower().replace("_", " ") + (
            " at " + " then ".join(names) if names else ""
        )

    # --- the end (§13.9) ------------------------------------------------------------------

    def _settle(self, state: GroupState) -> None:
        """§13.9: a side with no active fighter loses; both at once is a draw, and so is a
        side all of whose fighters fled (§10 #24), unless `flee_is_loss`."""
        if state.result is not None:
            return
        seats = range(len(state.sides))
        sides = (SIDE_A, SIDE_B)
        standing = [any(state.active(s) for s in seats if state.sides[s] == x) for x in sides]
        if all(standing):
            return
        if not any(standing):
            state.finish(Outcome(None, "both sides are out"))
            return
        loser = standing.index(False)
        fallen = [f for f in state.fighters if f.side == loser]
        if all(f.fled for f in fallen) and not self.options.flee_is_loss:
            state.finish(Outcome(None, f"side {'AB'[loser]} flees"))
            return
        state.finish(Outcome(1 - loser, f"side {'AB'[loser]} is out"))


def _sealed(state: GroupState, seat: int) -> tuple[int, ...]:
    """Who may not read `seat`'s declaration this turn (§13.2, §13.8): every other
    fighter but those who declare after it (and its allies under `team_shared_plan`)."""
    shared = state.options.team_shared_plan
    return tuple(
        other
        for other in range(len(state.fighters))
        if other != seat
        and not state.declares_before(seat, other)
        and not (shared and state.sides[other] == state.sides[seat])
    )


def _roll_call(state: GroupState, side: int) -> str:
    return ", ".join(f"{f.name} at {f.position} m" for f in state.fighters if f.side == side)
