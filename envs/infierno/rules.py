"""The Infierno de Cobardes ruleset: turn flow, action economy and the duel opening.

Seed `000_21e506418ba0c894.txt` ("Combate (I)"), digest `rules/infierno.md`.
Comments cite the seed's section titles (SECUENCIA DE COMBATE, PRUEBA DE
INICIATIVA, DESPREVENIDO, SORPRESA, TIPOS DE ACCIONES, DUELOS...) or the
digest's sections (§n). The attack pipeline lives in `combat.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from functools import cache
from typing import Any

import numpy as np

from duelo.envs.core.config import fight_of, options_of, require_known
from duelo.envs.core.dice import Dice, roll_until
from duelo.envs.core.ruleset import DUEL_SIDES, SEATS, seat_names
from duelo.envs.core.state import Outcome
from duelo.envs.infierno import combat
from duelo.envs.infierno.observation import OBSERVATION_SPEC, observe
from duelo.envs.infierno.setup import (
    Catalog,
    Category,
    Character,
    Feat,
    InfiernoOptions,
    Scenario,
    Surprise,
    load_catalog,
)
from duelo.envs.infierno.staredown import (
    LOSER_PENALTY,
    initiative_penalty,
    opposed_loser,
    staredown_result,
)
from duelo.envs.infierno.state import (
    MEANINGS,
    Action,
    Attack,
    AttackMode,
    Budget,
    Carried,
    Fighter,
    InfiernoState,
    Phase,
    Place,
    Staredown,
    StrShare,
)


class Cost(IntEnum):
    """Action economy of one turn (seed: TIPOS DE ACCIONES; digest §4 step 7)."""

    NONE = 0
    FREE = 1
    MOVE = 2
    STANDARD = 3
    FULL = 4


COST = {
    Action.END_TURN: Cost.NONE,
    Action.ATTACK_MAIN: Cost.STANDARD,
    Action.ATTACK_UNARMED: Cost.STANDARD,
    Action.PISTOL_WHIP: Cost.STANDARD,
    Action.THROW_MAIN: Cost.STANDARD,
    Action.TWO_WEAPON_ATTACK: Cost.FULL,
    Action.DRAW_PRIMARY: Cost.MOVE,  # Free with Quick Draw (see _cost)
    Action.DRAW_SECONDARY: Cost.MOVE,
    Action.HOLSTER_MAIN: Cost.MOVE,
    Action.ADVANCE: Cost.MOVE,
    Action.RETREAT: Cost.MOVE,
    Action.STEP_IN: Cost.NONE,
    Action.STEP_OUT: Cost.NONE,
    Action.RUN_IN: Cost.FULL,
    Action.RUN_OUT: Cost.FULL,
    Action.TAKE_COVER: Cost.MOVE,
    Action.CLEAR_JAM: Cost.STANDARD,
    Action.RELOAD: Cost.FULL,
    Action.FEINT: Cost.STANDARD,
    Action.PRONE_TOGGLE: Cost.FREE,  # standing up is a Move (see _cost)
    Action.DELAY: Cost.NONE,
    Action.SURRENDER: Cost.FREE,
}

# Members read on every decision, bound once: Python 3.11 looks an enum member up
# through EnumType.__getattr__, about 0.2 us a time.
_SURPRISE, _ROUND, _BOTH_MISS, _CRIT_CHOICE = Phase
_HOLSTERED, _MAIN_HAND, _OFF_HAND = Place.HOLSTERED, Place.MAIN_HAND, Place.OFF_HAND
_DRAW_PRIMARY, _DRAW_SECONDARY = Action.DRAW_PRIMARY, Action.DRAW_SECONDARY
_PRONE_TOGGLE, _DELAY, _END_TURN = Action.PRONE_TOGGLE, Action.DELAY, Action.END_TURN
_SURRENDER = Action.SURRENDER
_QUICK_DRAW = Feat.QUICK_DRAW
_FREE, _MOVE, _STANDARD, _FULL = Cost.FREE, Cost.MOVE, Cost.STANDARD, Cost.FULL
_TURN_ACTIONS = Action.SURRENDER + 1
"""The turn actions END_TURN..SURRENDER come first in `Action`, then the decision phases'."""


def drawable(fighter: Fighter, slot: int, free_hands: int) -> bool:
    """Whether the carried weapon in `slot` (0 primary, 1 secondary) is holstered and the
    free hands can hold it (§5 draw)."""
    held = fighter.carried[slot] if slot < len(fighter.carried) else None
    return held is not None and held.place == _HOLSTERED and free_hands >= held.weapon.hands


