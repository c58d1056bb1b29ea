"""Skirmish combat (seed: Posición y Distancia, Establecer la iniciativa, Acciones en
combate, Objetos del terreno, Chequeos de munición, Tipos de armas, Recarga lenta,
Armas arrojadizas improvisadas, Tipos de armaduras; digest §4-§9).

Two Actions a turn, one decision each; zones on a line stand for the Adjacent /
Near / Far bands (digest §6 zone model); terrain objects give cover, hiding and
one-use tricks. The actions and state live in `skirmish_state.py`, what a
combatant sees in `skirmish_observation.py`; this module holds the rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from duelo.envs.core.config import fight_of, options_of
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import DUEL_SIDES, SEATS, seat_names
from duelo.envs.core.state import Outcome
from duelo.envs.esgrima.mechanics import Body, first_by_initiative, roll_initiative, roll_test
from duelo.envs.esgrima.setup import (
    Armour,
    Catalog,
    Character,
    EsgrimaOptions,
    Layout,
    Role,
    Weapon,
    WeaponClass,
    load_catalog,
)
from duelo.envs.esgrima.skirmish_observation import OBSERVATION_SPEC, observe
from duelo.envs.esgrima.skirmish_state import (
    ACTIONS_PER_TURN,
    ATTACKS,
    BANDS,
    INTERACTIONS,
    MEANINGS,
    MOVES,
    QUIET,
    UNSUPPRESSED,
    Combatant,
    Held,
    SkirmishAction,
    SkirmishState,
    band,
    reach,
)

_HEAVY, _PJ = Armour.HEAVY, Role.PJ  # bound once: read on every mask
_LIGHT_MELEE = WeaponClass.LIGHT_MELEE

DELAY_EPSILON = 0.01
"""§10 #10: a delayer's score sits just below the combatant it waits for."""


def _open(state: SkirmishState, start: int, end: int) -> bool:
    """Whether a one-zone move from `start` to `end` crosses no blocked boundary."""
    return min(start, end) not in state.blocked


def needs_loading(weapon: Weapon, options: EsgrimaOptions) -> bool:
    """Heavy ranged always; light ranged only with `light_reload = action` (§5)."""
    return weapon.cls == WeaponClass.HEAVY_RANGED or (
        weapon.cls == WeaponClass.LIGHT_RANGED and options.light_reload == "action"
    )


def next_weapon(fighter: Combatant) -> int | None:
    """The weapon a Draw takes in hand: the next carried one, not lost (§5)."""
    count = len(fighter.weapons)
    start = -1 if fighter.in_hand is None else fighter.in_hand
    for step in range(1, count + 1):
        index = (start + step) % count
        if index != fighter.in_hand and not fighter.weapons[index].lost:
            return index
    return None


def hurt(state: Any, seat: int, damage: int) -> None:
    """One hit of `damage` PG on `seat` through its armour (§7), narrated."""
    target: Combatant = state.fighters[seat]
    before = target.body.armour_pts
    target.body.take_damage(damage)
    state.say(
        seat,
        "{} PG at {}: armour {} -> {}, PG {}/{}",
        damage,
        target.name,
        before,
        target.body.armour_pts,
        target.body.pg,
        target.body.pg_max,
    )


