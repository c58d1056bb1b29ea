"""What a Dunwich pairing does, the same in a duel and in a skirmish: the checks with the
wound penalty (§3, §10 #13), a won advantageous position (§8.3), the opposed Lucha check
with Defenderse's rerolls (§5, §10 #28), the winner's maneuver on the loser (§5, §7), the
push (§8.2), a shot's damage and the damage dice on the registers (§7).

Each ruleset says only where a push goes (`_push_path`) and what a fighter out means
(`_down`): the duel ends, a skirmish ends when a side has no one left (§13.7).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from duelo.envs.core.dice import Dice
from duelo.envs.dunwich.odds import (
    EVEN_FACES,
    PARITY,
    SUCCESS_CLASSES,
    count,
    knockout_marks,
    rerolled,
    roll_pool,
)
from duelo.envs.dunwich.setup import HALF_METRES, MAX_PV, DunwichOptions
from duelo.envs.dunwich.state import INCAPACITATION, VITALITY, Fighter, Maneuver


class Stage(Protocol):
    """What a pairing reads of a duel's or a skirmish's state."""

    fighters: list[Fighter]

    def say(self, seat: int | None, template: str, *values: Any) -> None: ...


class Pairings:
    """The pieces of a pairing both Dunwich rulesets play (DESIGN.md layer 2)."""

    options: DunwichOptions

    def _push_path(self, state: Any, winner: int, loser: int) -> tuple[int, int]:
        """The direction `loser` is pushed in (+1 toward the arena's far end) and the half
        metres behind it to a wall."""
        raise NotImplementedError

    def _down(self, state: Any, seat: int, by: int) -> bool:
        """After `seat` was hurt by `by`: True when that ended the fight."""
        raise NotImplementedError

    # --- checks (§3) ------------------------------------------------------------------

    def _pool(self, fighter: Fighter, capacity: int) -> int:
        """A Capacity's dice less the wound penalty, -1d per 2 Incapacitation boxes (§10 #13)."""
        return capacity - (fighter.incap // 2 if self.options.wound_penalty else 0)

    def _check(
        self, fighter: Fighter, capacity: int, dice: Dice, purpose: str, modifier: int = 0
    ) -> tuple[list[int], int]:
        """An unopposed check (§3): its faces and successes."""
        size = self._pool(fighter, capacity) + modifier
        faces = roll_pool(dice, size, purpose, SUCCESS_CLASSES)
        return faces, count(faces)

    def _win_position(self, state: Stage, seat: int, dice: Dice) -> bool:
        """§8.3: the movement buys a Físico check; each success past the first is a bonus
        success in the pairing, and none leaves Defenderse only for the turn."""
        me = state.fighters[seat]
        faces, total = self._check(me, me.character.fisico, dice, "position")
        if total == 0:
            me.defend_only = True
            state.say(
                seat, "{} fails to win a position {}: Defenderse only this turn", me.name, faces
            )
            return False
        me.bonus = total - 1
        state.say(
            seat, "{} wins an advantageous position {}: +{} successes", me.name, faces, me.bonus
        )
        return True

    # --- the opposed check (§3, §5) ---------------------------------------------------

    def _opposed(
        self,
        state: Stage,
        chosen: dict[int, Maneuver],
        dice: Dice,
        modifiers: dict[int, int] | None = None,
    ) -> dict[int, int]:
        """Both Lucha pools (initiator's first), then Defenderse's rerolls (§10 #28), none
        for a fighter busy with a task (§4 (e)); each total with its position bonus
        (§8.3, §10 #21), which is spent."""
        modifiers = modifiers or dict.fromkeys(chosen, 0)
        rolled = {}
        for side, maneuver in chosen.items():
            fighter = state.fighters[side]
            size = self._pool(fighter, fighter.character.lucha) + modifiers[side]
            size -= maneuver == Maneuver.INCAPACITAR  # §5, §10 #5: -1 die
            rolled[side] = roll_pool(dice, size, "lucha", SUCCESS_CLASSES)
        totals = {}
        for side, maneuver in chosen.items():
            fighter = state.fighters[side]
            faces = rolled[side]
            if maneuver == Maneuver.DEFENDERSE and not fighter.task:
                faces = rerolled(
                    faces,
                    fighter.character.lucha,
                    lambda n: roll_pool(dice, n, "reroll", SUCCESS_CLASSES),
                )
            totals[side] = count(faces) + fighter.bonus
            shown = faces if faces == rolled[side] else f"{rolled[side]} rerolled to {faces}"
            state.say(
                side,
                "{}: Lucha {} = {}{}{}",
                fighter.name,
                shown,
                totals[side],
                f" (+{fighter.bonus} from position)" if fighter.bonus else "",
                f" ({modifiers[side]:+d}d)" if modifiers[side] else "",
            )
            fighter.bonus = 0
        return totals

    def _bank(self, state: Stage, winner: int, total: int) -> None:
        """§10 #6 `bank_extra_successes`: the winner's successes past the first become PV."""
        if not self.options.bank_extra_successes:
            return
        fighter = state.fighters[winner]
        banked = min(MAX_PV, fighter.pv + total - 1) - fighter.pv
        if banked > 0:
            fighter.pv += banked
            state.say(winner, "{} banks {} PV", fighter.name, banked)

    # --- the winner's maneuver (§5, §7, §8.2) -----------------------------------------

    def _effect(
        self,
        state: Stage,
        winner: int,
        loser: int,
        maneuver: Maneuver,
        margin: int,
        dice: Dice,
    ) -> bool:
        """The winner's maneuver on the loser (§5); True when the fight ended."""
        me, them = state.fighters[winner], state.fighters[loser]
        if maneuver == Maneuver.DEFENDERSE:
            state.say(winner, "{} fends it off", me.name)
            return False
        if maneuver == Maneuver.DANAR:
            extra = margin - 1 if self.options.margin_dice else 0  # §10 #9
            faces = roll_pool(dice, me.melee.dice + extra, "damage", _read(me.melee.lethal))
            return self._wound(state, loser, faces, me.melee.lethal, winner)
        if maneuver == Maneuver.INCAPACITAR:  # §7: the knockout roll
            faces = roll_pool(dice, me.melee.dice, "knockout", PARITY)
            final, marks = knockout_marks(
                faces, lambda n: roll_pool(dice, n, "knockout reroll", PARITY)
            )
            before = them.incap
            them.incap = min(INCAPACITATION, them.incap + marks)
            state.say(
                winner,
                "Knockout roll {} -> {}: {} Incapacitation {} -> {}",
                faces,
                final,
                them.name,
                before,
                them.incap,
            )
            return self._down(state, loser, winner)
        return self._push(state, winner, loser, 0, dice)

    def _push(self, state: Stage, winner: int, loser: int, pv: int, dice: Dice) -> bool:
        """§8.2: D = ceil(Físico / 2) m + 0.5 m per PV spent (step 2: what the winner chose
        to spend, knowing it won), straight away from the winner (§10 #16, §13.5); a wall
        short of D stops the loser, who takes floor(D) Non-Lethal dice. True when the fight
        ended."""
        me, them = state.fighters[winner], state.fighters[loser]
        me.pv -= pv
        push = HALF_METRES * math.ceil(me.character.fisico / 2) + pv
        direction, room = self._push_path(state, winner, loser)
        travelled = min(push, room)
        them.position += direction * travelled
        if self.options.pusher_follows:  # §10 #27
            me.position += direction * travelled
        state.say(
            winner,
            "{} pushes {} {} m{}{}",
            me.name,
            them.name,
            travelled / HALF_METRES,
            f" (+{pv} PV)" if pv else "",
            "" if push <= room else " into the wall",
        )
        if push <= room:  # §8.2 step 5: D = F is no impact
            return False
        faces = roll_pool(dice, push // HALF_METRES, "impact", EVEN_FACES)
        return self._wound(state, loser, faces, False, winner)

    # --- damage (§7) ------------------------------------------------------------------

    def _shot_lands(self, state: Stage, seat: int, target: int, dice: Dice) -> bool:
        """A hit's damage dice; a firearm's are Non-Lethal on ballistic armour (§7,
        published). True when the fight ended."""
        me, them = state.fighters[seat], state.fighters[target]
        assert me.ranged is not None  # the masks allow shots with a ranged weapon only
        lethal = me.ranged.lethal and not (me.ranged.firearm and them.character.ballistic_armour)
        faces = roll_pool(dice, me.ranged.dice, "damage", _read(lethal))
        return self._wound(state, target, faces, lethal, seat)

    def _wound(self, state: Stage, seat: int, faces: list[int], lethal: bool, by: int) -> bool:
        """Damage dice on `seat`'s registers; True when that ended the fight."""
        fighter = state.fighters[seat]
        before = fighter.incap
        crossed = wound(fighter, faces, lethal)
        state.say(
            by,
            "{} damage {} to {}: Vitality {} crossed, Incapacitation {} -> {}",
            "Lethal" if lethal else "Non-Lethal",
            faces,
            fighter.name,
            crossed or "none",
            before,
            fighter.incap,
        )
        return self._down(state, seat, by)


def _read(lethal: bool) -> tuple[int, ...] | None:
    """The faces a damage pool tells apart (§7): every one when lethal, else the even."""
    return None if lethal else EVEN_FACES


def wound(fighter: Fighter, faces: list[int], lethal: bool) -> list[int]:
    """§7 (published): a lethal die crosses a free box of its value, an even box adding
    one Incapacitation (§10 #10); a Non-Lethal die counts only when even, crossing its box
    if free and one Incapacitation box in any case (§10 #30). Returns the boxes crossed."""
    crossed = []
    for face in faces:
        if not lethal and face % 2:
            continue
        free = [i for i, value in enumerate(VITALITY) if value == face and not fighter.crossed[i]]
        if free:
            fighter.crossed[free[0]] = True
            crossed.append(face)
        if (free and face % 2 == 0) or not lethal:
            fighter.incap = min(INCAPACITATION, fighter.incap + 1)
    return crossed
