"""The Dunwich ruleset: one-on-one melee choreography on a 1-D arena.

Seed `003_e7f5011670d1317a.txt` ("Coreografía del combate"), digest `rules/dunwich.md`.
Comments cite the digest's sections (§n) and its numbered defaults (§10 #n). Lengths
are in half metres (the 0.5 m grid of §6).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from duelo.envs.core.config import fight_of, options_of
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import DUEL_SIDES, seat_names
from duelo.envs.core.state import Outcome
from duelo.envs.dunwich.observation import OBSERVATION_SPEC, observe
from duelo.envs.dunwich.pairing import Pairings
from duelo.envs.dunwich.setup import (
    HALF_METRES,
    Catalog,
    Character,
    DunwichOptions,
    Scenario,
    check_arms,
    load_catalog,
)
from duelo.envs.dunwich.state import (
    ATTACKS,
    BIDS,
    MEANINGS,
    PUSHES,
    REACTIONS,
    SHOTS,
    STRIKE_AND_RETREAT,
    Action,
    DunwichState,
    Fighter,
    Maneuver,
    Pending,
    Phase,
)

REACH = 3
"""§6, §10 #15: within 1.5 m counts as engaged."""
CHARGE = 14
"""§4 (d), §6: a charge reaches a rival less than 7 m away."""
SHOT = 10
"""§4 (c): a shot needs more than 5 m to every rival."""
MOVE = 14
"""§4 (a): 7 m of movement with an action."""
SPRINT = 22
"""§4 (b): a sprint adds 4 m, plus 1 m per extra success of its Físico check."""
ADJACENT = 1
"""§6: a charger or an advancing fighter ends 0.5 m from its rival."""
PUSHABLE = 2
"""§5, §8.2: no push against a wall the target stands under 1 m from."""
ESCAPE_EXIT = 2
"""§9, §10 #24: the escape task starts within 1 m of the arena's end."""
ESCAPE_CLEAR = 14
"""§9, §10 #24: ... and more than 7 m from every rival."""
ALLOWED = {
    Maneuver.DANAR: (Action.REACT_DANAR, Action.REACT_DESPLAZAR, Action.REACT_INCAPACITAR),
    Maneuver.DESPLAZAR: (Action.REACT_DANAR, Action.REACT_DESPLAZAR, Action.REACT_INCAPACITAR),
    Maneuver.INCAPACITAR: (Action.REACT_DANAR, Action.REACT_DESPLAZAR),
}
"""§5: the reactions each maneuver allows besides Defenderse (always allowed)."""