def strike(
    state: Any, seat: int, target: int, thrown: bool, edge: int, dice: Dice, options: EsgrimaOptions
) -> int:
    """One attack of `seat` at `target` with the weapon in hand (seed: Ataque, Disparo,
    Armas arrojadizas improvisadas, Evasión): `edge` is the reach's modifier with the
    attacker's own Advantages; cover adds the shooter's Disadvantage (§10 #7). Returns
    the PG the blow deals, 0 for a miss or an evaded blow."""
    me: Combatant = state.fighters[seat]
    them: Combatant = state.fighters[target]
    held = me.held
    assert held is not None
    weapon = held.weapon
    ranged = thrown or not weapon.melee
    if ranged and them.in_cover:
        edge -= 1  # §10 #7 attacker rolls: cover gives the shooter Disadvantage
    rating = me.character.punteria if ranged else me.character.melee_rating
    if thrown:
        held.lost = True  # seed: lost for the rest of the combat
        me.in_hand = None
    elif ranged and needs_loading(weapon, options):
        held.loaded = False
    if ranged:
        me.used_projectiles = True
    successes, faces = roll_test(dice, rating, edge, "attack")
    verb = "throws the" if thrown else ("shoots with the" if ranged else "strikes with the")
    label = {1: ", Advantage", -1: ", Disadvantage"}.get(max(-1, min(1, edge)), "")
    line = (
        f"{me.name} {verb} {weapon.name} at {them.name}: {len(faces)}d6 {faces} vs {rating}{label}"
    )
    if not successes:
        state.say(seat, line + " -> miss")
        return 0
    state.say(seat, line + " -> hit")
    if them.evading:  # seed: Evasión, a Reflejos save with Disadvantage
        saved, save_faces = roll_test(dice, them.character.reflejos, -1, "evasion")
        state.say(
            target,
            "{} tries to evade: 1d6 {} vs {} -> {}",
            them.name,
            save_faces,
            them.character.reflejos,
            "evaded" if saved else "hit",
        )
        if saved:
            return 0
    return 1 if thrown else weapon.damage


OWN_ACTIONS = frozenset({"EVADE", "DRAW_WEAPON", "RELOAD", "FOCALIZAR", "TAKE_COVER", "HIDE"})
"""The Actions that act on their actor alone, alike one on one and in group play (§5):
`own_action` resolves them by name."""


def own_action(
    state: Any, seat: int, name: str, dice: Dice, foco: bool, options: EsgrimaOptions
) -> None:
    """Resolve one of `OWN_ACTIONS` for `seat` (seed: Acciones en combate)."""
    me: Combatant = state.fighters[seat]
    c = me.character
    if name == "EVADE":
        me.evading = True
        state.say(seat, "{} gets ready to evade", me.name)
    elif name == "DRAW_WEAPON":
        drawn = next_weapon(me)
        assert drawn is not None  # the mask offers a draw only with a weapon to draw
        me.in_hand = drawn
        state.say(seat, "{} draws the {}", me.name, me.weapons[drawn].weapon.name)
    elif name == "RELOAD":
        held = me.held
        assert held is not None
        if me.reload_pending:  # Recarga lenta: the next Action reloads automatically
            held.loaded = True
            me.reload_pending = False
            state.say(seat, "{} finishes reloading the {}", me.name, held.weapon.name)
        elif held.weapon.cls == WeaponClass.LIGHT_RANGED:  # light_reload = action: no Test
            held.loaded = True
            state.say(seat, "{} reloads the {}", me.name, held.weapon.name)
        else:
            ok, faces = roll_test(dice, c.tecnica, int(foco), "reload (Técnica)")
            held.loaded = bool(ok)
            me.reload_pending = not ok
            state.say(
                seat,
                "{} reloads the {}: {}d6 {} vs {} -> {}",
                me.name,
                held.weapon.name,
                len(faces),
                faces,
                c.tecnica,
                "loaded" if ok else "fumbling",
            )
    elif name == "FOCALIZAR":
        roll = dice.roll(6, "focalizar")
        me.initiative += roll
        me.foco_next = True  # seed: Foco for the next Action only
        state.say(seat, "{} focuses: initiative +{} = {:g}, Foco", me.name, roll, me.initiative)
    elif name == "TAKE_COVER":
        me.in_cover = True
        state.say(seat, "{} takes cover", me.name)
    else:  # HIDE
        ok, faces = roll_test(dice, c.discrecion, int(foco), "hide (Discreción)")
        me.hidden = bool(ok)
        state.say(
            seat,
            "{} tries to hide: {}d6 {} vs {} -> {}",
            me.name,
            len(faces),
            faces,
            c.discrecion,
            "hidden" if ok else "seen",
        )


