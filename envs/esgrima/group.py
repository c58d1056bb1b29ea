"""Esgrima fights of several a side (digest §13): the one-on-one skirmish's rules with a
range band between each pair of fighters.

The Tests, armour, reach and the Actions that act on their actor alone are the
one-on-one skirmish's (`mechanics`, `skirmish`); what several fighters bring is here:
each pair's band and moves relative to any fighter (§13.1), one initiative order for
everyone with PJ ties settled once (§13.2), a delay relative to any fighter (§13.3),
a hand-over to an adjacent ally (§13.4), area damage on a chosen zone (§13.5),
suppressive fire on a zone at every enemy entering or acting in it (§13.6), and the
group's ammunition: sharing, the GM's mid-combat check and the checks after the
fight (§13.7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from duelo.envs.core.config import ConfigError, entry_of, options_of, party_of, require_known
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import fighter_names
from duelo.envs.core.state import Outcome
from duelo.envs.esgrima.group_observation import GROUP_SPEC, observe_group
from duelo.envs.esgrima.group_setup import (
    GroupCatalog,
    GroupOptions,
    GroupScenario,
    load_group_catalog,
)
from duelo.envs.esgrima.group_state import (
    DECODED,
    MEANINGS,
    REFERENCES,
    Ammo,
    Decoded,
    GroupAction,
    GroupState,
    Kind,
    Standing,
)
from duelo.envs.esgrima.mechanics import PNJ_INITIATIVE, Body, roll_test
from duelo.envs.esgrima.setup import Armour, Character, Role, WeaponClass
from duelo.envs.esgrima.skirmish import (
    DELAY_EPSILON,
    OWN_ACTIONS,
    hurt,
    needs_loading,
    next_weapon,
    own_action,
    strike,
)
from duelo.envs.esgrima.skirmish_state import (
    ACTIONS_PER_TURN,
    Combatant,
    Held,
    band,
    reach,
)

SIDE_A, SIDE_B = 0, 1
MOVES = frozenset({Kind.MOVE_TOWARD, Kind.MOVE_AWAY, Kind.RELOCATE_NEAR})
ATTACKS = frozenset({Kind.MELEE_ATTACK, Kind.SHOT, Kind.THROW_WEAPON})
QUIET = frozenset(
    {
        Kind.EVADE,
        Kind.DRAW_WEAPON,
        Kind.RELOAD,
        Kind.FOCALIZAR,
        Kind.LOCATE,
        Kind.TAKE_COVER,
        Kind.HIDE,
        Kind.PASS,
        Kind.HAND_WEAPON,
        Kind.HAND_AMMO,
    }
)
"""Actions that draw no attention, so a hidden fighter stays hidden (the one-on-one
skirmish's, and a hand-over: ASSUMPTION, passing an object is as quiet as a Draw)."""
UNSUPPRESSED = frozenset({Kind.HIDE, Kind.TAKE_COVER, Kind.EVADE, *MOVES, Kind.SURRENDER})
"""§13.6: leaving the zone, hiding or protecting oneself draws no acting Shot (as one on
one; a surrender is no Action against the suppressor)."""
_HEAVY, _PJ, _LIGHT_MELEE = Armour.HEAVY, Role.PJ, WeaponClass.LIGHT_MELEE
_RANGED = (WeaponClass.LIGHT_RANGED, WeaponClass.HEAVY_RANGED)
_ALWAYS = frozenset({Kind.FOCALIZAR, Kind.PASS, Kind.SURRENDER})
_PLAN = tuple(
    (
        d.kind,
        REFERENCES.index(d.slot) if d.slot in REFERENCES else None,
        d.offset if d.slot[:1] in ("M", "P") else 0,
    )
    for d in DECODED
)
"""Each action as (kind, index in `REFERENCES` or None, zone offset): what its mask reads."""
_TOWARD = ("adjacent to", "near", "far from")
"""The band a move leaves the mover in from its reference, in words."""


class EsgrimaGroupRuleset:
    """Esgrima fights of up to three a side on a zone line (DESIGN.md layer 2).

    Args:
        scenario: a skirmish id of `configs/esgrima/skirmishes.yaml` or a
            `GroupScenario`.
        fighters: a character id or `Character` for every fighter, side A's first;
            None takes the scenario's.
        options: `GroupOptions` or a dict of its fields (the skirmish's GM rulings and
            §13.9's).
        catalog: weapons, characters and skirmishes; None loads the packaged ones.
    """

    system = "esgrima_skirmish"
    version = 0
    perfect_information = True
    actions = GroupAction
    action_meanings = MEANINGS
    observation_spec = GROUP_SPEC

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
            for i, weapon_id in enumerate(character.weapons):
                require_known(
                    weapon_id, self.catalog.weapons, f"{character.id}.weapons[{i}]", "weapon"
                )
        self.options = options_of(GroupOptions, options, "esgrima skirmish options")
        event = self.scenario.ammo_event
        if event is not None and self.characters[event.fighter].role != _PJ:
            raise ConfigError(
                f"scenario {self.scenario.id}: ammo_event.fighter {event.fighter} is not a "
                "PJ (§13.7: the GM asks a player for the check)"
            )
        self.round_cap = self.options.round_cap
        self.sides = tuple(
            [SIDE_A] * len(self.scenario.side_a) + [SIDE_B] * len(self.scenario.side_b)
        )
        any_pj = any(c.role == _PJ for c in self.characters)
        mode = self.options.npc_initiative
        self.rolls = tuple(  # §13.2: a PNJ keeps 7.5; §10 #8: PNJs alone all roll
            c.role == _PJ or mode == "roll" or (mode == "pair_rolls" and not any_pj)
            for c in self.characters
        )

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> GroupState:
        names = fighter_names([c.name for c in self.characters], self.sides)
        posts = self.scenario.posts
        fighters = [
            Combatant(
                c,
                names[seat],
                Body.of(c),
                posts[seat].zone,
                [Held(self.catalog.weapons[w]) for w in c.weapons],
            )
            for seat, c in enumerate(self.characters)
        ]
        count = len(fighters)
        state = GroupState(
            scenario=self.scenario,
            options=self.options,
            fighters=fighters,
            sides=self.sides,
            spent=[False] * len(self.scenario.objects),
            standing=[Standing.ACTIVE] * count,
            ammo=[Ammo.FULL] * count,
            edge_over=[None] * count,
        )
        state.say(
            None,
            "Skirmish {}: {} against {}",
            self.scenario.id,
            ", ".join(f.name for f, s in zip(fighters, self.sides, strict=True) if s == SIDE_A),
            ", ".join(f.name for f, s in zip(fighters, self.sides, strict=True) if s == SIDE_B),
        )
        for seat, fighter in enumerate(fighters):  # §13.2: in id order
            if self.rolls[seat]:
                faces = [dice.roll(6, "initiative"), dice.roll(6, "initiative")]
                fighter.initiative = float(sum(faces))
                state.say(seat, "Initiative: {} 2d6 {} = {}", fighter.name, faces, sum(faces))
            else:
                fighter.initiative = PNJ_INITIATIVE
                state.say(seat, "Initiative: {} keeps {}", fighter.name, PNJ_INITIATIVE)
        self._start_round(state, dice)
        return state

    def to_act(self, state: GroupState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: GroupState, seat: int) -> np.ndarray:
        mask = np.zeros(len(GroupAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        references = state.references(seat)
        own = self._own_actions(state, seat)
        for action, (kind, reference, offset) in enumerate(_PLAN):
            if reference is None:
                mask[action] = own[kind](offset) if kind in own else kind in _ALWAYS
                continue
            target = references[reference]
            mask[action] = (
                target is not None
                and state.active(target)
                and self._legal_at(state, seat, kind, target)
            )
        return mask

    def apply(self, state: GroupState, seat: int, action: int, dice: Dice) -> None:
        decoded = DECODED[action]
        kind = decoded.kind
        if kind in (Kind.DELAY_AFTER, Kind.DELAY_BEFORE):
            self._delay(state, seat, kind, self._slot(state, seat, decoded))
            return
        me = state.fighters[seat]
        foco = me.foco_next
        me.foco_next = False  # Foco lasts for the next Action only (§3 ASSUMPTION)
        if kind != Kind.RELOAD:
            me.reload_pending = False  # Recarga lenta: any other Action in between
        was_hidden = me.hidden
        if me.hidden and kind not in QUIET:
            me.hidden = False
            state.say(seat, "{} leaves hiding", me.name)
        acting = self._acting_shooters(state, seat, kind)
        if acting and self.options.suppress_timing == "before":
            self._suppressive_shots(state, seat, acting, dice)
            if not state.active(seat):  # §13.6: downed, it loses the Action
                self._after_action(state, seat, dice)
                return
        zone_before = me.zone
        self._resolve(state, seat, decoded, dice, foco, was_hidden)
        if acting and self.options.suppress_timing == "after" and state.active(seat):
            self._suppressive_shots(state, seat, acting, dice)
        if state.active(seat) and me.zone != zone_before:
            entering = self._suppressors_of(state, seat, me.zone)
            self._suppressive_shots(state, seat, entering, dice)
        self._after_action(state, seat, dice)

    def observe(self, state: GroupState, seat: int) -> np.ndarray:
        return observe_group(state, seat)

    # --- masks ----------------------------------------------------------------------

    @staticmethod
    def _slot(state: GroupState, seat: int, decoded: Decoded) -> int:
        """The seat an action's ally or enemy slot names (the mask offers only filled ones)."""
        target = state.references(seat)[REFERENCES.index(decoded.slot)]
        assert target is not None
        return target

    def _own_actions(self, state: GroupState, seat: int) -> dict[Kind, Callable[[int], bool]]:
        """Whether each action that names no fighter is legal, by kind, given its zone
        offset (0 where it names none): what `seat` holds and the objects at hand."""
        me = state.fighters[seat]
        held = me.held
        zones = state.scenario.zones
        here = [(i, o) for i, o in enumerate(state.scenario.objects) if o.zone == me.zone]
        interact = any(o.interact and not state.spent[i] for i, o in here)
        gun = self._gun_ready(state, seat)
        evade = me.body.armour != _HEAVY or me.character.shield
        draw = next_weapon(me) is not None
        reload = (
            held is not None
            and needs_loading(held.weapon, self.options)
            and not held.loaded
            and state.ammo[seat] != Ammo.EMPTY
        )
        cover = not me.in_cover and any(o.cover for _, o in here)
        hide = not me.hidden and any(o.hide for _, o in here)

        def on_map(offset: int) -> bool:
            return 0 <= me.zone + offset < zones

        return {
            Kind.SUPPRESSIVE_FIRE: lambda offset: (
                gun
                and on_map(offset)
                and held is not None
                and reach(held.weapon, abs(offset)) is not None
            ),
            Kind.INTERACT_AREA: lambda offset: interact and on_map(offset),
            Kind.INTERACT_BLOCK: lambda offset: (
                interact and on_map(offset) and _open(state, me.zone, me.zone + offset)
            ),
            Kind.EVADE: lambda _: evade,
            Kind.DRAW_WEAPON: lambda _: draw,
            Kind.RELOAD: lambda _: reload,
            Kind.TAKE_COVER: lambda _: cover,
            Kind.HIDE: lambda _: hide,
        }

    def _legal_at(self, state: GroupState, seat: int, kind: Kind, target: int) -> bool:
        """Whether `seat` may take `kind` at the other fighter `target` (active)."""
        me, them = state.fighters[seat], state.fighters[target]
        distance = abs(me.zone - them.zone)
        held = me.held
        weapon = held.weapon if held is not None else None
        zones = state.scenario.zones
        if kind == Kind.MOVE_TOWARD:
            step = me.zone + (1 if them.zone > me.zone else -1)
            return distance > 0 and _open(state, me.zone, step)
        if kind == Kind.MOVE_AWAY:
            away = _away_zone(state, seat, target)
            if away is not None:
                return _open(state, me.zone, away)
            # §9 ASSUMPTION: leaving the map is flight, only while Far from every enemy
            return all(state.distance(seat, e) >= 2 for e in state.enemies(seat) if state.active(e))
        if kind == Kind.RELOCATE_NEAR:
            other_side = 2 * them.zone - me.zone
            return (
                distance == 1
                and 0 <= other_side < zones
                and _open(state, me.zone, them.zone)
                and _open(state, them.zone, other_side)
                and not self._barred(state, seat, them.zone)
            )
        if kind in (Kind.DELAY_AFTER, Kind.DELAY_BEFORE):
            if (
                state.actions_left != ACTIONS_PER_TURN
                or seat in state.delayed
                or not (me.character.role == _PJ or self.options.delay == "all")
            ):
                return False
            later = state.order.index(target) - state.turn_index  # §13.3: a later slot
            return later >= (1 if kind == Kind.DELAY_AFTER else 2)
        if kind in (Kind.HAND_WEAPON, Kind.HAND_AMMO):
            if state.sides[target] != state.sides[seat] or distance != 0:
                return False
            if kind == Kind.HAND_WEAPON:
                return any(not h.lost for h in me.weapons)
            return (
                state.ammo[target] == Ammo.EMPTY
                and state.ammo[seat] != Ammo.EMPTY
                and bool(_ammo_types(me) & _ammo_types(them))
            )
        # the rest names an enemy (the slot table offers only enemy slots)
        if kind == Kind.CANCEL_EDGE:
            return state.edge_over[target] == seat
        if kind == Kind.INTERACT_EDGE:
            return state.edge_over[seat] is None and any(
                o.zone == me.zone and o.interact and not state.spent[i]
                for i, o in enumerate(state.scenario.objects)
            )
        if kind == Kind.LOCATE:
            return them.hidden and band(distance) <= 1
        if them.hidden or weapon is None:  # seed: no attack may target a hidden fighter
            return False
        if kind == Kind.MELEE_ATTACK:
            return weapon.melee and reach(weapon, distance) is not None
        if kind == Kind.SHOT:
            return self._gun_ready(state, seat) and reach(weapon, distance) is not None
        return weapon.cls == _LIGHT_MELEE  # THROW_WEAPON: a light ranged reach, every band

    def _gun_ready(self, state: GroupState, seat: int) -> bool:
        """A ranged weapon in hand, loaded or needing none, with ammunition (§13.7)."""
        held = state.fighters[seat].held
        return (
            held is not None
            and not held.weapon.melee
            and (held.loaded or not needs_loading(held.weapon, self.options))
            and state.ammo[seat] != Ammo.EMPTY
        )

    def _barred(self, state: GroupState, seat: int, zone: int) -> bool:
        """§13.1 `bodies_block`: a zone with an active enemy and no active ally of the
        mover cannot be passed through."""
        if not self.options.bodies_block:
            return False
        here = [s for s in range(state.seats) if state.active(s) and state.fighters[s].zone == zone]
        side = state.sides[seat]
        return any(state.sides[s] != side for s in here) and not any(
            state.sides[s] == side for s in here if s != seat
        )

    # --- rounds and turns -----------------------------------------------------------

    def _start_round(self, state: GroupState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            self._ammo_checks(state, dice)  # the combat is over, however it ended
            return
        state.delayed.clear()
        state.say(None, "--- Round {} ---", state.round)
        event = self.scenario.ammo_event
        if event is not None and event.round == state.round and state.active(event.fighter):
            self._mid_combat_check(state, event.fighter, dice)
        state.order = self._sorted(state, dice)  # §10 #9: re-sorted each round
        state.turn_index = 0
        self._begin_turn(state, state.order[0])

    def _sorted(self, state: GroupState, dice: Dice) -> list[int]:
        """§13.2: one order for every active fighter, highest score first; PJs tied roll
        1d6 off once (`pj_tie`), PNJs tied at 7.5 go in id order."""
        active = [s for s in range(state.seats) if state.active(s)]
        order: list[int] = []
        for score in sorted({state.fighters[s].initiative for s in active}, reverse=True):
            tied = [s for s in active if state.fighters[s].initiative == score]
            if len(tied) > 1 and all(self.rolls[s] for s in tied):
                tied = self._settled(state, tied, score, dice)
            order += tied
        return order

    def _settled(self, state: GroupState, tied: list[int], score: float, dice: Dice) -> list[int]:
        """A tie among rollers, settled once and kept while their scores stand (§13.2)."""
        kept = [state.tie_rank.get(s) for s in tied]
        if all(k is not None and k[0] == score for k in kept):
            return sorted(tied, key=lambda s: -state.tie_rank[s][1])
        if self.options.pj_tie == "agree":
            ranking = tied  # the lower id first
            state.say(None, "Initiative tie at {:g}: settled by agreement", score)
        else:
            ranking = self._roll_off(state, tied, dice)
        for rank, s in enumerate(ranking):
            state.tie_rank[s] = (score, len(ranking) - rank)
        return ranking

    def _roll_off(self, state: GroupState, tied: list[int], dice: Dice) -> list[int]:
        """1d6 each, in id order, highest first; those still tied roll again (§13.2)."""
        faces = {s: dice.roll(6, "initiative roll-off") for s in tied}
        state.say(
            None,
            "Initiative tie: roll-off {}",
            ", ".join(f"{state.fighters[s].name} {faces[s]}" for s in tied),
        )
        ranking: list[int] = []
        for face in sorted(set(faces.values()), reverse=True):
            group = [s for s in tied if faces[s] == face]
            ranking += self._roll_off(state, group, dice) if len(group) > 1 else group
        return ranking

    def _begin_turn(self, state: GroupState, seat: int) -> None:
        fighter = state.fighters[seat]
        # seed: evasion, suppressive fire and an Interact edge last until this moment
        fighter.evading = False
        fighter.suppressing = None
        state.edge_over[seat] = None
        state.current = seat
        state.actions_left = ACTIONS_PER_TURN
        state.turn_zone = fighter.zone
        state.drew_fire.clear()
        state.say(seat, "{}'s turn", fighter.name)

    def _delay(self, state: GroupState, seat: int, kind: Kind, reference: int) -> None:
        """§13.3: the reference's score -0.01 (after) or +0.01 (before), moved on by 0.01
        while taken; the delayer acts at its new slot this round, keeping the score."""
        me, them = state.fighters[seat], state.fighters[reference]
        step = -DELAY_EPSILON if kind == Kind.DELAY_AFTER else DELAY_EPSILON
        taken = {f.initiative for s, f in enumerate(state.fighters) if s != seat}
        score = round(them.initiative + step, 2)
        while score in taken:
            score = round(score + step, 2)
        me.initiative = score
        order = state.order
        order.remove(seat)
        slot = order.index(reference)
        if kind == Kind.DELAY_AFTER:  # past the reference and whoever a taken score put there
            slot += 1
            while slot < len(order) and state.fighters[order[slot]].initiative > score:
                slot += 1
        else:
            while (
                slot - 1 > state.turn_index and state.fighters[order[slot - 1]].initiative < score
            ):
                slot -= 1
        order.insert(slot, seat)
        state.delayed.add(seat)
        state.say(
            seat,
            "{} delays, acting {} {} (initiative {:g})",
            me.name,
            "after" if kind == Kind.DELAY_AFTER else "before",
            them.name,
            score,
        )
        self._begin_turn(state, state.order[state.turn_index])

    def _after_action(self, state: GroupState, seat: int, dice: Dice) -> None:
        """Count the Action; a fighter out loses the Actions it has left (§13.3)."""
        if state.result is not None or self._check_end(state, dice):
            return
        state.actions_left -= 1
        if state.actions_left == 0 or not state.active(seat):
            self._end_turn(state, dice)

    def _end_turn(self, state: GroupState, dice: Dice) -> None:
        state.turn_index += 1
        while state.turn_index < len(state.order):
            seat = state.order[state.turn_index]
            if state.active(seat):
                self._begin_turn(state, seat)
                return
            state.turn_index += 1
        self._start_round(state, dice)

    def _check_end(self, state: GroupState, dice: Dice) -> bool:
        """§13.8: a side with no active fighter loses; both at once (area damage): a draw."""
        standing = [
            any(state.active(s) for s in range(state.seats) if state.sides[s] == side)
            for side in (SIDE_A, SIDE_B)
        ]
        if all(standing):
            return False
        if not any(standing):
            outcome = Outcome(None, "both sides are out")
        else:
            loser = standing.index(False)
            outcome = Outcome(1 - loser, f"side {'AB'[loser]} is out of the fight")
        state.finish(outcome)
        self._ammo_checks(state, dice)  # seed (Chequeos de munición): after the combat
        return True

    def _out(self, state: GroupState, seat: int, standing: Standing, how: str) -> None:
        """`seat` leaves the fight (§13.1): its suppression and its edge end with it."""
        fighter = state.fighters[seat]
        state.standing[seat] = standing
        fighter.suppressing = None
        state.edge_over[seat] = None
        state.say(seat, "{} {}", fighter.name, how)

    def _harm(self, state: GroupState, seat: int, damage: int) -> None:
        hurt(state, seat, damage)
        if state.fighters[seat].body.out and state.active(seat):
            self._out(state, seat, Standing.DOWN, "is out of the fight")

    # --- actions ----------------------------------------------------------------------

    def _resolve(
        self,
        state: GroupState,
        seat: int,
        decoded: Decoded,
        dice: Dice,
        foco: bool,
        was_hidden: bool,
    ) -> None:
        kind = decoded.kind
        me = state.fighters[seat]
        if kind == Kind.SURRENDER:
            self._out(state, seat, Standing.SURRENDERED, "SURRENDERS")
        elif kind in MOVES:
            self._move(state, seat, kind, self._slot(state, seat, decoded))
        elif kind in ATTACKS:
            target = self._slot(state, seat, decoded)
            self._attack(state, seat, target, kind, dice, advantage=foco + was_hidden)
        elif kind.name in OWN_ACTIONS:
            own_action(state, seat, kind.name, dice, foco, self.options)
        elif kind == Kind.LOCATE:
            self._locate(state, seat, self._slot(state, seat, decoded), dice, foco)
        elif kind == Kind.SUPPRESSIVE_FIRE:
            me.suppressing = me.zone + decoded.offset
            state.say(seat, "{} lays suppressive fire on zone {}", me.name, me.suppressing)
        elif kind in (Kind.INTERACT_EDGE, Kind.INTERACT_AREA, Kind.INTERACT_BLOCK):
            self._interact(state, seat, decoded, dice, foco)
        elif kind == Kind.CANCEL_EDGE:
            holder = self._slot(state, seat, decoded)
            state.edge_over[holder] = None
            state.say(seat, "{} undoes {}'s trick", me.name, state.fighters[holder].name)
        elif kind == Kind.HAND_WEAPON:
            self._hand_weapon(state, seat, self._slot(state, seat, decoded))
        elif kind == Kind.HAND_AMMO:
            ally = self._slot(state, seat, decoded)
            state.ammo[seat] = state.ammo[ally] = Ammo.SHARED  # §13.7: both, next check
            state.say(seat, "{} shares ammunition with {}", me.name, state.fighters[ally].name)
        else:
            state.say(seat, "{} passes", me.name)

    def _move(self, state: GroupState, seat: int, kind: Kind, reference: int) -> None:
        me, them = state.fighters[seat], state.fighters[reference]
        before = me.zone
        if kind == Kind.MOVE_TOWARD:
            me.zone += 1 if them.zone > me.zone else -1
        elif kind == Kind.RELOCATE_NEAR:
            me.zone = 2 * them.zone - me.zone
        else:
            away = _away_zone(state, seat, reference)
            if away is None:  # §9 ASSUMPTION: leaving the map while Far is flight
                self._out(state, seat, Standing.FLED, "flees the fight")
                return
            me.zone = away
        me.in_cover = False  # §10 #17: cover lasts until leaving the zone
        state.say(
            seat,
            "{} moves from zone {} to {}: {} {}",
            me.name,
            before,
            me.zone,
            _TOWARD[band(abs(me.zone - them.zone))],
            them.name,
        )

    def _attack(
        self,
        state: GroupState,
        seat: int,
        target: int,
        kind: Kind,
        dice: Dice,
        advantage: int,
        suppressive: bool = False,
    ) -> None:
        held = state.fighters[seat].held
        assert held is not None
        thrown = kind == Kind.THROW_WEAPON
        modifier = reach(held.weapon, state.distance(seat, target), thrown)
        assert modifier is not None
        edge = modifier - suppressive + (state.edge_over[seat] == target) + advantage
        edge -= state.edge_over[target] == seat  # §10 #27: the activator's enemy, Disadvantage
        damage = strike(state, seat, target, thrown, edge, dice, self.options)
        if damage:
            self._harm(state, target, damage)

    def _locate(self, state: GroupState, seat: int, target: int, dice: Dice, foco: bool) -> None:
        me, them = state.fighters[seat], state.fighters[target]
        ok, faces = roll_test(dice, me.character.instinto, int(foco), "locate (Instinto)")
        if ok:
            them.hidden = False
        state.say(
            seat,
            "{} looks for {}: {}d6 {} vs {} -> {}",
            me.name,
            them.name,
            len(faces),
            faces,
            me.character.instinto,
            "found" if ok else "nothing",
        )

    def _interact(
        self, state: GroupState, seat: int, decoded: Decoded, dice: Dice, foco: bool
    ) -> None:
        me = state.fighters[seat]
        index = next(
            i
            for i, o in enumerate(state.scenario.objects)
            if o.zone == me.zone and o.interact and not state.spent[i]
        )
        state.spent[index] = True  # one use: the object is spent either way
        if decoded.kind == Kind.INTERACT_EDGE:
            target = self._slot(state, seat, decoded)
            state.edge_over[seat] = target
            state.say(
                seat,
                "{} uses the terrain against {}: Advantage",
                me.name,
                state.fighters[target].name,
            )
        elif decoded.kind == Kind.INTERACT_BLOCK:
            boundary = min(me.zone, me.zone + decoded.offset)
            state.blocked.add(boundary)  # §10 ASSUMPTION: closed for the whole combat
            state.say(
                seat, "{} blocks the way between zones {} and {}", me.name, boundary, boundary + 1
            )
        else:
            self._area_damage(state, seat, me.zone + decoded.offset, foco, dice)

    def _area_damage(self, state: GroupState, seat: int, area: int, foco: bool, dice: Dice) -> None:
        """§13.5: one Talento Test with Disadvantage; on success every active fighter in
        the zone, allies and the activator included, takes 1 PG through its armour."""
        me = state.fighters[seat]
        ok, faces = roll_test(dice, me.character.talento, int(foco) - 1, "area damage (Talento)")
        state.say(
            seat,
            "{} brings the terrain down on zone {}: {}d6 {} vs {} -> {}",
            me.name,
            area,
            len(faces),
            faces,
            me.character.talento,
            "success" if ok else "failure",
        )
        if ok:
            for other in range(state.seats):
                if state.active(other) and state.fighters[other].zone == area:
                    self._harm(state, other, 1)

    def _hand_weapon(self, state: GroupState, seat: int, ally: int) -> None:
        """§13.4: the spare (else the weapon in hand) passes to an ally in the same zone,
        stowed unless `handover_in_hand`; a loaded gun stays loaded."""
        me, them = state.fighters[seat], state.fighters[ally]
        kept = [i for i, h in enumerate(me.weapons) if not h.lost]
        spare = [i for i in kept if i != me.in_hand]
        index = spare[0] if spare else kept[0]
        item = me.weapons.pop(index)
        if me.in_hand == index:
            me.in_hand = None
        elif me.in_hand is not None and me.in_hand > index:
            me.in_hand -= 1
        them.weapons.append(item)
        if self.options.handover_in_hand:
            them.in_hand = len(them.weapons) - 1
        state.say(
            seat,
            "{} hands the {} to {}{}",
            me.name,
            item.weapon.name,
            them.name,
            ", in hand" if self.options.handover_in_hand else ", stowed",
        )

    # --- suppressive fire (§13.6) -------------------------------------------------------

    def _suppressors_of(self, state: GroupState, seat: int, zone: int) -> list[int]:
        """The active enemies of `seat` suppressing `zone`, in this round's order."""
        return [
            s
            for s in state.order
            if state.sides[s] != state.sides[seat]
            and state.active(s)
            and state.fighters[s].suppressing == zone
        ]

    def _acting_shooters(self, state: GroupState, seat: int, kind: Kind) -> list[int]:
        """Suppressors owed an acting Shot: `seat` began its turn in their zone, is still
        there, and takes its first Action there other than leaving, hiding or
        protecting itself (once a turn, none after an entry Shot)."""
        me = state.fighters[seat]
        if kind in UNSUPPRESSED or me.zone != state.turn_zone:
            return []
        return [s for s in self._suppressors_of(state, seat, me.zone) if s not in state.drew_fire]

    def _suppressive_shots(
        self, state: GroupState, seat: int, shooters: list[int], dice: Dice
    ) -> None:
        for shooter in shooters:
            state.drew_fire.add(shooter)
            if not state.active(seat) or not self._can_suppress(state, shooter, seat):
                continue
            fighter = state.fighters[shooter]
            state.say(shooter, "{}'s suppressive fire answers", fighter.name)
            self._attack(state, shooter, seat, Kind.SHOT, dice, advantage=0, suppressive=True)
            held = fighter.held
            if held is not None and held.weapon.heavy:
                fighter.suppressing = None  # §10 #20: one shot, then it needs reloading

    def _can_suppress(self, state: GroupState, shooter: int, target: int) -> bool:
        """Every suppressive Shot is a normal Shot: a ready gun in reach, a target seen."""
        held = state.fighters[shooter].held
        return (
            not state.fighters[target].hidden
            and self._gun_ready(state, shooter)
            and held is not None
            and reach(held.weapon, state.distance(shooter, target)) is not None
        )

    # --- ammunition (§13.7) -------------------------------------------------------------

    def _mid_combat_check(self, state: GroupState, seat: int, dice: Dice) -> None:
        """The GM's check during the fight: one PJ saves, its side's Karma gains 1 PK."""
        fighter = state.fighters[seat]
        shared = state.ammo[seat] == Ammo.SHARED
        ok, faces = roll_test(dice, fighter.character.suerte, -shared, "ammo check")
        if not ok:
            state.ammo[seat] = Ammo.EMPTY
        state.karma[state.sides[seat]] += 1
        state.say(
            seat,
            "The GM calls an ammo check: {} {}d6 {} vs {} -> {}; side {} gains 1 PK",
            fighter.name,
            len(faces),
            faces,
            fighter.character.suerte,
            "keeps some ammunition" if ok else "has none left",
            "AB"[state.sides[seat]],
        )

    def _ammo_checks(self, state: GroupState, dice: Dice) -> None:
        """Seed (Chequeos de munición): after the combat, each PJ who used projectiles
        saves, in id order: Advantage if its side won and looted ammunition it can use,
        Disadvantage if it shared (§13.7)."""
        result = state.result
        for seat, f in enumerate(state.fighters):
            if not f.used_projectiles or f.character.role != _PJ:
                continue
            won = result is not None and result.winner == state.sides[seat]
            looted = won and any(
                _ammo_types(state.fighters[e]) & _ammo_types(f)
                for e in state.enemies(seat)
                if state.standing[e] in (Standing.DOWN, Standing.SURRENDERED)
            )
            edge = int(looted) - (state.ammo[seat] == Ammo.SHARED)
            ok, faces = roll_test(dice, f.character.suerte, edge, "ammo check")
            verdict = "keeps some ammunition" if ok else "has used it all up"
            if not ok:
                state.ammo[seat] = Ammo.EMPTY
            state.ammo_checks.append(f"{f.name}: {verdict}")
            state.say(
                seat,
                "Ammo check: {} {}d6 {} vs {} -> {}",
                f.name,
                len(faces),
                faces,
                f.character.suerte,
                verdict,
            )


def _open(state: GroupState, start: int, end: int) -> bool:
    """Whether a one-zone move from `start` to `end` crosses no blocked boundary."""
    return min(start, end) not in state.blocked


def _away_zone(state: GroupState, seat: int, reference: int) -> int | None:
    """Where a move away from `reference` leads; from its zone, toward the side with more
    room (§6); None off the map."""
    me, them = state.fighters[seat], state.fighters[reference]
    zones = state.scenario.zones
    if me.zone == them.zone:
        direction = 1 if zones - 1 - me.zone > me.zone else -1
    else:
        direction = 1 if me.zone > them.zone else -1
    target = me.zone + direction
    return target if 0 <= target < zones else None


def _ammo_types(fighter: Combatant) -> set[WeaponClass]:
    """§13.7 "del mismo tipo": the ranged classes a fighter carries, not lost."""
    return {h.weapon.cls for h in fighter.weapons if not h.lost and h.weapon.cls in _RANGED}
