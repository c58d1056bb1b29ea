"""Infierno skirmishes: fights of several fighters a side (digest §13).

The duel's ruleset plays each turn (the action economy, the attack pipeline, drawing,
cover, jams); this one adds what a third fighter brings: squares on one line and a
target for every attack and advance (§13.1, §13.3), initiative among many with ties
by Dexterity (§13.2), a surprise round for those aware of the enemy (§13.2), delaying
after any fighter (§13.2), flanking (§13.4), shooting into a melee (§13.5), and the
end of the fight when a side is out (§13.8). The staredown and the both-miss decision
are the duel's alone (§13.1).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from duelo.envs.core.config import ConfigError, entry_of, options_of, party_of
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import fighter_names
from duelo.envs.core.state import Outcome
from duelo.envs.infierno import combat
from duelo.envs.infierno.rules import RUN_MULTIPLIER, InfiernoRuleset, drawable
from duelo.envs.infierno.setup import Character, Feat
from duelo.envs.infierno.skirmish_observation import SKIRMISH_SPEC, observe_skirmish
from duelo.envs.infierno.skirmish_setup import (
    SkirmishCatalog,
    SkirmishOptions,
    SkirmishScenario,
    load_skirmish_catalog,
)
from duelo.envs.infierno.skirmish_state import (
    DECODED,
    MEANINGS,
    Gone,
    SkirmishAction,
    SkirmishState,
)
from duelo.envs.infierno.state import (
    Action,
    Attack,
    AttackMode,
    Carried,
    Fighter,
    InfiernoState,
    Phase,
    Place,
)


class InfiernoSkirmishRuleset(InfiernoRuleset):
    """Infierno de Cobardes fights of up to four fighters a side (DESIGN.md layer 2).

    Args:
        scenario: a skirmish id of `configs/infierno/skirmishes.yaml` or a
            `SkirmishScenario`.
        fighters: a character id or `Character` for every fighter, side A's first; None
            takes the scenario's.
        options: `SkirmishOptions` or a dict of its fields (GM rulings: the duel's and
            §13's).
        catalog: weapons, characters and skirmishes; None loads the packaged ones.
    """

    system = "infierno_skirmish"
    version = 0
    actions = SkirmishAction  # type: ignore[assignment]  # the skirmish's own enum
    action_meanings = MEANINGS
    observation_spec = SKIRMISH_SPEC

    def __init__(
        self,
        scenario: str | SkirmishScenario = "two_on_two",
        fighters: tuple[str | Character, ...] | None = None,
        options: SkirmishOptions | dict[str, Any] | None = None,
        catalog: SkirmishCatalog | None = None,
    ) -> None:
        catalog = catalog or load_skirmish_catalog()
        self.skirmish = entry_of(scenario, SkirmishScenario, catalog.skirmish, "scenario")
        self.characters = party_of(  # type: ignore[assignment]  # a stat block a fighter
            self.skirmish.fighters if fighters is None else fighters,
            len(self.skirmish.posts),
            Character,
            catalog.character,
            "side A's first",
        )
        self.options = options_of(SkirmishOptions, options, "infierno skirmish options")
        for seat, post in enumerate(self.skirmish.posts):
            if post.pos > self.options.arena:
                raise ConfigError(
                    f"scenario {self.skirmish.id}: fighter {seat} stands on square {post.pos}, "
                    f"past the arena's {self.options.arena}"
                )
        self.round_cap = self.options.round_cap
        self.catalog = catalog  # type: ignore[assignment]  # its weapons read as the duel's
        self.fists = catalog.weapons["fists"]
        self.sides = tuple([0] * len(self.skirmish.side_a) + [1] * len(self.skirmish.side_b))

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> SkirmishState:
        seats = range(len(self.sides))
        state = SkirmishState(
            scenario=self.skirmish,  # type: ignore[arg-type]  # kept, never read
            options=self.options,
            fighters=[self._fighter(seat) for seat in seats],
            distance=0,  # the duel's one distance: a skirmish has a range per pair
            positions=[post.pos for post in self.skirmish.posts],
            sides=self.sides,
            gone=[Gone.STAYS for _ in seats],
            present=[not post.arrives for post in self.skirmish.posts],
            delayed=[False for _ in seats],
            order=[],
        )
        state.say(
            None,
            "Skirmish {}: {} against {}",
            self.skirmish.id,
            ", ".join(state.fighters[s].name for s in seats if self.sides[s] == 0),
            ", ".join(state.fighters[s].name for s in seats if self.sides[s] == 1),
        )
        there = [seat for seat in seats if state.present[seat]]  # §13.2: arrivals come later
        aware = [seat for seat in there if self.skirmish.posts[seat].aware]
        if 0 < len(aware) < len(there):  # §13.2: the aware act in a surprise round
            for seat in there:
                state.fighters[seat].aware = seat in aware
            for seat in aware:
                self._roll_initiative(state, seat, dice)
            state.order = self._ranked(state, aware, dice)
            state.phase = Phase.SURPRISE
            state.turn_index = 0
            state.say(None, "--- Surprise round ---")
            self._begin_turn(state, state.order[0])
            return state
        for seat in there:
            self._roll_initiative(state, seat, dice)
        self._open_rounds(state, dice)
        return state

    def legal_actions(self, state: InfiernoState, seat: int) -> np.ndarray:
        assert isinstance(state, SkirmishState)
        mask = np.zeros(len(SkirmishAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        if state.phase == Phase.CRIT_CHOICE:
            attack = state.pending_crit
            assert attack is not None
            target = state.fighters[state.target_of(attack)]
            for effect in combat.allowed_effects(attack, target):
                mask[_UNTARGETED_INDEX[effect]] = True
            return mask
        self._skirmish_mask(state, seat, mask)
        return mask

    def apply(self, state: InfiernoState, seat: int, action: int, dice: Dice) -> None:
        assert isinstance(state, SkirmishState)
        decoded = DECODED[SkirmishAction(action)]
        if state.phase == Phase.CRIT_CHOICE:
            super().apply(state, seat, decoded.action, dice)
            return
        target = -1
        if decoded.enemy is not None:
            target = state.enemies(seat)[decoded.enemy]
        elif decoded.ally is not None:
            target = state.allies(seat)[decoded.ally - 1]
        state.aim = (target, decoded.aimed)
        self._turn_action(state, seat, decoded.action, dice)
        state.aim = (-1, False)

    def observe(self, state: InfiernoState, seat: int) -> np.ndarray:
        assert isinstance(state, SkirmishState)
        return observe_skirmish(state, seat, self.options.round_cap)

    # --- setup and initiative ---------------------------------------------------

    def _fighter(self, seat: int) -> Fighter:
        character = self.characters[seat]
        post = self.skirmish.posts[seat]
        weapons = self.catalog.weapons
        carried = [Carried(weapons[w], ammo=weapons[w].capacity) for w in character.weapons]
        if post.drawn and carried:
            carried[0].draw(Place.MAIN_HAND)
        return Fighter(
            character=character,
            name=fighter_names([c.name for c in self.characters], self.sides)[seat],
            carried=carried,
            hp=character.hp_max,
            cover_nearby=post.cover_nearby,
            draws_free=self.options.quick_draw_free and Feat.QUICK_DRAW in character.feats,
        )

    def _ranked(self, state: SkirmishState, seats: list[int], dice: Dice) -> list[int]:
        """§13.2: descending totals; ties by Dexterity, then the Initiative bonus, then
        a d20 each (slot order, higher first), again while tied."""
        ranked = sorted(seats, key=lambda s: (self._key(state, s), -s), reverse=True)
        order: list[int] = []
        at = 0
        while at < len(ranked):
            first = self._key(state, ranked[at])
            tied = [s for s in ranked[at:] if self._key(state, s) == first]
            order += self._tie_broken(state, sorted(tied), dice)
            at += len(tied)
        return order

    def _tie_broken(self, state: SkirmishState, tied: list[int], dice: Dice) -> list[int]:
        """§13.2: fighters tied on every key roll 1d20 each, in slot order, higher first;
        those tied again roll again."""
        if len(tied) == 1:
            return tied
        rolls = {seat: dice.roll(20, "initiative tie") for seat in tied}
        state.say(
            None,
            "Initiative tie: {}",
            ", ".join(f"{state.fighters[s].name} d20 {rolls[s]}" for s in tied),
        )
        order: list[int] = []
        for face in sorted(set(rolls.values()), reverse=True):
            order += self._tie_broken(state, [s for s in tied if rolls[s] == face], dice)
        return order

    def _open_rounds(self, state: SkirmishState, dice: Dice) -> None:
        """One list for everyone, held every round (§13.2), then round 1."""
        there = [seat for seat in range(len(self.sides)) if state.present[seat]]
        state.order = self._ranked(state, there, dice)
        for fighter in state.fighters:
            fighter.aware = True
        state.say(None, "Order: {}", ", ".join(state.fighters[s].name for s in state.order))
        state.round = 0
        self._start_round(state, dice)

    # --- rounds and turns -------------------------------------------------------

    def _start_round(self, state: InfiernoState, dice: Dice | None = None) -> None:
        if not state.start_round(self.round_cap):
            return
        state.phase = Phase.ROUND
        state.turn_index = -1
        assert isinstance(state, SkirmishState)
        state.delayed = [False] * len(state.fighters)
        state.say(None, "--- Round {} ---", state.round)
        self._arrive(state, -1, dice)
        self._next_turn(state, dice)

    def _next_turn(self, state: InfiernoState, dice: Dice | None) -> None:
        """§13.7: the next fighter in the list who is still in the fight takes its turn;
        past the last, the round (or the surprise round) ends."""
        assert isinstance(state, SkirmishState)
        state.turn_index += 1
        while state.turn_index < len(state.order):
            self._arrive(state, state.order[state.turn_index], dice)
            seat = state.order[state.turn_index]
            if state.active(seat):
                self._begin_turn(state, seat)
                return
            state.turn_index += 1
        if state.phase == Phase.SURPRISE:
            assert dice is not None  # the surprise round ends after a turn
            # §13.2: after the surprise round the unaware roll; one list for round 1
            for seat, fighter in enumerate(state.fighters):
                if not fighter.aware:
                    self._roll_initiative(state, seat, dice)
            self._open_rounds(state, dice)
            return
        self._end_round(state, dice)

    def _end_turn(self, state: InfiernoState, dice: Dice) -> None:
        assert state.current is not None  # a turn is under way
        fighter = state.fighters[state.current]
        if fighter.feint_turns > 0:
            fighter.feint_turns -= 1
        self._next_turn(state, dice)

    def _end_round(self, state: InfiernoState, dice: Dice | None) -> None:
        if state.options.stun_duration == "end_of_round":
            for fighter in state.fighters:
                fighter.stunned = False
        self._start_round(state, dice)

    def _arrive(self, state: SkirmishState, before: int, dice: Dice | None) -> None:
        """§13.2 arrivals: each fighter due this round before `before`'s turn (-1: at the
        top of the round) comes in, flat-footed, rolls initiative and takes its place in
        the list by its total and the tie-break keys. A place after the fighter about to
        act plays this round; a place before it has passed, and it first acts next round.
        ASSUMPTION: at the top of a round no place has passed yet."""
        for seat, post in enumerate(self.skirmish.posts):
            due = post.arrives == state.round and post.arrives_before == before
            if state.present[seat] or not due or state.phase != Phase.ROUND:
                continue
            assert dice is not None  # an arrival comes between turns, which have dice
            state.present[seat] = True
            fighter = state.fighters[seat]
            state.say(seat, "{} arrives on square {}", fighter.name, state.positions[seat])
            self._roll_initiative(state, seat, dice)
            place = self._place(state, seat, dice)
            state.order.insert(place, seat)
            if place <= state.turn_index:  # ahead of the fighter about to act: passed
                state.turn_index += 1
            state.say(None, "Order: {}", ", ".join(state.fighters[s].name for s in state.order))

    def _place(self, state: SkirmishState, seat: int, dice: Dice) -> int:
        """Where a newcomer stands in the list: before the first fighter it outranks by
        total, Dexterity and Initiative bonus (§13.2), a fighter tied on all three rolled
        off as at the start (a d20 each, the newcomer's first, higher first)."""
        mine = self._key(state, seat)
        for place, other in enumerate(state.order):
            theirs = self._key(state, other)
            if mine > theirs or (
                mine == theirs and self._tie_broken(state, [seat, other], dice)[0] == seat
            ):
                return place
        return len(state.order)

    @staticmethod
    def _key(state: SkirmishState, seat: int) -> tuple[float, int, int]:
        """§13.2's order: the initiative total, then Dexterity, then the Initiative bonus."""
        fighter = state.fighters[seat]
        assert fighter.initiative is not None  # rolled before ranking
        return (fighter.initiative, fighter.character.dex_mod, fighter.character.init_bonus)

    def _delay(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """§13.2: act right after the chosen fighter, who has not acted this round, from
        now on; the next fighter in the list takes its turn now. Once a round."""
        assert isinstance(state, SkirmishState)
        after = state.aim[0]
        state.delayed[seat] = True
        state.order.remove(seat)
        state.order.insert(state.order.index(after) + 1, seat)
        state.say(
            seat,
            "{} delays, acting after {}",
            state.fighters[seat].name,
            state.fighters[after].name,
        )
        state.turn_index -= 1  # the list moved up under the delayer
        self._next_turn(state, dice)

    def _chosen_target(self, state: InfiernoState, seat: int) -> int:
        assert isinstance(state, SkirmishState)
        return state.aim[0]

    def _surrender(self, state: InfiernoState, seat: int, dice: Dice) -> None:
        """§13.8 ASSUMPTION: surrender takes only that fighter out."""
        assert isinstance(state, SkirmishState)
        state.gone[seat] = Gone.SURRENDERED
        if not self._check_out(state):
            self._end_turn(state, dice)

    def _after_action(self, state: InfiernoState, dice: Dice) -> None:
        assert isinstance(state, SkirmishState)
        if state.result is not None or state.phase == Phase.CRIT_CHOICE or self._check_out(state):
            return
        assert state.current is not None  # a turn is under way
        if not state.active(state.current):  # a fumble knocked it out, or it fled
            self._end_turn(state, dice)
            return
        super()._after_action(state, dice)

    def _check_out(self, state: InfiernoState) -> bool:
        """§13.8: a side is out when all its fighters are; both at once is a draw."""
        assert isinstance(state, SkirmishState)
        out = [  # §13.8: fighters not yet arrived do not count
            all(
                not state.active(s)
                for s, side in enumerate(state.sides)
                if side == each and state.present[s]
            )
            for each in (0, 1)
        ]
        if not (out[0] or out[1]):
            return False
        if out[0] and out[1]:
            self._finish(state, Outcome(None, "both sides are out"))
        else:
            loser = out.index(True)
            self._finish(state, Outcome(1 - loser, f"side {'AB'[loser]} is out of the fight"))
        return True

    def _run_attacks(self, state: InfiernoState, dice: Dice) -> None:
        """The attacks of one action, until its target or the attacker is out (§13.7)."""
        assert isinstance(state, SkirmishState)
        while state.queue and state.phase != Phase.CRIT_CHOICE:
            attack = state.queue.pop(0)
            combat.resolve_attack(state, attack, dice)
            target = state.target_of(attack)
            if (
                not state.active(target)
                or not state.active(attack.attacker)
                or state.fighters[attack.attacker].stunned
            ):
                state.queue.clear()

    def _attacks(self, state: InfiernoState, seat: int, action: Action) -> list[Attack]:
        """The duel's attacks of `action`, each at the chosen target, aimed or not."""
        assert isinstance(state, SkirmishState)
        target, aimed = state.aim
        return [
            dataclasses.replace(attack, target=target, aimed=aimed and attack.mode != _MELEE)
            for attack in super()._attacks(state, seat, action)
        ]

    def _move(self, state: InfiernoState, seat: int, action: Action) -> None:
        """§13.1 moves: toward a fighter (stopping adjacent), toward one's home edge
        (off it: flight), or a 1.5 m step either way."""
        assert isinstance(state, SkirmishState)
        fighter = state.fighters[seat]
        home = 0 if state.sides[seat] == 0 else state.options.arena
        before = state.positions[seat]
        reach = state.options.speed * (RUN_MULTIPLIER if action == Action.RUN_OUT else 1)
        if action in (Action.ADVANCE, Action.RUN_IN):
            reach = state.options.speed * (RUN_MULTIPLIER if action == Action.RUN_IN else 1)
            toward = state.positions[state.aim[0]]
            gap = abs(toward - before)
            moved = min(reach, max(gap - 1, 0))
            state.positions[seat] = before + moved * (1 if toward > before else -1)
        elif action in (Action.RETREAT, Action.RUN_OUT):
            if before == home:  # §13.1: off one's own home edge is flight
                state.gone[seat] = Gone.FLED
                state.say(seat, "{} flees the fight", fighter.name)
                return
            state.positions[seat] = before + max(-reach, min(reach, home - before))
        else:  # the step, toward the enemy's edge or one's own
            ahead = 1 if home == 0 else -1
            step = ahead if action == Action.STEP_IN else -ahead
            state.positions[seat] = min(max(before + step, 0), state.options.arena)
        if action in (Action.STEP_IN, Action.STEP_OUT):
            state.budget.stepped = True
        else:
            state.budget.moved = True
            fighter.cover = False  # §13.1: lost by moving, kept by a step
        state.say(
            seat,
            "{}: {}, square {} -> {}",
            fighter.name,
            _MOVE_WORDS[action],
            before,
            state.positions[seat],
        )

    # --- the mask -----------------------------------------------------------------

    def _skirmish_mask(self, state: SkirmishState, seat: int, mask: np.ndarray) -> None:
        """The duel's turn mask (§4 budget, §5 preconditions), each targeted action at
        each enemy slot by its range (§13.3), aimed copies where the shot is into a melee
        (§13.5), and delays after fighters yet to act this round (§13.2)."""
        fighter = state.fighters[seat]
        budget = state.budget
        pay = self._payable(budget, fighter)
        main, off = fighter.main, fighter.off
        used = sum(i.weapon.hands for i in (main, off) if i is not None)
        free_hands = max(0, 2 - used)
        walk = not fighter.prone and not budget.stepped  # §4: no move after a step
        step = budget.can_step
        home = 0 if state.sides[seat] == 0 else state.options.arena
        enemies = state.enemies(seat)
        foes = [e for e in enemies if state.active(e)]
        engaged = any(state.adjacent(seat, e) for e in foes)
        in_hand = [i for i in (main, off) if i is not None]
        untargeted = {
            Action.END_TURN: pay[Action.END_TURN],
            Action.DRAW_PRIMARY: pay[Action.DRAW_PRIMARY] and drawable(fighter, 0, free_hands),
            Action.DRAW_SECONDARY: pay[Action.DRAW_SECONDARY] and drawable(fighter, 1, free_hands),
            Action.HOLSTER_MAIN: pay[Action.HOLSTER_MAIN] and main is not None,
            Action.RETREAT: pay[Action.RETREAT] and walk,
            Action.STEP_OUT: pay[Action.STEP_OUT] and step and state.positions[seat] != home,
            Action.STEP_IN: pay[Action.STEP_IN]
            and step
            and state.positions[seat] != state.options.arena - home,
            Action.RUN_OUT: pay[Action.RUN_OUT] and walk,
            Action.TAKE_COVER: pay[Action.TAKE_COVER]
            and fighter.cover_nearby
            and not fighter.cover
            and not engaged,
            Action.CLEAR_JAM: pay[Action.CLEAR_JAM] and any(i.jammed for i in in_hand),
            Action.RELOAD: pay[Action.RELOAD]
            and state.options.track_ammo
            and any(i.weapon.is_firearm and i.ammo < i.weapon.capacity for i in in_hand),
            Action.PRONE_TOGGLE: pay[Action.PRONE_TOGGLE] and state.options.allow_prone,
            Action.SURRENDER: pay[Action.SURRENDER] and state.phase == Phase.ROUND,
        }
        for action, allowed in untargeted.items():
            mask[_UNTARGETED_INDEX[action]] = allowed
        weapon = main.weapon if main is not None else None
        for slot, enemy in enumerate(enemies):
            if not state.active(enemy):
                continue
            distance = state.between(seat, enemy)
            adjacent = state.adjacent(seat, enemy)
            melee = state.in_melee(seat, enemy)  # §13.5: allies in it
            main_strikes = main is not None and self._can_strike(state, main, distance)
            two = (
                main_strikes
                and off is not None
                and weapon is not None
                and weapon.hands == 1
                and self._can_strike(state, off, distance)
            )
            throws = (
                weapon is not None
                and weapon.throwable
                and distance <= weapon.max_range
                and not fighter.prone
            )
            shoots = weapon is not None and weapon.is_firearm
            two_shoots = two and any(i.weapon.is_firearm for i in in_hand)
            legal = {
                (Action.ATTACK_MAIN, False): pay[Action.ATTACK_MAIN] and main_strikes,
                (Action.ATTACK_MAIN, True): pay[Action.ATTACK_MAIN]
                and main_strikes
                and shoots
                and melee,
                (Action.ATTACK_UNARMED, False): pay[Action.ATTACK_UNARMED] and adjacent,
                (Action.PISTOL_WHIP, False): pay[Action.PISTOL_WHIP]
                and adjacent
                and weapon is not None
                and weapon.melee_profile is not None,
                (Action.THROW_MAIN, False): pay[Action.THROW_MAIN] and throws,
                (Action.THROW_MAIN, True): pay[Action.THROW_MAIN] and throws and melee,
                (Action.TWO_WEAPON_ATTACK, False): pay[Action.TWO_WEAPON_ATTACK] and two,
                (Action.TWO_WEAPON_ATTACK, True): pay[Action.TWO_WEAPON_ATTACK]
                and two_shoots
                and melee,
                (Action.ADVANCE, False): pay[Action.ADVANCE] and walk and not adjacent,
                (Action.RUN_IN, False): pay[Action.RUN_IN] and walk and not adjacent,
                (Action.FEINT, False): pay[Action.FEINT] and adjacent,
            }
            for (action, aimed), ok in legal.items():
                mask[_ENEMY_INDEX[action, aimed, slot]] = ok
        delays = pay[Action.DELAY] and not budget.acted and not state.delayed[seat]
        if state.phase == Phase.ROUND and delays:
            waiting = state.order[state.turn_index + 1 :]
            for slot, ally in enumerate(state.allies(seat), start=1):
                mask[_DELAY_ALLY[slot]] = ally in waiting and state.active(ally)
            for slot, enemy in enumerate(enemies):
                mask[_DELAY_ENEMY[slot]] = enemy in waiting and state.active(enemy)


_MELEE = AttackMode.MELEE
_UNTARGETED_INDEX = {
    d.action: i for i, d in enumerate(DECODED) if d.enemy is None and d.ally is None
}
_ENEMY_INDEX: dict[tuple[Action, bool, int | None], int] = {
    (d.action, d.aimed, d.enemy): i
    for i, d in enumerate(DECODED)
    if d.enemy is not None and d.action != Action.DELAY
}
_DELAY_ALLY = {d.ally: i for i, d in enumerate(DECODED) if d.ally is not None}
_DELAY_ENEMY = {d.enemy: i for i, d in enumerate(DECODED) if d.delay_enemy}
_MOVE_WORDS = {
    Action.ADVANCE: "advances",
    Action.RUN_IN: "runs in",
    Action.RETREAT: "retreats",
    Action.RUN_OUT: "runs back",
    Action.STEP_IN: "steps forward",
    Action.STEP_OUT: "steps back",
}