def cost_list(quick_draw: bool, prone: bool) -> list[Cost]:
    """The cost table in `Action` order, for a fighter with or without Quick Draw (its
    draws are free, seed §4 step 9), standing or prone (standing up is a move, §5)."""
    costs = [COST[Action(action)] for action in range(_TURN_ACTIONS)]
    if quick_draw:
        costs[_DRAW_PRIMARY] = costs[_DRAW_SECONDARY] = _FREE
    if prone:
        costs[_PRONE_TOGGLE] = _MOVE
    return costs


_COST_LISTS = [[cost_list(quick, prone) for prone in (False, True)] for quick in (False, True)]
"""`cost_list(quick_draw, prone)`, made once: the mask reads it every decision."""


@cache
def _payable_now(
    quick_draw: bool, prone: bool, standard: bool, move: bool, full: bool
) -> tuple[bool, ...]:
    """What a budget with these actions left can pay, before free actions already used
    (a few dozen combinations, each worked out once: the mask asks every decision)."""
    can = (True, True, move, standard, full)  # NONE, FREE (once a turn), MOVE, STANDARD, FULL
    return tuple(can[cost] for cost in _COST_LISTS[quick_draw][prone])


_HONOUR_ACTIONS = [Action.SETTLE, Action.INSIST]

RUN_MULTIPLIER = 4
"""Run: four times the speed (digest §5, ASSUMPTION d20)."""
DELAY_EPSILON = 0.01
"""A delayer sorts right after the opponent (digest §4 step 5)."""


