"""The Liminal duel and the hero against a mob, for N fights at once, in compiled code.

A port of `envs/liminal/rules.py` and of what `envs/liminal/mob.py` changes (the
reference; a rules row's `mob` says which): each kernel mirrors one method there,
rolls the same dice in the same order, and cites the same rules, so that for one
seed a batched fight and its scalar twin agree decision for decision
(`tests/fast/test_liminal.py`). Narration is left out.

The state of N duels is one structured array (`DUEL_DTYPE`), a row a duel. A weapon
is a code into the rules' weapon table: 0 the bare hands, then each weapon the two
fighters carry, one code a weapon id (the reference compares weapons by identity,
and one catalog gives one object an id). A fighter's carried weapons are slots 0-1,
`held` a slot (or -1, empty-handed) and `dropped` a bit a slot (the reference's
sorted tuple of slots: its first is the lowest bit). The skills are the duel's, not
the rules': a mob's attack level falls as its members do (§8).
"""

from __future__ import annotations

import numba
import numpy as np

from duelo.envs.fast.batch import ending_words
from duelo.envs.fast.loops import compile_into
from duelo.envs.fast.streams import roll
from duelo.envs.liminal.mob import (
    HERO,
    MAX_ATTACK_LEVEL,
    MEMBER_ENDURANCE,
    MOB,
    MOB_MASK,
    LiminalMobRuleset,
)
from duelo.envs.liminal.observation import weapon_row
from duelo.envs.liminal.odds import CRITICAL_MARGIN, QUICK_GRAB_CL, STANDARD_CL, UNSKILLED
from duelo.envs.liminal.rules import MODIFIER, SOCIAL_REACH, LiminalRuleset, strength_bonuses
from duelo.envs.liminal.setup import OUT, SKILLS, TRACK, Band, Kind
from duelo.envs.liminal.state import Action, Deed, Phase

ACTIONS = len(Action)
MELEE_SKILL, SHOOT_SKILL, ATHLETICS, PERCEPTION, SOCIAL, CONVICTION = range(len(SKILLS))
DEEDS = len(Deed)
NONE_DEED, MELEE_DEED, SHOOT_DEED, DEFEND_DEED, SOCIAL_DEED = map(int, Deed)
MAIN, CRIT_ATTACK, CRIT_DEFEND, BONUS = map(int, Phase)
RECOVER = int(Action.RECOVER)
FAST_ADVANCE = int(Action.FAST_ADVANCE)
FAST_RETREAT = int(Action.FAST_RETREAT)
CRIT_DAMAGE = int(Action.CRIT_DAMAGE)
CRIT_ACT_FIRST = int(Action.CRIT_ACT_FIRST)
CRIT_DISARM = int(Action.CRIT_DISARM)
PERFECT_COVER = int(Action.DEFEND_PERFECT_COVER)
WITHDRAW = int(Action.DEFEND_WITHDRAW)
"""The actions the kernels name (plain ints: numba compiles an enum member into slow code)."""
MISS, SUCCESS, CRITICAL = 0, 1, 2
BANDS = len(Band)
BAND_OF = np.array([int(band) for band in TRACK], dtype=np.int64)
"""The band of each step of the distance track (§6)."""
MOVE_STEP = np.array([0, -1, 1], dtype=np.int64)
"""`MOVE_STEPS`: hold, advance, retreat (§6)."""
UNARMED = 0
"""The bare hands' weapon code."""
WEAPONS = 5
"""Weapon codes: the bare hands and at most two carried by each fighter."""
SLOTS = 2
"""Weapons a stat block carries at most (`Character`)."""
WEAPON_FIELDS = len(weapon_row(None))
ENDINGS = (
    "",
    "round cap of {cap}",
    "{loser} is down",
    "{loser} surrenders",
    "{loser} withdraws",
    "{loser} breaks",
)
"""The reference's `Outcome.reason` of each way a duel ends (`duel["ending"]` indexes it)."""
GOING_ON, ROUND_CAP, DOWN, SURRENDERS, WITHDRAWS, BREAKS = range(len(ENDINGS))