class DunwichRuleset(Pairings):
    """Dunwich duels between two fighters (DESIGN.md layer 2).

    Args:
        scenario: a scenario id of `configs/dunwich/scenarios.yaml` or a `Scenario`.
        fighters: two character ids or `Character`s; None takes the scenario's.
        options: `DunwichOptions` or a dict of its fields (GM rulings).
        catalog: weapons, characters and scenarios; None loads the packaged ones.
    """

    system = "dunwich"
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = False
    """Hidden: sealed plans."""
    version = 2
    actions = Action
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | Scenario = "back_alley",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: DunwichOptions | dict[str, Any] | None = None,
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
            check_arms(character, self.catalog.weapons, character.id)
        self.options = options_of(DunwichOptions, options, "dunwich options")
        self.round_cap = self.options.round_cap

    # --- the ruleset interface ---------------------------------------------------

    def new_duel(self, dice: Dice) -> DunwichState:
        names = seat_names(*(c.name for c in self.characters))
        a, b, arena = self.scenario.grid
        weapons = self.catalog.weapons
        fighters = [
            Fighter(
                character=c,
                name=names[seat],
                melee=weapons[c.melee],
                ranged=None if c.ranged is None else weapons[c.ranged],
                position=(a, b)[seat],
                pv=c.pv,
                initiative=c.initiative,
            )
            for seat, c in enumerate(self.characters)
        ]
        state = DunwichState(
            scenario=self.scenario, options=self.options, fighters=fighters, arena=arena
        )
        state.say(
            None,
            "Scenario {}: {} at {} m, {} at {} m, in a {} m arena",
            self.scenario.id,
            names[0],
            a / HALF_METRES,
            names[1],
            b / HALF_METRES,
            arena / HALF_METRES,
        )
        self._start_turn(state, dice)
        return state

    def to_act(self, state: DunwichState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: DunwichState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Action), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        if state.phase == Phase.PLAN:
            return self._plan_mask(state, seat)
        if state.phase == Phase.REACT:
            return self._reaction_mask(state, seat)
        me = state.fighters[seat]
        if state.phase == Phase.PUSH:  # §8.2 step 2: 0..PV
            for spent, action in enumerate(PUSHES):
                mask[action] = spent <= me.pv
            return mask
        distance = state.distance()
        if distance < CHARGE:  # §4 (d): within reach, or a charge
            strikes = [Action.DANAR, Action.INCAPACITAR]
            mask[[*strikes, Action.DANAR_RETREAT, Action.INCAPACITAR_RETREAT]] = True
            pushable = state.behind(1 - seat) >= PUSHABLE  # §5, §8.2
            mask[[Action.DESPLAZAR, Action.DESPLAZAR_RETREAT]] = pushable
            mask[Action.POSITION_DANAR] = (
                self.scenario.advantageous_position and not me.engaged_at_start  # §8.3
            )
        shoot = me.ranged is not None and distance > SHOT  # §4 (c)
        mask[[Action.SHOOT, Action.RETREAT_SHOOT]] = shoot
        mask[Action.ADVANCE_SHOOT] = shoot and distance > SHOT + 1  # room to close, still > 5 m
        mask[[Action.ADVANCE, Action.SPRINT_TOWARD]] = distance > ADJACENT
        mask[[Action.RETREAT, Action.SPRINT]] = True  # stopping at the wall (§12)
        return mask

    def apply(self, state: DunwichState, seat: int, action: int, dice: Dice) -> None:
        action = Action(action)
        if state.phase == Phase.PLAN:
            self._plan(state, seat, action, dice)
        elif state.phase == Phase.REACT:
            self._pairing(state, seat, action, dice)
        elif state.phase == Phase.PUSH:
            pending = state.pending
            assert pending is not None and pending.pusher == seat
            if not self._push(state, seat, 1 - seat, PUSHES.index(action), dice):
                self._after_pairing(state, dice)
        elif action in ATTACKS:
            self._declare(state, seat, action, dice)
        elif action in SHOTS:
            if action == Action.RETREAT_SHOOT:
                self._move(state, seat, -MOVE)
            elif action == Action.ADVANCE_SHOOT:  # closing, but still more than 5 m off
                self._move(state, seat, MOVE, stop=SHOT + 1)
            self._shoot(state, seat, dice)
        elif action in (Action.SPRINT, Action.SPRINT_TOWARD):
            self._sprint(state, seat, dice, toward=action == Action.SPRINT_TOWARD)
        else:
            self._move(state, seat, MOVE if action == Action.ADVANCE else -MOVE)
            self._next_initiative(state, dice)

    def observe(self, state: DunwichState, seat: int) -> np.ndarray:
        return observe(state, seat)

    def hides(self, state: DunwichState, seat: int) -> bool:
        """Whether `seat`'s observation hides part of the state now: its rival's plan,
        sealed while its own is still to come (§4, §10 #7), or, while it answers its
        rival's maneuver, whether the rival will move away after it (§4 (a): the move
        and the action in any order). Read by the exact best response
        (`duelo.evaluation.best_response`)."""
        rival = 1 - seat
        if state.phase == Phase.PLAN:
            return state.plans[rival] is not None
        return state.phase == Phase.REACT and getattr(state.pending, "initiator", None) == rival

    # --- the combat turn (§4) --------------------------------------------------------

    def _start_turn(self, state: DunwichState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            return
        state.say(None, "--- Combat turn {} ---", state.round)
        for fighter in state.fighters:
            fighter.acted = fighter.reacted = fighter.task = fighter.defend_only = False
            fighter.engaged_at_start = False
            fighter.bonus = fighter.bid = 0
            fighter.initiative = fighter.character.initiative
        state.plans = [None, None]
        state.ordered = False
        state.pending = None
        for seat in (0, 1):
            if np.flatnonzero(self._plan_mask(state, seat)).tolist() == [Action.BID_0]:
                state.plans[seat] = Action.BID_0  # nothing to choose: no decision (§12)
        self._next_plan(state, dice)

    def _plan_mask(self, state: DunwichState, seat: int) -> np.ndarray:
        """§4 item 2: a bid of 0..pv (§10 #7), or the escape task (§9, §10 #24). PV win
        initiative "en un emparejamiento" (seed; §8.1), so a bid is open only when a
        pairing is in reach: the two under 7 m apart, a charge (ASSUMPTION)."""
        mask = np.zeros(len(Action), dtype=bool)
        pv = state.fighters[seat].pv
        pairing = state.distance() < CHARGE
        for bid, action in enumerate(BIDS):
            mask[action] = bid <= pv and (bid == 0 or pairing)
        exit_near = state.behind(seat) <= ESCAPE_EXIT
        mask[Action.ESCAPE] = exit_near and state.distance() > ESCAPE_CLEAR
        return mask

    def _plan(self, state: DunwichState, seat: int, action: Action, dice: Dice) -> None:
        state.plans[seat] = action  # sealed: the rival sees nothing of it until both are in
        self._next_plan(state, dice)

    def _next_plan(self, state: DunwichState, dice: Dice) -> None:
        waiting = [seat for seat in (0, 1) if state.plans[seat] is None]
        if waiting:
            state.phase, state.current = Phase.PLAN, waiting[0]
            return
        self._settle_plans(state, dice)

    def _settle_plans(self, state: DunwichState, dice: Dice) -> None:
        """§4 item 2: tasks set their INI; the higher bid acts first and pays it; equal bids
        keep the INI order, ties by Lucha, then a roll (§10 #1, #7)."""
        bids = [0, 0]
        for seat, fighter in enumerate(state.fighters):
            plan = state.plans[seat]
            if plan == Action.ESCAPE:
                fighter.task = True
                fighter.initiative = 2 * fighter.character.fisico  # §4 item 3 (e)
                state.say(seat, "{} commits to escaping (INI {})", fighter.name, fighter.initiative)
            else:
                assert plan is not None
                bids[seat] = BIDS.index(plan)
            fighter.bid = bids[seat]
        a, b = state.fighters
        if bids[0] != bids[1]:
            first = 0 if bids[0] > bids[1] else 1
            state.fighters[first].pv -= bids[first]
            state.say(
                first,
                "{} bids {} PV against {} and seizes the initiative",
                state.fighters[first].name,
                bids[first],
                bids[1 - first],
            )
        elif a.initiative != b.initiative:
            first = 0 if a.initiative > b.initiative else 1
        elif a.character.lucha != b.character.lucha:
            first = 0 if a.character.lucha > b.character.lucha else 1
        else:
            first = dice.roll(2, "initiative tie") - 1  # §10 #1
            state.say(
                None,
                "INI and Lucha tie: a die gives the turn to {}",
                state.fighters[first].name,
            )
        state.order = (first, 1 - first)
        state.ordered = True
        state.say(
            None,
            "Order: {} (INI {}), then {} (INI {})",
            state.fighters[first].name,
            state.fighters[first].initiative,
            state.fighters[1 - first].name,
            state.fighters[1 - first].initiative,
        )
        self._next_initiative(state, dice)

    def _next_initiative(self, state: DunwichState, dice: Dice) -> None:
        """The next Initiative Turn in the order, skipping whoever reacted (§4 items 3-6);
        when none is left, the next combat turn."""
        state.pending = None
        for seat in state.order:
            fighter = state.fighters[seat]
            if fighter.acted or fighter.reacted:
                continue
            fighter.acted = True
            fighter.engaged_at_start = state.distance() <= REACH  # §10 #25
            state.say(seat, "{}'s Initiative Turn", fighter.name)
            if fighter.task:  # §4 item 3 (e): the task happens if it is still standing
                self._escape(state, seat)
                return
            state.phase, state.current = Phase.ACT, seat
            return
        self._start_turn(state, dice)

    def _escape(self, state: DunwichState, seat: int) -> None:
        """§9, §10 #24: the escape task succeeds; a draw, or a loss if so configured."""
        name = state.fighters[seat].name
        winner = 1 - seat if self.options.escape_is_loss else None
        state.say(seat, "{} escapes", name)
        state.finish(Outcome(winner, f"{name} escapes"))

    # --- movement (§4 (a), (b), §6) ------------------------------------------------------

    def _move(self, state: DunwichState, seat: int, step: int, stop: int = ADJACENT) -> None:
        """Up to `step` half metres toward the rival (negative: away); an advance stops
        `stop` short of it (0.5 m), a retreat at the wall (§12)."""
        fighter = state.fighters[seat]
        before = fighter.position
        toward = 1 if seat == 0 else -1  # side A is left of side B
        if step > 0:
            step = max(0, min(step, state.distance() - stop))
        else:
            step = -min(-step, state.behind(seat))
        fighter.position += toward * step
        if fighter.position == before:
            state.say(seat, "{} cannot move further", fighter.name)
            return
        state.say(
            seat,
            "{} {} to {} m (distance {} m)",
            fighter.name,
            "advances" if step > 0 else "falls back",
            fighter.position / HALF_METRES,
            state.distance() / HALF_METRES,
        )

    def _sprint(self, state: DunwichState, seat: int, dice: Dice, toward: bool) -> None:
        """§4 (b): 7 + 4 m, plus 1 m per extra success of a Físico check, away from the
        rival or toward it (stopping 0.5 m short)."""
        fighter = state.fighters[seat]
        faces, total = self._check(fighter, fighter.character.fisico, dice, "sprint")
        metres = SPRINT + HALF_METRES * max(total - 1, 0)
        state.say(
            seat,
            "{} sprints: Físico {} = {} -> {} m",
            fighter.name,
            faces,
            total,
            metres / HALF_METRES,
        )
        self._move(state, seat, metres if toward else -metres)
        self._next_initiative(state, dice)

    # --- shooting (§4 (c), §10 #14) --------------------------------------------------------

    def _shoot(self, state: DunwichState, seat: int, dice: Dice) -> None:
        me = state.fighters[seat]
        assert me.ranged is not None  # the mask allows shots with a ranged weapon only
        faces, total = self._check(me, me.character.disparo, dice, "shot")
        state.say(seat, "{} shoots the {}: {} = {}", me.name, me.ranged.name, faces, total)
        if total < 1:
            state.say(seat, "{} misses", me.name)
        elif self._shot_lands(state, seat, 1 - seat, dice):
            return
        self._next_initiative(state, dice)

    # --- melee (§4 items 4-5, §5) ---------------------------------------------------------

    def _declare(self, state: DunwichState, seat: int, action: Action, dice: Dice) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        if action == Action.POSITION_DANAR and not self._win_position(state, seat, dice):
            self._next_initiative(state, dice)  # §8.3: Defenderse only this turn
            return
        charged = 0
        if state.distance() > REACH:  # §6: the charger ends 0.5 m from its target
            charged = state.distance() - ADJACENT
            me.position += (1 if seat == 0 else -1) * charged
            state.say(seat, "{} charges to {} m", me.name, me.position / HALF_METRES)
        maneuver = ATTACKS[action]
        retreat = MOVE - charged if action in STRIKE_AND_RETREAT else 0  # §4 (a), §6
        state.pending = Pending(seat, maneuver, retreat)
        state.say(
            seat,
            "{} declares {} against {}{}",
            me.name,
            maneuver.label,
            them.name,
            ", then falls back" if retreat else "",
        )
        state.phase, state.current = Phase.REACT, 1 - seat

    def _reaction_mask(self, state: DunwichState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Action), dtype=bool)
        pending = state.pending
        assert pending is not None
        me = state.fighters[seat]
        mask[Action.REACT_DEFEND] = True  # §5: always allowed
        if me.defend_only:  # §8.3
            return mask
        for action in ALLOWED[pending.maneuver]:
            mask[action] = True
        if not state.behind(pending.initiator) >= PUSHABLE:  # §5: the pushed must have room
            mask[Action.REACT_DESPLAZAR] = False
        return mask

    def _pairing(self, state: DunwichState, seat: int, action: Action, dice: Dice) -> None:
        """One opposed Lucha check; the side with more successes applies its maneuver,
        a tie does nothing (§3, §5)."""
        pending = state.pending
        assert pending is not None
        initiator, reactor = pending.initiator, seat
        sides = {initiator: pending.maneuver, reactor: REACTIONS[action]}
        if not state.fighters[reactor].acted:
            state.fighters[reactor].reacted = True  # §4 item 5: its turn is spent
        state.say(
            reactor,
            "{} reacts with {}",
            state.fighters[reactor].name,
            REACTIONS[action].label,
        )
        totals = self._opposed(state, sides, dice)
        mine, theirs = totals[initiator], totals[reactor]
        if mine == theirs:
            state.say(None, "A tie: nothing happens")
            self._after_pairing(state, dice)
            return
        winner = initiator if mine > theirs else reactor
        margin = abs(mine - theirs)
        maneuver = sides[winner]
        self._bank(state, winner, totals[winner])
        if maneuver == Maneuver.DESPLAZAR and state.fighters[winner].pv:
            # §8.2 step 2: the winner chooses the PV to spend, knowing it won
            state.pending = dataclasses.replace(pending, pusher=winner)
            state.phase, state.current = Phase.PUSH, winner
            return
        if self._effect(state, winner, 1 - winner, maneuver, margin, dice):
            return
        self._after_pairing(state, dice)

    def _after_pairing(self, state: DunwichState, dice: Dice) -> None:
        """An initiator that struck to fall back moves away the rest of its 7 m (§4 (a));
        then the next Initiative Turn."""
        pending = state.pending
        assert pending is not None
        if pending.retreat:
            self._move(state, pending.initiator, -pending.retreat)
        self._next_initiative(state, dice)

    def _push_path(self, state: DunwichState, winner: int, loser: int) -> tuple[int, int]:
        """Straight away from the winner (§10 #16): side A is left of side B."""
        return (1 if winner == 0 else -1), state.behind(loser)

    def _down(self, state: DunwichState, seat: int, by: int) -> bool:
        """§9: out when incapacitated or dead; who is then dying is the aftermath's
        (`DunwichState.aftermath`), rolled for by no check inside the duel."""
        fighter = state.fighters[seat]
        if not fighter.out:
            return False
        how = "dead" if all(fighter.crossed) else "incapacitated"
        state.finish(Outcome(by, f"{fighter.name} is {how}"))
        return True