class EsgrimaSkirmishRuleset:
    """Esgrima skirmish between two combatants on a terrain layout (DESIGN.md layer 2).

    Args:
        scenario: a layout id of `configs/esgrima/layouts.yaml` or a `Layout`.
        fighters: two character ids or `Character`s; None takes the layout's.
        options: `EsgrimaOptions` or a dict of its fields.
        catalog: None loads the packaged configs.
    """

    system = "esgrima"
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = True
    version = 2
    actions = SkirmishAction
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | Layout = "ship_deck",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: EsgrimaOptions | dict[str, Any] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.catalog = catalog or load_catalog()
        self.layout, self.characters = fight_of(
            scenario, fighters, (Layout, self.catalog.layout), (Character, self.catalog.character)
        )
        self.options = options_of(EsgrimaOptions, options, "esgrima options")
        self.round_cap = self.options.round_cap

    # --- the ruleset interface ---------------------------------------------------

    def new_duel(self, dice: Dice) -> SkirmishState:
        names = seat_names(*(c.name for c in self.characters))
        fighters = [
            Combatant(
                c,
                names[seat],
                Body.of(c),
                self.layout.start[seat],
                [Held(self.catalog.weapons[w]) for w in c.weapons],
            )
            for seat, c in enumerate(self.characters)
        ]
        state = SkirmishState(
            self.layout, self.options, fighters, [False] * len(self.layout.objects)
        )
        state.say(
            None,
            "Skirmish on {}: {} vs {}, {}",
            self.layout.id,
            names[0],
            names[1],
            BANDS[band(state.distance())],
        )
        for seat, fighter in enumerate(fighters):
            fixed = self._keeps_pnj_initiative(fighter.character, fighters[1 - seat].character)
            fighter.initiative, note = roll_initiative(dice, fighter.name, fixed)
            state.say(seat, "Initiative: {}", note)
        first, notes = first_by_initiative(dice, (fighters[0].initiative, fighters[1].initiative))
        for note in notes:
            state.say(None, note)
        state.order = [first, 1 - first]
        self._start_round(state, dice)
        return state

    def to_act(self, state: SkirmishState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: SkirmishState, seat: int) -> np.ndarray:
        mask = np.zeros(len(SkirmishAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        me, them = state.fighters[seat], state.fighters[1 - seat]
        distance = state.distance()
        near = band(distance) <= 1
        held = me.held
        weapon = held.weapon if held else None
        zones = state.layout.zones
        objects = state.layout.objects
        here = [i for i, o in enumerate(objects) if o.zone == me.zone]
        visible = not them.hidden  # seed: no attack may target a hidden combatant
        in_reach = weapon is not None and reach(weapon, distance) is not None
        ranged_ready = (
            held is not None
            and not held.weapon.melee
            and (held.loaded or not needs_loading(held.weapon, self.options))
        )
        toward = me.zone + (1 if them.zone > me.zone else -1)
        away = self._away_zone(state, seat)
        other_side = 2 * them.zone - me.zone
        interact = any(objects[i].interact and not state.spent[i] for i in here)
        mask[:] = [  # in SkirmishAction order (a hot path: one list, one store)
            distance > 0 and _open(state, me.zone, toward),  # MOVE_TOWARD
            # MOVE_AWAY: at the edge while Far, it is flight
            _open(state, me.zone, away) if away is not None else band(distance) == 2,
            distance == 1  # RELOCATE_NEAR
            and 0 <= other_side < zones
            and _open(state, me.zone, them.zone)
            and _open(state, them.zone, other_side),
            visible and in_reach and held is not None and held.weapon.melee,  # MELEE_ATTACK
            visible and ranged_ready and in_reach,  # SHOT
            visible and weapon is not None and weapon.cls == _LIGHT_MELEE,  # THROW_WEAPON
            me.body.armour != _HEAVY or me.character.shield,  # EVADE
            next_weapon(me) is not None,  # DRAW_WEAPON
            held is not None  # RELOAD
            and needs_loading(held.weapon, self.options)
            and not held.loaded,
            True,  # FOCALIZAR
            them.hidden and near,  # LOCATE
            ranged_ready and in_reach,  # SUPPRESSIVE_FIRE
            not me.in_cover and any(objects[i].cover for i in here),  # TAKE_COVER
            not me.hidden and any(objects[i].hide for i in here),  # HIDE
            interact and not me.edge,  # INTERACT_EDGE
            interact and near,  # INTERACT_AREA
            them.edge,  # CANCEL_EDGE
            True,  # PASS
            True,  # SURRENDER
            state.actions_left == ACTIONS_PER_TURN  # DELAY
            and state.turn_index == 0
            and state.delayed_round != state.round
            and (me.character.role == _PJ or self.options.delay == "all"),
            interact and distance > 0 and _open(state, me.zone, toward),  # INTERACT_BLOCK
        ]
        return mask

    def apply(self, state: SkirmishState, seat: int, action: int, dice: Dice) -> None:
        action = SkirmishAction(action)
        if action == SkirmishAction.DELAY:
            self._delay(state, seat)
            return
        me = state.fighters[seat]
        zone_before = me.zone
        foco = me.foco_next
        me.foco_next = False  # Foco lasts for the next Action only (§3 ASSUMPTION)
        if action != SkirmishAction.RELOAD:
            me.reload_pending = False  # Recarga lenta: any other Action in between
        was_hidden = me.hidden
        if me.hidden and action not in QUIET:
            me.hidden = False
            state.say(seat, "{} leaves hiding", me.name)
        if action == SkirmishAction.SURRENDER:
            state.say(seat, "{} SURRENDERS", me.name)
            self._finish(state, Outcome(1 - seat, f"{me.name} surrenders"), dice)
            return
        if action in MOVES:
            self._move(state, seat, action, dice)
        elif action in ATTACKS:
            self._attack(state, seat, action, dice, advantage=foco + was_hidden)
        else:
            self._other(state, seat, action, dice, foco)
        if state.result is None:
            self._suppression(state, seat, action, zone_before, dice)
        if state.result is None and not self._check_out(state, dice):
            state.actions_left -= 1
            if state.actions_left == 0:
                self._end_turn(state, dice)

    observe = staticmethod(observe)

    def _keeps_pnj_initiative(self, character: Character, other: Character) -> bool:
        """Seed (Establecer la iniciativa): a PNJ has a fixed 7.5; two PNJs would always
        tie, so by default both roll 2d6 (digest §10 #8, option `npc_initiative`)."""
        if character.role != Role.PNJ:
            return False
        mode = self.options.npc_initiative
        return mode == "fixed" or (mode == "pair_rolls" and other.role == Role.PJ)

    # --- rounds and turns ---------------------------------------------------------

    def _start_round(self, state: SkirmishState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            self._ammo_checks(state, dice)  # the combat is over, however it ended
            return
        a, b = (state.fighters[s].initiative for s in SEATS)
        if a != b:  # §10 #9: re-sorted each round, so Focalizar counts from the next one
            state.order = [0, 1] if a > b else [1, 0]
        state.turn_index = 0
        state.say(None, "--- Round {} ---", state.round)
        self._begin_turn(state, state.order[0])

    def _begin_turn(self, state: SkirmishState, seat: int) -> None:
        fighter = state.fighters[seat]
        # seed: evasion, suppressive fire and an Interact edge last until this moment
        fighter.evading = False
        fighter.suppressing = None
        fighter.edge = False
        state.current = seat
        state.actions_left = ACTIONS_PER_TURN
        state.say(seat, "{}'s turn", fighter.name)

    def _delay(self, state: SkirmishState, seat: int) -> None:
        """Seed (Retrasar el turno): act right after the opponent, keeping the new score.

        Not an Action; only before acting, once a round, and only to a later slot
        (§4 step 5 ASSUMPTIONS: the score becomes the opponent's - 0.01).
        """
        me, them = state.fighters[seat], state.fighters[1 - seat]
        me.initiative = them.initiative - DELAY_EPSILON
        state.order = [1 - seat, seat]
        state.delayed_round = state.round
        state.say(
            seat, "{} delays, acting after {} (initiative {:g})", me.name, them.name, me.initiative
        )
        self._begin_turn(state, 1 - seat)

    def _end_turn(self, state: SkirmishState, dice: Dice) -> None:
        state.turn_index += 1
        if state.turn_index < len(state.order):
            self._begin_turn(state, state.order[state.turn_index])
        else:
            self._start_round(state, dice)

    def _check_out(self, state: SkirmishState, dice: Dice) -> bool:
        out = [f.body.out for f in state.fighters]
        if not any(out):
            return False
        if all(out):
            self._finish(state, Outcome(None, "both fall"), dice)
        else:
            loser = out.index(True)
            self._finish(state, Outcome(1 - loser, f"{state.fighters[loser].name} falls"), dice)
        return True

    def _finish(self, state: SkirmishState, outcome: Outcome, dice: Dice) -> None:
        state.finish(outcome)
        self._ammo_checks(state, dice)  # seed (Chequeos de munición): after the combat

    def _ammo_checks(self, state: SkirmishState, dice: Dice) -> None:
        """Seed (Chequeos de munición): a Luck save for whoever used projectiles."""
        for seat, f in enumerate(state.fighters):
            if f.used_projectiles:
                successes, faces = roll_test(dice, f.character.suerte, 0, "ammo check")
                verdict = "keeps some ammunition" if successes else "has used it all up"
                state.say(
                    seat,
                    "Ammo check: {} 2d6 {} vs {} -> {}",
                    f.name,
                    faces,
                    f.character.suerte,
                    verdict,
                )

    # --- actions -------------------------------------------------------------------

    @staticmethod
    def _away_zone(state: SkirmishState, seat: int) -> int | None:
        """Where Move away leads; from Adjacent, toward the side with more room (§6)."""
        me, them = state.fighters[seat], state.fighters[1 - seat]
        zones = state.layout.zones
        if me.zone == them.zone:
            direction = 1 if zones - 1 - me.zone > me.zone else -1
        else:
            direction = 1 if me.zone > them.zone else -1
        target = me.zone + direction
        return target if 0 <= target < zones else None

    def _move(self, state: SkirmishState, seat: int, action: SkirmishAction, dice: Dice) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        before = me.zone
        if action == SkirmishAction.MOVE_TOWARD:
            me.zone += 1 if them.zone > me.zone else -1
        elif action == SkirmishAction.RELOCATE_NEAR:
            me.zone = 2 * them.zone - me.zone
        else:
            target = self._away_zone(state, seat)
            if target is None:  # §9 ASSUMPTION: leaving the map while Far is flight
                state.say(seat, "{} flees the fight", me.name)
                self._finish(state, Outcome(1 - seat, f"{me.name} flees"), dice)
                return
            me.zone = target
        me.in_cover = False  # §10 #17: cover lasts until leaving the zone
        state.say(
            seat,
            "{} moves from zone {} to {}: {}",
            me.name,
            before,
            me.zone,
            BANDS[band(state.distance())],
        )

    def _attack(
        self,
        state: SkirmishState,
        seat: int,
        action: SkirmishAction,
        dice: Dice,
        advantage: int,
        suppressive: bool = False,
    ) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        held = me.held
        assert held is not None
        weapon = held.weapon
        distance = state.distance()
        thrown = action == SkirmishAction.THROW_WEAPON
        modifier = reach(weapon, distance, thrown)
        assert modifier is not None
        edge = modifier - suppressive + me.edge + advantage - them.edge  # §10 #27
        damage = strike(state, seat, 1 - seat, thrown, edge, dice, self.options)
        if damage:
            hurt(state, 1 - seat, damage)

    def _other(
        self, state: SkirmishState, seat: int, action: SkirmishAction, dice: Dice, foco: bool
    ) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        c = me.character
        if action.name in OWN_ACTIONS:
            own_action(state, seat, action.name, dice, foco, self.options)
        elif action == SkirmishAction.LOCATE:
            ok, faces = roll_test(dice, c.instinto, int(foco), "locate (Instinto)")
            if ok:
                them.hidden = False
            state.say(
                seat,
                "{} looks for {}: {}d6 {} vs {} -> {}",
                me.name,
                them.name,
                len(faces),
                faces,
                c.instinto,
                "found" if ok else "nothing",
            )
        elif action == SkirmishAction.SUPPRESSIVE_FIRE:
            me.suppressing = them.zone  # §10 #28: the opponent's zone
            state.say(seat, "{} lays suppressive fire on zone {}", me.name, them.zone)
        elif action in INTERACTIONS:
            index = next(
                i
                for i, o in enumerate(state.layout.objects)
                if o.zone == me.zone and o.interact and not state.spent[i]
            )
            state.spent[index] = True  # one use: the object is spent either way
            if action == SkirmishAction.INTERACT_EDGE:
                me.edge = True
                state.say(seat, "{} uses the terrain against {}: Advantage", me.name, them.name)
            elif action == SkirmishAction.INTERACT_BLOCK:
                toward = me.zone + (1 if them.zone > me.zone else -1)
                boundary = min(me.zone, toward)
                state.blocked.add(boundary)  # §10 ASSUMPTION: closed for the whole combat
                state.say(
                    seat,
                    "{} blocks the way between zones {} and {}",
                    me.name,
                    boundary,
                    boundary + 1,
                )
            else:
                self._area_damage(state, seat, foco, dice)
        elif action == SkirmishAction.CANCEL_EDGE:
            them.edge = False
            state.say(seat, "{} undoes {}'s trick", me.name, them.name)
        else:
            state.say(seat, "{} passes", me.name)

    def _area_damage(self, state: SkirmishState, seat: int, foco: bool, dice: Dice) -> None:
        """One Talento Test with Disadvantage; 1 PG to everyone in the area (§8.3)."""
        me, them = state.fighters[seat], state.fighters[1 - seat]
        area = them.zone  # §10 #28, #19: the opponent's zone, within Near
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
            for index, fighter in enumerate(state.fighters):
                if fighter.zone == area:
                    hurt(state, index, 1)

    def _suppression(
        self, state: SkirmishState, seat: int, action: SkirmishAction, zone_before: int, dice: Dice
    ) -> None:
        """Out-of-turn Shots with Disadvantage at an enemy in a suppressed zone (§8.2)."""
        me, shooter = state.fighters[seat], state.fighters[1 - seat]
        area = shooter.suppressing
        if area is None or me.zone != area or me.hidden or action == SkirmishAction.SURRENDER:
            return
        entered = zone_before != area
        if not entered and action in UNSUPPRESSED:
            return
        held = shooter.held
        if held is None or held.weapon.melee or reach(held.weapon, state.distance()) is None:
            return
        if needs_loading(held.weapon, self.options) and not held.loaded:
            return
        state.say(1 - seat, "{}'s suppressive fire answers", shooter.name)
        self._attack(state, 1 - seat, SkirmishAction.SHOT, dice, advantage=0, suppressive=True)
        if held.weapon.heavy:
            shooter.suppressing = None  # §10 #20: one shot, then it needs reloading
