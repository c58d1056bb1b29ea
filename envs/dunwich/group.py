"""Dunwich fights of several a side (digest §13): the duel's choreography for many.

The checks, damage, pushes and reactions are the duel's (`rules`, `odds`); what several
fighters bring is here: one order for everyone by bid and INI, ties rolled off (§13.2,
§13.6), every melee action a pairing of two in which a slower target loses its
Initiative Turn the first time it is chosen, and reacts again to every later pairing
(§13.3), a shot only from more than 5 m of every active opponent and a charge at any
opponent under 7 m (§13.4), pushes among bystanders (§13.5), plans sealed from allies
too (§13.6), a busy fighter's Defenderse-only turn (§13.3), and the end when one side
has no active fighter (§13.7). Lengths are in half metres.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from duelo.envs.core.config import entry_of, options_of, party_of
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import fighter_names
from duelo.envs.core.state import Outcome
from duelo.envs.dunwich.group_observation import GROUP_SPEC, observe_group
from duelo.envs.dunwich.group_setup import (
    GroupCatalog,
    GroupOptions,
    GroupScenario,
    load_group_catalog,
)
from duelo.envs.dunwich.group_state import (
    BY_ACTION,
    DECODED,
    MEANINGS,
    Gone,
    GroupAction,
    GroupState,
    Pairing,
)
from duelo.envs.dunwich.pairing import Pairings
from duelo.envs.dunwich.rules import (
    ADJACENT,
    ALLOWED,
    CHARGE,
    ESCAPE_CLEAR,
    ESCAPE_EXIT,
    MOVE,
    PUSHABLE,
    REACH,
    SHOT,
    SPRINT,
)
from duelo.envs.dunwich.setup import HALF_METRES, Character, check_arms
from duelo.envs.dunwich.state import (
    ATTACKS,
    BIDS,
    PUSHES,
    REACTIONS,
    STRIKE_AND_RETREAT,
    Action,
    Fighter,
    Maneuver,
    Phase,
)

SIDE_A, SIDE_B = 0, 1
MELEE = frozenset(ATTACKS)
SHOTS = frozenset({Action.SHOOT, Action.RETREAT_SHOOT})
PUSHABLE_MANEUVERS = frozenset({Action.DESPLAZAR, Action.DESPLAZAR_RETREAT})
_PLAN = (*BIDS, Action.ESCAPE)
_REACT_IDS = tuple(BY_ACTION[a] for a in REACTIONS)
_PUSH_IDS = tuple(BY_ACTION[a] for a in PUSHES)
_ACT_IDS = tuple(
    (i, d)
    for i, d in enumerate(DECODED)
    if d.action not in REACTIONS and d.action not in PUSHES and d.action not in _PLAN
)
"""The Initiative Turn's actions with what each decodes to."""


