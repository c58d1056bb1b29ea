"""Liminal skirmishes: a party against several enemies and a mob (digest §13).

The duel's tests, weapons and draws are reused (`LiminalRuleset`: `_test`, the weapon
at hand, the free draw, the better weapon); what a third fighter brings is here:
positions on the half-band track and a range between any two (§13.1), the party's
initiative against the enemy's best Perception and the round order it gives (§13.2),
a target for every attack (§13.3) with -2 to pick one out of a tight group, the
critical that draws an enemy's next attack (§13.4) and the one that lets an ally
withdraw (§13.5), a mob split among the heroes, spilling within a group, rebalanced
when a hero falls, broken as a whole and tended after the fight (§13.6), and the end
of the fight when a side is out (§13.7).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from duelo.envs.core.config import ConfigError, entry_of, options_of, party_of, require_known
from duelo.envs.core.dice import Dice
from duelo.envs.core.ruleset import fighter_names
from duelo.envs.core.state import Outcome
from duelo.envs.liminal.mob import MEMBER_ENDURANCE, attack_level
from duelo.envs.liminal.odds import STANDARD_CL, Grade, challenge, roll
from duelo.envs.liminal.rules import (
    MODIFIER,
    SOCIAL_REACH,
    LiminalRuleset,
    ranged_for,
    strength_bonuses,
)
from duelo.envs.liminal.setup import OUT, TRACK, Band, Character, Weapon
from duelo.envs.liminal.skirmish_observation import SKIRMISH_SPEC, observe_skirmish
from duelo.envs.liminal.skirmish_setup import (
    SkirmishCatalog,
    SkirmishOptions,
    SkirmishScenario,
    load_skirmish_catalog,
)
from duelo.envs.liminal.skirmish_state import (
    ALLY_SLOTS,
    DECODED,
    MEANINGS,
    Decoded,
    Group,
    Hit,
    SkirmishAction,
    SkirmishState,
    Standing,
)
from duelo.envs.liminal.skirmish_state import Kind as Do
from duelo.envs.liminal.state import Fighter, Phase

PARTY, ENEMY = 0, 1
FAST_STEPS = 2
"""Seed: 60 paces instead of 30 (§5, §6): two steps of the track."""


class LiminalSkirmishRuleset(LiminalRuleset):
    """Liminal fights of up to four individuals a side and a mob (DESIGN.md layer 2).

    Args:
        scenario: a skirmish id of `configs/liminal/skirmishes.yaml` or a
            `SkirmishScenario`.
        fighters: a character id or `Character` for every individual, the party's
            first; None takes the scenario's.
        options: `SkirmishOptions` or a dict of its fields (the duel's GM rulings and
            §13's).
        catalog: weapons, characters and skirmishes; None loads the packaged ones.
    """

    system = "liminal_skirmish"
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
            "the party's first",
        )
        for character in self.characters:
            for i, weapon_id in enumerate(character.weapons):
                require_known(weapon_id, catalog.weapons, f"{character.id}.weapons[{i}]", "weapon")
        self.mob_weapon = catalog.weapons["unarmed"]
        if self.skirmish.mob is not None and self.skirmish.mob.armed:
            require_known("improvised", catalog.weapons, "the armed mob's weapon", "weapon")
            self.mob_weapon = catalog.weapons["improvised"]  # seed L83: 1d6+1 armed
        self.options = options_of(SkirmishOptions, options, "liminal skirmish options")
        if self.options.initiative_mode != "roller":
            raise ConfigError(
                "liminal skirmish options: initiative_mode is the duel's; in a skirmish the "
                "party rolls against the best enemy Perception (§13.2)"
            )
        self.round_cap = self.options.round_cap
        self.catalog = catalog  # type: ignore[assignment]  # its weapons read as the duel's
        self.unarmed = catalog.weapons["unarmed"]
        self.strength_bonus = strength_bonuses(self.options)
        self.sides = tuple(
            [PARTY] * len(self.skirmish.party) + [ENEMY] * len(self.skirmish.enemies)
        )

    # --- the ruleset interface ------------------------------------------------------

    def new_duel(self, dice: Dice) -> SkirmishState:
        posts = self.skirmish.posts
        names = fighter_names([c.name for c in self.characters], self.sides)
        fighters = [
            Fighter(
                character=c,
                name=names[seat],
                carried=[self.catalog.weapons[w] for w in c.weapons],
                endurance=c.endurance_max,
                in_cover=posts[seat].in_cover,
                high_ground=posts[seat].high_ground,
                unseen=posts[seat].unseen,
            )
            for seat, c in enumerate(self.characters)
        ]
        party = [seat for seat, side in enumerate(self.sides) if side == PARTY]
        mob = self.skirmish.mob
        groups = _split(mob.members, party) if mob is not None else []
        state = SkirmishState(
            scenario=self.skirmish,  # type: ignore[arg-type]  # kept, never read
            options=self.options,
            fighters=fighters,
            distance=0,  # the duel's one distance: a skirmish has a range per pair
            sides=self.sides,
            standing=[Standing.ACTIVE] * len(fighters),
            groups=groups,
            positions=[post.pos for post in posts]
            + [posts[g.hero].pos + (mob.distance if mob else 0) for g in groups],
            mob_start=mob.members if mob is not None else 0,
            mob_armed=mob is not None and mob.armed,
            before=[False] * len(fighters),
        )
        state.say(
            None,
            "Skirmish {}: {} against {}{}",
            self.skirmish.id,
            ", ".join(fighters[s].name for s in party),
            ", ".join(fighters[s].name for s in state.enemies(party[0])),
            f" and a mob of {mob.members}" if mob is not None else "",
        )
        for group in groups:
            state.say(
                None,
                "{} members go for {}",
                len(group.members),
                fighters[group.hero].name,
            )
        self._initiative_of_party(state, dice)
        self._start_skirmish_round(state, dice)
        return state

    def legal_actions(self, state: Any, seat: int) -> np.ndarray:
        assert isinstance(state, SkirmishState)
        mask = np.zeros(len(SkirmishAction), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        if state.phase == Phase.CRIT_ATTACK:
            self._attack_crit_mask(state, seat, mask)
        elif state.phase == Phase.CRIT_DEFEND:
            mask[_INDEX[Do.DEFEND_PERFECT_COVER, ""]] = True
            mask[_INDEX[Do.DEFEND_WITHDRAW, ""]] = True
            for slot, ally in zip(ALLY_SLOTS, state.allies(seat), strict=False):
                mask[_INDEX[Do.ALLY_WITHDRAWS, slot]] = state.active(ally)
        elif not state.moved:
            self._move_mask(state, seat, mask)
        else:
            self._deed_mask(state, seat, mask)
        return mask

    def apply(self, state: Any, seat: int, action: int, dice: Dice) -> None:
        assert isinstance(state, SkirmishState)
        decoded = DECODED[SkirmishAction(action)]
        unit = self._unit(state, seat, decoded)
        kind = decoded.kind
        if state.phase == Phase.CRIT_ATTACK:
            assert state.hit is not None  # a critical hit awaits its effect
            self._resolve_critical(state, state.hit, kind, unit, dice)
        elif state.phase == Phase.CRIT_DEFEND:
            self._defence_crit(state, seat, kind, unit, dice)
        elif kind == Do.RECOVER:
            self._recover_weapon(state, seat, dice)
        elif kind in (Do.HOLD, Do.STEP_BACK, Do.STEP_TO):
            state.moved = True
            if kind != Do.HOLD and not self._walk(state, seat, unit, 1, dice):
                self._finish_turn(state, dice)
        elif kind in (Do.FAST_BACK, Do.FAST_TO):
            self._fast(state, seat, unit, dice)
        elif kind == Do.DEFEND:
            self._stance(state, seat, dice)
        elif kind in (Do.MELEE, Do.SHOOT):
            self._strike(state, seat, unit, kind == Do.MELEE, dice)
        elif kind == Do.SOCIAL:
            self._demand(state, seat, unit, dice)
        else:
            state.say(seat, "{} takes no action", state.fighters[seat].name)
            self._finish_turn(state, dice)

    def observe(self, state: Any, seat: int) -> np.ndarray:
        assert isinstance(state, SkirmishState)
        return observe_skirmish(state, seat, self.strength_bonus, self._holders(state))

    # --- setup, initiative and the round (§13.2) ------------------------------------

    def _initiative_of_party(self, state: SkirmishState, dice: Dice) -> None:
        """Seed L5, L16 (§13.2): each party member, in slot order, rolls Perception
        against 8 + the best Perception among the enemies (a mob counts 0), with no
        unskilled +2; success acts before the enemy every round."""
        enemies = [s for s in range(state.seats) if state.sides[s] == ENEMY]
        cl = STANDARD_CL + max(state.fighters[s].character.perception for s in enemies)
        for seat in range(state.seats):
            if state.sides[seat] != PARTY:
                continue
            me = state.fighters[seat]
            result, faces, total = roll(dice, me.character.perception, cl, "initiative", False)
            state.before[seat] = result != Grade.MISS
            state.say(
                seat,
                "Initiative: {} rolls Perception 2d6 {} = {} vs {}: {}",
                me.name,
                faces,
                total,
                cl,
                "before the enemy" if state.before[seat] else "after the enemy",
            )

    def _holders(self, state: SkirmishState) -> list[int]:
        """The fighters an "act first" critical puts ahead this round, the most recent
        chooser first (§7, §13.2)."""
        return [seat for seat in reversed(state.crit_first) if state.active(seat)]

    def _round_order(self, state: SkirmishState) -> list[int]:
        """§13.2 ASSUMPTION: the crit-first holders, the party members who succeeded,
        the enemy individuals, the mob's groups (by their heroes' slots), the party
        members who failed; each band in slot order."""
        holders = self._holders(state)
        rest = [s for s in range(state.seats) if s not in holders]
        party = [s for s in rest if state.sides[s] == PARTY]
        groups = [state.seats + g for g in range(len(state.groups))]
        return (
            holders
            + [s for s in party if state.before[s]]
            + [s for s in rest if state.sides[s] == ENEMY]
            + groups
            + [s for s in party if not state.before[s]]
        )

    def _start_skirmish_round(self, state: SkirmishState, dice: Dice) -> None:
        if not state.start_round(self.round_cap):
            self._tend_the_fallen(state, dice)
            return
        for fighter in state.fighters:
            fighter.drew_this_round = False
            fighter.acted_this_round = False
        for group in state.groups:
            group.acted = False
        state.crit_first += state.crit_first_next  # "from the next round" (§7)
        state.crit_first_next = []
        state.order = self._round_order(state)
        state.turn_index = -1
        state.say(None, "--- Round {} ---", state.round)
        self._next_unit(state, dice)

    def _next_unit(self, state: SkirmishState, dice: Dice) -> None:
        """The next unit in the order that is still in the fight takes its turn: an
        individual decides; a mob group plays at once (§12's scripted mob). Past the
        last, the next round."""
        state.turn_index += 1
        while state.turn_index < len(state.order):
            unit = state.order[state.turn_index]
            if state.active(unit):
                if unit < state.seats:
                    self._begin(state, unit)
                    return
                self._group_turn(state, unit, dice)
                if state.result is not None:
                    return
            state.turn_index += 1
        self._start_skirmish_round(state, dice)

    def _begin(self, state: SkirmishState, seat: int) -> None:
        fighter = state.fighters[seat]
        fighter.defending = fighter.perfect_cover = False  # until the next action (§7)
        state.current = seat
        state.phase = Phase.MAIN
        state.moved = False
        state.hit = None
        state.say(seat, "{}'s turn", fighter.name)

    def _finish_turn(self, state: SkirmishState, dice: Dice) -> None:
        """The turn is over: a "next target" obligation is spent (§13.4; with
        `taunt_duration` "until_next_attack", only by an attack), a shaken fighter
        steady again (§10 #21); unless the fight ended, the next unit."""
        seat = state.current
        fighter = state.fighters[seat]
        fighter.acted_this_round = True
        fighter.shaken = False
        if state.rulings.taunt_duration == "next_turn":
            state.must_target.pop(seat, None)
        state.phase, state.hit = Phase.MAIN, None
        if state.result is None:
            self._next_unit(state, dice)

    # --- masks -------------------------------------------------------------------

    def _unit(self, state: SkirmishState, seat: int, decoded: Decoded) -> int:
        """The unit a slot names from `seat` (-1 for none)."""
        slot = decoded.slot
        if not slot:
            return -1
        index = int(slot[1:])
        if slot[0] == "E":
            return state.enemies(seat)[index]
        if slot[0] == "A":
            return state.allies(seat)[index - 1]
        return state.seats + index

    def _slots(self, state: SkirmishState, seat: int) -> list[tuple[str, int]]:
        """(slot, unit) of every active unit of the other side, from `seat`."""
        pairs = [(f"E{k}", u) for k, u in enumerate(state.enemies(seat))]
        if state.sides[seat] == PARTY:
            pairs += [(f"M{k}", state.seats + k) for k in range(len(state.groups))]
        return [(slot, unit) for slot, unit in pairs if state.active(unit)]

    def _move_mask(self, state: SkirmishState, seat: int, mask: np.ndarray) -> None:
        """§4, §6, §13.1: hold, a step back or toward an active unit, the fast move
        (the turn's action), recovering a dropped weapon (not in a bonus action)."""
        me = state.fighters[seat]
        targets = self._slots(state, seat) + [
            (slot, ally)
            for slot, ally in zip(ALLY_SLOTS, state.allies(seat), strict=False)
            if state.active(ally)
        ]
        for kind in (Do.HOLD, Do.STEP_BACK, Do.FAST_BACK):
            mask[_INDEX[kind, ""]] = True
        for slot, unit in targets:
            apart = state.between(seat, unit) > 0
            mask[_INDEX[Do.STEP_TO, slot]] = apart
            mask[_INDEX[Do.FAST_TO, slot]] = apart
        mask[_INDEX[Do.RECOVER, ""]] = state.phase == Phase.MAIN and bool(me.dropped)

    def _deed_mask(self, state: SkirmishState, seat: int, mask: np.ndarray) -> None:
        """§5 at the range of each target (§13.3); an enemy bound by a "next target"
        critical names only its critter (§13.4)."""
        me = state.fighters[seat]
        mask[_INDEX[Do.PASS, ""]] = True
        mask[_INDEX[Do.DEFEND, ""]] = True
        bound = state.must_target.get(seat)
        for slot, unit in self._slots(state, seat):
            if bound is not None and unit != bound:
                continue
            covered = unit < state.seats and state.fighters[unit].perfect_cover
            distance = state.between(seat, unit)
            mask[_INDEX[Do.MELEE, slot]] = distance == 0 and not covered
            mask[_INDEX[Do.SHOOT, slot]] = (
                not covered and self._gun(state, me, seat, unit) is not None
            )
            mask[_INDEX[Do.SOCIAL, slot]] = self.options.social_action and distance <= SOCIAL_REACH

    def _attack_crit_mask(self, state: SkirmishState, seat: int, mask: np.ndarray) -> None:
        """§7 and §13.4: +1d6; act first unless it already holds that; disarm an
        individual holding a weapon; become the next target of any active enemy unit,
        with an active ally to protect."""
        hit = state.hit
        assert hit is not None
        mask[_INDEX[Do.CRIT_DAMAGE, ""]] = True
        mask[_INDEX[Do.CRIT_ACT_FIRST, ""]] = seat not in state.crit_first + state.crit_first_next
        target = hit.target
        mask[_INDEX[Do.CRIT_DISARM, ""]] = (
            target < state.seats and state.fighters[target].held is not None
        )
        if any(state.active(ally) for ally in state.allies(seat)):
            for slot, _ in self._slots(state, seat):
                mask[_INDEX[Do.CRIT_TARGET_ME, slot]] = True

    def _gun(self, state: SkirmishState, me: Fighter, seat: int, unit: int) -> Weapon | None:
        """A ranged weapon that reaches `unit`: held, else one to draw (§4, §6). Standing
        with an active enemy (option `adjacent_penalty`: with the target only) it must
        also fire adjacent (a pistol; nothing larger, seed L75, §13.1)."""
        distance = state.between(seat, unit)
        if distance >= OUT:
            return None
        engaged = state.rulings.adjacent_penalty == "any_enemy" and state.engaged(seat)
        return ranged_for(me, {TRACK[distance]} | ({Band.ADJACENT} if engaged else set()))

    # --- movement (§6, §13.1) -------------------------------------------------------

    def _walk(self, state: SkirmishState, seat: int, toward: int, steps: int, dice: Dice) -> bool:
        """Up to `steps` steps toward a unit (never past it), or back (`toward` -1:
        the party's back is -1 on the track, the enemy's +1). False when the move left
        the mover 6 or more from every active enemy: it has withdrawn (§13.1)."""
        fighter = state.fighters[seat]
        before = state.positions[seat]
        if toward >= 0:
            gap = state.positions[toward] - before
            state.positions[seat] = before + int(math.copysign(min(steps, abs(gap)), gap))
        else:
            back = -1 if state.sides[seat] == PARTY else 1
            state.positions[seat] = before + back * steps
        fighter.in_cover = fighter.high_ground = False  # places, lost by moving (§10 #24)
        state.say(seat, "{} moves: position {} -> {}", fighter.name, before, state.positions[seat])
        foes = [u for u in state.foes(seat) if state.active(u)]
        if all(state.between(seat, u) >= OUT for u in foes):
            state.standing[seat] = Standing.WITHDRAWN
            state.say(seat, "{} withdraws from the fight", fighter.name)
            self._fell(state, seat, dice)
            return False
        return True

    def _fast(self, state: SkirmishState, seat: int, toward: int, dice: Dice) -> None:
        """§5, §13.1: two steps as the turn's action; an Athletics test if the mover is
        engaged, near an active enemy, or one can shoot it where it stands (one step
        on a failure)."""
        steps = FAST_STEPS
        if self._under_fire(state, seat):
            result, _ = self._test(
                state, seat, "athletics", STANDARD_CL, dice, "fast move", graded=False
            )
            steps = FAST_STEPS if result != Grade.MISS else 1
        state.moved = True
        self._walk(state, seat, toward, steps, dice)
        self._finish_turn(state, dice)

    def _under_fire(self, state: SkirmishState, unit: int) -> bool:
        """§13.1, §10 #11: who must test a fast move."""
        for foe in state.foes(unit):
            if not state.active(foe):
                continue
            distance = state.between(unit, foe)
            if distance <= 1:
                return True
            if foe < state.seats and self._can_shoot(state.fighters[foe], distance):
                return True
        return False

    # --- the turn's action (§5) ------------------------------------------------------

    def _strike(self, state: SkirmishState, seat: int, unit: int, melee: bool, dice: Dice) -> None:
        state.must_target.pop(seat, None)  # §13.4: the attack it owed is made
        me = state.fighters[seat]
        weapon = self._melee_weapon(me) if melee else self._gun(state, me, seat, unit)
        assert weapon is not None  # the mask allows only attacks with a weapon at hand
        self._draw(me, weapon)
        bonus, notes = self._modifiers(state, seat, unit, weapon, melee)
        cl = STANDARD_CL + self._defence_of(state, unit, melee)
        them = state.fighters[unit] if unit < state.seats else None
        if not melee and them is not None and them.in_cover and not me.in_cover:
            cl += MODIFIER  # §8, §13.1: cover, per shooter
            notes.append("target in cover")
        state.say(
            seat,
            "{} attacks {} with the {}{}",
            me.name,
            self._name(state, unit),
            weapon.name,
            f" ({', '.join(notes)})" if notes else "",
        )
        result, _ = self._test(
            state, seat, "melee" if melee else "shoot", cl, dice, "attack", bonus
        )
        if result == Grade.MISS:
            self._finish_turn(state, dice)
            return
        hit = Hit(seat, unit, weapon, melee)
        if result == Grade.CRITICAL:
            if self.options.crit_choice == "agent":
                state.hit, state.phase = hit, Phase.CRIT_ATTACK
                return
            self._resolve_critical(state, hit, self._fixed_choice(state, hit), -1, dice)
            return
        self._wound(state, hit, dice, extra_die=False)

    def _modifiers(
        self, state: SkirmishState, seat: int, unit: int, weapon: Weapon, melee: bool
    ) -> tuple[int, list[str]]:
        """§8's +-2s at a unit, and §13.1's and §13.3's: the shot fired while adjacent,
        the individual picked out of a tight group."""
        me = state.fighters[seat]
        them = state.fighters[unit] if unit < state.seats else None
        bonus, notes = 0, []
        if melee:
            their = them.weapon if them is not None else self._group_weapon(state)
            if self._better_weapon(weapon, their):
                bonus += MODIFIER
                notes.append("better weapon +2")
            if me.high_ground and not (them is not None and them.high_ground):
                bonus += MODIFIER
                notes.append("high ground +2")
        elif weapon.adjacent_penalty:
            engaged = (
                state.engaged(seat)
                if state.rulings.adjacent_penalty == "any_enemy"
                else state.between(seat, unit) == 0
            )
            if engaged:
                bonus += weapon.adjacent_penalty
                notes.append(f"adjacent {weapon.adjacent_penalty:+d}")
        if them is not None and them.unseen and not me.unseen:
            bonus -= MODIFIER
            notes.append("target unseen -2")
        picked = them is not None and (not melee or state.rulings.group_penalty_melee)
        if picked and state.crowded(unit):
            bonus -= MODIFIER  # seed L72, §13.3
            notes.append("picked out of a tight group -2")
        return bonus, notes

    def _group_weapon(self, state: SkirmishState) -> Weapon | None:
        """What a mob holds for the better-weapon rule: nothing unarmed (§8)."""
        return self.mob_weapon if state.mob_armed else None

    def _defence_of(self, state: SkirmishState, unit: int, melee: bool) -> int:
        """§3: what `unit` adds to the CL of an attack on it; a mob group 0 (§8)."""
        return 0 if unit >= state.seats else self._defence(state, unit, melee)

    def _fixed_choice(self, state: SkirmishState, hit: Hit) -> Do:
        """§10 #18: disarm a target with no other weapon to draw; else act first; else
        +1d6 (the same preference as the duel's, never "next target")."""
        if hit.target < state.seats:
            them = state.fighters[hit.target]
            spare = any(i != them.held and i not in them.dropped for i in range(len(them.carried)))
            if them.held is not None and not spare:
                return Do.CRIT_DISARM
        if hit.attacker not in state.crit_first + state.crit_first_next:
            return Do.CRIT_ACT_FIRST
        return Do.CRIT_DAMAGE

    def _resolve_critical(
        self, state: SkirmishState, hit: Hit, choice: Do, unit: int, dice: Dice
    ) -> None:
        """The attacker's critical effect (§7, §13.4), then the damage."""
        seat = hit.attacker
        me = state.fighters[seat]
        state.hit, state.phase = None, Phase.MAIN
        if choice == Do.CRIT_ACT_FIRST:
            state.crit_first_next.append(seat)
            state.say(seat, "Critical: {} will act first from the next round", me.name)
        elif choice == Do.CRIT_DISARM:
            them = state.fighters[hit.target]
            assert them.held is not None  # the mask: disarm only one holding a weapon
            them.dropped, them.held = tuple(sorted((*them.dropped, them.held))), None
            state.say(seat, "Critical: {} is disarmed", them.name)
        elif choice == Do.CRIT_TARGET_ME:
            state.must_target[unit] = seat  # seed L52, §13.4: its next turn, the critter only
            state.say(seat, "Critical: {} draws {}'s next attack", me.name, self._name(state, unit))
        else:
            state.say(seat, "Critical: +1d6 damage")
        self._wound(state, hit, dice, extra_die=choice == Do.CRIT_DAMAGE)

    def _wound(self, state: SkirmishState, hit: Hit, dice: Dice, extra_die: bool) -> None:
        """Weapon dice, the strength talent in melee, the critical's die (§4 steps
        6-7, §7); an individual halves it defending, a group spreads it (§13.6)."""
        me = state.fighters[hit.attacker]
        faces = [dice.roll(6, "damage")]
        if extra_die:
            faces.append(dice.roll(6, "critical damage"))
        talent = self.strength_bonus[me.character.strength] if hit.melee else 0
        damage = sum(faces) + hit.weapon.bonus + talent
        state.say(
            hit.attacker,
            "Damage: {} {}+{} = {}",
            me.name,
            faces,
            hit.weapon.bonus + talent,
            damage,
        )
        self._harm(state, hit.target, damage, hit.weapon is self.unarmed, dice)
        self._finish_turn(state, dice)

    def _harm(
        self, state: SkirmishState, unit: int, damage: int, unarmed: bool, dice: Dice
    ) -> None:
        """`damage` lands on `unit`: an individual (halved defending, §7; unarmed
        damage non-lethal, §9) or a mob group (§13.6)."""
        if unit >= state.seats:
            self._spill(state, unit, damage)
            self._check_out(state, dice)
            return
        them = state.fighters[unit]
        if them.defending:
            damage //= 2
            state.say(unit, "{} defends: halved to {}", them.name, damage)
        before = them.endurance
        them.endurance -= damage
        if unarmed:
            them.endurance = max(0, them.endurance)
        state.say(unit, "{}: Endurance {} -> {}", them.name, before, them.endurance)
        if them.endurance <= 0:
            state.standing[unit] = Standing.DOWN
            state.say(unit, "{} is down", them.name)
            self._fell(state, unit, dice)

    def _spill(self, state: SkirmishState, unit: int, damage: int) -> None:
        """Seed L84, §13.6: the first standing member of the group takes the damage,
        the excess spills to the next standing member of the same group; what is left
        when the group is empty is lost (option `spill_across_groups`: the next group's)."""
        first = unit - state.seats
        groups = (
            state.groups[first:] if state.rulings.spill_across_groups else [state.groups[first]]
        )
        for group in groups:
            for i, endurance in enumerate(group.members):
                if damage <= 0:
                    break
                if endurance > 0:
                    taken = min(endurance, damage)
                    group.members[i] -= taken
                    damage -= taken
        for index, each in enumerate(groups, start=first):
            if not each.standing:
                state.must_target.pop(state.seats + index, None)  # wiped: nothing owed
                if state.rulings.rebalance_on_wipe and state.active(each.hero):
                    self._refill(state, each)
        group = state.groups[first]
        state.say(
            None,
            "The mob group of {}: {} standing (attack level {})",
            state.fighters[group.hero].name,
            group.standing,
            attack_level(group.standing),
        )

    def _stance(self, state: SkirmishState, seat: int, dice: Dice) -> None:
        """Seed (Ponerse a la defensiva): Athletics at 8; damage halved until the next
        turn; a critical adds perfect cover, a withdrawal, or an ally's (§7, §13.5)."""
        me = state.fighters[seat]
        result, _ = self._test(state, seat, "athletics", STANDARD_CL, dice, "defensive stance")
        if result == Grade.MISS:
            self._finish_turn(state, dice)
            return
        me.defending = True
        state.say(seat, "{} is on the defensive: damage halved", me.name)
        if result == Grade.CRITICAL:
            if self.options.crit_choice == "agent":
                state.phase = Phase.CRIT_DEFEND
                return
            self._defence_crit(state, seat, Do.DEFEND_PERFECT_COVER, -1, dice)  # §10 #18
            return
        self._finish_turn(state, dice)

    def _defence_crit(
        self, state: SkirmishState, seat: int, choice: Do, ally: int, dice: Dice
    ) -> None:
        """§7: perfect cover until the next turn, leaving the fight, or (§13.5, seed
        L63) an ally named at any range withdraws at once, with no roll."""
        state.phase = Phase.MAIN
        me = state.fighters[seat]
        if choice == Do.DEFEND_PERFECT_COVER:
            me.perfect_cover = True
            state.say(seat, "{} finds perfect cover", me.name)
        else:
            leaver = seat if choice == Do.DEFEND_WITHDRAW else ally
            state.standing[leaver] = Standing.WITHDRAWN
            state.say(leaver, "{} withdraws from the fight", state.fighters[leaver].name)
            self._fell(state, leaver, dice)
        self._finish_turn(state, dice)

    def _demand(self, state: SkirmishState, seat: int, unit: int, dice: Dice) -> None:
        """Seed: convince an enemy to surrender, or unsettle it (§5, §10 #14); a mob
        group breaks the whole mob once half of it is down (§13.6)."""
        if unit >= state.seats:
            result, _ = self._test(state, seat, "social", STANDARD_CL, dice, "demand surrender")
            down = state.mob_start - sum(g.standing for g in state.groups)
            if result != Grade.MISS and down >= state.mob_start / 2:
                state.broken = True
                state.say(seat, "The mob breaks and runs")
                self._check_out(state, dice)
            else:
                state.say(seat, "The mob does not listen")
            self._finish_turn(state, dice)
            return
        if self._persuaded(state, seat, state.fighters[unit], dice):
            state.standing[unit] = Standing.SURRENDERED
            self._fell(state, unit, dice)
        self._finish_turn(state, dice)

    def _recover_weapon(self, state: SkirmishState, seat: int, dice: Dice) -> None:
        """Seed: the weapon comes back; Athletics at 12 is quick enough for another
        action (§5, §10 #12, #25), the free move still unused."""
        if not self._picked_up(state, seat, dice):
            self._finish_turn(state, dice)
            return
        state.phase = Phase.BONUS

    # --- the mob (§13.6) ------------------------------------------------------------

    def _group_turn(self, state: SkirmishState, unit: int, dice: Dice) -> None:
        """A group plays §12's scripted mob: toward its hero (or the critter it must
        attack, §13.4), two steps fast from medium range or farther, one step and a
        strike from near, a strike adjacent; it never retreats."""
        group = state.group_of(unit)
        assert group is not None
        target = state.must_target.get(unit, group.hero)
        if state.rulings.taunt_duration == "next_turn":
            state.must_target.pop(unit, None)
        distance = state.between(unit, target)
        state.say(None, "The mob group of {}'s turn", state.fighters[group.hero].name)
        if distance >= FAST_STEPS:
            steps = FAST_STEPS
            if self._under_fire(state, unit):  # skill 0: CL 10 (§8, §10 #17)
                result, faces, total = roll(dice, 0, challenge(STANDARD_CL, 0), "fast move", False)
                state.say(None, "Fast move: the mob 2d6 {} = {}", faces, total)
                steps = FAST_STEPS if result != Grade.MISS else 1
            self._group_step(state, unit, target, steps)
        else:
            if distance == 1:
                self._group_step(state, unit, target, 1)
            if not state.fighters[target].perfect_cover:
                state.must_target.pop(unit, None)  # §13.4: the attack it owed is made
                self._group_attack(state, unit, target, dice)
        group.acted = True

    def _group_step(self, state: SkirmishState, unit: int, target: int, steps: int) -> None:
        before = state.positions[unit]
        gap = state.positions[target] - before
        state.positions[unit] = before + int(math.copysign(min(steps, abs(gap)), gap))
        state.say(None, "The mob moves: position {} -> {}", before, state.positions[unit])

    def _group_attack(self, state: SkirmishState, unit: int, target: int, dice: Dice) -> None:
        """Seed L82-83: one attack, 1 level per 2 members standing (at most 3), 1d6
        (1d6+1 armed); a critical takes +1d6 (§10 #18)."""
        group = state.group_of(unit)
        assert group is not None
        them = state.fighters[target]
        level = attack_level(group.standing)
        weapon = self.mob_weapon
        bonus, notes = 0, []
        if self._better_weapon(weapon, them.weapon):
            bonus += MODIFIER
            notes.append("better weapon +2")
        if them.unseen:
            bonus -= MODIFIER
            notes.append("target unseen -2")
        if state.rulings.group_penalty_melee and state.crowded(target):
            bonus -= MODIFIER
            notes.append("picked out of a tight group -2")
        cl = STANDARD_CL + self._defence_of(state, target, melee=True)
        result, faces, total = roll(dice, level + bonus, cl, "mob attack")
        state.say(
            None,
            "The mob ({} standing, level {}) attacks {}{}: 2d6 {} {:+d} = {} vs {} -> {}",
            group.standing,
            level,
            them.name,
            f" ({', '.join(notes)})" if notes else "",
            faces,
            level + bonus,
            total,
            cl,
            result.name.lower(),
        )
        if result == Grade.MISS:
            return
        damage = dice.roll(6, "damage") + weapon.bonus
        if result == Grade.CRITICAL:
            damage += dice.roll(6, "critical damage")
        state.say(None, "Damage: the mob {}", damage)
        self._harm(state, target, damage, weapon is self.unarmed, dice)

    def _rebalance(self, state: SkirmishState, hero: int) -> None:
        """§13.6: the fallen hero's group's standing members move one at a time, in list
        order, to the group of a standing hero with the fewest standing members (ties:
        the lower hero slot), joining the end of its list; a group that had none takes
        the place they come from."""
        source = next((g for g in state.groups if g.hero == hero), None)
        if source is None:
            return
        for i, endurance in enumerate(source.members):
            if endurance <= 0:
                continue
            open_groups = [g for g in state.groups if g is not source and state.active(g.hero)]
            if not open_groups:
                return
            into = min(open_groups, key=lambda g: (g.standing, g.hero))
            self._move_member(state, source, i, into)

    def _refill(self, state: SkirmishState, wiped: Group) -> None:
        """Option `rebalance_on_wipe` (§13.6): a group wiped while its hero stands takes
        members from the largest group of a standing hero (ties: the lower hero slot),
        its last standing one each time, until no group has two more than it."""
        while True:
            donors = [g for g in state.groups if g is not wiped and state.active(g.hero)]
            donor = max(donors, key=lambda g: (g.standing, -g.hero), default=None)
            if donor is None or donor.standing <= wiped.standing + 1:
                return
            last = max(i for i, endurance in enumerate(donor.members) if endurance > 0)
            self._move_member(state, donor, last, wiped)

    def _move_member(self, state: SkirmishState, source: Group, index: int, into: Group) -> None:
        """A standing member leaves `source` for the end of `into`'s list; a group that
        had none standing takes the place it comes from."""
        if into.standing == 0:
            state.positions[state.seats + state.groups.index(into)] = state.positions[
                state.seats + state.groups.index(source)
            ]
        into.members.append(source.members[index])
        source.members[index] = 0
        state.say(
            None,
            "A member of the mob turns to {} ({} standing there)",
            state.fighters[into.hero].name,
            into.standing,
        )

    # --- the end (§13.7) -----------------------------------------------------------

    def _fell(self, state: SkirmishState, seat: int, dice: Dice) -> None:
        """An individual is out: nobody owes it an attack any more (§13.4), its mob
        group turns to the others (§13.6); the fight may be over."""
        for unit, critter in list(state.must_target.items()):
            if critter == seat:
                del state.must_target[unit]
        self._rebalance(state, seat)
        self._check_out(state, dice)

    def _check_out(self, state: SkirmishState, dice: Dice) -> None:
        if self._decide(state):
            self._tend_the_fallen(state, dice)

    def _decide(self, state: SkirmishState) -> bool:
        """§13.7: a side is out when its individuals and groups are; the other wins,
        +-1, or +-0.5 if every out member of the loser withdrew. True if it ended."""
        if state.result is not None:
            return False
        for side in (PARTY, ENEMY):
            units = [u for u in range(len(state.positions)) if state.side_of(u) == side]
            if any(state.active(u) for u in units):
                continue
            fled = all(  # a mob group out is wiped or broken, never withdrawn
                u < state.seats and state.standing[u] == Standing.WITHDRAWN for u in units
            )
            stake = self.options.withdraw_stake if fled else 1.0
            state.finish(Outcome(1 - side, f"side {'AB'[side]} is out of the fight", stake=stake))
            return True
        return False

    def _tend_the_fallen(self, state: SkirmishState, dice: Dice) -> None:
        """Seed L87-88, §13.6: after the fight each party member still active with
        Medicine rolls it once at normal difficulty; each point above 8 saves one
        downed member; the saves add up, capped at the members down."""
        if not state.mob_start:
            return
        downed = state.mob_start - sum(g.standing for g in state.groups)
        for seat in range(state.seats):
            me = state.fighters[seat]
            medicine = me.character.medicine
            if state.sides[seat] != PARTY or not state.active(seat) or medicine < 1:
                continue
            if state.saved >= downed:
                return
            faces = [dice.roll(6, "medicine"), dice.roll(6, "medicine")]
            saves = max(0, sum(faces) + medicine - STANDARD_CL)
            state.saved = min(downed, state.saved + saves)
            state.say(
                seat,
                "After the fight: {} rolls Medicine 2d6 {} {:+d}; {} of {} downed saved",
                me.name,
                faces,
                medicine,
                state.saved,
                downed,
            )

    def _name(self, state: SkirmishState, unit: int) -> str:
        group = state.group_of(unit)
        if group is None:
            return state.fighters[unit].name
        return f"the mob group of {state.fighters[group.hero].name}"


def _split(members: int, heroes: list[int]) -> list[Group]:
    """Seed L80, §13.6: n members over h heroes, n // h each, one more for the first
    n mod h in slot order (none for the last ones when n < h)."""
    share, extra = divmod(members, len(heroes))
    return [
        Group(hero, [MEMBER_ENDURANCE] * (share + (1 if i < extra else 0)))
        for i, hero in enumerate(heroes)
    ]


_INDEX = {(d.kind, d.slot): i for i, d in enumerate(DECODED)}
