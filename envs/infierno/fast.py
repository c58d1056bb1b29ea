"""The Infierno duel (every scenario, every option) for N duels at once, in compiled code.

A port of `envs/infierno/rules.py` and `combat.py` (the reference): each kernel
mirrors the function of the same name there, rolls the same dice in the same
order and cites the same rules, so that for one seed a batched duel and its
scalar twin agree decision for decision (`tests/fast/test_infierno.py`).
Narration is left out.

The layout follows `esgrima_duel.py`: the ruleset's constants are one row
(`rules_of`; weapons by index, fists first), each duel one row of a
structured array (`duel_dtype`). An attack is a row of `ATTACK_FIELDS`. The
auto_best critical effect (§7.1) is read from a table that the reference's own
`_best_effect` fills when the engine is built: it depends on the weapon, the
Strength share and the damage that would put the target out.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numba
import numpy as np

from duelo.envs.fast.batch import ending_words
from duelo.envs.fast.loops import compile_into
from duelo.envs.fast.streams import roll
from duelo.envs.infierno.combat import TEST_DC, _best_effect, allowed_effects, strength_share
from duelo.envs.infierno.observation import LIGHTING, OBSERVATION_SPEC, STATUS_FLAGS
from duelo.envs.infierno.rules import (
    DELAY_EPSILON,
    RUN_MULTIPLIER,
    Cost,
    InfiernoRuleset,
    cost_list,
)
from duelo.envs.infierno.setup import MAX_HP, Category, Feat, Surprise, Weapon
from duelo.envs.infierno.setup import MAX_WEAPONS as MAX_CARRIED
from duelo.envs.infierno.staredown import COWED_MARGIN, COWED_PENALTY, LOSER_PENALTY
from duelo.envs.infierno.state import Action, Attack, AttackMode, StrShare

ACTIONS = len(Action)
TURN_ACTIONS = int(Action.SURRENDER) + 1
MAX_WEAPONS = 1 + 2 * 2 * MAX_CARRIED
"""Fists, and each fighter's weapons with their melee profiles."""

# plain ints: numba compiles enum members into slow code
(END_TURN, ATTACK_MAIN, ATTACK_UNARMED, PISTOL_WHIP, THROW_MAIN, TWO_WEAPON_ATTACK,
 DRAW_PRIMARY, DRAW_SECONDARY, HOLSTER_MAIN, ADVANCE, RETREAT, STEP_IN, STEP_OUT, RUN_IN,
 RUN_OUT, TAKE_COVER, CLEAR_JAM, RELOAD, FEINT, PRONE_TOGGLE, DELAY, SURRENDER, SETTLE,
 INSIST, CRIT_MULTIPLY, CRIT_MAXIMUM, CRIT_IGNORE_RD, CRIT_SEQUEL,
 CRIT_LETHAL) = (int(action) for action in Action)  # fmt: skip
SURPRISE_PHASE, ROUND_PHASE, BOTH_MISS_PHASE, CRIT_PHASE = range(4)
HOLSTERED, MAIN_HAND, OFF_HAND, THROWN_AWAY = range(4)
STAREDOWN_NONE, STAREDOWN_LOST, STAREDOWN_COWED = range(3)
MELEE_MODE, RANGED_MODE, THROWN_MODE = (int(mode) for mode in AttackMode)
SHARE_NONE, SHARE_HALF, SHARE_FULL, SHARE_ONE_AND_HALF = (int(s) for s in StrShare)
UNARMED, MELEE, FIREARM = range(3)
_CATEGORY = {Category.UNARMED: UNARMED, Category.MELEE: MELEE, Category.FIREARM: FIREARM}
COST_NONE, COST_FREE, COST_MOVE, COST_STANDARD, COST_FULL = (int(c) for c in Cost)
ATTACK_FIELDS = 7
AT_ATTACKER, AT_WEAPON, AT_MODE, AT_SHARE, AT_ITEM, AT_PENALTY, AT_OFF_HAND = range(ATTACK_FIELDS)
_READINGS = {"A": 0, "B": 1, "C": 2}
_BOTH_MISS = {"decide": 0, "continue": 1, "always_repeat": 2}
_CRIT_CHOICE = {"auto_best": 0, "always_c1": 1, "agent": 2}
_SURPRISE = {Surprise.NONE: 0, Surprise.A: 1, Surprise.B: 2, Surprise.ROLLED: 3}
FEATS_SHOWN = tuple(Feat(name) for name in STATUS_FLAGS[-3:])
"""The feats an observation shows, in its order."""
FLAG = np.uint8
"""Flags held per seat, slot or weapon (numba's structured rows hold no arrays of booleans)."""
ENDINGS = (
    "",
    "round cap of {cap}",
    "duel settled after repeated double misses",
    "duel settled by agreement",
    "both fighters are out",
    "{loser} bites the dust",
    "{loser} is knocked out",
    "{loser} surrenders",
    "{loser} flees (counts as surrender)",
)
"""The reference's `Outcome.reason` of each way a duel ends (`duel["ending"]` indexes it)."""
(GOING_ON, ROUND_CAP, DOUBLE_MISSES, AGREEMENT, BOTH_OUT, BITES_THE_DUST, KNOCKED_OUT,
 SURRENDERS, FLEES) = range(len(ENDINGS))  # fmt: skip


COSTS = np.array(
    [[[int(cost) for cost in cost_list(quick, prone)] for prone in (0, 1)] for quick in (0, 1)]
)
"""`rules.cost_list(quick_draw, prone)` as an array: the action economy (§4, §5)."""


@functools.cache  # one dtype object: numba types a new one slowly at every call
def rules_dtype() -> np.dtype:
    """One dtype for every setup, so that numba compiles the kernels once."""
    two, weapons = (2,), (MAX_WEAPONS,)
    return np.dtype(
        [
            # options (InfiernoOptions)
            ("reading", np.int64),
            ("both_miss", np.int64),
            ("max_duel_repeats", np.int64),
            ("crit_reroll", np.bool_),
            ("crit_choice", np.int64),
            ("stun_next_turn", np.bool_),
            ("stunned_defense_penalty", np.int64),
            ("quick_draw_free", np.bool_),
            ("track_ammo", np.bool_),
            ("allow_prone", np.bool_),
            ("lighting", np.int64),
            ("partial_miss", np.int64),
            ("total_miss", np.int64),
            ("partial_cover_defense", np.int64),
            ("sequel_penalty", np.int64),
            ("speed", np.int64),
            ("arena", np.int64),
            ("range_literal", np.bool_),
            ("round_cap", np.int64),
            # the scenario
            ("distance_low", np.int64),
            ("distance_high", np.int64),
            ("staredown", np.bool_),
            ("surprise", np.int64),
            ("drawn", FLAG, two),
            ("cover_nearby", FLAG, two),
            # the two characters
            ("str_mod", np.int64, two),
            ("dex_mod", np.int64, two),
            ("init_bonus", np.int64, two),
            ("defense", np.int64, two),
            ("dodge", np.int64, two),
            ("melee_attack", np.int64, two),
            ("ranged_attack", np.int64, two),
            ("hp_max", np.int64, two),
            ("reflex", np.int64, two),
            ("craft_mech", np.int64, two),
            ("intimidate", np.int64, two),
            ("deceive", np.int64, two),
            ("attention", np.int64, two),
            ("stealth", np.int64, two),
            ("rd", np.int64, two),
            ("uncanny_dodge", FLAG, two),
            ("two_weapon_fighting", FLAG, two),
            ("draws_free", FLAG, two),
            ("feats_shown", np.float64, (2, 3)),
            ("carried", np.int64, (2, MAX_CARRIED)),  # weapon indices
            ("carried_count", np.int64, two),
            # the weapons, by index (0: fists)
            ("w_category", np.int64, weapons),
            ("w_hands", np.int64, weapons),
            ("w_count", np.int64, weapons),
            ("w_sides", np.int64, weapons),
            ("w_crit_low", np.int64, weapons),
            ("w_multiplier", np.int64, weapons),
            ("w_lethal", FLAG, weapons),
            ("w_throwable", FLAG, weapons),
            ("w_increment", np.int64, weapons),
            ("w_max_range", np.int64, weapons),
            ("w_draw_modifier", np.int64, weapons),
            ("w_reliability", np.int64, weapons),
            ("w_capacity", np.int64, weapons),
            ("w_melee_profile", np.int64, weapons),
            # auto_best: [attacker seat, weapon, Strength share, damage that puts it out];
            # filled up to the target's hp_max, the most that damage can need
            ("best_effect", np.int8, (2, MAX_WEAPONS, 4, MAX_HP + 1)),
        ],
        align=True,
    )


