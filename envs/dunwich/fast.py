"""The Dunwich duel for N duels at once, in compiled code.

A port of `envs/dunwich/rules.py` and `pairing.py` (the reference): each kernel
mirrors one method there, rolls the same dice in the same order, and cites the same
rules, so that for one seed a batched duel and its scalar twin agree decision for
decision (`tests/fast/test_dunwich.py`). Narration is left out.

The state of N duels is one structured array (`DUEL_DTYPE`), a row a duel; lengths
are half metres, as in the reference. A pool of d6 is rolled die by die, in the
reference's order, and read by what the rules read of it: its successes and its
failed dice (Defenderse rerolls failed dice, and which ones does not matter: they are
alike), a knockout roll's odd and even dice, a damage die as it comes.
"""

from __future__ import annotations

from collections.abc import Collection

import numba
import numpy as np

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
    DunwichRuleset,
)
from duelo.envs.dunwich.setup import HALF_METRES, MAX_PV
from duelo.envs.dunwich.state import (
    ATTACKS,
    DYING,
    INCAPACITATION,
    REACTIONS,
    SHOTS,
    STRIKE_AND_RETREAT,
    VITALITY,
    Action,
    Maneuver,
    Phase,
)
from duelo.envs.fast.batch import ending_words
from duelo.envs.fast.loops import compile_into
from duelo.envs.fast.streams import roll

ACTIONS = len(Action)
BOXES = len(VITALITY)
VITALITY_BOX = np.array(VITALITY, dtype=np.int64)
"""The Vitality register's boxes (§1, §7)."""
PLAN, ACT, REACT, PUSH = map(int, Phase)
DANAR, DEFENDERSE, DESPLAZAR, INCAPACITAR = map(int, Maneuver)
BID_0, BID_3, ESCAPE = int(Action.BID_0), int(Action.BID_3), int(Action.ESCAPE)
A_DANAR = int(Action.DANAR)
A_DESPLAZAR = int(Action.DESPLAZAR)
A_INCAPACITAR = int(Action.INCAPACITAR)
POSITION_DANAR = int(Action.POSITION_DANAR)
DANAR_RETREAT = int(Action.DANAR_RETREAT)
DESPLAZAR_RETREAT = int(Action.DESPLAZAR_RETREAT)
INCAPACITAR_RETREAT = int(Action.INCAPACITAR_RETREAT)
SHOOT = int(Action.SHOOT)
ADVANCE_SHOOT = int(Action.ADVANCE_SHOOT)
RETREAT_SHOOT = int(Action.RETREAT_SHOOT)
ADVANCE = int(Action.ADVANCE)
RETREAT = int(Action.RETREAT)
SPRINT_AWAY = int(Action.SPRINT)
SPRINT_TOWARD = int(Action.SPRINT_TOWARD)
REACT_DEFEND = int(Action.REACT_DEFEND)
REACT_DESPLAZAR = int(Action.REACT_DESPLAZAR)
PUSH_0 = int(Action.PUSH_0)
"""The actions the kernels name (plain ints: numba compiles an enum member into slow code)."""


def _table(actions: Collection[Action]) -> np.ndarray:
    """Whether each action id is one of `actions`, as an array the kernels index."""
    return np.array([Action(action) in actions for action in range(ACTIONS)])


IS_ATTACK = _table(ATTACKS)
IS_SHOT = _table(SHOTS)
FALLS_BACK = _table(STRIKE_AND_RETREAT)
"""The reference's sets of actions (`ATTACKS`, `SHOTS`, `STRIKE_AND_RETREAT`), by id."""
MANEUVER_OF = np.array(
    [int({**ATTACKS, **REACTIONS}.get(Action(action), -1)) for action in range(ACTIONS)]
)
"""The maneuver of each attack (`ATTACKS`) and reaction (`REACTIONS`), -1 for none."""
REACTION_ALLOWED = np.array(
    [[Action(action) in ALLOWED.get(m, ()) for action in range(ACTIONS)] for m in Maneuver]
)
"""`ALLOWED`: the reactions besides Defenderse each maneuver allows (§5), by maneuver
and action id."""
ENDINGS = (
    "",
    "round cap of {cap}",
    "{loser} is dead",
    "{loser} is incapacitated",
    "{escaper} escapes",
)
"""The reference's `Outcome.reason` of each way a duel ends (`duel["ending"]` indexes it)."""
GOING_ON, ROUND_CAP, DEAD, INCAPACITATED, ESCAPES = range(len(ENDINGS))