RULES_DTYPE = np.dtype(
    [
        ("opposed_initiative", np.bool_),
        ("crit_agent", np.bool_),
        ("tiered", np.bool_),
        ("social_action", np.bool_),
        ("unskilled_no_crit", np.bool_),
        ("surrender_threshold", np.float64),
        ("withdraw_stake", np.float64),
        ("round_cap", np.int64),
        ("distance", np.int64),  # the scenario's starting step
        ("mob", np.bool_),  # seat 1 is a mob (`LiminalMobRuleset`)
        ("mob_armed", np.bool_),
        ("mob_members", np.int64),  # at the start
        ("medicine", np.int64),  # the hero's, to save downed members after the fight (§8)
        ("skills", np.int64, (2, len(SKILLS))),  # per seat, as the fields below
        ("endurance_max", np.int64, (2,)),
        ("talent", np.int64, (2,)),  # the strength talent's melee damage
        ("defence_bonus", np.int64, (2,)),
        ("defence_melee", np.int64, (2,)),  # what a seat adds to an attack's CL (§3)
        ("defence_ranged", np.int64, (2,)),
        ("carried", np.int64, (2, SLOTS)),  # weapon codes
        ("carried_count", np.int64, (2,)),
        ("in_cover", np.uint8, (2,)),
        ("high_ground", np.uint8, (2,)),
        ("unseen", np.uint8, (2,)),
        ("weapon_melee", np.uint8, (WEAPONS,)),  # per weapon code, as the fields below
        ("weapon_bonus", np.int64, (WEAPONS,)),
        ("weapon_bands", np.uint8, (WEAPONS, BANDS)),
        ("weapon_penalty", np.int64, (WEAPONS,)),
        ("weapon_tier", np.int64, (WEAPONS,)),
        ("weapon_row", np.float64, (WEAPONS, WEAPON_FIELDS)),  # as the observation shows it
    ],
    align=True,
)
"""What the ruleset fixes for every duel of the batch: the options, fighters and weapons
(a flag per seat or weapon is a `uint8`: numba takes no array of booleans in a record)."""


def rules_of(ruleset: LiminalRuleset) -> np.ndarray:
    """The batched engine's copy of a ruleset, a duel's or a mob's (one row)."""
    options, characters = ruleset.options, ruleset.characters
    rules = np.zeros(1, RULES_DTYPE)
    if isinstance(ruleset, LiminalMobRuleset):
        mob = ruleset.mob_scenario
        rules["mob"] = True
        rules["mob_armed"] = mob.armed
        rules["mob_members"] = mob.members
        rules["medicine"] = characters[HERO].medicine
    rules["opposed_initiative"] = options.initiative_mode == "opposed"
    rules["crit_agent"] = options.crit_choice == "agent"
    rules["tiered"] = options.better_weapon == "tiered"
    rules["social_action"] = options.social_action
    rules["unskilled_no_crit"] = options.unskilled_no_crit
    rules["surrender_threshold"] = options.surrender_threshold
    rules["withdraw_stake"] = options.withdraw_stake
    rules["round_cap"] = options.round_cap
    scenario = ruleset.scenario
    rules["distance"] = scenario.distance
    rules["in_cover"] = scenario.cover
    rules["high_ground"] = scenario.high_ground
    rules["unseen"] = scenario.unseen
    talents = strength_bonuses(options)
    rules["skills"] = [[getattr(c, skill) for skill in SKILLS] for c in characters]
    rules["endurance_max"] = [c.endurance_max for c in characters]
    rules["talent"] = [talents[c.strength] for c in characters]
    rules["defence_bonus"] = [c.defence_bonus for c in characters]
    rules["defence_melee"] = [max(c.athletics, c.melee) + c.defence_bonus for c in characters]
    rules["defence_ranged"] = [c.athletics + c.defence_bonus for c in characters]
    if rules["mob"][0]:
        rules["defence_melee"][0, MOB] = rules["defence_ranged"][0, MOB] = 0  # `_defence`
    weapons = [ruleset.unarmed]  # a code per weapon: the reference tells them by identity
    for seat, character in enumerate(characters):
        rules["carried_count"][0, seat] = len(character.weapons)
        for slot, weapon_id in enumerate(character.weapons):
            weapon = ruleset.catalog.weapons[weapon_id]
            if all(weapon is not known for known in weapons):
                weapons.append(weapon)
            rules["carried"][0, seat, slot] = next(
                code for code, known in enumerate(weapons) if known is weapon
            )
    for code, weapon in enumerate(weapons):
        rules["weapon_melee"][0, code] = weapon.kind == Kind.MELEE
        rules["weapon_bonus"][0, code] = weapon.bonus
        rules["weapon_bands"][0, code] = weapon.bands
        rules["weapon_penalty"][0, code] = weapon.adjacent_penalty
        rules["weapon_tier"][0, code] = weapon.tier
        rules["weapon_row"][0, code] = weapon_row(weapon)
    return rules


def longest_duel(rules: np.ndarray, illegal_limit: int) -> int:
    """The most learner steps a duel lasts: the learner's one turn a round holds at most
    three decisions (a recovery, the quick grab's bonus action, its critical's effect),
    each after at most `illegal_limit - 1` illegal ones, or the limit's truncation."""
    return (int(rules["round_cap"][0]) + 1) * 3 * illegal_limit