def rules_of(ruleset: InfiernoRuleset) -> np.ndarray:
    """The batched engine's copy of a ruleset (one row): it models every option."""
    o, scenario, characters = ruleset.options, ruleset.scenario, ruleset.characters
    weapons: list[Weapon] = [ruleset.fists]
    index: dict[str, int] = {}

    def weapon_index(weapon: Weapon) -> int:
        if weapon.id not in index:
            index[weapon.id] = len(weapons)
            weapons.append(weapon)
        return index[weapon.id]

    index[ruleset.fists.id] = 0
    carried = np.zeros((2, MAX_CARRIED), np.int64)
    for seat, character in enumerate(characters):
        for slot, weapon_id in enumerate(character.weapons):
            weapon = ruleset.catalog.weapons[weapon_id]
            carried[seat, slot] = weapon_index(weapon)
            if weapon.melee_profile is not None:
                weapon_index(ruleset.catalog.weapons[weapon.melee_profile])
    rules = np.zeros(1, rules_dtype())
    r = rules[0]
    r["reading"] = _READINGS[o.staredown_penalty]
    r["both_miss"] = _BOTH_MISS[o.both_miss]
    r["max_duel_repeats"] = o.max_duel_repeats
    r["crit_reroll"] = o.crit_mode == "reroll"
    r["crit_choice"] = _CRIT_CHOICE[o.crit_choice]
    r["stun_next_turn"] = o.stun_duration == "start_of_next_turn"
    r["stunned_defense_penalty"] = o.stunned_defense_penalty
    r["quick_draw_free"] = o.quick_draw_free
    r["track_ammo"] = o.track_ammo
    r["allow_prone"] = o.allow_prone
    r["lighting"] = LIGHTING.index(o.lighting)
    r["partial_miss"] = o.partial_concealment_miss
    r["total_miss"] = o.total_concealment_miss
    r["partial_cover_defense"] = o.partial_cover_defense
    r["sequel_penalty"] = o.sequel_penalty
    r["speed"] = o.speed
    r["arena"] = o.arena
    r["range_literal"] = o.range_increments == "literal"
    r["round_cap"] = o.round_cap
    r["distance_low"], r["distance_high"] = scenario.distance
    r["staredown"] = scenario.staredown
    r["surprise"] = _SURPRISE[scenario.surprise]
    r["drawn"] = scenario.drawn
    r["cover_nearby"] = scenario.cover_nearby
    for name in (
        "str_mod",
        "dex_mod",
        "init_bonus",
        "defense",
        "dodge",
        "melee_attack",
        "ranged_attack",
        "hp_max",
        "reflex",
        "craft_mech",
        "intimidate",
        "deceive",
        "attention",
        "stealth",
        "rd",
    ):
        r[name] = [getattr(c, name) for c in characters]
    r["uncanny_dodge"] = [Feat.UNCANNY_DODGE in c.feats for c in characters]
    r["two_weapon_fighting"] = [Feat.TWO_WEAPON_FIGHTING in c.feats for c in characters]
    # seed: Quick Draw is not a move action (§4 step 9), unless the GM rules otherwise
    r["draws_free"] = [o.quick_draw_free and Feat.QUICK_DRAW in c.feats for c in characters]
    r["feats_shown"] = [[feat in c.feats for feat in FEATS_SHOWN] for c in characters]
    r["carried"] = carried
    r["carried_count"] = [len(c.weapons) for c in characters]
    for i, w in enumerate(weapons):
        r["w_category"][i] = _CATEGORY[w.category]
        r["w_hands"][i] = w.hands
        r["w_count"][i], r["w_sides"][i] = w.damage
        r["w_crit_low"][i] = w.crit_low
        r["w_multiplier"][i] = w.multiplier
        r["w_lethal"][i] = w.lethal
        r["w_throwable"][i] = w.throwable
        r["w_increment"][i] = w.increment
        r["w_max_range"][i] = w.max_range
        r["w_draw_modifier"][i] = w.draw_modifier
        r["w_reliability"][i] = w.reliability
        r["w_capacity"][i] = w.capacity
        r["w_melee_profile"][i] = -1 if w.melee_profile is None else index[w.melee_profile]
    for seat, attacker in enumerate(characters):
        target = characters[1 - seat]
        for i, w in enumerate(weapons):
            attack = Attack(seat, w, AttackMode.MELEE, StrShare.FULL)
            effects = tuple(allowed_effects(attack, SimpleNamespace(character=target)))
            for share in StrShare:
                flat = strength_share(attacker.str_mod, share)
                for need in range(1, target.hp_max + 1):
                    # the choice depends on hp - nonlethal only: it is put out by damage >= that
                    r["best_effect"][seat, i, share, need] = _best_effect(
                        w, flat, effects, target.rd, need, 0, o.crit_mode
                    )
    return rules


def longest_duel(rules: np.ndarray, illegal_limit: int) -> int:
    """The most learner steps a duel lasts. The round cap counts every round, repeats of
    the formal duel included, and the learner has one turn a round (and a surprise
    round). A turn holds fewer than ACTIONS legal decisions: the standard and the move
    actions, one step, each free action once, a delay, two critical choices and the end.
    Each repeat asks one honour choice, and at most `illegal_limit - 1` illegal steps come
    before each legal one or the limit's truncation."""
    r = rules[0]
    decisions = (int(r["round_cap"]) + 2) * ACTIONS + int(r["max_duel_repeats"]) + 1
    return (decisions + 1) * illegal_limit