RULES_DTYPE = np.dtype(
    [
        ("bank_extra_successes", np.bool_),
        ("margin_dice", np.bool_),
        ("pusher_follows", np.bool_),
        ("wound_penalty", np.bool_),
        ("escape_is_loss", np.bool_),
        ("advantageous_position", np.bool_),
        ("round_cap", np.int64),
        ("arena", np.int64),  # half metres, walls at 0 and here
        ("start", np.int64, (2,)),  # per seat, as the fields below
        ("fisico", np.int64, (2,)),
        ("lucha", np.int64, (2,)),
        ("disparo", np.int64, (2,)),
        ("initiative", np.int64, (2,)),  # Físico + Lucha, or the stat block's INI
        ("pv", np.int64, (2,)),
        ("ballistic_armour", np.uint8, (2,)),
        ("melee_dice", np.int64, (2,)),
        ("melee_lethal", np.uint8, (2,)),
        ("ranged", np.uint8, (2,)),  # it carries a ranged weapon
        ("ranged_dice", np.int64, (2,)),
        ("ranged_lethal", np.uint8, (2,)),
        ("firearm", np.uint8, (2,)),
    ],
    align=True,
)
"""What the ruleset fixes for every duel of the batch: the options, arena and fighters
(a flag per seat is a `uint8`: numba takes no array of booleans in a record)."""


def rules_of(ruleset: DunwichRuleset) -> np.ndarray:
    """The batched engine's copy of a ruleset (one row)."""
    options, characters = ruleset.options, ruleset.characters
    weapons = ruleset.catalog.weapons
    rules = np.zeros(1, RULES_DTYPE)
    for name in (
        "bank_extra_successes",
        "margin_dice",
        "pusher_follows",
        "wound_penalty",
        "escape_is_loss",
        "round_cap",
    ):
        rules[name] = getattr(options, name)
    rules["advantageous_position"] = ruleset.scenario.advantageous_position
    a, b, arena = ruleset.scenario.grid
    rules["arena"] = arena
    rules["start"] = (a, b)
    for name in ("fisico", "lucha", "disparo", "initiative", "pv", "ballistic_armour"):
        rules[name] = [getattr(c, name) for c in characters]
    rules["melee_dice"] = [weapons[c.melee].dice for c in characters]
    rules["melee_lethal"] = [weapons[c.melee].lethal for c in characters]
    for seat, character in enumerate(characters):
        if character.ranged is not None:
            ranged = weapons[character.ranged]
            rules["ranged"][0, seat] = True
            rules["ranged_dice"][0, seat] = ranged.dice
            rules["ranged_lethal"][0, seat] = ranged.lethal
            rules["firearm"][0, seat] = ranged.firearm
    return rules


def longest_duel(rules: np.ndarray, illegal_limit: int) -> int:
    """The most learner steps a duel lasts: a combat turn asks the learner a plan, an
    Initiative Turn and its push, and a reaction and its push, each after at most
    `illegal_limit - 1` illegal ones, or the limit's truncation."""
    return (int(rules["round_cap"][0]) + 1) * 5 * illegal_limit