class DunwichGroupRuleset(Pairings):
    """Dunwich fights of up to three a side on a 1-D arena (DESIGN.md layer 2).

    Args:
        scenario: a skirmish id of `configs/dunwich/skirmishes.yaml` or a
            `GroupScenario`.
        fighters: a character id or `Character` for every fighter, side A's first;
            None takes the scenario's.
        options: `GroupOptions` or a dict of its fields (the duel's GM rulings and
            §13.9's).
        catalog: weapons, characters and skirmishes; None loads the packaged ones.
    """

    system = "dunwich_skirmish"
    version = 0
    perfect_information = False
    """Hidden: sealed plans, from allies too (§13.6)."""
    actions = GroupAction
    action_meanings = MEANINGS
    observation_spec = GROUP_SPEC
    options: GroupOptions

    def __init__(
        self,
        scenario: str | GroupScenario = "three_on_three",
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
            check_arms(character, self.catalog.weapons, character.id)
        self.options = options_of(GroupOptions, options, "dunwich skirmish options")
        self.round_cap = self.options.round_cap
        self.sides = tuple(
            [SIDE_A] * len(self.scenario.side_a) + [SIDE_B] * len(self.scenario.side_b)
        )

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> GroupState:
        names = fighter_names([c.name for c in self.characters], self.sides)
        weapons = self.catalog.weapons
        fighters = [
            Fighter(
                character=c,
                name=names[seat],
                melee=weapons[c.melee],
                ranged=None if c.ranged is None else weapons[c.ranged],
                position=int(post.pos * HALF_METRES),
                pv=c.pv,
                initiative=c.initiative,
            )
            for seat, (c, post) in enumerate(zip(self.characters, self.scenario.posts, strict=True))
        ]
        count_ = len(fighters)
        state = GroupState(
            scenario=self.scenario,
            options=self.options,
            fighters=fighters,
            sides=self.sides,
            arena=int(self.scenario.arena * HALF_METRES),
            standing=[Gone.ACTIVE] * count_,
            plans=[None] * count_,
            pairings=[0] * count_,
        )
        state.say(
            None,
            "Skirmish {} in a {} m arena: {} against {}",
            self.scenario.id,
            self.scenario.arena,
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
        if state.phase == Phase.PLAN:
            for action, legal in zip(_PLAN, self._plan_mask(state, seat), strict=True):
                mask[BY_ACTION[action]] = legal
            return mask
        if state.phase == Phase.REACT:
            for action in self._reactions(state, seat):
                mask[BY_ACTION[action]] = True
            return mask
        if state.phase == Phase.PUSH:  # §8.2 step 2: 0..PV
            for spent, push in enumerate(_PUSH_IDS):
                mask[push] = spent <= state.fighters[seat].pv
            return mask
        return self._act_mask(state, seat, mask)

    def apply(self, state: GroupState, seat: int, action: int, dice: Dice) -> None:
        decoded = DECODED[action]
        act = decoded.action
        if state.phase == Phase.PLAN:
            state.plans[seat] = act  # sealed: nobody sees it until every plan is in (§13.6)
            self._next_plan(state, dice)
            return
        if state.phase == Phase.REACT:
            self._pairing(state, seat, act, dice)
            return
        if state.phase == Phase.PUSH:
            pending = state.pending
            assert pending is not None and pending.pusher == seat
            loser = pending.target if seat == pending.initiator else pending.initiator
            if not self._push(state, seat, loser, PUSHES.index(act), dice):
                self._after_pairing(state, dice)
            return
        target = None if decoded.enemy is None else state.enemies(seat)[decoded.enemy]
        if act in MELEE:
            assert target is not None
            self._declare(state, seat, act, target, dice)
        elif act in SHOTS:
            assert target is not None
            if act == Action.RETREAT_SHOOT:
                self._move(state, seat, -MOVE)
            self._shoot(state, seat, target, dice)
        elif act in (Action.SPRINT, Action.SPRINT_TOWARD):
            self._sprint(state, seat, dice, toward=act == Action.SPRINT_TOWARD)
        else:
            self._move(state, seat, MOVE if act == Action.ADVANCE else -MOVE)
            self._next_initiative(state, dice)

    def observe(self, state: GroupState, seat: int) -> np.ndarray:
        return observe_group(state, seat)

    # --- masks ----------------------------------------------------------------------

    @staticmethod
    def _plan_mask(state: GroupState, seat: int) -> list[bool]:
        """§4 item 2 for each of `_PLAN`: a bid of 0..pv, open only when a pairing is in
        reach (an active opponent under 7 m: the duel's rule, §13.6 ASSUMPTION), or the
        escape task from within 1 m of an arena end and more than 7 m from every active
        opponent (§9, §10 #24)."""
        me = state.fighters[seat]
        gaps = [state.between(seat, s) for s in state.foes(seat)]
        pairing = any(gap < CHARGE for gap in gaps)
        bids = [bid <= me.pv and (bid == 0 or pairing) for bid in range(len(BIDS))]
        near_exit = min(me.position, state.arena - me.position) <= ESCAPE_EXIT
        return [*bids, near_exit and all(gap > ESCAPE_CLEAR for gap in gaps)]

    def _act_mask(self, state: GroupState, seat: int, mask: np.ndarray) -> np.ndarray:
        me = state.fighters[seat]
        enemies = state.enemies(seat)
        foes = state.foes(seat)
        shoot = me.ranged is not None and all(state.between(seat, s) > SHOT for s in foes)
        position = self.scenario.advantageous_position and not me.engaged_at_start  # §8.3
        for action, decoded in _ACT_IDS:
            act = decoded.action
            if decoded.enemy is None:
                if act in (Action.ADVANCE, Action.SPRINT_TOWARD):
                    nearest = state.nearest(seat)
                    mask[action] = nearest is not None and state.between(seat, nearest) > ADJACENT
                else:
                    mask[action] = True  # a retreat or a sprint away stops at the wall (§12)
                continue
            if decoded.enemy >= len(enemies) or not state.active(enemies[decoded.enemy]):
                continue
            target = enemies[decoded.enemy]
            if act in SHOTS:
                mask[action] = shoot  # §13.4: beyond 5 m of every active opponent
                continue
            if state.between(seat, target) >= CHARGE:  # §13.4: within reach, or a charge
                continue
            if act == Action.POSITION_DANAR:
                mask[action] = position
            elif act in PUSHABLE_MANEUVERS:  # §5, §8.2: room to be pushed
                mask[action] = state.room(target, state.push_direction(seat, target)) >= PUSHABLE
            else:
                mask[action] = True
        return mask

    @staticmethod
    def _reactions(state: GroupState, seat: int) -> list[Action]:
        """§5 and §13.3: Defenderse always; only it while busy with a task or after a
        failed position; a Desplazar back only if the initiator has room to be pushed."""
        pending = state.pending
        assert pending is not None
        me = state.fighters[seat]
        if me.defend_only or me.task:
            return [Action.REACT_DEFEND]
        out = [Action.REACT_DEFEND, *ALLOWED[pending.maneuver]]
        back = state.room(pending.initiator, state.push_direction(seat, pending.initiator))
        if back < PUSHABLE:
            out.remove(Action.REACT_DESPLAZAR)
        return out

    # --- the combat turn (§4, §13.2, §13.6) -------------------------------------------

    def _start_turn(self, state: GroupState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            return
        state.say(None, "--- Combat turn {} ---", state.round)
        for fighter in state.fighters:
            fighter.acted = fighter.reacted = fighter.task = fighter.defend_only = False
            fighter.engaged_at_start = False
            fighter.bonus = fighter.bid = 0
            fighter.initiative = fighter.character.initiative
        state.order = []
        state.pairings = [0] * len(state.fighters)
        state.pending = None
        for seat in range(len(state.fighters)):
            only_zero = state.active(seat) and self._plan_mask(state, seat) == [True] + [False] * 4
            # nothing to choose, or out of the fight: no decision (§12)
            state.plans[seat] = Action.BID_0 if only_zero or not state.active(seat) else None
        self._next_plan(state, dice)

    def _next_plan(self, state: GroupState, dice: Dice) -> None:
        waiting = [seat for seat, plan in enumerate(state.plans) if plan is None]
        if waiting:
            state.phase, state.current = Phase.PLAN, waiting[0]
            return
        self._settle_plans(state, dice)

    def _settle_plans(self, state: GroupState, dice: Dice) -> None:
        """§13.6: every plan revealed at once; tasks set their INI (§4 item 3 (e)); the
        order sorts by bid, then INI, then Lucha, then a roll-off (§13.2); a fighter pays
        its bid iff some active opponent bid less (G6)."""
        seats = [seat for seat in range(len(state.fighters)) if state.active(seat)]
        for seat in seats:
            fighter, plan = state.fighters[seat], state.plans[seat]
            if plan == Action.ESCAPE:
                fighter.task = True
                fighter.initiative = 2 * fighter.character.fisico
                state.say(seat, "{} commits to escaping (INI {})", fighter.name, fighter.initiative)
            else:
                assert plan is not None
                fighter.bid = BIDS.index(plan)
        if any(state.fighters[s].bid for s in seats):
            state.say(
                None,
                "Bids: {}",
                ", ".join(f"{state.fighters[s].name} {state.fighters[s].bid}" for s in seats),
            )
        for seat in seats:
            fighter = state.fighters[seat]
            if fighter.bid and any(state.fighters[s].bid < fighter.bid for s in state.foes(seat)):
                fighter.pv -= fighter.bid
                state.say(seat, "{} pays {} PV", fighter.name, fighter.bid)
        state.order = self._ordered(state, seats, dice)
        state.say(
            None,
            "Order: {}",
            ", ".join(
                f"{state.fighters[s].name} (INI {state.fighters[s].initiative})"
                for s in state.order
            ),
        )
        self._next_initiative(state, dice)

    def _ordered(self, state: GroupState, seats: list[int], dice: Dice) -> list[int]:
        """By bid, INI and Lucha, highest first; a full tie rolled off 1d6 in seat order,
        re-rolled among those still tied (§13.2 G9), or by seat under `tie_break = id`."""

        def rank(seat: int) -> tuple[int, int, int]:
            f = state.fighters[seat]
            return (-f.bid, -f.initiative, -f.character.lucha)

        out: list[int] = []
        for key in sorted({rank(s) for s in seats}):
            tied = [s for s in seats if rank(s) == key]
            out += self._roll_off(state, tied, dice) if len(tied) > 1 else tied
        return out

    def _roll_off(self, state: GroupState, tied: list[int], dice: Dice) -> list[int]:
        if self.options.tie_break == "id":
            return tied
        faces = {seat: dice.roll(6, "initiative roll-off") for seat in tied}
        state.say(
            None,
            "Bid, INI and Lucha tie: {}",
            ", ".join(f"{state.fighters[s].name} rolls {faces[s]}" for s in tied),
        )
        out: list[int] = []
        for face in sorted(set(faces.values()), reverse=True):
            still = [s for s in tied if faces[s] == face]
            out += self._roll_off(state, still, dice) if len(still) > 1 else still
        return out

    def _next_initiative(self, state: GroupState, dice: Dice) -> None:
        """§13.2: the highest-ordered active fighter that has neither acted nor reacted;
        when none is left, the next combat turn."""
        state.pending = None
        for seat in state.order:
            fighter = state.fighters[seat]
            if not state.active(seat) or fighter.acted or fighter.reacted:
                continue
            fighter.acted = True
            fighter.engaged_at_start = state.engaged(seat)  # §10 #25
            state.say(seat, "{}'s Initiative Turn", fighter.name)
            if fighter.task:  # §4 item 3 (e): the task happens if it is still standing
                state.standing[seat] = Gone.FLED
                state.say(seat, "{} escapes", fighter.name)
                if self._check_end(state):
                    return
                continue
            state.phase, state.current = Phase.ACT, seat
            return
        self._start_turn(state, dice)

    # --- movement (§4 (a), (b), §6) ------------------------------------------------------

    def _move(
        self, state: GroupState, seat: int, step: int, stop: int = ADJACENT, away_from: int = -1
    ) -> None:
        """Up to `step` half metres toward the nearest active opponent, stopping `stop`
        short of it (negative: away from it, or from `away_from`, to the wall)."""
        reference = state.nearest(seat) if away_from < 0 else away_from
        if reference is None:
            return
        fighter = state.fighters[seat]
        before = fighter.position
        if step > 0:
            direction = -state.push_direction(reference, seat)
            fighter.position += direction * max(0, min(step, state.between(seat, reference) - stop))
        else:
            direction = state.push_direction(reference, seat)
            fighter.position += direction * min(-step, state.room(seat, direction))
        if fighter.position == before:
            state.say(seat, "{} cannot move further", fighter.name)
            return
        state.say(
            seat,
            "{} {} to {} m",
            fighter.name,
            "advances" if step > 0 else "falls back",
            fighter.position / HALF_METRES,
        )

    def _sprint(self, state: GroupState, seat: int, dice: Dice, toward: bool) -> None:
        """§4 (b): 7 + 4 m, plus 1 m per extra success of a Físico check."""
        fighter = state.fighters[seat]
        faces, total = self._check(fighter, fighter.character.fisico, dice, "sprint")
        metres = SPRINT + HALF_METRES * max(total - 1, 0)
        state.say(
            seat, "{} sprints: Físico {} = {} -> {} m", fighter.name, faces, total, metres / 2
        )
        self._move(state, seat, metres if toward else -metres)
        self._next_initiative(state, dice)

    # --- shooting (§4 (c), §10 #14, §13.4) ---------------------------------------------------

    def _shoot(self, state: GroupState, seat: int, target: int, dice: Dice) -> None:
        me, them = state.fighters[seat], state.fighters[target]
        assert me.ranged is not None  # the mask allows shots with a ranged weapon only
        into_melee = self.options.fire_into_melee and any(  # G5: -1d
            state.between(ally, target) <= REACH
            for ally in state.allies(seat)
            if state.active(ally)
        )
        faces, total = self._check(me, me.character.disparo, dice, "shot", -into_melee)
        state.say(
            seat,
            "{} shoots {} with the {}{}: {} = {}",
            me.name,
            them.name,
            me.ranged.name,
            " into the melee (-1d)" if into_melee else "",
            faces,
            total,
        )
        if total < 1:
            state.say(seat, "{} misses", me.name)
        elif self._shot_lands(state, seat, target, dice):
            return
        self._next_initiative(state, dice)

    # --- melee (§4 items 4-5, §5, §13.3) --------------------------------------------------------

    def _declare(
        self, state: GroupState, seat: int, action: Action, target: int, dice: Dice
    ) -> None:
        me, them = state.fighters[seat], state.fighters[target]
        if action == Action.POSITION_DANAR and not self._win_position(state, seat, dice):
            self._next_initiative(state, dice)  # §8.3: Defenderse only this turn
            return
        charged = 0
        if state.between(seat, target) > REACH:  # §13.1: it ends 0.5 m short, on its side
            charged = state.between(seat, target) - ADJACENT
            me.position += -state.push_direction(target, seat) * charged
            state.say(seat, "{} charges to {} m", me.name, me.position / HALF_METRES)
        maneuver = ATTACKS[action]
        retreat = MOVE - charged if action in STRIKE_AND_RETREAT else 0  # §4 (a), §6
        state.pending = Pairing(seat, target, maneuver, retreat)
        state.say(
            seat,
            "{} declares {} against {}{}",
            me.name,
            maneuver.label,
            them.name,
            ", then falls back" if retreat else "",
        )
        state.phase, state.current = Phase.REACT, target

    def _pairing(self, state: GroupState, reactor: int, action: Action, dice: Dice) -> None:
        """One opposed Lucha check between the two (§13.3); the side with more successes
        applies its maneuver to the other, a tie does nothing (§3, §5)."""
        pending = state.pending
        assert pending is not None
        initiator = pending.initiator
        chosen = {initiator: pending.maneuver, reactor: REACTIONS[action]}
        them = state.fighters[reactor]
        if not them.acted and not them.task:
            # §13.3: the first pairing before its turn spends it, but a busy fighter's
            # task still happens at its Initiative Turn (§4 item 5)
            them.reacted = True
        state.say(reactor, "{} reacts with {}", them.name, chosen[reactor].label)
        modifiers = {initiator: self._gang(state, initiator, reactor), reactor: 0}
        if self.options.reaction_penalty:  # G1: -1d per earlier pairing this turn
            modifiers[reactor] -= state.pairings[reactor]
        totals = self._opposed(state, chosen, dice, modifiers)
        state.pairings[initiator] += 1
        state.pairings[reactor] += 1
        if totals[initiator] == totals[reactor]:
            state.say(None, "A tie: nothing happens")
            self._after_pairing(state, dice)
            return
        winner = initiator if totals[initiator] > totals[reactor] else reactor
        loser = reactor if winner == initiator else initiator
        maneuver = chosen[winner]
        self._bank(state, winner, totals[winner])
        if maneuver == Maneuver.DESPLAZAR and state.fighters[winner].pv:
            # §8.2 step 2: the winner chooses the PV to spend, knowing it won
            state.pending = dataclasses.replace(pending, pusher=winner)
            state.phase, state.current = Phase.PUSH, winner
            return
        margin = abs(totals[initiator] - totals[reactor])
        if self._effect(state, winner, loser, maneuver, margin, dice):
            return
        self._after_pairing(state, dice)

    def _gang(self, state: GroupState, initiator: int, target: int) -> int:
        """G3 `gang_bonus`: +1d per other active ally of the initiator engaged with the
        target; 0 by default ("emparejamiento entre dos oponentes")."""
        if not self.options.gang_bonus:
            return 0
        return sum(
            state.active(ally) and state.between(ally, target) <= REACH
            for ally in state.allies(initiator)
        )

    def _after_pairing(self, state: GroupState, dice: Dice) -> None:
        """An initiator that struck to fall back moves away from its target the rest of
        its 7 m (§4 (a)); then the next Initiative Turn."""
        pending = state.pending
        assert pending is not None
        if pending.retreat and state.active(pending.initiator):
            self._move(state, pending.initiator, -pending.retreat, away_from=pending.target)
        self._next_initiative(state, dice)

    def _push_path(self, state: GroupState, winner: int, loser: int) -> tuple[int, int]:
        """Straight away from the winner, from the same point toward the end with more
        room (§13.5); fighters are no obstacles, only walls (§13.1)."""
        direction = state.push_direction(winner, loser)
        return direction, state.room(loser, direction)

    def _down(self, state: GroupState, seat: int, by: int = -1) -> bool:
        """§9: out when incapacitated or dead; True when that ended the fight."""
        fighter = state.fighters[seat]
        if not fighter.out:
            return False
        state.standing[seat] = Gone.DOWN
        state.say(seat, "{} is {}", fighter.name, "dead" if all(fighter.crossed) else "down")
        return self._check_end(state)

    def _check_end(self, state: GroupState) -> bool:
        """§13.7: a side with no active fighter loses, the other winning; a draw when all
        of it escaped (§10 #24), unless `escape_is_loss`. True when the fight ended."""
        for side in (SIDE_A, SIDE_B):
            seats = [s for s, mine in enumerate(state.sides) if mine == side]
            if any(state.active(s) for s in seats):
                continue
            fled = all(state.standing[s] == Gone.FLED for s in seats)
            name = "AB"[side]
            if fled and not self.options.escape_is_loss:
                state.finish(Outcome(None, f"side {name} escapes"))
            else:
                state.finish(Outcome(1 - side, f"side {name} is out"))
            return True
        return False


def _roll_call(state: GroupState, side: int) -> str:
    return ", ".join(
        f"{f.name} at {f.position / HALF_METRES} m"
        for f, mine in zip(state.fighters, state.sides, strict=True)
        if mine == side
    )