@functools.cache  # one dtype object: numba types a new one slowly at every call
def duel_dtype() -> np.dtype:
    two, carried = (2,), (2, MAX_CARRIED)
    return np.dtype(
        [
            ("hp", np.int64, two),
            ("nonlethal", np.int64, two),
            ("sequels", np.int64, two),
            ("initiative", np.float64, two),
            ("has_initiative", FLAG, two),
            ("has_acted", FLAG, two),
            ("aware", FLAG, two),
            ("stunned", FLAG, two),
            ("prone", FLAG, two),
            ("cover", FLAG, two),
            ("cover_nearby", FLAG, two),
            ("staredown", np.int64, two),
            ("staredown_carry", np.int64, two),
            ("feint_turns", np.int64, two),
            ("damaged_opponent", FLAG, two),
            ("place", np.int64, carried),
            ("ammo", np.int64, carried),
            ("jammed", FLAG, carried),
            ("shown", FLAG, carried),
            ("distance", np.int64),
            ("round", np.int64),
            ("phase", np.int64),
            ("shootout_round", np.int64),
            ("order", np.int64, two),
            ("turn_index", np.int64),
            ("current", np.int64),  # -1: none
            ("duel_repeats", np.int64),
            ("delayed_round", np.int64),
            ("b_standard", np.bool_),
            ("b_move", np.bool_),
            ("b_moved", np.bool_),
            ("b_stepped", np.bool_),
            ("b_acted", np.bool_),
            ("b_surprise", np.bool_),
            ("b_free_used", np.int64),  # a bit per action
            ("queue", np.int64, (2, ATTACK_FIELDS)),
            ("queue_start", np.int64),
            ("queue_end", np.int64),
            ("pending", np.int64, (ATTACK_FIELDS,)),
            ("honour", np.int64, two),  # -1: not chosen yet
            ("over", np.bool_),
            ("winner", np.int64),
            ("truncated", np.bool_),
            ("stake", np.float64),  # what the win is worth
            ("ending", np.int64),  # an index into ENDINGS
        ],
        align=True,
    )