DUEL_DTYPE = np.dtype(
    [
        ("position", np.int64, (2,)),  # half metres from the left wall
        ("pv", np.int64, (2,)),
        ("crossed", np.uint8, (2, BOXES)),
        ("incap", np.int64, (2,)),
        ("initiative", np.int64, (2,)),  # this turn's INI
        ("acted", np.uint8, (2,)),
        ("reacted", np.uint8, (2,)),
        ("task", np.uint8, (2,)),
        ("defend_only", np.uint8, (2,)),
        ("engaged_at_start", np.uint8, (2,)),
        ("bonus", np.int64, (2,)),
        ("bid", np.int64, (2,)),
        ("phase", np.int64),
        ("current", np.int64),
        ("plans", np.int64, (2,)),  # the sealed plan's action, -1 until made
        ("order", np.int64, (2,)),
        ("ordered", np.bool_),
        ("initiator", np.int64),  # the pending maneuver (`Pending`), -1 for none
        ("maneuver", np.int64),
        ("retreat", np.int64),
        ("round", np.int64),
        ("over", np.bool_),
        ("winner", np.int64),  # the winning seat, or -1 for a draw (read once over)
        ("truncated", np.bool_),
        ("stake", np.float64),  # what the win is worth
        ("ending", np.int64),  # an index into ENDINGS
        ("escaper", np.int64),  # who escaped, for the ending's words
    ],
    align=True,
)
"""One Dunwich duel (`DunwichState`) as a row."""