class InfiernoRuleset:
    """Infierno de Cobardes duels between two fighters (DESIGN.md layer 2).

    Args:
        scenario: a scenario id of `configs/infierno/scenarios.yaml` or a `Scenario`.
        fighters: two character ids or `Character`s; None takes the scenario's.
        options: `InfiernoOptions` or a dict of its fields (GM rulings).
        catalog: weapons, characters and scenarios; None loads the packaged ones.
    """

    system = "infierno"
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = True
    """Taken as perfect: both sides know the scenario's loadouts (the observation hides a
    weapon never drawn; the solver does not)."""
    version = 2
    actions = Action
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | Scenario = "formal_duel",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: InfiernoOptions | dict[str, Any] | None = None,
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
            for i, weapon_id in enumerate(character.weapons):
                where = f"{character.id}.weapons[{i}]"
                require_known(weapon_id, self.catalog.weapons, where, "weapon")
        self.options = options_of(InfiernoOptions, options, "infierno options")
        self.round_cap = self.options.round_cap
        self.fists = self.catalog.weapons["fists"]

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> InfiernoState:
        state = InfiernoState(
            scenario=self.scenario,
            options=self.options,
            fighters=[self._fighter(seat) for seat in SEATS],
            distance=self._roll_distance(dice),
        )
        a, b = state.fighters
        state.say(
            None,
            "Scenario {}: {} vs {} at {} squares ({:g} m)",
            self.scenario.id,
            a.name,
            b.name,
            state.distance,
            state.distance * 1.5,
        )
        if self.scenario.staredown:
            self._open_formal_duel(state, dice)
        elif self.scenario.surprise != Surprise.NONE:
            self._open_ambush(state, dice)
        else:
            for seat in SEATS:
                self._roll_initiative(state, seat, dice)
            self._set_order(state, dice)
            self._start_round(state)
        return state

    def to_act(self, state: InfiernoState) -> int | None:
        if state.result is not None:
            return None
        phase = state.phase
        if phase == _SURPRISE or phase == _ROUND:
            return state.current
        if phase == _BOTH_MISS:
            return next(seat for seat in state.order if seat not in state.honour_choices)
        assert state.pending_crit is not None
        return state.pending_crit.attacker  # the critical's effect is its attacker's choice

    def legal_actions(self, state: InfiernoState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Action), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        phase = state.phase
        if phase == _BOTH_MISS:
            mask[_HONOUR_ACTIONS] = True
        elif phase == _CRIT_CHOICE:
            attack = state.pending_crit
            assert attack is not None
            mask[combat.allowed_effects(attack, state.fighters[state.target_of(attack)])] = True
        else:
            self._turn_mask(state, seat, mask)
        return mask

    def apply(self, state: InfiernoState, seat: int, action: int, dice: Dice) -> None:
        action = Action(action)
        if state.phase == _BOTH_MISS:
            self._honour(state, seat, action, dice)
        elif state.phase == _CRIT_CHOICE:
            attack = state.pending_crit
            assert attack is not None
            state.pending_crit = None
            state.phase = Phase.SURPRISE if state.budget.surprise else Phase.ROUND
            combat.deal_damage(state, attack, action, dice)
            self._run_attacks(state, dice)
            self._after_action(state, dice)
        else:
            self._turn_action(state, seat, action, dice)

    def observe(self, state: InfiernoState, seat: int) -> np.ndarray:
        return observe(state, seat, self.options.round_cap)

    # --- setup ------------------------------------------------------------------

    def _fighter(self, seat: int) -> Fighter:
        character = self.characters[seat]
        carried = [
            Carried(self.catalog.weapons[w], ammo=self.catalog.weapons[w].capacity)
            for w in character.weapons
        ]
        if self.scenario.drawn[seat] and carried:
            carried[0].draw(Place.MAIN_HAND)
        name = seat_names(*(c.name for c in self.characters))[seat]
        return Fighter(
            character=character,
            name=name,
            carried=carried,
            hp=character.hp_max,
            cover_nearby=self.scenario.cover_nearby[seat],
            # seed: Quick Draw is not a move action (§4 step 9), unless the GM rules otherwise
            draws_free=self.options.quick_draw_free and _QUICK_DRAW in character.feats,
        )

    def _roll_distance(self, dice: Dice) -> int:
        low, high = self.scenario.distance
        if low == high:
            return min(low, self.options.arena)
        return min(low + dice.roll(high - low + 1, "starting distance") - 1, self.options.arena)

    def _open_formal_duel(self, state: InfiernoState, dice: Dice) -> None:
        """Seed DUELOS: staredown, then the draw (initiative), then the shootout."""
        self._staredown(state, dice)
        for seat in SEATS:
            self._roll_initiative(state, seat, dice)
        self._set_order(state, dice)
        state.shootout_round = 0
        self._start_round(state)

    def _staredown(self, state: InfiernoState, dice: Dice) -> None:
        """Opposed Intimidate before initiative (seed DUELOS; digest §8.1 readings A/B/C)."""
        reading = state.options.staredown_penalty
        bonuses = []
        totals = []
        for fighter in state.fighters:
            bonus = (
                fighter.character.intimidate
                + combat.sequel_penalty(fighter, state.options)
                - fighter.staredown_carry
            )
            roll = dice.roll(20, "staredown (Intimidate)")
            bonuses.append(bonus)
            totals.append(roll + bonus)
            state.say(
                None, "Staredown: {} d20 {} {:+d} = {}", fighter.name, roll, bonus, roll + bonus
            )
        results = staredown_result((totals[0], totals[1]), (bonuses[0], bonuses[1]), reading)
        for fighter, result in zip(state.fighters, results, strict=True):
            fighter.staredown = result
            fighter.staredown_carry = 0
            if result == Staredown.NONE:
                continue
            if reading == "C":
                fighter.staredown_carry = LOSER_PENALTY  # reading C: -2 in the next staredown
            penalty = initiative_penalty(result, reading)
            verb = "is COWED" if result == Staredown.COWED else "loses the staredown"
            state.say(None, "Staredown: {} {} ({:+d} to initiative)", fighter.name, verb, penalty)
        if results == (Staredown.NONE, Staredown.NONE):
            state.say(None, "Staredown: neither duelist flinches")

    def _open_ambush(self, state: InfiernoState, dice: Dice) -> None:
        """Seed SORPRESA; digest §4 step 2, §10.4 (surprise = A, B or rolled)."""
        surprise = self.scenario.surprise
        ambusher = 1 if surprise == Surprise.B else 0
        target = state.fighters[1 - ambusher]
        surprised = True
        if surprise == Surprise.ROLLED:
            hider = state.fighters[ambusher]
            # the target's Attention die is rolled first (§10.4); ties by §3
            winner = _opposed(
                state,
                dice,
                (1 - ambusher, target.character.attention, "Attention"),
                (ambusher, hider.character.stealth, "Stealth"),
            )
            surprised = winner == ambusher
        if not surprised:
            state.say(None, "{} spots the ambush: no surprise round", target.name)
            for seat in (ambusher, 1 - ambusher):
                self._roll_initiative(state, seat, dice)
            self._set_order(state, dice)
            self._start_round(state)
            return
        target.aware = False
        state.say(None, "{} is SURPRISED", target.name)
        self._roll_initiative(state, ambusher, dice)  # the aware roll before the surprise round
        state.order = [ambusher, 1 - ambusher]
        state.phase = Phase.SURPRISE
        state.say(None, "--- Surprise round ---")
        self._begin_turn(state, ambusher)

    def _roll_initiative(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """1d20 + Initiative + draw modifier + staredown penalty (seed PRUEBA DE INICIATIVA)."""
        fighter = state.fighters[seat]
        character = fighter.character
        draw = 0
        if fighter.main is None and fighter.carried and fighter.carried[0].place == Place.HOLSTERED:
            draw = fighter.carried[0].weapon.draw_modifier  # §4 step 3: only when drawing
        elif fighter.main is None:
            draw = self.fists.draw_modifier
        staredown = initiative_penalty(fighter.staredown, state.options.staredown_penalty)
        sequels = combat.sequel_penalty(fighter, state.options)
        roll = dice.roll(20, "initiative")
        total = roll + character.init_bonus + draw + staredown + sequels
        fighter.initiative = total
        parts = f"d20 {roll} {character.init_bonus:+d} init {draw:+d} draw"
        if staredown:
            parts += f" {staredown:+d} staredown"
        if sequels:
            parts += f" {sequels:+d} sequels"
        state.say(seat, "Initiative: {} {} = {}", fighter.name, parts, total)

    def _set_order(self, state: InfiernoState, dice: Dice) -> None:
        """Descending initiative; ties by Dexterity, then Initiative bonus, then a die (§4)."""
        keys = [(f.initiative, f.character.dex_mod, f.character.init_bonus) for f in state.fighters]
        if keys[0] != keys[1]:
            first = 0 if keys[0] > keys[1] else 1
        else:
            first = dice.roll(2, "initiative tie") - 1
        state.order = [first, 1 - first]
        for fighter in state.fighters:
            fighter.aware = True
        state.say(None, "{} acts first", state.fighters[first].name)

    # --- rounds and turns -------------------------------------------------------

    def _start_round(self, state: InfiernoState) -> None:
        state.shootout_round += 1
        if not state.start_round(self.round_cap):
            return
        state.phase = Phase.ROUND
        state.turn_index = 0
        state.say(None, "--- Round {} ---", state.round)
        self._begin_turn(state, state.order[0])

    def _begin_turn(self, state: InfiernoState, seat: int) -> None:
        fighter = state.fighters[seat]
        if fighter.stunned and state.options.stun_duration == "start_of_next_turn":
            fighter.stunned = False  # §7: the stun lasts until the start of own next turn
            state.say(seat, "{} shakes off the stun", fighter.name)
        state.current = seat
        state.budget = Budget(surprise=state.phase == Phase.SURPRISE)
        state.say(seat, "{}'s turn", fighter.name)

    def _end_turn(self, state: InfiernoState, dice: Dice) -> None:
        assert state.current is not None  # a turn is under way
        fighter = state.fighters[state.current]
        if fighter.feint_turns > 0:
            fighter.feint_turns -= 1
        state.turn_index += 1
        if state.phase == Phase.SURPRISE:
            # §4 steps 2-3: the surprised side rolls initiative after the surprise round
            self._roll_initiative(state, state.order[1], dice)
            self._set_order(state, dice)
            state.round = 0
            state.shootout_round = 0
            self._start_round(state)
        elif state.turn_index >= len(state.order):
            self._end_round(state, dice)
        else:
            self._begin_turn(state, state.order[state.turn_index])

    def _end_round(self, state: InfiernoState, dice: Dice) -> None:
        if state.options.stun_duration == "end_of_round":
            for fighter in state.fighters:
                fighter.stunned = False
        if (
            self.scenario.staredown
            and state.shootout_round == 1
            and state.options.both_miss != "continue"
            and not any(f.damaged_opponent for f in state.fighters)
        ):
            # §8.1 step 4: both missed in round 1 of the shootout
            state.say(None, "Both duelists missed")
            if state.duel_repeats >= state.options.max_duel_repeats:
                self._finish(state, Outcome(None, "duel settled after repeated double misses"))
            elif state.options.both_miss == "always_repeat":
                self._repeat_duel(state, dice)
            else:
                state.phase = Phase.BOTH_MISS_DECISION
                state.honour_choices = {}
                state.current = None
            return
        self._start_round(state)

    def _honour(self, state: InfiernoState, seat: int, action: Action, dice: Dice) -> None:
        """Seed DUELOS: settled if both let it go, repeated if one's honour is at stake."""
        state.honour_choices[seat] = action
        if len(state.honour_choices) < 2:
            return  # told when both are in: the second must not hear the first (seed DUELOS)
        for chooser in state.order:
            choice = state.honour_choices[chooser].name.lower()
            state.say(chooser, "{} chooses to {}", state.fighters[chooser].name, choice)
        if all(choice == Action.SETTLE for choice in state.honour_choices.values()):
            self._finish(state, Outcome(None, "duel settled by agreement"))
        else:
            self._repeat_duel(state, dice)

    def _repeat_duel(self, state: InfiernoState, dice: Dice) -> None:
        """§8.1: HP, nonlethal and Sequels stay; everything else resets."""
        state.duel_repeats += 1
        state.say(None, "The duel is repeated ({})", state.duel_repeats)
        for seat, fighter in enumerate(state.fighters):
            for item in fighter.carried:
                item.place = Place.HOLSTERED
                item.ammo = item.weapon.capacity
                item.jammed = False
            if self.scenario.drawn[seat] and fighter.carried:
                fighter.carried[0].draw(Place.MAIN_HAND)
            fighter.has_acted = False
            fighter.stunned = fighter.prone = fighter.cover = False
            fighter.feint_turns = 0
            fighter.damaged_opponent = False
        state.distance = self._roll_distance(dice)
        self._open_formal_duel(state, dice)

    def _finish(self, state: InfiernoState, outcome: Outcome) -> None:
        state.finish(outcome)
        state.queue.clear()  # attacks still waiting die with the duel

    def _check_out(self, state: InfiernoState) -> bool:
        """§9: down at hp <= 0, knocked out at nonlethal >= hp."""
        out = [state.fighters[0].out, state.fighters[1].out]
        if not (out[0] or out[1]):
            return False
        if out[0] and out[1]:
            self._finish(state, Outcome(None, "both fighters are out"))
            return True
        loser = out.index(True)
        fighter = state.fighters[loser]
        how = "bites the dust" if fighter.hp <= 0 else "is knocked out"
        self._finish(state, Outcome(1 - loser, f"{fighter.name} {how}"))
        return True

    # --- the acting seat's turn -------------------------------------------------

    @staticmethod
    def _payable(budget: Budget, fighter: Fighter) -> Sequence[bool]:
        """Which turn actions the turn's budget can still pay, in `Action` order (§4 step
        7): a move may be paid with the standard action, a free action once a turn."""
        standard = budget.standard
        payable = _payable_now(
            fighter.draws_free, fighter.prone, standard, budget.move or standard, budget.full_round
        )
        if budget.free_used:
            costs = _COST_LISTS[fighter.draws_free][fighter.prone]
            left = list(payable)
            for action in budget.free_used:
                if costs[action] == _FREE:
                    left[action] = False
            return left
        return payable

    @staticmethod
    def _spend(budget: Budget, cost: Cost, action: Action) -> None:
        if cost == _STANDARD:
            budget.standard = False
        elif cost == _MOVE:
            if budget.move:
                budget.move = False
            else:
                budget.standard = False
        elif cost == _FULL:
            budget.standard = budget.move = False
        elif cost == _FREE:
            budget.free_used.add(action)
        if budget.surprise and (cost == _STANDARD or cost == _MOVE):
            budget.standard = budget.move = False  # §4 step 2: one standard or one move

    def _can_strike(self, state: InfiernoState, item: Carried, distance: int) -> bool:
        """Whether `item` can attack at `distance` squares: a firearm unjammed, loaded and
        in range, a blade adjacent (§5)."""
        weapon = item.weapon
        if weapon.is_firearm:
            has_ammo = item.ammo > 0 or not state.options.track_ammo
            return not item.jammed and has_ammo and distance <= weapon.max_range
        return weapon.category == Category.MELEE and distance == 1

    def _turn_mask(self, state: InfiernoState, seat: int, mask: np.ndarray) -> None:
        """The turn actions' mask, in `Action` order (row i is action i): what the budget
        can pay for (`_payable`), and then what the situation allows (a hot path: flags
        computed once, costly checks only for what is paid for)."""
        fighter = state.fighters[seat]
        budget = state.budget
        distance = state.distance
        options = state.options
        carried = fighter.carried
        main = off = None
        used_hands = 0
        for item in carried:
            place = item.place
            if place == _MAIN_HAND:
                main = item
                used_hands += item.weapon.hands
            elif place == _OFF_HAND:
                off = item
                used_hands += item.weapon.hands
        adjacent = distance == 1
        prone = fighter.prone
        walk = not prone and not budget.stepped  # §4: no move after a step
        step = budget.can_step
        free_hands = max(0, 2 - used_hands)
        draws = [drawable(fighter, slot, free_hands) for slot in (0, 1)]
        main_weapon = main.weapon if main is not None else None
        main_strikes = main is not None and self._can_strike(state, main, distance)
        in_hand = [item for item in (main, off) if item is not None]
        round_phase = state.phase == _ROUND
        pay = self._payable(budget, fighter)  # then what the situation allows
        mask[:_TURN_ACTIONS] = [
            pay[0],  # END_TURN
            pay[1] and main_strikes,  # ATTACK_MAIN
            pay[2] and adjacent,  # ATTACK_UNARMED
            pay[3]  # PISTOL_WHIP
            and adjacent
            and main_weapon is not None
            and main_weapon.melee_profile is not None,
            pay[4]  # THROW_MAIN; §8.7: no thrown attacks while prone
            and main_weapon is not None
            and main_weapon.throwable
            and distance <= main_weapon.max_range
            and not prone,
            pay[5]  # TWO_WEAPON_ATTACK
            and main_strikes
            and off is not None
            and main_weapon is not None
            and main_weapon.hands == 1
            and self._can_strike(state, off, distance),
            pay[6] and draws[0],  # DRAW_PRIMARY
            pay[7] and draws[1],  # DRAW_SECONDARY
            pay[8] and main is not None,  # HOLSTER_MAIN
            pay[9] and walk and distance > 1,  # ADVANCE
            pay[10] and walk,  # RETREAT
            pay[11] and step and distance > 1,  # STEP_IN
            pay[12] and step and distance < options.arena,  # STEP_OUT
            pay[13] and walk and distance > 1,  # RUN_IN
            pay[14] and walk,  # RUN_OUT
            pay[15] and fighter.cover_nearby and not fighter.cover and distance > 1,  # TAKE_COVER
            pay[16] and any(i.jammed for i in in_hand),  # CLEAR_JAM
            pay[17]  # RELOAD
            and options.track_ammo
            and any(i.weapon.is_firearm and i.ammo < i.weapon.capacity for i in in_hand),
            pay[18] and adjacent,  # FEINT
            pay[19] and options.allow_prone,  # PRONE_TOGGLE
            pay[20]  # DELAY
            and round_phase
            and not budget.acted
            and state.turn_index == 0
            and state.delayed_round != state.round,
            pay[21] and round_phase,  # SURRENDER
        ]

    def _turn_action(self, state: InfiernoState, seat: int, action: Action, dice: Dice) -> None:
        fighter = state.fighters[seat]
        budget = state.budget
        if action == _DELAY:
            self._delay(state, seat, dice)
            return
        fighter.has_acted = True  # DESPREVENIDO: no longer flat-footed once acting
        budget.acted = True
        if action == _END_TURN:
            state.say(seat, "{} ends the turn", fighter.name)
            self._end_turn(state, dice)
            return
        cost = _COST_LISTS[fighter.draws_free][fighter.prone][action]
        self._spend(budget, cost, action)
        if action == _SURRENDER:
            state.say(seat, "{} SURRENDERS", fighter.name)
            self._surrender(state, seat, dice)
            return
        if action in ATTACKS:
            state.queue = self._attacks(state, seat, action)
            self._run_attacks(state, dice)
        elif action in (Action.DRAW_PRIMARY, Action.DRAW_SECONDARY):
            item = fighter.carried[0 if action == Action.DRAW_PRIMARY else 1]
            item.draw(Place.MAIN_HAND if fighter.main is None else Place.OFF_HAND)
            state.say(seat, "{} draws the {}", fighter.name, item.weapon.name)
        elif action == Action.HOLSTER_MAIN:
            main = fighter.main
            assert main is not None
            main.place = Place.HOLSTERED
            off = fighter.off
            if off is not None:
                off.place = Place.MAIN_HAND
            state.say(seat, "{} holsters the {}", fighter.name, main.weapon.name)
        elif action in MOVES:
            self._move(state, seat, action)
        elif action == Action.TAKE_COVER:
            fighter.cover = True
            state.say(seat, "{} takes cover (+4 Defense)", fighter.name)
        elif action == Action.CLEAR_JAM:
            self._clear_jam(state, seat, dice)
        elif action == Action.RELOAD:
            item = next(
                i
                for i in (fighter.main, fighter.off)
                if i is not None and i.weapon.is_firearm and i.ammo < i.weapon.capacity
            )
            item.ammo = item.weapon.capacity
            state.say(seat, "{} reloads the {} ({})", fighter.name, item.weapon.name, item.ammo)
        elif action == Action.FEINT:
            target = self._chosen_target(state, seat)
            opponent = state.fighters[target]
            winner = _opposed(
                state,
                dice,
                (
                    seat,
                    fighter.character.deceive + combat.sequel_penalty(fighter, self.options),
                    "Deceive",
                ),
                (
                    target,
                    opponent.character.attention + combat.sequel_penalty(opponent, self.options),
                    "Attention",
                ),
            )
            if winner == seat:
                fighter.feint_turns = 2  # this turn and the next (§5)
                state.say(seat, "{}'s feint works: his next attack is a sneak attack", fighter.name)
            else:
                state.say(seat, "{} is not fooled", opponent.name)
        elif action == Action.PRONE_TOGGLE:
            fighter.prone = not fighter.prone
            state.say(seat, "{} {}", fighter.name, "drops prone" if fighter.prone else "stands up")
        self._after_action(state, dice)

    def _chosen_target(self, state: InfiernoState, seat: int) -> int:
        """The seat the action being taken is aimed at: in a duel, the opponent."""
        return 1 - seat

    def _surrender(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """§9: the side that surrenders loses the duel."""
        self._finish(state, Outcome(1 - seat, f"{state.fighters[seat].name} surrenders"))

    def _after_action(self, state: InfiernoState, dice: Dice) -> None:
        if state.result is not None or state.phase == _CRIT_CHOICE or self._check_out(state):
            return
        assert state.current is not None  # a turn is under way
        fighter = state.fighters[state.current]
        if fighter.stunned:
            state.say(state.current, "{} is stunned: the rest of the turn is lost", fighter.name)
            self._end_turn(state, dice)
        elif state.budget.exhausted:
            self._end_turn(state, dice)

    def _delay(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """§4 step 5: act right after the opponent from now on (`dice`: for what comes
        before the next turn, none in a duel)."""
        other = 1 - seat
        fighter = state.fighters[seat]
        fighter.initiative = (state.fighters[other].initiative or 0) - DELAY_EPSILON
        state.order = [other, seat]
        state.delayed_round = state.round
        state.say(seat, "{} delays, acting after {}", fighter.name, state.fighters[other].name)
        self._begin_turn(state, other)

    def _attacks(self, state: InfiernoState, seat: int, action: Action) -> list[Attack]:
        fighter = state.fighters[seat]
        main, off = fighter.main, fighter.off
        if action == Action.ATTACK_UNARMED:
            return [Attack(seat, self.fists, AttackMode.MELEE, StrShare.FULL)]
        assert main is not None
        main_index = fighter.carried.index(main)
        if action == Action.PISTOL_WHIP:
            assert main.weapon.melee_profile is not None
            profile = self.catalog.weapons[main.weapon.melee_profile]
            return [Attack(seat, profile, AttackMode.MELEE, _melee_share(profile.hands))]
        if action == Action.THROW_MAIN:
            return [Attack(seat, main.weapon, AttackMode.THROWN, StrShare.HALF, main_index)]
        if action == Action.ATTACK_MAIN:
            return [self._strike(seat, main, main_index)]
        # two-weapon fighting: -2/-2 with the feat, else -4/-8 (§5, ASSUMPTION d20 SRD)
        assert off is not None
        feat = Feat.TWO_WEAPON_FIGHTING in fighter.character.feats
        first = self._strike(seat, main, main_index, penalty=-2 if feat else -4)
        second = self._strike(
            seat, off, fighter.carried.index(off), penalty=-2 if feat else -8, off_hand=True
        )
        return [first, second]

    @staticmethod
    def _strike(
        seat: int, item: Carried, index: int, penalty: int = 0, off_hand: bool = False
    ) -> Attack:
        weapon = item.weapon
        if weapon.is_firearm:
            return Attack(seat, weapon, AttackMode.RANGED, StrShare.NONE, index, penalty, off_hand)
        share = StrShare.HALF if off_hand else _melee_share(weapon.hands)  # seed DAÑO
        return Attack(seat, weapon, AttackMode.MELEE, share, index, penalty, off_hand)

    def _run_attacks(self, state: InfiernoState, dice: Dice) -> None:
        while state.queue and state.phase != Phase.CRIT_CHOICE:
            attack = state.queue.pop(0)
            combat.resolve_attack(state, attack, dice)
            if any(f.out for f in state.fighters) or state.fighters[attack.attacker].stunned:
                state.queue.clear()

    def _move(self, state: InfiernoState, seat: int, action: Action) -> None:
        """§6 discrete range model; cover is lost by moving, kept by a step."""
        fighter = state.fighters[seat]
        budget = state.budget
        arena = state.options.arena
        before = state.distance
        reach = state.options.speed * (RUN_MULTIPLIER if action in RUNS else 1)
        if action in (Action.RETREAT, Action.RUN_OUT) and before >= arena:
            state.say(seat, "{} flees the fight", fighter.name)
            self._finish(state, Outcome(1 - seat, f"{fighter.name} flees (counts as surrender)"))
            return
        if action in (Action.ADVANCE, Action.RUN_IN, Action.STEP_IN):
            step = 1 if action == Action.STEP_IN else reach
            state.distance = before - min(step, before - 1)
        else:
            step = 1 if action == Action.STEP_OUT else reach
            state.distance = min(arena, before + step)
        if action in (Action.STEP_IN, Action.STEP_OUT):
            budget.stepped = True
        else:
            budget.moved = True
            fighter.cover = False
        if state.distance == 1:
            for each in state.fighters:
                each.cover = False  # §8.4: no cover in melee
        state.say(
            seat,
            "{}: {}, distance {} -> {}",
            fighter.name,
            MOVE_VERBS[action],
            before,
            state.distance,
        )

    def _clear_jam(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """Craft (Mechanics) DC 15 as a standard action (seed PIFIAS Y ENCASQUILLAMIENTO)."""
        fighter = state.fighters[seat]
        item = next(i for i in (fighter.main, fighter.off) if i is not None and i.jammed)
        bonus = fighter.character.craft_mech + combat.sequel_penalty(fighter, state.options)
        roll = dice.roll(20, "clear jam (Craft (Mechanics))")
        cleared = roll + bonus >= combat.TEST_DC
        if cleared:
            item.jammed = False
        state.say(
            seat,
            "{} works the jammed {}: d20 {} {:+d} = {} vs {} -> {}",
            fighter.name,
            item.weapon.name,
            roll,
            bonus,
            roll + bonus,
            combat.TEST_DC,
            "cleared" if cleared else "still jammed",
        )


ATTACKS = frozenset(
    {
        Action.ATTACK_MAIN,
        Action.ATTACK_UNARMED,
        Action.PISTOL_WHIP,
        Action.THROW_MAIN,
        Action.TWO_WEAPON_ATTACK,
    }
)
RUNS = frozenset({Action.RUN_IN, Action.RUN_OUT})
MOVES = frozenset({Action.ADVANCE, Action.RETREAT, Action.STEP_IN, Action.STEP_OUT, *RUNS})
MOVE_VERBS = {action: action.name.lower().replace("_", " ") for action in MOVES}
"""How the narration names each move ("step in")."""


def _melee_share(hands: int) -> StrShare:
    return StrShare.ONE_AND_HALF if hands == 2 else StrShare.FULL


def _opposed(
    state: InfiernoState,
    dice: Dice,
    first: tuple[int, int, str],
    second: tuple[int, int, str],
) -> int:
    """An opposed d20 test (§3): `first` rolls first; a full tie is re-rolled."""
    sides = (first, second)
    bonuses = (first[1], second[1])

    def narrate(rolls: tuple[int, ...]) -> None:
        for (seat, bonus, skill), roll in zip(sides, rolls, strict=True):
            state.say(
                seat,
                "{}: {} d20 {} {:+d} = {}",
                skill,
                state.fighters[seat].name,
                roll,
                bonus,
                roll + bonus,
            )

    def loser(rolls: tuple[int, ...]) -> int | None:
        return opposed_loser((rolls[0] + bonuses[0], rolls[1] + bonuses[1]), bonuses)

    rolls = roll_until(
        dice, (20, 20), (first[2], second[2]), lambda rolls: loser(rolls) is not None, narrate
    )
    narrate(rolls)
    return second[0] if loser(rolls) == 0 else first[0]