DUEL_DTYPE = np.dtype(
    [
        ("skills", np.int64, (2, len(SKILLS))),
        ("endurance", np.int64, (2,)),
        ("held", np.int64, (2,)),  # the slot in hand, -1 empty-handed
        ("dropped", np.int64, (2,)),  # a bit per slot knocked away
        ("drew_this_round", np.uint8, (2,)),
        ("defending", np.uint8, (2,)),
        ("perfect_cover", np.uint8, (2,)),
        ("in_cover", np.uint8, (2,)),
        ("high_ground", np.uint8, (2,)),
        ("unseen", np.uint8, (2,)),
        ("shaken", np.uint8, (2,)),
        ("acted_this_round", np.uint8, (2,)),
        ("distance", np.int64),
        ("first", np.int64),
        ("next_first", np.int64),
        ("current", np.int64),
        ("turn_index", np.int64),
        ("phase", np.int64),
        ("moved", np.bool_),
        ("pending_weapon", np.int64),  # the hit waiting for its critical's effect (its
        ("pending_melee", np.bool_),  # attacker's: the seat to decide)
        ("round", np.int64),
        ("over", np.bool_),
        ("winner", np.int64),  # the winning seat, or -1 for a draw (read once over)
        ("truncated", np.bool_),
        ("stake", np.float64),  # what the win is worth (a withdrawal: less, §12)
        ("ending", np.int64),  # an index into ENDINGS
        ("saved", np.int64),  # a mob's downed members the hero saved after the fight (§8)
    ],
    align=True,
)
"""One Liminal duel (`LiminalState`, a mob's `MobState`) as a row."""