def ending_reason(duel: np.void, rules: np.ndarray, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel, the fighters named `names`."""
    if int(duel["ending"]) == ESCAPES:
        return ENDINGS[ESCAPES].format(escaper=names[int(duel["escaper"])])
    return ending_words(ENDINGS, duel, int(rules["round_cap"][0]), names)


def new_duels(num_envs: int, rules: np.ndarray) -> np.ndarray:
    return np.zeros(num_envs, DUEL_DTYPE)


def aftermath(duels: np.ndarray, rows: np.ndarray, rules: np.ndarray) -> dict[str, np.ndarray]:
    """`DunwichState.aftermath()` of the ended duels `duels[rows]`: `dying` by seat, five
    or more Vitality boxes crossed and not all (§9)."""
    crossed = duels["crossed"][rows].sum(axis=2)
    dying = (crossed >= DYING) & (crossed < BOXES)
    return {"dying": DYING_PAIRS[2 * dying[:, 0] + dying[:, 1]]}


DYING_PAIRS = np.empty(4, dtype=object)
DYING_PAIRS[:] = [(a, b) for a in (False, True) for b in (False, True)]
"""`aftermath`'s pairs, as the reference reports them, picked by index (building a tuple
a duel cost a tenth of the vector env's step at N = 1,024)."""


# --- the ruleset interface ---------------------------------------------------------


@numba.njit(cache=True)
def new_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`DunwichRuleset.new_duel`: the fighters where the scenario puts them, the first
    combat turn."""
    d.over = False
    d.truncated = False
    d.winner = -1
    d.stake = 1.0
    d.ending = GOING_ON
    d.escaper = -1
    d.round = 0
    for seat in range(2):
        d.position[seat] = r.start[seat]
        d.pv[seat] = r.pv[seat]
        d.crossed[seat, :] = 0
        d.incap[seat] = 0
    d.order[0], d.order[1] = 0, 1
    _start_turn(d, r, dice)


@numba.njit(cache=True, inline="always")
def to_act(d: np.void, r: np.void) -> int:
    """The seat to decide, or -1 once the duel is over."""
    return -1 if d.over else d.current


@numba.njit(cache=True)
def legal_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`DunwichRuleset.legal_actions` into `mask` (one row of ACTIONS booleans)."""
    mask[:] = False
    if to_act(d, r) != seat:
        return
    if d.phase == PLAN:
        _plan_mask(d, r, seat, mask)
        return
    if d.phase == REACT:
        _reaction_mask(d, r, seat, mask)
        return
    if d.phase == PUSH:  # §8.2 step 2: 0..PV
        for spent in range(MAX_PV + 1):
            mask[PUSH_0 + spent] = spent <= d.pv[seat]
        return
    distance = _distance(d)
    if distance < CHARGE:  # §4 (d): within reach, or a charge
        mask[A_DANAR] = mask[A_INCAPACITAR] = True
        mask[DANAR_RETREAT] = mask[INCAPACITAR_RETREAT] = True
        pushable = _behind(d, r, 1 - seat) >= PUSHABLE  # §5, §8.2
        mask[A_DESPLAZAR] = mask[DESPLAZAR_RETREAT] = pushable
        mask[POSITION_DANAR] = r.advantageous_position and not d.engaged_at_start[seat]  # §8.3
    shoot = r.ranged[seat] and distance > SHOT  # §4 (c)
    mask[SHOOT] = mask[RETREAT_SHOOT] = shoot
    mask[ADVANCE_SHOOT] = shoot and distance > SHOT + 1  # room to close, still > 5 m
    mask[ADVANCE] = mask[SPRINT_TOWARD] = distance > ADJACENT
    mask[RETREAT] = mask[SPRINT_AWAY] = True  # stopping at the wall (§12)


@numba.njit(cache=True)
def apply(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """`DunwichRuleset.apply` of a legal action."""
    if d.phase == PLAN:
        d.plans[seat] = action  # sealed: the rival sees nothing of it until both are in
        _next_plan(d, r, dice)
    elif d.phase == REACT:
        _pairing(d, r, seat, action, dice)
    elif d.phase == PUSH:
        if not _push(d, r, seat, 1 - seat, action - PUSH_0, dice):
            _after_pairing(d, r, dice)
    elif IS_ATTACK[action]:
        _declare(d, r, seat, action, dice)
    elif IS_SHOT[action]:
        if action == RETREAT_SHOOT:
            _move(d, r, seat, -MOVE, ADJACENT)
        elif action == ADVANCE_SHOOT:  # closing, but still more than 5 m off
            _move(d, r, seat, MOVE, SHOT + 1)
        _shoot(d, r, seat, dice)
    elif action == SPRINT_AWAY or action == SPRINT_TOWARD:
        _sprint(d, r, seat, dice, action == SPRINT_TOWARD)
    else:
        _move(d, r, seat, MOVE if action == ADVANCE else -MOVE, ADJACENT)
        _next_initiative(d, r, dice)


@numba.njit(cache=True)
def observe(d: np.void, r: np.void, seat: int, out: np.ndarray) -> None:
    """`observation.observe` into `out`, in the order of its OBSERVATION_SPEC."""
    them = 1 - seat
    over = d.over
    out[0:7] = 0.0
    if not over:
        out[d.phase] = 1.0
        if d.phase == REACT and d.initiator >= 0:  # the maneuver to react to
            maneuver = d.maneuver
            out[4 + (0 if maneuver == DANAR else 1 if maneuver == DESPLAZAR else 2)] = 1.0
    first = d.order[0] if d.ordered else -1
    out[7] = first == seat
    out[8] = first == them
    out[9] = min(d.round, 999)
    out[10] = d.position[seat] / HALF_METRES
    out[11] = d.position[them] / HALF_METRES
    out[12] = _distance(d) / HALF_METRES
    out[13] = _behind(d, r, seat) / HALF_METRES
    out[14] = _behind(d, r, them) / HALF_METRES
    at = 15
    for side in (seat, them):
        out[at] = r.fisico[side]
        out[at + 1] = r.lucha[side]
        out[at + 2] = r.disparo[side]
        out[at + 3] = d.initiative[side]
        at += 4
    out[at] = d.pv[seat]
    out[at + 1] = d.pv[them]
    at += 2
    for side in (seat, them):
        for box in range(BOXES):
            out[at + box] = d.crossed[side, box]
        at += BOXES
    out[at] = INCAPACITATION - d.incap[seat]
    out[at + 1] = INCAPACITATION - d.incap[them]
    out[at + 2] = out[at + 3] = INCAPACITATION
    at += 4
    for side in (seat, them):
        out[at] = r.melee_dice[side]
        out[at + 1] = r.melee_lethal[side]
        out[at + 2] = r.ranged_dice[side]
        out[at + 3] = r.firearm[side]
        out[at + 4] = r.ballistic_armour[side]
        at += 5
    for side in (seat, them):
        out[at] = d.acted[side]
        out[at + 1] = d.reacted[side]
        out[at + 2] = d.task[side]
        out[at + 3] = d.defend_only[side]
        out[at + 4] = d.engaged_at_start[side]
        out[at + 5] = d.bonus[side]
        out[at + 6] = d.bid[side]
        at += 7


@numba.njit(cache=True, inline="always")
def _distance(d: np.void) -> int:
    """`DunwichState.distance`: side A is always left of side B."""
    return d.position[1] - d.position[0]


@numba.njit(cache=True, inline="always")
def _behind(d: np.void, r: np.void, seat: int) -> int:
    """`DunwichState.behind`: half metres to the wall at `seat`'s back."""
    return d.position[0] if seat == 0 else r.arena - d.position[1]


# --- the combat turn (§4) ---------------------------------------------------------------


@numba.njit(cache=True)
def _start_turn(d: np.void, r: np.void, dice: np.ndarray) -> None:
    d.round += 1
    if d.round > r.round_cap:  # `DuelState.start_round`: a truncated draw
        _finish(d, -1, ROUND_CAP)
        d.truncated = True
        return
    for seat in range(2):
        d.acted[seat] = d.reacted[seat] = d.task[seat] = d.defend_only[seat] = False
        d.engaged_at_start[seat] = False
        d.bonus[seat] = d.bid[seat] = 0
        d.initiative[seat] = r.initiative[seat]
    d.ordered = False
    d.initiator = -1
    mask = np.zeros(ACTIONS, np.bool_)
    for seat in range(2):
        d.plans[seat] = -1
        _plan_mask(d, r, seat, mask)
        if mask.sum() == 1 and mask[BID_0]:
            d.plans[seat] = BID_0  # nothing to choose: no decision (§12)
    _next_plan(d, r, dice)


@numba.njit(cache=True)
def _plan_mask(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """§4 item 2: a bid of 0..pv (§10 #7), or the escape task (§9, §10 #24); a bid only
    with a pairing in reach (ASSUMPTION)."""
    mask[:] = False
    pairing = _distance(d) < CHARGE
    for bid in range(BID_3 + 1):
        mask[BID_0 + bid] = bid <= d.pv[seat] and (bid == 0 or pairing)
    exit_near = _behind(d, r, seat) <= ESCAPE_EXIT
    mask[ESCAPE] = exit_near and _distance(d) > ESCAPE_CLEAR


@numba.njit(cache=True)
def _next_plan(d: np.void, r: np.void, dice: np.ndarray) -> None:
    for seat in range(2):
        if d.plans[seat] < 0:
            d.phase, d.current = PLAN, seat
            return
    _settle_plans(d, r, dice)


@numba.njit(cache=True)
def _settle_plans(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """§4 item 2: tasks set their INI; the higher bid acts first and pays it; equal bids
    keep the INI order, ties by Lucha, then a roll (§10 #1, #7)."""
    for seat in range(2):
        if d.plans[seat] == ESCAPE:
            d.task[seat] = True
            d.initiative[seat] = 2 * r.fisico[seat]  # §4 item 3 (e)
            d.bid[seat] = 0
        else:
            d.bid[seat] = d.plans[seat] - BID_0
    if d.bid[0] != d.bid[1]:
        first = 0 if d.bid[0] > d.bid[1] else 1
        d.pv[first] -= d.bid[first]
    elif d.initiative[0] != d.initiative[1]:
        first = 0 if d.initiative[0] > d.initiative[1] else 1
    elif r.lucha[0] != r.lucha[1]:
        first = 0 if r.lucha[0] > r.lucha[1] else 1
    else:
        first = roll(dice, 2) - 1  # §10 #1
    d.order[0], d.order[1] = first, 1 - first
    d.ordered = True
    _initiative_turn(d, r)  # the first in the order: nobody has acted yet


@numba.njit(cache=True)
def _next_initiative(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """The next Initiative Turn in the order (§4 items 3-6); when none is left, the next
    combat turn."""
    if not _initiative_turn(d, r):
        _start_turn(d, r, dice)


@numba.njit(cache=True)
def _initiative_turn(d: np.void, r: np.void) -> bool:
    """The next Initiative Turn in the order, skipping whoever reacted (§4 items 3-6);
    False when none is left. (`_next_initiative` of the reference, less its call of the
    next combat turn: numba compiles no cycle of calls.)"""
    d.initiator = -1
    for k in range(2):
        seat = d.order[k]
        if d.acted[seat] or d.reacted[seat]:
            continue
        d.acted[seat] = True
        d.engaged_at_start[seat] = _distance(d) <= REACH  # §10 #25
        if d.task[seat]:  # §4 item 3 (e): the task happens if it is still standing
            d.escaper = seat  # §9, §10 #24: a draw, or a loss if so configured
            _finish(d, 1 - seat if r.escape_is_loss else -1, ESCAPES)
            return True
        d.phase, d.current = ACT, seat
        return True
    return False


@numba.njit(cache=True)
def _finish(d: np.void, winner: int, ending: int) -> None:
    d.over = True
    d.winner = winner
    d.truncated = False
    d.ending = ending


# --- movement (§4 (a), (b), §6) ---------------------------------------------------------


@numba.njit(cache=True)
def _move(d: np.void, r: np.void, seat: int, step: int, stop: int) -> None:
    """Up to `step` half metres toward the rival (negative: away); an advance stops
    `stop` short of it, a retreat at the wall (§12)."""
    toward = 1 if seat == 0 else -1  # side A is left of side B
    if step > 0:
        step = max(0, min(step, _distance(d) - stop))
    else:
        step = -min(-step, _behind(d, r, seat))
    d.position[seat] += toward * step


@numba.njit(cache=True)
def _sprint(d: np.void, r: np.void, seat: int, dice: np.ndarray, toward: bool) -> None:
    """§4 (b): 7 + 4 m, plus 1 m per extra success of a Físico check."""
    total = _check(d, r, seat, r.fisico[seat], dice)
    metres = SPRINT + HALF_METRES * max(total - 1, 0)
    _move(d, r, seat, metres if toward else -metres, ADJACENT)
    _next_initiative(d, r, dice)


# --- shooting (§4 (c), §10 #14) -------------------------------------------------------------


@numba.njit(cache=True)
def _shoot(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    total = _check(d, r, seat, r.disparo[seat], dice)
    if total >= 1 and _shot_lands(d, r, seat, 1 - seat, dice):
        return
    _next_initiative(d, r, dice)


@numba.njit(cache=True)
def _shot_lands(d: np.void, r: np.void, seat: int, target: int, dice: np.ndarray) -> bool:
    """A hit's damage dice; a firearm's are Non-Lethal on ballistic armour (§7)."""
    lethal = r.ranged_lethal[seat] and not (r.firearm[seat] and r.ballistic_armour[target])
    return _wound(d, r, target, r.ranged_dice[seat], lethal, seat, dice)


# --- melee (§4 items 4-5, §5) ----------------------------------------------------------------


@numba.njit(cache=True)
def _declare(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    if action == POSITION_DANAR and not _win_position(d, r, seat, dice):
        _next_initiative(d, r, dice)  # §8.3: Defenderse only this turn
        return
    charged = 0
    if _distance(d) > REACH:  # §6: the charger ends 0.5 m from its target
        charged = _distance(d) - ADJACENT
        d.position[seat] += (1 if seat == 0 else -1) * charged
    retreat = MOVE - charged if FALLS_BACK[action] else 0  # §4 (a), §6
    d.initiator, d.maneuver, d.retreat = seat, MANEUVER_OF[action], retreat
    d.phase, d.current = REACT, 1 - seat


@numba.njit(cache=True)
def _reaction_mask(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """Defenderse always; the rest as the maneuver allows (§5), Desplazar with room."""
    mask[REACT_DEFEND] = True  # §5: always allowed
    if d.defend_only[seat]:  # §8.3
        return
    for action in range(ACTIONS):
        if REACTION_ALLOWED[d.maneuver, action]:
            mask[action] = True
    if not _behind(d, r, d.initiator) >= PUSHABLE:  # §5: the pushed must have room
        mask[REACT_DESPLAZAR] = False


@numba.njit(cache=True)
def _pairing(d: np.void, r: np.void, reactor: int, action: int, dice: np.ndarray) -> None:
    """One opposed Lucha check; the side with more successes applies its maneuver, a tie
    does nothing (§3, §5)."""
    initiator = d.initiator
    chosen = np.empty(2, np.int64)
    chosen[initiator], chosen[reactor] = d.maneuver, MANEUVER_OF[action]
    if not d.acted[reactor]:
        d.reacted[reactor] = True  # §4 item 5: its turn is spent
    totals = _opposed(d, r, initiator, chosen, dice)
    mine, theirs = totals[initiator], totals[reactor]
    if mine == theirs:
        _after_pairing(d, r, dice)
        return
    winner = initiator if mine > theirs else reactor
    margin = abs(mine - theirs)
    maneuver = chosen[winner]
    _bank(d, r, winner, totals[winner])
    if maneuver == DESPLAZAR and d.pv[winner]:
        d.phase, d.current = PUSH, winner  # §8.2 step 2: the PV to spend, knowing it won
        return
    if _effect(d, r, winner, 1 - winner, maneuver, margin, dice):
        return
    _after_pairing(d, r, dice)


@numba.njit(cache=True)
def _after_pairing(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """An initiator that struck to fall back moves away the rest of its 7 m (§4 (a)); then
    the next Initiative Turn."""
    if d.retreat:
        _move(d, r, d.initiator, -d.retreat, ADJACENT)
    _next_initiative(d, r, dice)


@numba.njit(cache=True)
def _down(d: np.void, seat: int, by: int) -> bool:
    """§9: out when incapacitated or dead; True when that ended the duel."""
    dead = True
    for box in range(BOXES):
        dead = dead and d.crossed[seat, box] != 0
    if d.incap[seat] < INCAPACITATION and not dead:
        return False
    _finish(d, by, DEAD if dead else INCAPACITATED)
    return True


# --- what a pairing does (`pairing.py`) ------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _successes(face: int) -> int:
    """§3: a 5 is one success, a 6 two, 1-4 none."""
    return 2 if face == 6 else 1 if face == 5 else 0


@numba.njit(cache=True)
def _pool(d: np.void, r: np.void, seat: int, capacity: int) -> int:
    """A Capacity's dice less the wound penalty, -1d per 2 Incapacitation boxes (§10 #13)."""
    return capacity - (d.incap[seat] // 2 if r.wound_penalty else 0)


@numba.njit(cache=True)
def _check(d: np.void, r: np.void, seat: int, capacity: int, dice: np.ndarray) -> int:
    """An unopposed check's successes (§3; a pool of 0 or fewer dice rolls nothing)."""
    total = 0
    for _ in range(_pool(d, r, seat, capacity)):
        total += _successes(roll(dice, 6))
    return total


@numba.njit(cache=True)
def _win_position(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> bool:
    """§8.3: a Físico check; each success past the first is a bonus success in the
    pairing, and none leaves Defenderse only for the turn."""
    total = _check(d, r, seat, r.fisico[seat], dice)
    if total == 0:
        d.defend_only[seat] = True
        return False
    d.bonus[seat] = total - 1
    return True


@numba.njit(cache=True)
def _opposed(
    d: np.void, r: np.void, initiator: int, chosen: np.ndarray, dice: np.ndarray
) -> np.ndarray:
    """Both Lucha pools (the initiator's first), then Defenderse's rerolls of up to Lucha
    failed dice (§10 #28), none for a fighter on a task (§4 (e)); each total with its
    position bonus, which is spent (§8.3, §10 #21)."""
    successes = np.zeros(2, np.int64)
    failed = np.zeros(2, np.int64)
    for k in range(2):
        side = initiator if k == 0 else 1 - initiator
        size = _pool(d, r, side, r.lucha[side]) - (chosen[side] == INCAPACITAR)  # §5, §10 #5
        for _ in range(size):
            gained = _successes(roll(dice, 6))
            successes[side] += gained
            failed[side] += gained == 0
    for k in range(2):
        side = initiator if k == 0 else 1 - initiator
        if chosen[side] == DEFENDERSE and not d.task[side]:
            for _ in range(min(failed[side], max(r.lucha[side], 0))):
                successes[side] += _successes(roll(dice, 6))
        successes[side] += d.bonus[side]
        d.bonus[side] = 0
    return successes


@numba.njit(cache=True)
def _bank(d: np.void, r: np.void, winner: int, total: int) -> None:
    """§10 #6 `bank_extra_successes`: the winner's successes past the first become PV."""
    if not r.bank_extra_successes:
        return
    banked = min(MAX_PV, d.pv[winner] + total - 1) - d.pv[winner]
    if banked > 0:
        d.pv[winner] += banked


@numba.njit(cache=True)
def _effect(
    d: np.void,
    r: np.void,
    winner: int,
    loser: int,
    maneuver: int,
    margin: int,
    dice: np.ndarray,
) -> bool:
    """The winner's maneuver on the loser (§5); True when the duel ended."""
    if maneuver == DEFENDERSE:
        return False
    if maneuver == DANAR:
        extra = margin - 1 if r.margin_dice else 0  # §10 #9
        lethal = r.melee_lethal[winner] != 0
        return _wound(d, r, loser, r.melee_dice[winner] + extra, lethal, winner, dice)
    if maneuver == INCAPACITAR:  # §7: the knockout roll, every odd die rolled again once
        count = r.melee_dice[winner]
        odd = 0
        for _ in range(count):
            odd += roll(dice, 6) % 2
        marks = count - odd
        for _ in range(odd):
            marks += 1 - roll(dice, 6) % 2
        d.incap[loser] = min(INCAPACITATION, d.incap[loser] + marks)
        return _down(d, loser, winner)
    return _push(d, r, winner, loser, 0, dice)


@numba.njit(cache=True)
def _push(d: np.void, r: np.void, winner: int, loser: int, pv: int, dice: np.ndarray) -> bool:
    """§8.2: D = ceil(Físico / 2) m + 0.5 m per PV spent, straight away from the winner
    (§10 #16); a wall short of D stops the loser, who takes floor(D) Non-Lethal dice.
    True when the duel ended."""
    d.pv[winner] -= pv
    push = HALF_METRES * ((r.fisico[winner] + 1) // 2) + pv
    direction = 1 if winner == 0 else -1  # `_push_path`: side A is left of side B
    room = _behind(d, r, loser)
    travelled = min(push, room)
    d.position[loser] += direction * travelled
    if r.pusher_follows:  # §10 #27
        d.position[winner] += direction * travelled
    if push <= room:  # §8.2 step 5: D = F is no impact
        return False
    return _wound(d, r, loser, push // HALF_METRES, False, winner, dice)


@numba.njit(cache=True)
def _wound(
    d: np.void, r: np.void, seat: int, count: int, lethal: bool, by: int, dice: np.ndarray
) -> bool:
    """`count` damage dice on `seat`'s registers (§7): a lethal die crosses a free box of
    its value, an even box adding one Incapacitation (§10 #10); a Non-Lethal die counts
    only when even, crossing its box if free and one Incapacitation box in any case
    (§10 #30). True when that ended the duel."""
    for _ in range(count):
        face = roll(dice, 6)
        if not lethal and face % 2:
            continue
        free = -1
        for box in range(BOXES):
            if VITALITY_BOX[box] == face and not d.crossed[seat, box]:
                free = box
                break
        if free >= 0:
            d.crossed[seat, free] = True
        if (free >= 0 and face % 2 == 0) or not lethal:
            d.incap[seat] = min(INCAPACITATION, d.incap[seat] + 1)
    return _down(d, seat, by)


compile_into(globals())  # the env and tournament loops (loops.py), on these kernels
