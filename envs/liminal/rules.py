"""The Liminal ruleset: one-on-one duels.

Seed `001_3a3a9868b83ae6e2.txt` ("COMBATE"), digest `rules/liminal.md`. Comments
cite the digest's sections (§n) and its numbered defaults (§10 #n).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from duelo.envs.core.config import fight_of, options_of, require_known
from duelo.envs.core.dice import Dice, roll_until
from duelo.envs.core.ruleset import DUEL_SIDES, seat_names
from duelo.envs.core.state import Outcome
from duelo.envs.liminal.observation import OBSERVATION_SPEC, observe
from duelo.envs.liminal.odds import (
    QUICK_GRAB_CL,
    STANDARD_CL,
    Grade,
    challenge,
    roll,
)
from duelo.envs.liminal.setup import (
    OUT,
    TRACK,
    Band,
    Catalog,
    Character,
    Kind,
    LiminalOptions,
    Scenario,
    Strength,
    Weapon,
    load_catalog,
)
from duelo.envs.liminal.state import (
    MEANINGS,
    MOVE_STEPS,
    Action,
    Deed,
    Fighter,
    LiminalState,
    PendingHit,
    Phase,
)

MODIFIER = 2
"""Every situational modifier is +-2 (digest §8)."""
SOCIAL_REACH = 3
"""A demand to surrender reaches a rival within shouting range, d <= 3 (§5 ASSUMPTION)."""
DEFENCE_CRITS = (Action.DEFEND_PERFECT_COVER, Action.DEFEND_WITHDRAW)


class LiminalRuleset:
    """Liminal duels between two fighters (DESIGN.md layer 2).

    Args:
        scenario: a scenario id of `configs/liminal/scenarios.yaml` or a `Scenario`.
        fighters: two character ids or `Character`s; None takes the scenario's.
        options: `LiminalOptions` or a dict of its fields (GM rulings).
        catalog: weapons, characters and scenarios; None loads the packaged ones.
    """

    system = "liminal"
    State: type[LiminalState] = LiminalState
    """The state `new_duel` builds (the mob's keeps what its aftermath needs)."""
    sides: tuple[int, ...] = DUEL_SIDES
    perfect_information = True
    version = 2
    actions = Action
    action_meanings = MEANINGS
    observation_spec = OBSERVATION_SPEC

    def __init__(
        self,
        scenario: str | Scenario = "standoff",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: LiminalOptions | dict[str, Any] | None = None,
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
        self.options = options_of(LiminalOptions, options, "liminal options")
        self.round_cap = self.options.round_cap
        self.unarmed = self.catalog.weapons["unarmed"]
        self.strength_bonus = strength_bonuses(self.options)

    # --- the ruleset interface ---------------------------------------------------

    def new_duel(self, dice: Dice) -> LiminalState:
        names = seat_names(*(c.name for c in self.characters))
        fighters = [
            Fighter(
                character=c,
                name=names[seat],
                carried=[self.catalog.weapons[w] for w in c.weapons],
                endurance=c.endurance_max,
                in_cover=self.scenario.cover[seat],
                high_ground=self.scenario.high_ground[seat],
                unseen=self.scenario.unseen[seat],
            )
            for seat, c in enumerate(self.characters)
        ]
        state = self.State(
            scenario=self.scenario,
            options=self.options,
            fighters=fighters,
            distance=self.scenario.distance,
        )
        state.say(
            None,
            "Scenario {}: {} vs {}, distance {} ({})",
            self.scenario.id,
            names[0],
            names[1],
            state.distance,
            TRACK[state.distance].name.lower(),
        )
        first = self._initiative(state, dice)
        state.first = state.next_first = first
        state.say(first, "{} acts first every round", fighters[first].name)
        self._start_round(state)
        return state

    def to_act(self, state: LiminalState) -> int | None:
        return None if state.result is not None else state.current

    def legal_actions(self, state: LiminalState, seat: int) -> np.ndarray:
        mask = np.zeros(len(Action), dtype=bool)
        if self.to_act(state) != seat:
            return mask
        if state.phase == Phase.CRIT_ATTACK:
            pending = state.pending
            assert pending is not None
            target = state.fighters[1 - seat]
            mask[Action.CRIT_DAMAGE] = True
            mask[Action.CRIT_ACT_FIRST] = state.next_first != seat  # §7: not if already first
            mask[Action.CRIT_DISARM] = target.held is not None  # §7: the target holds one
            return mask
        if state.phase == Phase.CRIT_DEFEND:
            mask[list(DEFENCE_CRITS)] = True
            return mask
        me, them = state.fighters[seat], state.fighters[1 - seat]
        for move, step in enumerate(MOVE_STEPS):
            if state.moved and step:
                continue  # a bonus action after a quick grab may still take the free move
            if step < 0 and state.distance == 0:
                continue
            distance = max(0, state.distance + step)
            base = move * len(Deed)
            mask[base + Deed.NONE] = True
            if distance >= OUT:
                continue  # stepping out withdraws: the action goes unresolved (§12)
            mask[base + Deed.MELEE] = distance == 0 and not them.perfect_cover
            mask[base + Deed.SHOOT] = (
                not them.perfect_cover and self._ranged_weapon(me, distance) is not None
            )
            mask[base + Deed.DEFEND] = True
            mask[base + Deed.SOCIAL] = self.options.social_action and distance <= SOCIAL_REACH
        if state.phase == Phase.MAIN:
            mask[Action.RECOVER] = bool(me.dropped)
        mask[Action.FAST_ADVANCE] = state.distance > 0 and not state.moved
        mask[Action.FAST_RETREAT] = not state.moved
        return mask

    def apply(self, state: LiminalState, seat: int, action: int, dice: Dice) -> None:
        action = Action(action)
        if state.phase == Phase.CRIT_ATTACK:
            self._attack_critical(state, seat, action, dice)
        elif state.phase == Phase.CRIT_DEFEND:
            self._defence_critical(state, seat, action, dice)
        elif action == Action.RECOVER:
            self._recover(state, seat, dice)
        elif action in (Action.FAST_ADVANCE, Action.FAST_RETREAT):
            self._fast_move(state, seat, action, dice)
        else:
            move, deed = divmod(int(action), len(Deed))
            if self._move(state, seat, MOVE_STEPS[move]):
                self._deed(state, seat, Deed(deed), dice)

    def observe(self, state: LiminalState, seat: int) -> np.ndarray:
        return observe(state, seat, self.strength_bonus)

    # --- initiative, rounds and turns (§4) -------------------------------------------

    def _initiative(self, state: LiminalState, dice: Dice) -> int:
        """The seat acting first every round (§4, §10 #7); no unskilled +2 on initiative."""
        fighters = state.fighters
        if self.options.initiative_mode == "opposed":
            skill = [fighter.character.perception for fighter in fighters]

            def totals(faces: tuple[int, ...]) -> tuple[int, int]:
                return faces[0] + faces[1] + skill[0], faces[2] + faces[3] + skill[1]

            def narrate(faces: tuple[int, ...]) -> None:
                for seat, fighter in enumerate(fighters):
                    rolled = list(faces[2 * seat : 2 * seat + 2])
                    state.say(
                        seat,
                        "Initiative: {} 2d6 {} = {}",
                        fighter.name,
                        rolled,
                        totals(faces)[seat],
                    )

            faces = roll_until(
                dice, (6,) * 4, ("initiative",) * 4, lambda f: len(set(totals(f))) == 2, narrate
            )
            narrate(faces)
            first, second = totals(faces)
            return 0 if first > second else 1
        roller = dice.roll(2, "initiative roller") - 1
        me, them = fighters[roller], fighters[1 - roller]
        cl = STANDARD_CL + them.character.perception
        result, perception, total = roll(dice, me.character.perception, cl, "initiative")
        state.say(
            roller,
            "Initiative: {} rolls Perception 2d6 {} = {} vs {}",
            me.name,
            perception,
            total,
            cl,
        )
        return roller if result != Grade.MISS else 1 - roller

    def _start_round(self, state: LiminalState) -> None:
        if not state.start_round(self.round_cap):
            return
        state.first = state.next_first  # an "act first" critical counts from now on (§7)
        for fighter in state.fighters:
            fighter.drew_this_round = False
            fighter.acted_this_round = False
        state.turn_index = 0
        state.say(None, "--- Round {} ---", state.round)
        self._begin_turn(state, state.first)

    def _begin_turn(self, state: LiminalState, seat: int) -> None:
        fighter = state.fighters[seat]
        fighter.defending = fighter.perfect_cover = False  # they last until the next action (§7)
        state.current = seat
        state.phase = Phase.MAIN
        state.moved = False
        state.pending = None
        state.say(seat, "{}'s turn", fighter.name)

    def _end_turn(self, state: LiminalState) -> None:
        fighter = state.fighters[state.current]
        fighter.acted_this_round = True
        fighter.shaken = False  # §10 #21: unused by the end of its next turn, it lapses
        state.pending = None
        state.phase = Phase.MAIN
        state.turn_index += 1
        if state.turn_index < 2:
            self._begin_turn(state, 1 - state.current)
        else:
            self._start_round(state)

    # --- movement (§6) ------------------------------------------------------------------

    def _move(self, state: LiminalState, seat: int, step: int) -> bool:
        """The free move; False when it took the mover out of the fight (withdrawal)."""
        if step == 0:
            return True
        state.moved = True
        return self._step(state, seat, step)

    def _step(self, state: LiminalState, seat: int, step: int) -> bool:
        fighter = state.fighters[seat]
        before = state.distance
        state.distance = min(OUT, max(0, before + step))  # OUT: gone, however far (§6)
        fighter.in_cover = fighter.high_ground = False  # places, lost by moving (§8, §10 #24)
        verb = "advances" if step < 0 else "falls back"
        state.say(seat, "{} {}: distance {} -> {}", fighter.name, verb, before, state.distance)
        if state.distance >= OUT:  # §6, §9: one's own move past far is a withdrawal
            self._withdraw(state, seat)
            return False
        return True

    def _fast_move(self, state: LiminalState, seat: int, action: Action, dice: Dice) -> None:
        """Seed: 60 paces instead of 30; in combat, an Athletics test (§5, §10 #11)."""
        me = state.fighters[seat]
        steps = 2
        if state.distance <= 1 or self._can_shoot(state.fighters[1 - seat], state.distance):
            result, _ = self._test(
                state, seat, "athletics", STANDARD_CL, dice, "fast move", graded=False
            )
            steps = 2 if result != Grade.MISS else 1
        state.moved = True
        state.say(seat, "{} moves fast ({} step{})", me.name, steps, "s" if steps > 1 else "")
        if self._step(state, seat, -steps if action == Action.FAST_ADVANCE else steps):
            self._end_turn(state)

    # --- the turn's action (§5) ---------------------------------------------------------

    def _deed(self, state: LiminalState, seat: int, deed: Deed, dice: Dice) -> None:
        if deed == Deed.MELEE:
            self._attack(state, seat, dice, melee=True)
        elif deed == Deed.SHOOT:
            self._attack(state, seat, dice, melee=False)
        elif deed == Deed.DEFEND:
            self._defend(state, seat, dice)
        elif deed == Deed.SOCIAL:
            self._social(state, seat, dice)
        else:
            state.say(seat, "{} takes no action", state.fighters[seat].name)
            self._end_turn(state)

    def _attack(self, state: LiminalState, seat: int, dice: Dice, melee: bool) -> None:
        me, them = state.fighters[seat], state.fighters[1 - seat]
        weapon = self._melee_weapon(me) if melee else self._ranged_weapon(me, state.distance)
        assert weapon is not None  # the mask allows only attacks with a weapon at hand
        self._draw(me, weapon)
        bonus, notes = self._attack_modifiers(state, me, them, weapon, melee)
        skill = "melee" if melee else "shoot"
        cl = STANDARD_CL + self._defence(state, 1 - seat, melee)
        if not melee and them.in_cover and not me.in_cover:
            cl += MODIFIER  # §8: cover against ranged attacks
            notes.append("target in cover")
        state.say(seat, "{} attacks with the {}{}", me.name, weapon.name, _listed(notes))
        result, _ = self._test(state, seat, skill, cl, dice, "attack", bonus)
        if result == Grade.MISS:
            self._end_turn(state)
            return
        hit = PendingHit(seat, weapon, melee)
        if result == Grade.CRITICAL:
            if self._chooses_critical(state, seat):
                state.pending, state.phase = hit, Phase.CRIT_ATTACK
                return
            self._attack_critical(state, seat, self._fixed_critical(state, seat), dice, hit)
            return
        self._damage(state, hit, dice, extra_die=False)

    def _defence(self, state: LiminalState, seat: int, melee: bool) -> int:
        """What `seat` adds to the CL of an attack on it (§3): the better of Athletics and
        Melee against melee, Athletics against shots, and its defence bonus."""
        character = state.fighters[seat].character
        skill = max(character.athletics, character.melee) if melee else character.athletics
        return skill + character.defence_bonus

    def _chooses_critical(self, state: LiminalState, seat: int) -> bool:
        """Whether `seat` decides its critical's effect (else the fixed preference)."""
        return self.options.crit_choice == "agent"

    def _attack_modifiers(
        self, state: LiminalState, me: Fighter, them: Fighter, weapon: Weapon, melee: bool
    ) -> tuple[int, list[str]]:
        """The attacker's +-2s (§8). The same advantage or disadvantage on both sides
        cancels (seed L67: "los modificadores se cancelan"): high ground against high ground,
        darkness on both sides (cover is weighed in the CL, where it cancels too)."""
        bonus, notes = 0, []
        if melee:
            if self._better_weapon(weapon, them.weapon):
                bonus += MODIFIER
                notes.append("better weapon +2")
            if me.high_ground and not them.high_ground:
                bonus += MODIFIER
                notes.append("high ground +2")
        elif state.distance == 0 and weapon.adjacent_penalty:
            bonus += weapon.adjacent_penalty  # seed: a pistol fired at an adjacent rival
            notes.append(f"adjacent {weapon.adjacent_penalty:+d}")
        if them.unseen and not me.unseen:
            bonus -= MODIFIER
            notes.append("target unseen -2")
        return bonus, notes

    def _better_weapon(self, weapon: Weapon, their: Weapon | None) -> bool:
        """§8: a melee weapon against a rival holding none (default), or a higher tier."""
        their_tier = their.tier if their is not None and their.kind == Kind.MELEE else 0
        if self.options.better_weapon == "tiered":
            return weapon.tier > their_tier
        armed = weapon is not self.unarmed
        return armed and (their is None or their is self.unarmed or their.kind != Kind.MELEE)

    def _damage(self, state: LiminalState, hit: PendingHit, dice: Dice, extra_die: bool) -> None:
        """Weapon dice, the strength talent in melee, the critical's die, halved if the
        target defends (§4 steps 6-7, §7)."""
        me, them = state.fighters[hit.attacker], state.fighters[1 - hit.attacker]
        faces = [dice.roll(6, "damage")]
        if extra_die:
            faces.append(dice.roll(6, "critical damage"))
        talent = self.strength_bonus[me.character.strength] if hit.melee else 0
        damage = sum(faces) + hit.weapon.bonus + talent
        halved = them.defending
        if halved:
            damage //= 2
        before = them.endurance
        them.endurance -= damage
        if hit.weapon is self.unarmed:
            them.endurance = max(0, them.endurance)  # §9: unarmed damage is non-lethal
        state.say(
            hit.attacker,
            "Damage: {} {}+{}{} = {} to {} (Endurance {} -> {})",
            me.name,
            faces,
            hit.weapon.bonus + talent,
            ", halved" if halved else "",
            damage,
            them.name,
            before,
            them.endurance,
        )
        if them.endurance <= 0:
            state.finish(Outcome(hit.attacker, f"{them.name} is down"))
            return
        self._wounded(state, 1 - hit.attacker)
        self._end_turn(state)

    def _wounded(self, state: LiminalState, seat: int) -> None:
        """After `seat` took damage and stays up (a mob loses members here)."""

    def _attack_critical(
        self,
        state: LiminalState,
        seat: int,
        choice: Action,
        dice: Dice,
        hit: PendingHit | None = None,
    ) -> None:
        """The attacker's critical effect (§7), then the damage."""
        hit = hit or state.pending
        assert hit is not None
        them = state.fighters[1 - seat]
        state.pending, state.phase = None, Phase.MAIN
        if choice == Action.CRIT_ACT_FIRST:
            state.next_first = seat
            state.say(
                seat, "Critical: {} will act first from the next round", state.fighters[seat].name
            )
        elif choice == Action.CRIT_DISARM:
            assert them.held is not None  # the mask: disarm only a rival holding a weapon
            them.dropped, them.held = tuple(sorted((*them.dropped, them.held))), None
            state.say(seat, "Critical: {} is disarmed", them.name)
        else:
            state.say(seat, "Critical: +1d6 damage")
        self._damage(state, hit, dice, extra_die=choice == Action.CRIT_DAMAGE)

    def _fixed_critical(self, state: LiminalState, seat: int) -> Action:
        """§10 #18: disarm a target with no other weapon to draw; else act first; else +1d6."""
        them = state.fighters[1 - seat]
        spare = any(i != them.held and i not in them.dropped for i in range(len(them.carried)))
        if them.held is not None and not spare:
            return Action.CRIT_DISARM
        if state.next_first != seat:
            return Action.CRIT_ACT_FIRST
        return Action.CRIT_DAMAGE

    def _defend(self, state: LiminalState, seat: int, dice: Dice) -> None:
        """Seed (Ponerse a la defensiva): Athletics at 8; damage halved until the next turn."""
        me = state.fighters[seat]
        result, _ = self._test(state, seat, "athletics", STANDARD_CL, dice, "defensive stance")
        if result == Grade.MISS:
            self._end_turn(state)
            return
        me.defending = True
        state.say(seat, "{} is on the defensive: damage halved", me.name)
        if result == Grade.CRITICAL:
            if self.options.crit_choice == "agent":
                state.phase = Phase.CRIT_DEFEND
                return
            # the fixed preference: perfect cover, never a withdrawal (a draw), §10 #18
            self._defence_critical(state, seat, Action.DEFEND_PERFECT_COVER, dice)
            return
        self._end_turn(state)

    def _defence_critical(self, state: LiminalState, seat: int, choice: Action, dice: Dice) -> None:
        """§7: perfect cover until the next turn, or leaving the battlefield."""
        state.phase = Phase.MAIN
        if choice == Action.DEFEND_WITHDRAW:
            self._withdraw(state, seat)
            return
        state.fighters[seat].perfect_cover = True
        state.say(seat, "{} finds perfect cover", state.fighters[seat].name)
        self._end_turn(state)

    def _social(self, state: LiminalState, seat: int, dice: Dice) -> None:
        """Seed: convince an enemy to surrender, or unsettle it (§5, §10 #14)."""
        them = state.fighters[1 - seat]
        if self._persuaded(state, seat, them, dice):
            state.finish(Outcome(seat, f"{them.name} surrenders"))
            return
        self._end_turn(state)

    def _persuaded(self, state: LiminalState, seat: int, them: Fighter, dice: Dice) -> bool:
        """`seat`'s demand that `them` surrender (§5, §10 #14): social against 8 + its
        Conviction; a success yields at the threshold, a critical also when it is
        wounded or shaken; a success that does not yield shakes it (-2 next test)."""
        cl = STANDARD_CL + them.character.conviction
        result, _ = self._test(state, seat, "social", cl, dice, "demand surrender")
        if result == Grade.MISS:
            return False
        maximum = them.character.endurance_max
        yields = them.endurance <= maximum * self.options.surrender_threshold
        if result == Grade.CRITICAL:
            yields = yields or them.endurance < maximum or them.shaken
        if yields:
            state.say(seat, "{} SURRENDERS", them.name)
            return True
        them.shaken = True
        state.say(seat, "{} is shaken (-2 on the next test)", them.name)
        return False

    def _recover(self, state: LiminalState, seat: int, dice: Dice) -> None:
        """Seed: the weapon comes back; Athletics at 12 is quick enough for another action.
        Of two knocked away, the first of the loadout comes back, the one the fighter
        started with in hand (ASSUMPTION: the seed recovers "el arma")."""
        if not self._picked_up(state, seat, dice):
            self._end_turn(state)
            return
        state.phase = Phase.BONUS  # §5: one more action this turn (the free move unused)

    def _picked_up(self, state: LiminalState, seat: int, dice: Dice) -> bool:
        """The dropped weapon back in hand, and whether the quick grab (Athletics at 12)
        was fast enough for another action (§5, §10 #12)."""
        me = state.fighters[seat]
        me.held, me.dropped = me.dropped[0], me.dropped[1:]
        state.say(seat, "{} recovers the {}", me.name, me.carried[me.held].name)
        result, _ = self._test(state, seat, "athletics", QUICK_GRAB_CL, dice, "quick grab")
        if result == Grade.MISS:
            return False
        state.say(seat, "{} grabs it fast enough to act again", me.name)
        return True

    def _withdraw(self, state: LiminalState, seat: int) -> None:
        """§9, §12: leaving the fight; the rival stays, and the stake is halved."""
        me = state.fighters[seat]
        state.say(seat, "{} withdraws from the fight", me.name)
        outcome = Outcome(1 - seat, f"{me.name} withdraws", stake=self.options.withdraw_stake)
        state.finish(outcome)

    # --- tests and weapons ------------------------------------------------------------

    def _test(
        self,
        state: LiminalState,
        seat: int,
        skill: str,
        base: int,
        dice: Dice,
        purpose: str,
        bonus: int = 0,
        graded: bool = True,
    ) -> tuple[Grade, int]:
        """2d6 + skill + modifiers against the CL (+2 unskilled); a shaken roller takes -2
        on this test and is steady again (§3, §10 #6, #21). `graded` False: a test whose
        critical means nothing more than a success (the fast move), read as one."""
        me = state.fighters[seat]
        level = getattr(me.character, skill)
        if me.shaken:
            bonus -= MODIFIER
            me.shaken = False
        cl = challenge(base, level)
        can_crit = graded and not (self.options.unskilled_no_crit and level == 0)
        result, faces, total = roll(dice, level + bonus, cl, purpose, can_crit)
        state.say(
            seat,
            "{}: {} 2d6 {} {:+d} = {} vs {} -> {}",
            purpose.capitalize(),
            me.name,
            faces,
            level + bonus,
            total,
            cl,
            result.name.lower(),
        )
        return result, total

    def _melee_weapon(self, fighter: Fighter) -> Weapon:
        """The held melee weapon, else a carried one (drawn free, once a round), else fists
        (§4, §10 #23)."""
        held = fighter.weapon
        if held is not None and held.kind == Kind.MELEE:
            return held
        if not fighter.drew_this_round:
            for index, weapon in enumerate(fighter.carried):
                if (
                    weapon.kind == Kind.MELEE
                    and weapon is not self.unarmed
                    and index not in fighter.dropped
                ):
                    return weapon
        return self.unarmed

    def _ranged_weapon(self, fighter: Fighter, distance: int) -> Weapon | None:
        """A ranged weapon usable at `distance`: the held one, else one to draw (§4, §6)."""
        return ranged_for(fighter, {TRACK[distance]}) if distance < OUT else None

    def _can_shoot(self, fighter: Fighter, distance: int) -> bool:
        """Whether `fighter` holds or carries a ranged weapon usable at `distance` (who counts
        as "being shot at" for the fast move, §10 #11)."""
        band = TRACK[min(distance, OUT - 1)]
        return any(
            w.kind == Kind.RANGED and w.bands[band]
            for i, w in enumerate(fighter.carried)
            if i not in fighter.dropped
        )

    @staticmethod
    def _draw(fighter: Fighter, weapon: Weapon) -> None:
        """Put `weapon` in hand: the free draw of the round (§4), when it is not there yet.
        Of two alike, the one not knocked away; bare hands a loadout lists and a critical
        knocked away are no weapon to draw: the fists stay empty."""
        if fighter.weapon is weapon:
            return
        slot = next(
            (i for i, w in enumerate(fighter.carried) if w is weapon and i not in fighter.dropped),
            None,
        )
        if slot is None:
            return  # fists, not carried (or their listed slot knocked away)
        fighter.held = slot
        fighter.drew_this_round = True


def ranged_for(fighter: Fighter, bands: set[Band]) -> Weapon | None:
    """A ranged weapon usable at every one of `bands`: the held one, else one to draw
    this round (§4, §6)."""
    held = fighter.weapon
    if held is not None and held.kind == Kind.RANGED and all(held.bands[b] for b in bands):
        return held
    if not fighter.drew_this_round:
        for index, weapon in enumerate(fighter.carried):
            usable = weapon.kind == Kind.RANGED and all(weapon.bands[b] for b in bands)
            if usable and index not in fighter.dropped:
                return weapon
    return None


def strength_bonuses(options: LiminalOptions) -> dict[Strength, int]:
    """The melee damage each strength talent adds (§7, §10 #3)."""
    return {
        Strength.NONE: 0,
        Strength.FUERTE: options.fuerte_bonus,
        Strength.SOBRENATURAL: options.sobrenatural_bonus,
    }


def _listed(notes: list[str]) -> str:
    return f" ({', '.join(notes)})" if notes else ""