def ending_reason(duel: np.void, rules: np.ndarray, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel, the fighters named `names`."""
    return ending_words(ENDINGS, duel, int(rules["round_cap"][0]), names)


def new_duels(num_envs: int, rules: np.ndarray) -> np.ndarray:
    return np.zeros(num_envs, DUEL_DTYPE)


def aftermath(duels: np.ndarray, rows: np.ndarray, rules: np.ndarray) -> dict[str, np.ndarray]:
    """`state.aftermath()` of the ended duels `duels[rows]`, a key each: a mob's members
    downed and saved (§12), nothing for a duel."""
    if not rules["mob"][0]:
        return {}
    pool = np.maximum(duels["endurance"][rows, MOB], 0)
    standing = (pool + MEMBER_ENDURANCE - 1) // MEMBER_ENDURANCE  # `mob.standing`
    downed = int(rules["mob_members"][0]) - standing
    return {"members_downed": downed, "members_saved": duels["saved"][rows]}


# --- the ruleset interface ---------------------------------------------------------


@numba.njit(cache=True)
def new_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`LiminalRuleset.new_duel`: the fighters as the scenario places them, initiative,
    the first round (and `LiminalMobRuleset.new_duel`: an unarmed mob's hands empty)."""
    d.over = False
    d.truncated = False
    d.winner = -1
    d.stake = 1.0
    d.ending = GOING_ON
    d.round = 0
    d.saved = 0
    d.distance = r.distance
    d.skills[:] = r.skills
    for seat in range(2):
        d.endurance[seat] = r.endurance_max[seat]
        d.held[seat] = 0  # the first weapon listed is in hand
        d.dropped[seat] = 0
        d.drew_this_round[seat] = d.defending[seat] = d.perfect_cover[seat] = False
        d.shaken[seat] = d.acted_this_round[seat] = False
        d.in_cover[seat] = r.in_cover[seat]
        d.high_ground[seat] = r.high_ground[seat]
        d.unseen[seat] = r.unseen[seat]
    d.current = d.turn_index = 0
    d.phase = MAIN
    d.moved = False
    first = _initiative(d, r, dice)
    d.first = d.next_first = first
    _start_round(d, r)
    if r.mob and not r.mob_armed:
        d.held[MOB] = -1  # an unarmed mob holds nothing: a blade gets +2 (§8)


@numba.njit(cache=True, inline="always")
def to_act(d: np.void, r: np.void) -> int:
    """The seat to decide, or -1 once the duel is over."""
    return -1 if d.over else d.current


@numba.njit(cache=True)
def legal_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`legal_actions` into `mask` (one row of ACTIONS booleans): the duel's, and a
    mob's only moves, fast moves and strikes; nothing to disarm in a mob (§12)."""
    _duel_actions(d, r, seat, mask)
    if not r.mob:
        return
    if seat == MOB:
        for action in range(ACTIONS):
            mask[action] = mask[action] and MOB_MASK[action]
    elif d.phase == CRIT_ATTACK:
        mask[CRIT_DISARM] = False


@numba.njit(cache=True)
def _duel_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`LiminalRuleset.legal_actions`."""
    mask[:] = False
    if to_act(d, r) != seat:
        return
    them = 1 - seat
    if d.phase == CRIT_ATTACK:
        mask[CRIT_DAMAGE] = True
        mask[CRIT_ACT_FIRST] = d.next_first != seat  # §7: not if already first
        mask[CRIT_DISARM] = d.held[them] >= 0  # §7: the target holds one
        return
    if d.phase == CRIT_DEFEND:
        mask[PERFECT_COVER] = mask[WITHDRAW] = True
        return
    for move in range(3):
        step = MOVE_STEP[move]
        if d.moved and step != 0:
            continue  # a bonus action after a quick grab may still take the free move
        if step < 0 and d.distance == 0:
            continue
        distance = max(0, d.distance + step)
        base = move * DEEDS
        mask[base + NONE_DEED] = True
        if distance >= OUT:
            continue  # stepping out withdraws: the action goes unresolved (§12)
        mask[base + MELEE_DEED] = distance == 0 and not d.perfect_cover[them]
        mask[base + SHOOT_DEED] = not d.perfect_cover[them] and _ranged(d, r, seat, distance) >= 0
        mask[base + DEFEND_DEED] = True
        mask[base + SOCIAL_DEED] = r.social_action and distance <= SOCIAL_REACH
    if d.phase == MAIN:
        mask[RECOVER] = d.dropped[seat] != 0
    mask[FAST_ADVANCE] = d.distance > 0 and not d.moved
    mask[FAST_RETREAT] = not d.moved


@numba.njit(cache=True)
def apply(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """`LiminalRuleset.apply` of a legal action."""
    if d.phase == CRIT_ATTACK:
        _attack_critical(d, r, seat, action, d.pending_weapon, d.pending_melee, dice)
    elif d.phase == CRIT_DEFEND:
        _defence_critical(d, r, seat, action)
    elif action == RECOVER:
        _recover(d, r, seat, dice)
    elif action == FAST_ADVANCE or action == FAST_RETREAT:
        _fast_move(d, r, seat, action, dice)
    else:
        move, deed = divmod(action, DEEDS)
        if _move(d, r, seat, MOVE_STEP[move]):
            _deed(d, r, seat, deed, dice)


@numba.njit(cache=True)
def observe(d: np.void, r: np.void, seat: int, out: np.ndarray) -> None:
    """`observation.observed` into `out`, in the order of its `OBSERVATION_SPEC`, and a
    mob's key after it (`mob.OBSERVATION_SPEC`)."""
    them = 1 - seat
    over = d.over
    deciding = not over and d.current == seat
    out[0] = d.first == seat
    out[1] = d.first != seat
    out[2] = max(d.endurance[seat], 0)
    out[3] = max(d.endurance[them], 0)
    out[4] = r.endurance_max[seat]
    out[5] = r.endurance_max[them]
    out[6] = d.distance
    out[7 : 7 + BANDS] = 0.0
    out[7 + BAND_OF[min(d.distance, OUT - 1)]] = 1.0
    at = 7 + BANDS
    out[at] = min(d.round, 999)
    out[at + 1 : at + 5] = 0.0
    if not over:
        out[at + 1 + d.phase] = 1.0
    at += 5
    out[at] = deciding
    out[at + 1] = deciding and d.moved
    out[at + 2] = d.drew_this_round[seat]
    at += 3
    for side in (seat, them):
        for skill in range(len(SKILLS)):
            out[at + skill] = d.skills[side, skill]
        at += len(SKILLS)
    for side in (seat, them):
        out[at] = r.talent[side]
        out[at + 1] = r.defence_bonus[side]
        at += 2
    for side in (seat, them):
        _weapon_into(r, _code(r, side, d.held[side]), out, at)
        at += WEAPON_FIELDS
    for side in (seat, them):
        _weapon_into(r, _code(r, side, _spare(d, r, side)), out, at)
        at += WEAPON_FIELDS
    for side in (seat, them):
        out[at] = d.dropped[side] != 0
        out[at + 1] = d.defending[side]
        out[at + 2] = d.perfect_cover[side]
        out[at + 3] = d.in_cover[side]
        out[at + 4] = d.high_ground[side]
        out[at + 5] = d.unseen[side]
        out[at + 6] = d.shaken[side]
        out[at + 7] = d.acted_this_round[side]
        out[at + 8] = d.next_first == side
        at += 9
    if r.mob:  # `LiminalMobRuleset.observe`: the mob's key
        up = _standing(d.endurance[MOB])
        out[at] = r.mob_members
        out[at + 1] = up
        out[at + 2] = d.endurance[MOB] - MEMBER_ENDURANCE * (up - 1) if up else 0
        out[at + 3] = _attack_level(up)
        out[at + 4] = r.mob_armed


@numba.njit(cache=True, inline="always")
def _weapon_into(r: np.void, code: int, out: np.ndarray, at: int) -> None:
    """`weapon_row`: a weapon's features, or zeros for none."""
    for k in range(WEAPON_FIELDS):
        out[at + k] = r.weapon_row[code, k] if code >= 0 else 0.0


@numba.njit(cache=True, inline="always")
def _code(r: np.void, seat: int, slot: int) -> int:
    """The weapon code of `seat`'s `slot` (-1 for no slot)."""
    return r.carried[seat, slot] if slot >= 0 else -1


@numba.njit(cache=True)
def _spare(d: np.void, r: np.void, seat: int) -> int:
    """`observation.spare`: the first carried slot not in hand and not knocked away."""
    for slot in range(r.carried_count[seat]):
        if slot != d.held[seat] and not d.dropped[seat] >> slot & 1:
            return slot
    return -1


# --- initiative, rounds and turns (§4) -------------------------------------------------


@numba.njit(cache=True)
def _initiative(d: np.void, r: np.void, dice: np.ndarray) -> int:
    """`_initiative`: the seat acting first every round (§4, §10 #7)."""
    if r.mob:  # the hero rolls Perception against the mob's 0 (§12)
        total = roll(dice, 6) + roll(dice, 6) + d.skills[HERO, PERCEPTION]
        return HERO if total >= STANDARD_CL else MOB
    if r.opposed_initiative:
        while True:  # both roll Perception, tied throws again (`roll_until`)
            a = roll(dice, 6) + roll(dice, 6) + d.skills[0, PERCEPTION]
            b = roll(dice, 6) + roll(dice, 6) + d.skills[1, PERCEPTION]
            if a != b:
                return 0 if a > b else 1
    roller = roll(dice, 2) - 1
    cl = STANDARD_CL + d.skills[1 - roller, PERCEPTION]
    total = roll(dice, 6) + roll(dice, 6) + d.skills[roller, PERCEPTION]
    return roller if total >= cl else 1 - roller  # no unskilled +2 on initiative


@numba.njit(cache=True)
def _start_round(d: np.void, r: np.void) -> None:
    d.round += 1
    if d.round > r.round_cap:  # `DuelState.start_round`: a truncated draw
        _finish(d, -1, ROUND_CAP, 1.0)
        d.truncated = True
        return
    d.first = d.next_first  # an "act first" critical counts from now on (§7)
    for seat in range(2):
        d.drew_this_round[seat] = d.acted_this_round[seat] = False
    d.turn_index = 0
    _begin_turn(d, d.first)


@numba.njit(cache=True)
def _begin_turn(d: np.void, seat: int) -> None:
    d.defending[seat] = d.perfect_cover[seat] = False  # they last until the next action (§7)
    d.current = seat
    d.phase = MAIN
    d.moved = False


@numba.njit(cache=True)
def _end_turn(d: np.void, r: np.void) -> None:
    seat = d.current
    d.acted_this_round[seat] = True
    d.shaken[seat] = False  # §10 #21: unused by the end of its next turn, it lapses
    d.phase = MAIN
    d.turn_index += 1
    if d.turn_index < 2:
        _begin_turn(d, 1 - seat)
    else:
        _start_round(d, r)


@numba.njit(cache=True)
def _finish(d: np.void, winner: int, ending: int, stake: float) -> None:
    d.over = True
    d.winner = winner
    d.truncated = False
    d.stake = stake
    d.ending = ending


# --- movement (§6) ----------------------------------------------------------------------


@numba.njit(cache=True)
def _move(d: np.void, r: np.void, seat: int, step: int) -> bool:
    """The free move; False when it took the mover out of the fight (withdrawal)."""
    if step == 0:
        return True
    d.moved = True
    return _step(d, r, seat, step)


@numba.njit(cache=True)
def _step(d: np.void, r: np.void, seat: int, step: int) -> bool:
    d.distance = min(OUT, max(0, d.distance + step))  # OUT: gone, however far (§6)
    d.in_cover[seat] = d.high_ground[seat] = False  # places, lost by moving (§8, §10 #24)
    if d.distance >= OUT:  # §6, §9: one's own move past far is a withdrawal
        _withdraw(d, r, seat)
        return False
    return True


@numba.njit(cache=True)
def _fast_move(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """Seed: 60 paces instead of 30; in combat, an Athletics test (§5, §10 #11)."""
    steps = 2
    if d.distance <= 1 or _can_shoot(d, r, 1 - seat, d.distance):
        result = _test(d, r, seat, ATHLETICS, STANDARD_CL, 0, False, dice)
        steps = 2 if result != MISS else 1
    d.moved = True
    if _step(d, r, seat, -steps if action == FAST_ADVANCE else steps):
        _end_turn(d, r)


# --- the turn's action (§5) -------------------------------------------------------------


@numba.njit(cache=True)
def _deed(d: np.void, r: np.void, seat: int, deed: int, dice: np.ndarray) -> None:
    if deed == MELEE_DEED:
        _attack(d, r, seat, True, dice)
    elif deed == SHOOT_DEED:
        _attack(d, r, seat, False, dice)
    elif deed == DEFEND_DEED:
        _defend(d, r, seat, dice)
    elif deed == SOCIAL_DEED:
        _social(d, r, seat, dice)
    else:
        _end_turn(d, r)


@numba.njit(cache=True)
def _attack(d: np.void, r: np.void, seat: int, melee: bool, dice: np.ndarray) -> None:
    them = 1 - seat
    if melee:
        weapon = _melee_weapon(d, r, seat)
    else:
        weapon = r.carried[seat, _ranged(d, r, seat, d.distance)]  # the mask: one at hand
    _draw(d, r, seat, weapon)
    bonus = _attack_modifiers(d, r, seat, weapon, melee)
    if melee:
        cl = STANDARD_CL + r.defence_melee[them]  # `_defence` (§3)
        skill = MELEE_SKILL
    else:
        cl = STANDARD_CL + r.defence_ranged[them]
        skill = SHOOT_SKILL
        if d.in_cover[them] and not d.in_cover[seat]:
            cl += MODIFIER  # §8: cover against ranged attacks
    result = _test(d, r, seat, skill, cl, bonus, True, dice)
    if result == MISS:
        _end_turn(d, r)
        return
    if result == CRITICAL:
        if r.crit_agent and not (r.mob and seat == MOB):  # `_chooses_critical`
            d.pending_weapon, d.pending_melee = weapon, melee
            d.phase = CRIT_ATTACK
            return
        choice = _fixed_critical(d, r, seat)
        _attack_critical(d, r, seat, choice, weapon, melee, dice)
        return
    _damage(d, r, seat, weapon, melee, False, dice)


@numba.njit(cache=True)
def _attack_modifiers(d: np.void, r: np.void, seat: int, weapon: int, melee: bool) -> int:
    """The attacker's +-2s (§8); the same advantage on both sides cancels (seed L67)."""
    them = 1 - seat
    bonus = 0
    if melee:
        if _better_weapon(r, weapon, _code(r, them, d.held[them])):
            bonus += MODIFIER
        if d.high_ground[seat] and not d.high_ground[them]:
            bonus += MODIFIER
    elif d.distance == 0:
        bonus += r.weapon_penalty[weapon]  # seed: a pistol fired at an adjacent rival
    if d.unseen[them] and not d.unseen[seat]:
        bonus -= MODIFIER
    return bonus


@numba.njit(cache=True)
def _better_weapon(r: np.void, weapon: int, theirs: int) -> bool:
    """§8: a melee weapon against a rival holding none (default), or a higher tier."""
    their_melee = theirs >= 0 and r.weapon_melee[theirs]
    if r.tiered:
        return r.weapon_tier[weapon] > (r.weapon_tier[theirs] if their_melee else 0)
    return weapon != UNARMED and (theirs < 0 or theirs == UNARMED or not their_melee)


@numba.njit(cache=True)
def _damage(
    d: np.void,
    r: np.void,
    attacker: int,
    weapon: int,
    melee: bool,
    extra_die: bool,
    dice: np.ndarray,
) -> None:
    """Weapon dice, the strength talent in melee, the critical's die, halved if the target
    defends (§4 steps 6-7, §7)."""
    them = 1 - attacker
    damage = roll(dice, 6)
    if extra_die:
        damage += roll(dice, 6)
    damage += r.weapon_bonus[weapon] + (r.talent[attacker] if melee else 0)
    if d.defending[them]:
        damage //= 2
    d.endurance[them] -= damage
    if weapon == UNARMED:
        d.endurance[them] = max(0, d.endurance[them])  # §9: unarmed damage is non-lethal
    if d.endurance[them] <= 0:
        _finish(d, attacker, DOWN, 1.0)
        if r.mob and attacker == HERO:
            _tend_the_fallen(d, r, dice)
        return
    if r.mob and them == MOB:  # `_wounded`: the attack level follows the members up (§8)
        d.skills[MOB, MELEE_SKILL] = _attack_level(_standing(d.endurance[MOB]))
    _end_turn(d, r)


@numba.njit(cache=True)
def _attack_critical(
    d: np.void, r: np.void, seat: int, choice: int, weapon: int, melee: bool, dice: np.ndarray
) -> None:
    """The attacker's critical effect (§7), then the damage."""
    them = 1 - seat
    d.phase = MAIN
    if choice == CRIT_ACT_FIRST:
        d.next_first = seat
    elif choice == CRIT_DISARM:  # the mask: only a rival holding a weapon
        d.dropped[them] |= 1 << d.held[them]
        d.held[them] = -1
    _damage(d, r, seat, weapon, melee, choice == CRIT_DAMAGE, dice)


@numba.njit(cache=True)
def _fixed_critical(d: np.void, r: np.void, seat: int) -> int:
    """§10 #18: disarm a target with no other weapon to draw; else act first; else +1d6.
    A mob's critical takes +1d6, and a mob holds nothing to disarm (§8 ASSUMPTIONS)."""
    if r.mob and seat == MOB:
        return CRIT_DAMAGE
    them = 1 - seat
    spare = False
    for slot in range(r.carried_count[them]):
        if slot != d.held[them] and not d.dropped[them] >> slot & 1:
            spare = True
    if d.held[them] >= 0 and not spare:
        return CRIT_DAMAGE if r.mob else CRIT_DISARM
    if d.next_first != seat:
        return CRIT_ACT_FIRST
    return CRIT_DAMAGE


@numba.njit(cache=True)
def _defend(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    """Seed (Ponerse a la defensiva): Athletics at 8; damage halved until the next turn."""
    result = _test(d, r, seat, ATHLETICS, STANDARD_CL, 0, True, dice)
    if result == MISS:
        _end_turn(d, r)
        return
    d.defending[seat] = True
    if result == CRITICAL:
        if r.crit_agent:
            d.phase = CRIT_DEFEND
            return
        _defence_critical(d, r, seat, PERFECT_COVER)  # never the withdrawal, §10 #18
        return
    _end_turn(d, r)


@numba.njit(cache=True)
def _defence_critical(d: np.void, r: np.void, seat: int, choice: int) -> None:
    """§7: perfect cover until the next turn, or leaving the battlefield."""
    d.phase = MAIN
    if choice == WITHDRAW:
        _withdraw(d, r, seat)
        return
    d.perfect_cover[seat] = True
    _end_turn(d, r)


@numba.njit(cache=True)
def _social(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    """`_social` and `_persuaded`: a demand to surrender (§5, §10 #14): social against 8 +
    the rival's Conviction; a success yields at the threshold, a critical also when it
    is wounded or shaken; a success that does not yield shakes it (-2 next test)."""
    them = 1 - seat
    if r.mob and seat == HERO:
        _demand_of_the_mob(d, r, dice)
        return
    cl = STANDARD_CL + d.skills[them, CONVICTION]
    result = _test(d, r, seat, SOCIAL, cl, 0, True, dice)
    if result != MISS:
        maximum = r.endurance_max[them]
        yields = d.endurance[them] <= maximum * r.surrender_threshold
        if result == CRITICAL:
            yields = yields or d.endurance[them] < maximum or d.shaken[them]
        if yields:
            _finish(d, seat, SURRENDERS, 1.0)
            return
        d.shaken[them] = True
    _end_turn(d, r)


@numba.njit(cache=True)
def _demand_of_the_mob(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`LiminalMobRuleset._social`: a demand breaks the mob once half its members are down,
    else nothing (§8)."""
    result = _test(d, r, HERO, SOCIAL, STANDARD_CL, 0, True, dice)
    down = r.mob_members - _standing(d.endurance[MOB])
    if result != MISS and down >= r.mob_members / 2:
        _finish(d, HERO, BREAKS, 1.0)
        _tend_the_fallen(d, r, dice)
        return
    _end_turn(d, r)


@numba.njit(cache=True)
def _tend_the_fallen(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """Seed L87-88, §8: after the fight the hero with Medicine rolls it once at normal
    difficulty; each point above 8 saves one downed member."""
    downed = r.mob_members - _standing(d.endurance[MOB])
    if r.medicine < 1 or downed == 0:
        return
    total = roll(dice, 6) + roll(dice, 6) + r.medicine
    d.saved = min(downed, max(0, total - STANDARD_CL))


@numba.njit(cache=True, inline="always")
def _standing(pool: int) -> int:
    """`mob.standing`: members up, 3 Endurance each, the front one maybe wounded."""
    return (max(pool, 0) + MEMBER_ENDURANCE - 1) // MEMBER_ENDURANCE


@numba.njit(cache=True, inline="always")
def _attack_level(standing: int) -> int:
    """`mob.attack_level`: 1 per 2 members, rounded up, at most 3 (§8)."""
    return min(MAX_ATTACK_LEVEL, (standing + 1) // 2)


@numba.njit(cache=True)
def _recover(d: np.void, r: np.void, seat: int, dice: np.ndarray) -> None:
    """`_recover` and `_picked_up`: the first dropped weapon of the loadout back in hand;
    Athletics at 12 is quick enough for another action (§5, §10 #12)."""
    dropped = d.dropped[seat]
    slot = 0
    while not dropped >> slot & 1:
        slot += 1
    d.held[seat] = slot
    d.dropped[seat] = dropped & ~(1 << slot)
    if _test(d, r, seat, ATHLETICS, QUICK_GRAB_CL, 0, True, dice) == MISS:
        _end_turn(d, r)
        return
    d.phase = BONUS  # §5: one more action this turn (the free move unused)


@numba.njit(cache=True)
def _withdraw(d: np.void, r: np.void, seat: int) -> None:
    """§9, §12: leaving the fight; the rival stays, and the stake is halved."""
    _finish(d, 1 - seat, WITHDRAWS, r.withdraw_stake)


# --- tests and weapons ------------------------------------------------------------------


@numba.njit(cache=True)
def _test(
    d: np.void,
    r: np.void,
    seat: int,
    skill: int,
    base: int,
    bonus: int,
    graded: bool,
    dice: np.ndarray,
) -> int:
    """2d6 + skill + modifiers against the CL (+2 unskilled); a shaken roller takes -2 on
    this test and is steady again (§3, §10 #6, #21). `graded` False: a critical reads as
    a success."""
    level = d.skills[seat, skill]
    if d.shaken[seat]:
        bonus -= MODIFIER
        d.shaken[seat] = False
    cl = base + (UNSKILLED if level == 0 else 0)  # `challenge`
    can_crit = graded and not (r.unskilled_no_crit and level == 0)
    total = roll(dice, 6) + roll(dice, 6) + level + bonus
    if total < cl:  # `grade`: ties go to the roller, CL + 5 is critical
        return MISS
    if can_crit and total >= cl + CRITICAL_MARGIN:
        return CRITICAL
    return SUCCESS


@numba.njit(cache=True)
def _melee_weapon(d: np.void, r: np.void, seat: int) -> int:
    """The held melee weapon, else a carried one (drawn free, once a round), else fists
    (§4, §10 #23)."""
    held = _code(r, seat, d.held[seat])
    if held >= 0 and r.weapon_melee[held]:
        return held
    if not d.drew_this_round[seat]:
        for slot in range(r.carried_count[seat]):
            weapon = r.carried[seat, slot]
            if r.weapon_melee[weapon] and weapon != UNARMED and not d.dropped[seat] >> slot & 1:
                return weapon
    return UNARMED


@numba.njit(cache=True)
def _ranged(d: np.void, r: np.void, seat: int, distance: int) -> int:
    """`ranged_for` at `distance`: the slot of a ranged weapon usable there, the held one
    else one to draw this round (§4, §6), or -1."""
    if distance >= OUT:
        return -1
    band = BAND_OF[distance]
    held = d.held[seat]
    if held >= 0:
        weapon = r.carried[seat, held]
        if not r.weapon_melee[weapon] and r.weapon_bands[weapon, band]:
            return held
    if not d.drew_this_round[seat]:
        for slot in range(r.carried_count[seat]):
            weapon = r.carried[seat, slot]
            usable = not r.weapon_melee[weapon] and r.weapon_bands[weapon, band]
            if usable and not d.dropped[seat] >> slot & 1:
                return slot
    return -1


@numba.njit(cache=True)
def _can_shoot(d: np.void, r: np.void, seat: int, distance: int) -> bool:
    """Whether `seat` holds or carries a ranged weapon usable at `distance` (who counts as
    "being shot at" for the fast move, §10 #11)."""
    band = BAND_OF[min(distance, OUT - 1)]
    for slot in range(r.carried_count[seat]):
        weapon = r.carried[seat, slot]
        usable = not r.weapon_melee[weapon] and r.weapon_bands[weapon, band]
        if usable and not d.dropped[seat] >> slot & 1:
            return True
    return False


@numba.njit(cache=True)
def _draw(d: np.void, r: np.void, seat: int, weapon: int) -> None:
    """Put `weapon` in hand: the free draw of the round (§4), when it is not there yet;
    of two alike, the one not knocked away (bare hands not carried stay bare hands)."""
    if _code(r, seat, d.held[seat]) == weapon:
        return
    for slot in range(r.carried_count[seat]):
        if r.carried[seat, slot] == weapon and not d.dropped[seat] >> slot & 1:
            d.held[seat] = slot
            d.drew_this_round[seat] = True
            return


compile_into(globals())  # the env and tournament loops (loops.py), on these kernels