def ending_reason(duel: np.void, rules: np.ndarray, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel, the fighters named `names`."""
    return ending_words(ENDINGS, duel, int(rules["round_cap"][0]), names)


def new_duels(num_envs: int, rules: np.ndarray) -> np.ndarray:
    return np.zeros(num_envs, duel_dtype())


# --- small helpers ---------------------------------------------------------------------


@numba.njit(cache=True)
def _out(d: np.void, seat: int) -> bool:
    """Down (hp <= 0) or knocked out (nonlethal >= hp), digest §9."""
    return d.hp[seat] <= 0 or d.nonlethal[seat] >= d.hp[seat]


@numba.njit(cache=True)
def _sequel_penalty(d: np.void, r: np.void, seat: int) -> int:
    """-2 per moderate Sequel on attacks and every d20 test (digest §10.2)."""
    return -r.sequel_penalty * d.sequels[seat]


@numba.njit(cache=True)
def _in_hand(d: np.void, r: np.void, seat: int, place: int) -> int:
    """The slot of the first carried weapon at `place`, or -1 (`Fighter.in_hand`)."""
    for slot in range(r.carried_count[seat]):
        if d.place[seat, slot] == place:
            return slot
    return -1


@numba.njit(cache=True)
def _finish(d: np.void, winner: int, ending: int) -> None:
    """`InfiernoRuleset._finish`: the result, and attacks still waiting die with the duel."""
    d.over = True
    d.winner = winner
    d.truncated = False
    d.ending = ending
    d.queue_start = d.queue_end = 0


@numba.njit(cache=True)
def _opposed_loser(total0: int, total1: int, bonus0: int, bonus1: int) -> int:
    """Index of the loser of an opposed test; ties to the higher bonus, else -1 (§3)."""
    if total0 != total1:
        return 0 if total0 < total1 else 1
    if bonus0 != bonus1:
        return 0 if bonus0 < bonus1 else 1
    return -1


@numba.njit(cache=True)
def _opposed(first: int, first_bonus: int, second: int, second_bonus: int, dice: np.ndarray) -> int:
    """`rules._opposed`: `first` rolls first; a full tie is re-rolled. The winning seat."""
    while True:
        a = roll(dice, 20)
        b = roll(dice, 20)
        loser = _opposed_loser(a + first_bonus, b + second_bonus, first_bonus, second_bonus)
        if loser >= 0:
            return second if loser == 0 else first


@numba.njit(cache=True)
def _initiative_penalty(staredown: int, reading: int) -> int:
    """Initiative modifier of a staredown state (only reading A penalises a plain loss)."""
    if staredown == STAREDOWN_COWED:
        return -COWED_PENALTY
    if staredown == STAREDOWN_LOST and reading == 0:
        return -LOSER_PENALTY
    return 0


# --- the ruleset interface ---------------------------------------------------------------


@numba.njit(cache=True)
def new_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`InfiernoRuleset.new_duel`."""
    for seat in range(2):
        for slot in range(MAX_CARRIED):
            d.place[seat, slot] = HOLSTERED
            d.ammo[seat, slot] = r.w_capacity[r.carried[seat, slot]]
            d.jammed[seat, slot] = False
            d.shown[seat, slot] = False
        if r.drawn[seat] and r.carried_count[seat] > 0:
            d.place[seat, 0] = MAIN_HAND
            d.shown[seat, 0] = True
        d.hp[seat] = r.hp_max[seat]
        d.cover_nearby[seat] = r.cover_nearby[seat]
        d.nonlethal[seat] = d.sequels[seat] = 0
        d.initiative[seat] = 0.0
        d.has_initiative[seat] = False
        d.has_acted[seat] = False
        d.aware[seat] = True
        d.stunned[seat] = d.prone[seat] = d.cover[seat] = False
        d.staredown[seat] = STAREDOWN_NONE
        d.staredown_carry[seat] = 0
        d.feint_turns[seat] = 0
        d.damaged_opponent[seat] = False
        d.honour[seat] = -1
    d.phase = ROUND_PHASE
    d.shootout_round = 0
    d.order[0], d.order[1] = 0, 1
    d.turn_index = 0
    d.current = -1
    d.duel_repeats = 0
    d.delayed_round = -1
    d.round = 0
    d.b_standard = d.b_move = True
    d.b_moved = d.b_stepped = d.b_acted = d.b_surprise = False
    d.b_free_used = 0
    d.queue_start = d.queue_end = 0
    d.over = False
    d.stake = 1.0  # every win is worth 1
    d.winner = -1
    d.truncated = False
    d.ending = GOING_ON
    d.distance = _roll_distance(r, dice)
    if r.staredown:
        _open_formal_duel(d, r, dice)
    elif r.surprise != 0:
        _open_ambush(d, r, dice)
    else:
        for seat in range(2):
            _roll_initiative(d, r, seat, dice)
        _set_order(d, r, dice)
        _start_round(d, r)


@numba.njit(cache=True)
def to_act(d: np.void, r: np.void) -> int:
    """The seat to decide, or -1 once the duel is over."""
    if d.over:
        return -1
    phase = d.phase
    if phase == SURPRISE_PHASE or phase == ROUND_PHASE:
        return d.current
    if phase == BOTH_MISS_PHASE:
        for k in range(2):
            if d.honour[d.order[k]] < 0:
                return d.order[k]
    return d.pending[AT_ATTACKER]  # the critical's effect is its attacker's choice


@numba.njit(cache=True)
def legal_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    mask[:] = False
    if to_act(d, r) != seat:
        return
    if d.phase == BOTH_MISS_PHASE:
        mask[SETTLE] = mask[INSIST] = True
    elif d.phase == CRIT_PHASE:  # combat.allowed_effects
        mask[CRIT_MULTIPLY] = mask[CRIT_MAXIMUM] = mask[CRIT_SEQUEL] = True
        mask[CRIT_IGNORE_RD] = r.rd[1 - seat] > 0
        mask[CRIT_LETHAL] = not r.w_lethal[d.pending[AT_WEAPON]]
    else:
        _turn_mask(d, r, seat, mask)


@numba.njit(cache=True)
def apply(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    if d.phase == BOTH_MISS_PHASE:
        _honour(d, r, seat, action, dice)
    elif d.phase == CRIT_PHASE:
        d.phase = SURPRISE_PHASE if d.b_surprise else ROUND_PHASE
        _deal_damage(d, r, d.pending, action, dice, False, -1)
        _run_attacks(d, r, dice)
        _after_action(d, r, dice)
    else:
        _turn_action(d, r, seat, action, dice)


# --- setup -------------------------------------------------------------------------------


@numba.njit(cache=True)
def _roll_distance(r: np.void, dice: np.ndarray) -> int:
    low, high = r.distance_low, r.distance_high
    if low == high:
        return min(low, r.arena)
    return min(low + roll(dice, high - low + 1) - 1, r.arena)


@numba.njit(cache=True)
def _open_formal_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """Seed DUELOS: staredown, then the draw (initiative), then the shootout."""
    _staredown(d, r, dice)
    for seat in range(2):
        _roll_initiative(d, r, seat, dice)
    _set_order(d, r, dice)
    d.shootout_round = 0
    _start_round(d, r)


@numba.njit(cache=True)
def _staredown(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """Opposed Intimidate before initiative (seed DUELOS; digest §8.1 readings A/B/C)."""
    bonus0 = r.intimidate[0] + _sequel_penalty(d, r, 0) - d.staredown_carry[0]
    total0 = roll(dice, 20) + bonus0
    bonus1 = r.intimidate[1] + _sequel_penalty(d, r, 1) - d.staredown_carry[1]
    total1 = roll(dice, 20) + bonus1
    d.staredown[0] = d.staredown[1] = STAREDOWN_NONE  # staredown.staredown_result
    d.staredown_carry[0] = d.staredown_carry[1] = 0
    loser = _opposed_loser(total0, total1, bonus0, bonus1)
    if loser < 0:
        return
    margin = (total1 - total0) if loser == 0 else (total0 - total1)
    if r.reading == 1:
        margin += LOSER_PENALTY
    d.staredown[loser] = STAREDOWN_COWED if margin >= COWED_MARGIN else STAREDOWN_LOST
    if r.reading == 2:
        d.staredown_carry[loser] = LOSER_PENALTY  # reading C: -2 in the next staredown


@numba.njit(cache=True)
def _open_ambush(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """Seed SORPRESA; digest §4 step 2, §10.4 (surprise = A, B or rolled)."""
    ambusher = 1 if r.surprise == 2 else 0
    target = 1 - ambusher
    surprised = True
    if r.surprise == 3:  # the target's Attention die is rolled first (§10.4)
        winner = _opposed(target, r.attention[target], ambusher, r.stealth[ambusher], dice)
        surprised = winner == ambusher
    if not surprised:
        _roll_initiative(d, r, ambusher, dice)
        _roll_initiative(d, r, 1 - ambusher, dice)
        _set_order(d, r, dice)
        _start_round(d, r)
        return
    d.aware[target] = False
    _roll_initiative(d, r, ambusher, dice)  # the aware roll before the surprise round
    d.order[0], d.order[1] = ambusher, 1 - ambusher
    d.phase = SURPRISE_PHASE
    _begin_turn(d, r, ambusher)


@numba.njit(cache=True)
def _roll_initiative(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    """1d20 + Initiative + draw modifier + staredown penalty (seed PRUEBA DE INICIATIVA)."""
    draw = 0
    empty_handed = _in_hand(d, r, seat, MAIN_HAND) < 0
    if empty_handed and r.carried_count[seat] > 0 and d.place[seat, 0] == HOLSTERED:
        draw = r.w_draw_modifier[r.carried[seat, 0]]  # §4 step 3: only when drawing
    elif empty_handed:
        draw = r.w_draw_modifier[0]  # fists
    staredown = _initiative_penalty(d.staredown[seat], r.reading)
    total = roll(dice, 20) + r.init_bonus[seat] + draw + staredown + _sequel_penalty(d, r, seat)
    d.initiative[seat] = total
    d.has_initiative[seat] = True


@numba.njit(cache=True)
def _set_order(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """Descending initiative; ties by Dexterity, then Initiative bonus, then a die (§4)."""
    a, b = d.initiative[0], d.initiative[1]
    if a != b:
        first = 0 if a > b else 1
    elif r.dex_mod[0] != r.dex_mod[1]:
        first = 0 if r.dex_mod[0] > r.dex_mod[1] else 1
    elif r.init_bonus[0] != r.init_bonus[1]:
        first = 0 if r.init_bonus[0] > r.init_bonus[1] else 1
    else:
        first = roll(dice, 2) - 1
    d.order[0], d.order[1] = first, 1 - first
    d.aware[0] = d.aware[1] = True


# --- rounds and turns --------------------------------------------------------------------


@numba.njit(cache=True)
def _start_round(d: np.void, r: np.void) -> None:
    d.shootout_round += 1
    d.round += 1
    if d.round > r.round_cap:  # the round cap: a truncated draw (DuelState.start_round)
        d.over = True
        d.winner = -1
        d.truncated = True
        d.ending = ROUND_CAP
        return
    d.phase = ROUND_PHASE
    d.turn_index = 0
    _begin_turn(d, r, d.order[0])


@numba.njit(cache=True)
def _begin_turn(d: np.void, r: np.void, seat: int) -> None:
    if d.stunned[seat] and r.stun_next_turn:
        d.stunned[seat] = False  # §7: the stun lasts until the start of own next turn
    d.current = seat
    d.b_standard = d.b_move = True
    d.b_moved = d.b_stepped = d.b_acted = False
    d.b_surprise = d.phase == SURPRISE_PHASE
    d.b_free_used = 0


@numba.njit(cache=True)
def _end_turn(d: np.void, r: np.void, dice: np.ndarray) -> None:
    seat = d.current
    if d.feint_turns[seat] > 0:
        d.feint_turns[seat] -= 1
    d.turn_index += 1
    if d.phase == SURPRISE_PHASE:
        # §4 steps 2-3: the surprised side rolls initiative after the surprise round
        _roll_initiative(d, r, d.order[1], dice)
        _set_order(d, r, dice)
        d.round = 0
        d.shootout_round = 0
        _start_round(d, r)
    elif d.turn_index >= 2:
        _end_round(d, r, dice)
    else:
        _begin_turn(d, r, d.order[d.turn_index])


@numba.njit(cache=True)
def _end_round(d: np.void, r: np.void, dice: np.ndarray) -> None:
    if not r.stun_next_turn:  # end_of_round
        d.stunned[0] = d.stunned[1] = False
    if (
        r.staredown
        and d.shootout_round == 1
        and r.both_miss != 1
        and not (d.damaged_opponent[0] or d.damaged_opponent[1])
    ):
        # §8.1 step 4: both missed in round 1 of the shootout
        if d.duel_repeats >= r.max_duel_repeats:
            _finish(d, -1, DOUBLE_MISSES)
        elif r.both_miss == 2:
            _repeat_duel(d, r, dice)
        else:
            d.phase = BOTH_MISS_PHASE
            d.honour[0] = d.honour[1] = -1
            d.current = -1
        return
    _start_round(d, r)


@numba.njit(cache=True)
def _honour(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """Seed DUELOS: settled if both let it go, repeated if one's honour is at stake."""
    d.honour[seat] = action
    if d.honour[1 - seat] < 0:
        return  # told when both are in
    if d.honour[0] == SETTLE and d.honour[1] == SETTLE:
        _finish(d, -1, AGREEMENT)
    else:
        _repeat_duel(d, r, dice)


@numba.njit(cache=True)
def _repeat_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """§8.1: HP, nonlethal and Sequels stay; everything else resets."""
    d.duel_repeats += 1
    for seat in range(2):
        for slot in range(r.carried_count[seat]):
            d.place[seat, slot] = HOLSTERED
            d.ammo[seat, slot] = r.w_capacity[r.carried[seat, slot]]
            d.jammed[seat, slot] = False
        if r.drawn[seat] and r.carried_count[seat] > 0:
            d.place[seat, 0] = MAIN_HAND
            d.shown[seat, 0] = True
        d.has_acted[seat] = False
        d.stunned[seat] = d.prone[seat] = d.cover[seat] = False
        d.feint_turns[seat] = 0
        d.damaged_opponent[seat] = False
    d.distance = _roll_distance(r, dice)
    _open_formal_duel(d, r, dice)


@numba.njit(cache=True)
def _check_out(d: np.void) -> bool:
    """§9: down at hp <= 0, knocked out at nonlethal >= hp."""
    out0, out1 = _out(d, 0), _out(d, 1)
    if not (out0 or out1):
        return False
    if out0 and out1:
        _finish(d, -1, BOTH_OUT)
    else:
        loser = 0 if out0 else 1
        _finish(d, 1 - loser, BITES_THE_DUST if d.hp[loser] <= 0 else KNOCKED_OUT)
    return True


# --- the acting seat's turn --------------------------------------------------------------


@numba.njit(cache=True)
def _can_strike(d: np.void, r: np.void, seat: int, slot: int) -> bool:
    weapon = r.carried[seat, slot]
    if r.w_category[weapon] == FIREARM:
        has_ammo = d.ammo[seat, slot] > 0 or not r.track_ammo
        return not d.jammed[seat, slot] and has_ammo and d.distance <= r.w_max_range[weapon]
    return r.w_category[weapon] == MELEE and d.distance == 1


@numba.njit(cache=True)
def _turn_mask(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`InfiernoRuleset._turn_mask`: what the budget can pay (`_payable`), then what the
    situation allows."""
    quick, prone = r.draws_free[seat], d.prone[seat]
    standard, move = d.b_standard, d.b_move
    full = standard and move and not d.b_surprise
    for action in range(TURN_ACTIONS):  # _payable: a move may be paid with the standard
        cost = COSTS[int(quick), int(prone), action]
        if cost == COST_MOVE:
            pay = move or standard
        elif cost == COST_STANDARD:
            pay = standard
        elif cost == COST_FULL:
            pay = full
        elif cost == COST_FREE:
            pay = not (d.b_free_used >> action) & 1  # a free action once a turn
        else:
            pay = True
        mask[action] = pay
    main = off = -1
    used_hands = 0
    for slot in range(r.carried_count[seat]):
        place = d.place[seat, slot]
        if place == MAIN_HAND:
            main = slot
            used_hands += r.w_hands[r.carried[seat, slot]]
        elif place == OFF_HAND:
            off = slot
            used_hands += r.w_hands[r.carried[seat, slot]]
    distance = d.distance
    adjacent = distance == 1
    walk = not prone and not d.b_stepped  # §4: no move after a step
    step = not (d.b_moved or d.b_stepped)
    free_hands = max(0, 2 - used_hands)
    draws0 = r.carried_count[seat] > 0 and d.place[seat, 0] == HOLSTERED
    draws0 = draws0 and free_hands >= r.w_hands[r.carried[seat, 0]]
    draws1 = r.carried_count[seat] > 1 and d.place[seat, 1] == HOLSTERED
    draws1 = draws1 and free_hands >= r.w_hands[r.carried[seat, 1]]
    main_weapon = r.carried[seat, main] if main >= 0 else -1
    main_strikes = main >= 0 and _can_strike(d, r, seat, main)
    jammed = (main >= 0 and d.jammed[seat, main]) or (off >= 0 and d.jammed[seat, off])
    reloadable = False
    for slot in (main, off):
        if slot >= 0:
            weapon = r.carried[seat, slot]
            if r.w_category[weapon] == FIREARM and d.ammo[seat, slot] < r.w_capacity[weapon]:
                reloadable = True
    round_phase = d.phase == ROUND_PHASE
    mask[ATTACK_MAIN] &= main_strikes
    mask[ATTACK_UNARMED] &= adjacent
    mask[PISTOL_WHIP] &= adjacent and main_weapon >= 0 and r.w_melee_profile[main_weapon] >= 0
    mask[THROW_MAIN] &= (  # §8.7: no thrown attacks while prone
        main_weapon >= 0
        and r.w_throwable[main_weapon]
        and distance <= r.w_max_range[main_weapon]
        and not prone
    )
    mask[TWO_WEAPON_ATTACK] &= (
        main_strikes and off >= 0 and r.w_hands[main_weapon] == 1 and _can_strike(d, r, seat, off)
    )
    mask[DRAW_PRIMARY] &= draws0
    mask[DRAW_SECONDARY] &= draws1
    mask[HOLSTER_MAIN] &= main >= 0
    mask[ADVANCE] &= walk and distance > 1
    mask[RETREAT] &= walk
    mask[STEP_IN] &= step and distance > 1
    mask[STEP_OUT] &= step and distance < r.arena
    mask[RUN_IN] &= walk and distance > 1
    mask[RUN_OUT] &= walk
    mask[TAKE_COVER] &= d.cover_nearby[seat] and not d.cover[seat] and distance > 1
    mask[CLEAR_JAM] &= jammed
    mask[RELOAD] &= r.track_ammo and reloadable
    mask[FEINT] &= adjacent
    mask[PRONE_TOGGLE] &= r.allow_prone
    mask[DELAY] &= (
        round_phase and not d.b_acted and d.turn_index == 0 and d.delayed_round != d.round
    )
    mask[SURRENDER] &= round_phase


@numba.njit(cache=True)
def _spend(d: np.void, cost: int, action: int) -> None:
    if cost == COST_STANDARD:
        d.b_standard = False
    elif cost == COST_MOVE:
        if d.b_move:
            d.b_move = False
        else:
            d.b_standard = False
    elif cost == COST_FULL:
        d.b_standard = d.b_move = False
    elif cost == COST_FREE:
        d.b_free_used |= 1 << action
    if d.b_surprise and (cost == COST_STANDARD or cost == COST_MOVE):
        d.b_standard = d.b_move = False  # §4 step 2: one standard or one move


@numba.njit(cache=True)
def _turn_action(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    if action == DELAY:
        _delay(d, r, seat)
        return
    d.has_acted[seat] = True  # DESPREVENIDO: no longer flat-footed once acting
    d.b_acted = True
    if action == END_TURN:
        _end_turn(d, r, dice)
        return
    _spend(d, COSTS[int(r.draws_free[seat]), int(d.prone[seat]), action], action)
    if action == SURRENDER:
        _finish(d, 1 - seat, SURRENDERS)
        return
    main = _in_hand(d, r, seat, MAIN_HAND)
    if action <= TWO_WEAPON_ATTACK:  # the attacks
        _queue_attacks(d, r, seat, action, main)
        _run_attacks(d, r, dice)
    elif action == DRAW_PRIMARY or action == DRAW_SECONDARY:
        slot = 0 if action == DRAW_PRIMARY else 1
        d.place[seat, slot] = MAIN_HAND if main < 0 else OFF_HAND
        d.shown[seat, slot] = True
    elif action == HOLSTER_MAIN:
        off = _in_hand(d, r, seat, OFF_HAND)
        d.place[seat, main] = HOLSTERED
        if off >= 0:
            d.place[seat, off] = MAIN_HAND
    elif ADVANCE <= action <= RUN_OUT:
        _move(d, r, seat, action)
    elif action == TAKE_COVER:
        d.cover[seat] = True
    elif action == CLEAR_JAM:
        _clear_jam(d, r, seat, dice)
    elif action == RELOAD:
        off = _in_hand(d, r, seat, OFF_HAND)
        for slot in (main, off):
            if slot >= 0:
                weapon = r.carried[seat, slot]
                if r.w_category[weapon] == FIREARM and d.ammo[seat, slot] < r.w_capacity[weapon]:
                    d.ammo[seat, slot] = r.w_capacity[weapon]
                    break
    elif action == FEINT:
        other = 1 - seat
        winner = _opposed(
            seat,
            r.deceive[seat] + _sequel_penalty(d, r, seat),
            other,
            r.attention[other] + _sequel_penalty(d, r, other),
            dice,
        )
        if winner == seat:
            d.feint_turns[seat] = 2  # this turn and the next (§5)
    elif action == PRONE_TOGGLE:
        d.prone[seat] = not d.prone[seat]
    _after_action(d, r, dice)


@numba.njit(cache=True)
def _after_action(d: np.void, r: np.void, dice: np.ndarray) -> None:
    if d.over or d.phase == CRIT_PHASE or _check_out(d):
        return
    if d.stunned[d.current]:
        _end_turn(d, r, dice)  # stunned: the rest of the turn is lost
    elif not (d.b_standard or d.b_move or not (d.b_moved or d.b_stepped)):
        _end_turn(d, r, dice)  # the budget is exhausted


@numba.njit(cache=True)
def _delay(d: np.void, r: np.void, seat: int) -> None:
    """§4 step 5: act right after the opponent from now on."""
    other = 1 - seat
    d.initiative[seat] = d.initiative[other] - DELAY_EPSILON
    d.has_initiative[seat] = True
    d.order[0], d.order[1] = other, seat
    d.delayed_round = d.round
    _begin_turn(d, r, other)


@numba.njit(cache=True)
def _set_attack(
    attack: np.ndarray,
    seat: int,
    weapon: int,
    mode: int,
    share: int,
    item: int,
    penalty: int,
    off_hand: bool,
) -> None:
    attack[AT_ATTACKER] = seat
    attack[AT_WEAPON] = weapon
    attack[AT_MODE] = mode
    attack[AT_SHARE] = share
    attack[AT_ITEM] = item
    attack[AT_PENALTY] = penalty
    attack[AT_OFF_HAND] = off_hand


@numba.njit(cache=True)
def _melee_share(hands: int) -> int:
    return SHARE_ONE_AND_HALF if hands == 2 else SHARE_FULL


@numba.njit(cache=True)
def _strike(
    attack: np.ndarray, r: np.void, seat: int, slot: int, penalty: int, off_hand: bool
) -> None:
    weapon = r.carried[seat, slot]
    if r.w_category[weapon] == FIREARM:
        _set_attack(attack, seat, weapon, RANGED_MODE, SHARE_NONE, slot, penalty, off_hand)
    else:  # seed DAÑO
        share = SHARE_HALF if off_hand else _melee_share(r.w_hands[weapon])
        _set_attack(attack, seat, weapon, MELEE_MODE, share, slot, penalty, off_hand)


@numba.njit(cache=True)
def _queue_attacks(d: np.void, r: np.void, seat: int, action: int, main: int) -> None:
    """`InfiernoRuleset._attacks`, into the queue."""
    d.queue_start, d.queue_end = 0, 1
    first = d.queue[0]
    if action == ATTACK_UNARMED:
        _set_attack(first, seat, 0, MELEE_MODE, SHARE_FULL, -1, 0, False)
        return
    main_weapon = r.carried[seat, main]
    if action == PISTOL_WHIP:
        profile = r.w_melee_profile[main_weapon]
        share = _melee_share(r.w_hands[profile])
        _set_attack(first, seat, profile, MELEE_MODE, share, -1, 0, False)
    elif action == THROW_MAIN:
        _set_attack(first, seat, main_weapon, THROWN_MODE, SHARE_HALF, main, 0, False)
    elif action == ATTACK_MAIN:
        _strike(first, r, seat, main, 0, False)
    else:  # two weapons: -2/-2 with the feat, else -4/-8 (§5, ASSUMPTION d20 SRD)
        feat = r.two_weapon_fighting[seat]
        _strike(first, r, seat, main, -2 if feat else -4, False)
        off = _in_hand(d, r, seat, OFF_HAND)
        _strike(d.queue[1], r, seat, off, -2 if feat else -8, True)
        d.queue_end = 2


@numba.njit(cache=True)
def _run_attacks(d: np.void, r: np.void, dice: np.ndarray) -> None:
    while d.queue_start < d.queue_end and d.phase != CRIT_PHASE:
        attack = d.queue[d.queue_start]
        d.queue_start += 1
        _resolve_attack(d, r, attack, dice)
        if _out(d, 0) or _out(d, 1) or d.stunned[attack[AT_ATTACKER]]:
            d.queue_start = d.queue_end = 0


@numba.njit(cache=True)
def _move(d: np.void, r: np.void, seat: int, action: int) -> None:
    """§6 discrete range model; cover is lost by moving, kept by a step."""
    before = d.distance
    runs = action == RUN_IN or action == RUN_OUT
    reach = r.speed * (RUN_MULTIPLIER if runs else 1)
    if (action == RETREAT or action == RUN_OUT) and before >= r.arena:
        _finish(d, 1 - seat, FLEES)  # flight counts as surrender
        return
    if action == ADVANCE or action == RUN_IN or action == STEP_IN:
        step = 1 if action == STEP_IN else reach
        d.distance = before - min(step, before - 1)
    else:
        step = 1 if action == STEP_OUT else reach
        d.distance = min(r.arena, before + step)
    if action == STEP_IN or action == STEP_OUT:
        d.b_stepped = True
    else:
        d.b_moved = True
        d.cover[seat] = False
    if d.distance == 1:
        d.cover[0] = d.cover[1] = False  # §8.4: no cover in melee


@numba.njit(cache=True)
def _clear_jam(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    """Craft (Mechanics) DC 15 as a standard action (seed PIFIAS Y ENCASQUILLAMIENTO)."""
    slot = _in_hand(d, r, seat, MAIN_HAND)
    if slot < 0 or not d.jammed[seat, slot]:
        slot = _in_hand(d, r, seat, OFF_HAND)
    bonus = r.craft_mech[seat] + _sequel_penalty(d, r, seat)
    if roll(dice, 20) + bonus >= TEST_DC:
        d.jammed[seat, slot] = False


# --- the attack pipeline (combat.py) ------------------------------------------------------


@numba.njit(cache=True)
def _range_penalty(r: np.void, weapon: int, distance: int) -> int:
    """-2 per full increment (seed); the digest's reading or the literal one (§6)."""
    increment = r.w_increment[weapon]
    if r.range_literal:
        return -2 * (distance // increment)
    return -2 * ((distance + increment - 1) // increment - 1)


@numba.njit(cache=True)
def _attack_modifier(d: np.void, r: np.void, attack: np.ndarray) -> int:
    """Total attack bonus (digest §8.7)."""
    seat = attack[AT_ATTACKER]
    if attack[AT_MODE] == MELEE_MODE:
        bonus = r.melee_attack[seat]
    else:
        bonus = r.ranged_attack[seat] + _range_penalty(r, attack[AT_WEAPON], d.distance)
    bonus += attack[AT_PENALTY] + _sequel_penalty(d, r, seat)
    if d.prone[seat] and attack[AT_MODE] == MELEE_MODE:
        bonus -= 4
    return bonus


@numba.njit(cache=True)
def _current_defense(d: np.void, r: np.void, attack: np.ndarray) -> int:
    """The target's Defense against this attack (combat.current_defense, dodge_lost)."""
    attacker = attack[AT_ATTACKER]
    target = 1 - attacker
    defense = r.defense[target]
    if d.stunned[target]:
        lost = True  # Uncanny Dodge does not cover stunning (§8.2)
    elif r.uncanny_dodge[target]:
        lost = False
    else:
        lost = not d.has_acted[target] or d.feint_turns[attacker] > 0 or r.lighting != 0
    if lost and r.dodge[target]:
        defense -= r.dodge[target]
    if d.cover[target] and d.distance > 1:  # §8.4: no cover at range 1
        defense += r.partial_cover_defense
    if d.prone[target]:  # §8.7 (ASSUMPTION, d20 SRD)
        if attack[AT_MODE] == MELEE_MODE:
            defense -= 4
        elif d.distance > 1:
            defense += 4
    if d.stunned[target] and r.stunned_defense_penalty:
        defense -= r.stunned_defense_penalty
    return defense


@numba.njit(cache=True)
def _hits(face: int, bonus: int, defense: int) -> bool:
    """Natural 20 always hits, natural 1 always misses (seed: TIRADA DE ATAQUE)."""
    return face == 20 or (face != 1 and face + bonus >= defense)


@numba.njit(cache=True)
def _resolve_attack(d: np.void, r: np.void, attack: np.ndarray, dice: np.ndarray) -> None:
    """`combat.resolve_attack`: one attack to its end, or to a critical to choose for."""
    seat = attack[AT_ATTACKER]
    item = attack[AT_ITEM]
    if item >= 0:
        if attack[AT_MODE] == RANGED_MODE and r.track_ammo:
            d.ammo[seat, item] -= 1  # spent hit or miss, jammed or not (§5, §7 ASSUMPTION)
        if attack[AT_MODE] == THROWN_MODE:
            d.place[seat, item] = THROWN_AWAY  # §5: the weapon leaves the hand
            off = _in_hand(d, r, seat, OFF_HAND)
            if off >= 0:  # the other hand leads now
                d.place[seat, off] = MAIN_HAND
    bonus = _attack_modifier(d, r, attack)
    defense = _current_defense(d, r, attack)
    d.feint_turns[seat] = 0  # the feint is spent on the next attack (§5)
    face = roll(dice, 20)
    if face == 1:
        _natural_one(d, r, attack, dice)
        return
    if not _hits(face, bonus, defense):
        return
    weapon = attack[AT_WEAPON]
    critical = face + bonus - defense >= r.w_crit_low[weapon] - 10 + r.rd[1 - seat]
    ignore_rd = False
    if not critical and face == 20:
        if _hits(roll(dice, 20), bonus, defense):  # the confirmation (seed: GOLPES CRÍTICOS)
            critical = True
        else:
            ignore_rd = True  # an unconfirmed threat is a normal hit ignoring armour
    if r.lighting != 0:  # §8.5: concealment miss chance after the crit check
        miss = r.partial_miss if r.lighting == 1 else r.total_miss
        if roll(dice, 100) <= miss:
            return
    if not critical:
        _deal_damage(d, r, attack, -1, dice, ignore_rd, -1)
    elif r.crit_choice == 2:  # agent
        d.pending[:] = attack
        d.phase = CRIT_PHASE
    elif r.crit_choice == 1:  # always_c1
        _deal_damage(d, r, attack, CRIT_MULTIPLY, dice, False, -1)
    else:  # auto_best: the reference's choice for the damage that puts the target out
        need = d.hp[1 - seat] - d.nonlethal[1 - seat]
        effect = r.best_effect[seat, weapon, attack[AT_SHARE], need]
        _deal_damage(d, r, attack, effect, dice, False, -1)


@numba.njit(cache=True)
def _natural_one(d: np.void, r: np.void, attack: np.ndarray, dice: np.ndarray) -> None:
    """Fumble or jam threat (seed: PIFIAS Y ENCASQUILLAMIENTO)."""
    seat = attack[AT_ATTACKER]
    penalty = _sequel_penalty(d, r, seat)
    if attack[AT_MODE] == RANGED_MODE:
        total = roll(dice, 20) + r.w_reliability[attack[AT_WEAPON]] + penalty
        if total < TEST_DC and attack[AT_ITEM] >= 0:
            d.jammed[seat, attack[AT_ITEM]] = True
        return
    if roll(dice, 20) + r.reflex[seat] + penalty >= TEST_DC:
        return
    _deal_damage(d, r, attack, -1, dice, False, seat)  # a fumble: hurts himself, stunned
    d.stunned[seat] = True


@numba.njit(cache=True)
def _strength_share(str_mod: int, share: int) -> int:
    """Digest §7 table; x1.5 and x1/2 round down and apply to positive Str only."""
    if share == SHARE_NONE:
        return 0
    if share == SHARE_FULL or str_mod < 0:
        return str_mod
    return str_mod * 3 // 2 if share == SHARE_ONE_AND_HALF else str_mod // 2


@numba.njit(cache=True)
def _deal_damage(
    d: np.void,
    r: np.void,
    attack: np.ndarray,
    effect: int,
    dice: np.ndarray,
    ignore_rd: bool,
    target_seat: int,
) -> None:
    """`combat.deal_damage`: roll and apply damage (seed: DAÑO; effects C1-C5 of §7.1)."""
    seat = attack[AT_ATTACKER]
    target = 1 - seat if target_seat < 0 else target_seat
    weapon = attack[AT_WEAPON]
    flat = _strength_share(r.str_mod[seat], attack[AT_SHARE])
    count, sides, multiplier = r.w_count[weapon], r.w_sides[weapon], r.w_multiplier[weapon]
    if effect == CRIT_MAXIMUM:  # every die at its maximum; x3 x1.5, x4 x2 (seed)
        top = max(1, count * sides + flat)
        rolled = top if multiplier == 2 else (top * 3 // 2 if multiplier == 3 else top * 2)
    else:
        if effect == CRIT_MULTIPLY and r.crit_reroll:
            count *= multiplier  # C1: the dice rolled m times (§7.1)
        faces = 0
        for _ in range(count):
            faces += roll(dice, sides)
        if effect == CRIT_MULTIPLY:
            if r.crit_reroll:
                rolled = max(1, faces + flat * multiplier)
            else:
                rolled = max(1, faces + flat) * multiplier
        else:
            rolled = max(1, faces + flat)  # minimum damage 1 (seed: DAÑO)
    lethal = r.w_lethal[weapon] or effect == CRIT_LETHAL
    rd = 0 if ignore_rd or effect == CRIT_IGNORE_RD else r.rd[target]
    dealt = max(0, rolled - rd)  # §7 step 5: RD after the minimum of 1
    if lethal:
        d.hp[target] -= dealt
    else:
        d.nonlethal[target] += dealt
    if effect == CRIT_SEQUEL:
        d.sequels[target] += 1
    if dealt > 0 and target != seat:
        d.damaged_opponent[seat] = True


# --- the observation (observation.observe) -------------------------------------------------


@numba.njit(cache=True)
def _weapon_row(r: np.void, seat: int, slot: int, d: np.void, out: np.ndarray, at: int) -> None:
    w = r.carried[seat, slot]
    out[at] = 1.0
    out[at + 1] = r.w_category[w] == FIREARM
    out[at + 2] = r.w_throwable[w]
    out[at + 3] = r.w_hands[w] == 2
    out[at + 4] = r.w_count[w] * (r.w_sides[w] + 1) / 2
    out[at + 5] = r.w_crit_low[w] - 10
    out[at + 6] = r.w_increment[w]
    out[at + 7] = r.w_max_range[w]
    out[at + 8] = d.ammo[seat, slot]
    out[at + 9] = r.w_capacity[w]
    out[at + 10] = d.jammed[seat, slot]
    out[at + 11] = r.w_reliability[w]


ROW = 12
_STATUS_AT = OBSERVATION_SPEC.slice_of("status").start
_MAIN_AT = OBSERVATION_SPEC.slice_of("main_hand").start
_OFF_AT = OBSERVATION_SPEC.slice_of("off_hand").start
_HOLSTERED_AT = OBSERVATION_SPEC.slice_of("holstered").start
_LOADOUT_AT = OBSERVATION_SPEC.slice_of("loadout").start
_STATS_AT = OBSERVATION_SPEC.slice_of("stats").start
_LIGHTING_AT = OBSERVATION_SPEC.slice_of("lighting").start
_REPEATS_AT = OBSERVATION_SPEC.slice_of("duel_repeats").start


@numba.njit(cache=True)
def observe(d: np.void, r: np.void, seat: int, out: np.ndarray) -> None:
    """`observation.observe` into `out`, in the order of OBSERVATION_SPEC."""
    out[:] = 0.0
    them = 1 - seat
    out[0], out[1] = d.initiative[seat], d.initiative[them]
    out[2], out[3] = d.has_initiative[seat], d.has_initiative[them]
    out[4] = d.order[0] == seat
    out[5], out[6] = max(d.hp[seat], 0), max(d.hp[them], 0)
    out[7], out[8] = r.hp_max[seat], r.hp_max[them]
    out[9], out[10] = d.nonlethal[seat], d.nonlethal[them]
    out[11], out[12] = d.sequels[seat], d.sequels[them]
    out[13] = d.distance
    out[14] = min(d.round, r.round_cap + 1)
    if not d.over:  # a finished duel has no phase
        out[15 + d.phase] = 1.0
        if d.current == seat and (d.phase == SURPRISE_PHASE or d.phase == ROUND_PHASE):
            out[19], out[20] = d.b_standard, d.b_move
            out[21] = d.b_standard and d.b_move and not d.b_surprise
            out[22] = not (d.b_moved or d.b_stepped)
            out[23] = not d.b_acted
    at = _STATUS_AT
    for side in (seat, them):
        out[at] = not d.has_acted[side]
        out[at + 1] = d.stunned[side]
        out[at + 2] = d.prone[side]
        out[at + 3] = d.cover[side]
        out[at + 4] = d.cover_nearby[side]
        out[at + 5] = d.staredown[side] == STAREDOWN_LOST
        out[at + 6] = d.staredown[side] == STAREDOWN_COWED
        out[at + 7] = d.feint_turns[side] > 0
        out[at + 8 : at + 11] = r.feats_shown[side]
        at += 11
    at = _STATS_AT
    for side in (seat, them):
        out[at] = r.melee_attack[side]
        out[at + 1] = r.ranged_attack[side]
        out[at + 2] = r.defense[side]
        out[at + 3] = r.dodge[side]
        out[at + 4] = r.rd[side]
        out[at + 5] = r.init_bonus[side]
        out[at + 6] = r.str_mod[side]
        out[at + 7] = r.dex_mod[side]
        out[at + 8] = r.reflex[side]
        out[at + 9] = r.craft_mech[side]
        out[at + 10] = r.intimidate[side]
        out[at + 11] = r.deceive[side]
        out[at + 12] = r.attention[side]
        at += 13
    for k in range(2):  # observation._carried: the opponent's only once shown
        side = seat if k == 0 else them
        own = k == 0
        main = off = False
        for slot in range(r.carried_count[side]):
            place = d.place[side, slot]
            if place == THROWN_AWAY or not (own or d.shown[side, slot]):
                continue
            if slot < 2:
                _weapon_row(r, side, slot, d, out, _LOADOUT_AT + (2 * k + slot) * ROW)
                out[_HOLSTERED_AT + 2 * k + slot] = place == HOLSTERED
            if place == MAIN_HAND and not main:
                _weapon_row(r, side, slot, d, out, _MAIN_AT + k * ROW)
                main = True
            elif place == OFF_HAND and not off:
                _weapon_row(r, side, slot, d, out, _OFF_AT + k * ROW)
                off = True
    out[_LIGHTING_AT + r.lighting] = 1.0
    out[_REPEATS_AT] = d.duel_repeats


compile_into(globals())  # the env and tournament loops (loops.py), on these kernels
