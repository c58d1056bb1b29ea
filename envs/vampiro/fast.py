"""The Vampiro duel for N duels at once, in compiled code.

A port of `envs/vampiro/rules.py`, `exchange.py` and `damage.py` (the reference): each
kernel mirrors one method or function there, rolls the same dice in the same order,
and cites the same rules, so that for one seed a batched duel and its scalar twin agree
decision for decision (`tests/fast/test_vampiro.py`). Narration is left out.

The state of N duels is one structured array (`DUEL_DTYPE`), a row a duel. What the
reference keeps in lists is held at a fixed size: a health track as its levels of each
damage type (the reference keeps it sorted worst first, so the counts say all of it),
a fighter's declared actions as `MAX_SLOTS` slots, and the turn's queue of actions as
`MAX_QUEUE` entries read from a head. A weapon is an index into the rules' three
weapons: each seat's own, and the fists a botch leaves in hand (§7).
"""

from __future__ import annotations

from collections.abc import Collection

import numba
import numpy as np

from duelo.envs.fast.loops import compile_into
from duelo.envs.fast.streams import roll
from duelo.envs.vampiro import exchange
from duelo.envs.vampiro.damage import PENALTY, SEVERITY, Status
from duelo.envs.vampiro.exchange import (
    ARMED,
    ATTACK_FIRST,
    FLEE_WITHOUT_GUNS,
    K_WP,
    PLAN_MOVES,
    POINT_BLANK,
    RANGE_REACH,
    SKILLS,
    SPEEDS,
    STANDARD,
    TOUCH,
    WALK,
)
from duelo.envs.vampiro.observation import MAX_RANGE, OBSERVATION_SPEC, WEAPON
from duelo.envs.vampiro.rules import CLINCHED, VampiroRuleset
from duelo.envs.vampiro.setup import ABILITIES, ATTRIBUTES, HEALTH_LEVELS, Damage, Kind
from duelo.envs.vampiro.state import (
    ATTACKS,
    DEFENCES,
    MELEE_ATTACKS,
    MODIFIERS,
    MULTIPLE,
    PLANS,
    SHOTS,
    Action,
    Move,
    Phase,
)

ACTIONS = len(Action)
MOVES = len(Move)
DECLARE, MODIFIERS_PHASE = int(Phase.DECLARE), int(Phase.MODIFIERS)
INTERRUPT, DELAYED = int(Phase.INTERRUPT), int(Phase.DELAYED)
STRIKE, KICK, WEAPON_STRIKE = int(Move.STRIKE), int(Move.KICK), int(Move.WEAPON_STRIKE)
SHOOT, BURST, FULL_AUTO = int(Move.SHOOT), int(Move.BURST), int(Move.FULL_AUTO)
DODGE, BLOCK_PARRY = int(Move.DODGE), int(Move.BLOCK_PARRY)
CLOSE, OPEN, RELOAD, AIM = int(Move.CLOSE), int(Move.OPEN), int(Move.RELOAD), int(Move.AIM)
CLINCH, BITE, HEAL = int(Move.CLINCH), int(Move.BITE), int(Move.HEAL)
A_SHOOT, A_SHOOT_TWICE = int(Action.SHOOT), int(Action.SHOOT_TWICE)
A_ATTACK_DODGE, A_DOUBLE_ATTACK = int(Action.ATTACK_DODGE), int(Action.DOUBLE_ATTACK)
A_CLOSE, A_OPEN, A_RELOAD = int(Action.CLOSE), int(Action.OPEN), int(Action.RELOAD)
A_AIM, A_HEAL, A_DELAY = int(Action.AIM), int(Action.HEAL), int(Action.DELAY)
A_DODGE, A_BLOCK_PARRY, A_BITE = int(Action.DODGE), int(Action.BLOCK_PARRY), int(Action.BITE)
K0 = int(Action.K0)
NO_ABORT, ABORT_DODGE_ROLL = int(Action.NO_ABORT), int(Action.ABORT_DODGE_ROLL)
ABORT_DODGE_WP, ABORT_BLOCK_ROLL = int(Action.ABORT_DODGE_WP), int(Action.ABORT_BLOCK_ROLL)
ABORT_BLOCK_WP = int(Action.ABORT_BLOCK_WP)
"""The phases, moves and actions the kernels name (plain ints: numba compiles an enum
member into slow code)."""

KINDS, DAMAGES, STATUSES = tuple(Kind), tuple(Damage), tuple(Status)
MELEE, FIREARM, THROWN = (KINDS.index(k) for k in (Kind.MELEE, Kind.FIREARM, Kind.THROWN))
BASHING, LETHAL, AGGRAVATED = (
    DAMAGES.index(d) for d in (Damage.BASHING, Damage.LETHAL, Damage.AGGRAVATED)
)
ACTIVE, INCAPACITATED, UNCONSCIOUS, DEAD, TORPOR, FINAL_DEATH = (
    STATUSES.index(s)
    for s in (
        Status.ACTIVE,
        Status.INCAPACITATED,
        Status.UNCONSCIOUS,
        Status.DEAD,
        Status.TORPOR,
        Status.FINAL_DEATH,
    )
)
FUERZA, DESTREZA, RESISTENCIA, ASTUCIA, PERCEPCION = (
    ATTRIBUTES.index(a) for a in ("fuerza", "destreza", "resistencia", "astucia", "percepcion")
)
PELEA, ARMAS_CC, ARMAS_FUEGO = (ABILITIES.index(a) for a in ("pelea", "armas_cc", "armas_fuego"))
"""Indices of the enums' members and the stat blocks' traits, each found by name."""
IS_SKILL = np.array([ability in SKILLS for ability in ABILITIES])
"""§3: the Abilities whose absence costs +1 difficulty (Skills; Talents cost nothing)."""


def _moves(moves: Collection[Move]) -> np.ndarray:
    """Whether each move id is one of `moves`, as an array the kernels index."""
    return np.array([Move(move) in moves for move in range(MOVES)])


IS_ATTACK, IS_MELEE, IS_SHOT = _moves(ATTACKS), _moves(MELEE_ATTACKS), _moves(SHOTS)
IS_DEFENCE = _moves(DEFENCES)
UNARMED = _moves(exchange.UNARMED)
"""The reference's sets of moves (`ATTACKS`, `MELEE_ATTACKS`, `SHOTS`, `DEFENCES`, and
`UNARMED`), by id."""
PLAN_MOVE = np.array([int(PLAN_MOVES.get(Action(a), -1)) for a in range(ACTIONS)])
"""`PLAN_MOVES`: the move a single-action plan declares, -1 for the rest."""
PLAN_OF = np.array([int({m: p for p, m in PLAN_MOVES.items()}[Move(m)]) for m in range(MOVES)])
"""`rules.PLAN_OF`: the single-action plan of each move."""
ATTACK_FIRST_MOVES = np.array([int(m) for m in ATTACK_FIRST])
CLINCHED_PLANS = np.array([int(a) for a in CLINCHED])
IS_MULTIPLE = np.array([Action(a) in MULTIPLE for a in range(ACTIONS)])
K_OF = np.zeros(ACTIONS, np.int64)
WP_OF = np.zeros(ACTIONS, np.bool_)
for _action, (_k, _wp) in K_WP.items():
    K_OF[_action], WP_OF[_action] = _k, _wp
FIRST_MODIFIER, LAST_MODIFIER = int(MODIFIERS[0]), int(MODIFIERS[-1])
"""`K_WP`: each modifier action's Celerity actions and Willpower flag."""
SPEED_LIMIT = np.array([-1.0 if s is None else s for s in SPEEDS])
"""`exchange.SPEEDS`, -1 for a run at full pace."""
WOUND_PENALTY = np.array(PENALTY, np.int64)
assert [SEVERITY[d] for d in Damage] == [0, 1, 2]  # the counts' order is the track's
MAX_SLOTS = 8
"""A plan of two actions and five Celerity actions (§8.1, §8.3), and room for a defence
a delayed fighter aborts to (§8.2)."""
MAX_QUEUE = 16
"""Every declared action of both fighters that is no defence (2 x 7)."""


def _at(key: str, field: str | None = None) -> int:
    return OBSERVATION_SPEC.index(key, field)


def _sides(key: str, field: str = "") -> tuple[int, int]:
    """Where `key`'s entry (or its block of entries from `field` on) lies for the seat
    observing, and for its rival."""
    return _at(key, f"self{field}"), _at(key, f"opponent{field}")


O_PHASE = _at("phase", "declare")
O_INITIATIVE, O_SCORE, O_HP, O_HP_MAX, O_WOUNDS = (
    _sides(key) for key in ("initiative", "score", "hp", "hp_max", "wound_penalty")
)
O_HEALTH = _sides("health", f".{DAMAGES[0].value}")
O_RANGE, O_TURN = _at("range"), _at("turn")
O_WILLPOWER, O_WILLPOWER_RATING = _sides("willpower", ".points"), _sides("willpower", ".rating")
O_BLOOD, O_BLOOD_POOL, O_BLOOD_PER_TURN = (
    _sides("blood", field) for field in (".points", ".pool", ".per_turn")
)
O_TRAITS = _sides("traits", ".vampire")
O_DOTS = _sides("dots", f".{ATTRIBUTES[0]}")
O_WEAPON = _sides("weapon", f".{WEAPON[0]}")
O_ARMOUR = _sides("armour", ".rating")
O_CONDITION = _sides("condition", ".clinched")
O_PLAN = _sides("plan", ".known")
O_INCOMING = _at("incoming", "melee")
W_KIND, W_BONUS, W_DAMAGE, W_TYPE, W_RANGE, W_RATE, W_CLIP = (
    WEAPON.index(name)
    for name in (f"kind_{KINDS[0].value}", "bonus", "damage", f"type_{DAMAGES[0].value}")
    + ("range", "rate", "clip")
)
W_AMMO, W_BURST, W_AUTO, W_JAMMED, W_DROPPED = (
    WEAPON.index(name) for name in ("ammo", "burst", "auto", "jammed", "dropped")
)
"""Where `observation.observe` puts each entry, read from its OBSERVATION_SPEC (pairs:
the observing seat's, then its rival's) and its WEAPON's order."""


ENDINGS = ("", "round cap of {cap}", "{fled} flees", "both are out", "{loser} is {status}")
"""The reference's `Outcome.reason` of each way a duel ends (`duel["ending"]` indexes it)."""
GOING_ON, ROUND_CAP, FLEES, BOTH_OUT, LOSES = range(len(ENDINGS))


RULES_DTYPE = np.dtype(
    [
        ("specialty_reroll", np.bool_),  # a specialty 10 rolled again, else counted twice
        ("celerity_initiative", np.bool_),
        ("celerity_dice", np.bool_),
        ("fixed_initiative", np.bool_),
        ("ones_cancel_on_damage_soak", np.bool_),
        ("all_multi_at_end", np.bool_),
        ("celerity_per_action", np.bool_),
        ("dodge_ability", np.int64),  # an index into ABILITIES
        ("bullets_bashing_vs_vampires", np.bool_),
        ("halve_bashing_vs_vampires", np.bool_),
        ("willpower_cancellable", np.bool_),
        ("public_declarations", np.bool_),
        ("walk_with_action", np.bool_),
        ("round_cap", np.int64),
        ("range", np.float64),  # the scenario's starting metres
        ("cover", np.int64, (2,)),  # per seat, as the fields below
        ("attributes", np.int64, (2, len(ATTRIBUTES))),
        ("abilities", np.int64, (2, len(ABILITIES))),
        ("specialties", np.uint8, (2, len(ABILITIES))),
        ("willpower", np.int64, (2,)),
        ("vampire", np.uint8, (2,)),
        ("celeridad", np.int64, (2,)),
        ("fortaleza", np.int64, (2,)),
        ("potencia", np.int64, (2,)),
        ("blood_pool", np.int64, (2,)),
        ("blood_per_turn", np.int64, (2,)),
        ("armour_rating", np.int64, (2,)),
        ("armour_penalty", np.int64, (2,)),
        ("w_kind", np.int64, (3,)),  # seat 0's weapon, seat 1's, the fists: as below
        ("w_type", np.int64, (3,)),
        ("w_bonus", np.int64, (3,)),
        ("w_damage", np.int64, (3,)),
        ("w_range", np.int64, (3,)),
        ("w_rate", np.int64, (3,)),
        ("w_clip", np.int64, (3,)),
        ("w_burst", np.uint8, (3,)),
        ("w_auto", np.uint8, (3,)),
    ],
    align=True,
)
"""What the ruleset fixes for every duel of the batch: the options, the scenario, the
stat blocks and the weapons (a flag per seat is a `uint8`: numba takes no array of
booleans in a record)."""
FISTS = 2
"""The rules' weapon row of the fists (rows 0 and 1: each seat's own weapon)."""

WEAPON_FIELDS = ("bonus", "damage", "range", "rate", "clip", "burst", "auto")


def rules_of(ruleset: VampiroRuleset) -> np.ndarray:
    """The batched engine's copy of a ruleset (one row)."""
    options, characters, catalog = ruleset.options, ruleset.characters, ruleset.catalog
    rules = np.zeros(1, RULES_DTYPE)
    for name in (
        "celerity_initiative",
        "celerity_dice",
        "fixed_initiative",
        "ones_cancel_on_damage_soak",
        "all_multi_at_end",
        "bullets_bashing_vs_vampires",
        "halve_bashing_vs_vampires",
        "willpower_cancellable",
        "public_declarations",
        "walk_with_action",
        "round_cap",
    ):
        rules[name] = getattr(options, name)
    rules["specialty_reroll"] = options.specialty_mode == "reroll"
    rules["celerity_per_action"] = options.celerity_cost == "per_action"
    rules["dodge_ability"] = ABILITIES.index(options.dodge_ability)
    rules["range"] = ruleset.scenario.range
    rules["cover"] = ruleset.scenario.cover
    for seat, c in enumerate(characters):
        rules["attributes"][0, seat] = [getattr(c, name) for name in ATTRIBUTES]
        rules["abilities"][0, seat] = [getattr(c, name) for name in ABILITIES]
        rules["specialties"][0, seat] = [name in c.specialties for name in ABILITIES]
        rules["blood_pool"][0, seat], rules["blood_per_turn"][0, seat] = c.blood
        armour = catalog.armour[c.armour]
        rules["armour_rating"][0, seat], rules["armour_penalty"][0, seat] = (
            armour.rating,
            armour.penalty,
        )
    for name in ("willpower", "vampire", "celeridad", "fortaleza", "potencia"):
        rules[name] = [getattr(c, name) for c in characters]
    weapons = [*(catalog.weapons[c.weapon] for c in characters), catalog.weapons["fists"]]
    rules["w_kind"] = [KINDS.index(w.kind) for w in weapons]
    rules["w_type"] = [DAMAGES.index(w.damage_type) for w in weapons]
    for name in WEAPON_FIELDS:
        rules[f"w_{name}"] = [getattr(w, name) for w in weapons]
    return rules


def longest_duel(rules: np.ndarray, illegal_limit: int) -> int:
    """The most learner steps a duel lasts: a turn asks the learner a plan, its
    modifiers, a delayed action and an abort at each of the rival's attacks (at most
    `MAX_SLOTS - 1`), each after at most `illegal_limit - 1` illegal ones, or the
    limit's truncation."""
    return (int(rules["round_cap"][0]) + 1) * (3 + MAX_SLOTS - 1) * illegal_limit


DUEL_DTYPE = np.dtype(
    [  # small ints where the values are: a row in fewer cache lines (a fifth faster at N = 16,384)
        ("range", np.float64),
        ("health", np.int16, (2, len(Damage))),  # levels of each damage type
        ("status", np.int16, (2,)),  # an index into STATUSES
        ("willpower", np.int16, (2,)),
        ("blood", np.int16, (2,)),
        ("ammo", np.int16, (2,)),
        ("declared_blood", np.int16, (2,)),
        ("dropped", np.uint8, (2,)),  # the fists in hand after a botch (§7)
        ("jammed", np.uint8, (2,)),
        ("aiming", np.int16, (2,)),
        ("off_balance", np.uint8, (2,)),
        ("clinched", np.uint8, (2,)),
        ("fled", np.uint8, (2,)),
        ("roll", np.int16, (2,)),
        ("initiative", np.int16, (2,)),
        ("declare_initiative", np.int16, (2,)),
        ("plan", np.int16, (2,)),  # -1 until declared this turn
        ("celerity", np.int16, (2,)),
        ("willpower_success", np.uint8, (2,)),
        ("declared_willpower", np.uint8, (2,)),
        ("delayed", np.uint8, (2,)),
        ("shots", np.int16, (2,)),
        ("held_penalty", np.int16, (2,)),  # -1 outside a simultaneous exchange
        ("slots", np.int16, (2,)),  # how many declared actions
        ("slot_move", np.int8, (2, MAX_SLOTS)),
        ("slot_penalty", np.int8, (2, MAX_SLOTS)),
        ("slot_done", np.uint8, (2, MAX_SLOTS)),
        ("phase", np.int64),
        ("current", np.int64),
        ("order", np.int16, (2,)),
        ("tied", np.bool_),
        ("first_declarer", np.int64),  # -1 in a full tie
        ("declared", np.uint8, (2,)),
        ("incoming", np.int64),  # the attacker of the attack met by an abort, -1 for none
        ("incoming_index", np.int64),
        ("incoming_move", np.int64),
        ("queue_seat", np.int8, (MAX_QUEUE,)),
        ("queue_index", np.int8, (MAX_QUEUE,)),
        ("queue_head", np.int64),
        ("queue_end", np.int64),
        ("round", np.int64),
        ("over", np.bool_),
        ("winner", np.int64),  # the winning seat, or -1 for a draw (read once over)
        ("truncated", np.bool_),
        ("stake", np.float64),  # what the win is worth
        ("ending", np.int64),  # an index into ENDINGS
        ("ending_seat", np.int64),  # who fled, or who lost, for the ending's words
    ],
    align=True,
)
"""One Vampiro duel (`VampiroState`) as a row."""


def ending_reason(duel: np.void, rules: np.ndarray, names: tuple[str, str]) -> str:
    """The reference's `Outcome.reason` of an ended duel, the fighters named `names`."""
    ending, seat = int(duel["ending"]), int(duel["ending_seat"])
    return ENDINGS[ending].format(
        cap=int(rules["round_cap"][0]),
        fled=names[seat] if ending == FLEES else "",
        loser=names[seat] if ending == LOSES else "",
        status=STATUSES[int(duel["status"][seat])].value if ending == LOSES else "",
    )


def new_duels(num_envs: int, rules: np.ndarray) -> np.ndarray:
    return np.zeros(num_envs, DUEL_DTYPE)


# --- the ruleset interface ---------------------------------------------------------


@numba.njit(cache=True)
def new_duel(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """`VampiroRuleset.new_duel`: the fighters as their stat blocks bring them, the first
    turn."""
    d.over = False
    d.truncated = False
    d.winner = -1
    d.stake = 1.0
    d.ending = GOING_ON
    d.ending_seat = -1
    d.round = 0
    d.range = r.range
    for seat in range(2):
        d.health[seat, :] = 0
        d.status[seat] = ACTIVE
        d.willpower[seat] = r.willpower[seat]
        d.blood[seat] = r.blood_pool[seat] // 2  # §10 #21: blood at half its maximum
        d.ammo[seat] = r.w_clip[seat]
        d.dropped[seat] = d.jammed[seat] = d.off_balance[seat] = 0
        d.clinched[seat] = d.fled[seat] = 0
        d.aiming[seat] = 0
        d.held_penalty[seat] = -1
        d.plan[seat] = -1
        d.declared_blood[seat] = 0
        d.slots[seat] = 0
    d.incoming = -1
    d.order[0], d.order[1] = 0, 1
    _start_turn(d, r, dice)


@numba.njit(cache=True, inline="always")
def to_act(d: np.void, r: np.void) -> int:
    """The seat to decide, or -1 once the duel is over."""
    return -1 if d.over else d.current


@numba.njit(cache=True)
def legal_actions(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`VampiroRuleset.legal_actions` into `mask` (one row of ACTIONS booleans)."""
    mask[:] = False
    if to_act(d, r) != seat:
        return
    if d.phase == MODIFIERS_PHASE:
        extras = _extras(d, seat)
        for action in range(FIRST_MODIFIER, LAST_MODIFIER + 1):
            mask[action] = _modifier_legal(d, r, seat, K_OF[action], WP_OF[action], extras)
        return
    if d.phase == INTERRUPT:
        mask[NO_ABORT] = mask[ABORT_DODGE_ROLL] = True
        mask[ABORT_DODGE_WP] = d.willpower[seat] >= 1
        blockable = _blockable(d, r, seat, d.incoming, d.incoming_move)
        mask[ABORT_BLOCK_ROLL] = blockable
        mask[ABORT_BLOCK_WP] = blockable and d.willpower[seat] >= 1
        return
    _plan_mask(d, r, seat, mask)
    if d.phase == DELAYED:  # §12: a single action, declared before
        for action in range(ACTIONS):
            if IS_MULTIPLE[action]:
                mask[action] = False
        mask[A_DELAY] = False


@numba.njit(cache=True)
def apply(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """`VampiroRuleset.apply` of a legal action."""
    if d.phase == DECLARE:
        d.plan[seat] = action  # sealed from the rival unless it declared first (§12)
        extras = _extras(d, seat)
        others = False  # all but K0, which is always legal
        for modifier in range(FIRST_MODIFIER + 1, LAST_MODIFIER + 1):
            others = others or _modifier_legal(d, r, seat, K_OF[modifier], WP_OF[modifier], extras)
        if not others:
            _modifiers(d, r, seat, K0, dice)
        else:
            d.phase = MODIFIERS_PHASE
    elif d.phase == MODIFIERS_PHASE:
        _modifiers(d, r, seat, action, dice)
    elif d.phase == INTERRUPT:
        _abort(d, r, seat, action, dice)
    else:  # §4, §12: a delayed character's moment
        d.delayed[seat] = False
        d.plan[seat] = action
        _slots(d, r, seat, action, 0)
        if d.slots[seat] and not IS_DEFENCE[d.slot_move[seat, 0]]:
            if _perform(d, r, seat, 0, dice, False):
                return
            _settle(d)
        _next_action(d, r, dice, seat)


@numba.njit(cache=True)
def observe(d: np.void, r: np.void, seat: int, out: np.ndarray) -> None:
    """`observation.observe` into `out`, in the order of its OBSERVATION_SPEC."""
    them = 1 - seat
    over = d.over
    sees = _sees_declaration(d, r, seat)
    hidden = d.declared[them] != 0 and not sees
    both = d.declared[0] != 0 and d.declared[1] != 0
    ordered = both and not d.tied and not over and sees
    out[:] = 0.0
    if not over:
        out[O_PHASE + d.phase] = 1.0
    out[O_RANGE] = min(d.range, MAX_RANGE)
    out[O_TURN] = min(d.round, 999)
    for k in range(2):  # the observing seat, then its rival
        side = seat if k == 0 else them
        concealed = k == 1 and hidden  # what would tell the rival's hidden declaration
        out[O_INITIATIVE[k]] = ordered and d.order[0] == side
        out[O_SCORE[k]] = d.declare_initiative[side]
        out[O_HP[k]] = HEALTH_LEVELS - _filled(d, side)
        out[O_HP_MAX[k]] = HEALTH_LEVELS
        for kind in range(len(DAMAGES)):
            out[O_HEALTH[k] + kind] = d.health[side, kind]
        out[O_WOUNDS[k]] = _wound_penalty(d, side)
        out[O_WILLPOWER[k]] = d.willpower[side] + (d.declared_willpower[side] if concealed else 0)
        out[O_WILLPOWER_RATING[k]] = r.willpower[side]
        out[O_BLOOD[k]] = d.blood[side] + (d.declared_blood[side] if concealed else 0)
        out[O_BLOOD_POOL[k]] = r.blood_pool[side]
        out[O_BLOOD_PER_TURN[k]] = r.blood_per_turn[side]
        at = O_TRAITS[k]
        out[at] = r.vampire[side]
        out[at + 1] = r.celeridad[side]
        out[at + 2] = r.fortaleza[side]
        out[at + 3] = r.potencia[side]
        at = O_DOTS[k]
        for trait in range(len(ATTRIBUTES)):
            out[at + trait] = r.attributes[side, trait]
        for trait in range(len(ABILITIES)):
            out[at + len(ATTRIBUTES) + trait] = r.abilities[side, trait]
        at, w = O_WEAPON[k], _weapon(d, side)  # `weapon_features`
        out[at + W_KIND + r.w_kind[w]] = 1.0
        out[at + W_BONUS] = r.w_bonus[w]
        out[at + W_DAMAGE] = r.w_damage[w]
        out[at + W_TYPE + r.w_type[w]] = 1.0
        out[at + W_RANGE] = r.w_range[w]
        out[at + W_RATE] = r.w_rate[w]
        out[at + W_CLIP] = r.w_clip[w]
        out[at + W_AMMO] = d.ammo[side]
        out[at + W_BURST] = r.w_burst[w]
        out[at + W_AUTO] = r.w_auto[w]
        out[at + W_JAMMED] = d.jammed[side]
        out[at + W_DROPPED] = d.dropped[side]
        out[O_ARMOUR[k]] = r.armour_rating[side]
        out[O_ARMOUR[k] + 1] = r.armour_penalty[side]
        at = O_CONDITION[k]
        out[at] = d.clinched[side]
        out[at + 1] = d.aiming[side]
        out[at + 2] = d.off_balance[side]
        out[at + 3] = d.delayed[side] and not concealed
        if (k == 0 or sees) and d.plan[side] >= 0:  # its own from the moment it is chosen
            at = O_PLAN[k]
            out[at] = 1.0
            out[at + 1 + d.plan[side]] = 1.0
            out[at + 1 + len(PLANS)] = d.celerity[side]
            out[at + 2 + len(PLANS)] = d.declared_willpower[side]
    if d.phase == INTERRUPT and not over and d.incoming >= 0:
        kind = _hit_type(d, r, d.incoming, 1 - d.incoming, d.incoming_move)
        out[O_INCOMING] = IS_MELEE[d.incoming_move]
        out[O_INCOMING + 1 + kind] = 1.0


@numba.njit(cache=True)
def _sees_declaration(d: np.void, r: np.void, seat: int) -> bool:
    """`observation.sees_declaration`: whether `seat` may see its rival's declaration."""
    rival = 1 - seat
    if not d.declared[rival]:
        return False
    if r.public_declarations:
        return not (d.tied and not (d.declared[0] and d.declared[1]))
    return d.first_declarer == rival


# --- the fighters (`Fighter`, `damage.py`) -----------------------------------------------


@numba.njit(cache=True, inline="always")
def _weapon(d: np.void, seat: int) -> int:
    """The rules' row of the weapon in hand: its own, or the fists after a drop (§7)."""
    return FISTS if d.dropped[seat] else seat


@numba.njit(cache=True, inline="always")
def _filled(d: np.void, seat: int) -> int:
    return d.health[seat, BASHING] + d.health[seat, LETHAL] + d.health[seat, AGGRAVATED]


@numba.njit(cache=True)
def _wound_penalty(d: np.void, seat: int) -> int:
    """§7: dice lost from action pools and initiative (0 once out: nothing to roll)."""
    filled = _filled(d, seat)
    return WOUND_PENALTY[filled] if filled < HEALTH_LEVELS else 0


@numba.njit(cache=True, inline="always")
def _out(d: np.void, seat: int) -> bool:
    """`Fighter.out`: down (§9), or fled (§10 #24)."""
    return d.status[seat] != ACTIVE or d.fled[seat] != 0


@numba.njit(cache=True)
def _speed(d: np.void, r: np.void, seat: int) -> float:
    """`exchange.speed`: metres a turn's run covers at its wound level (§6)."""
    filled = _filled(d, seat)
    if filled >= SPEED_LIMIT.shape[0]:
        return 0.0
    run = 20 + 3 * r.attributes[seat, DESTREZA]
    limit = SPEED_LIMIT[filled]
    if limit < 0:
        return float(run)
    return run * limit if limit < 1 else limit


@numba.njit(cache=True)
def _flee_range(r: np.void, rival: int) -> float:
    """`exchange.flee_range`: beyond twice the rival's longest ranged weapon, or 30 m."""
    kind = r.w_kind[rival]
    if kind == FIREARM or kind == THROWN:
        return 2.0 * r.w_range[rival]
    return FLEE_WITHOUT_GUNS


@numba.njit(cache=True)
def _status(d: np.void, r: np.void, seat: int) -> int:
    """`damage.status`: out at seven levels (§9); a mortal filled only with bashing is
    unconscious."""
    if _filled(d, seat) < HEALTH_LEVELS:
        return ACTIVE
    if not r.vampire[seat] and d.health[seat, BASHING] == HEALTH_LEVELS:
        return UNCONSCIOUS
    return INCAPACITATED


@numba.njit(cache=True)
def _take(d: np.void, r: np.void, seat: int, levels: int, kind: int) -> int:
    """`damage.take`: mark `levels` of `kind` (§7, §10 #28: a full track turns a bashing
    box lethal, or counts the level as lethal; past that a mortal dies, a vampire falls
    into torpor, or Final Death if the damage is aggravated). Returns the status."""
    vampire = r.vampire[seat] != 0
    for _ in range(levels):
        if _filled(d, seat) < HEALTH_LEVELS:
            d.health[seat, kind] += 1
            continue
        worst = kind
        if worst != AGGRAVATED and (worst == BASHING or vampire):
            if d.health[seat, BASHING]:
                d.health[seat, BASHING] -= 1
                d.health[seat, LETHAL] += 1
                continue
            worst = LETHAL
        if not vampire:
            return DEAD
        return FINAL_DEATH if worst == AGGRAVATED else TORPOR
    return _status(d, r, seat)


# --- the turn: initiative and declarations (§4 Phase 1) ------------------------------


@numba.njit(cache=True)
def _initiative(d: np.void, r: np.void, seat: int, used: int) -> int:
    """§4 (seed): 1d10 + Dexterity + Wits - wounds + unused Celerity dots (`celerity_initiative`,
    else only those the turn leaves unused, §10 #22)."""
    dots = r.celeridad[seat] if r.celerity_initiative else used
    dexterity, wits = r.attributes[seat, DESTREZA], r.attributes[seat, ASTUCIA]
    return d.roll[seat] + dexterity + wits - _wound_penalty(d, seat) + (dots - used)


@numba.njit(cache=True)
def _start_turn(d: np.void, r: np.void, dice: np.ndarray) -> None:
    d.round += 1
    if d.round > r.round_cap:  # `DuelState.start_round`: a truncated draw
        _finish(d, -1, ROUND_CAP, -1)
        d.truncated = True
        return
    d.declared[0] = d.declared[1] = 0
    d.incoming = -1
    d.queue_head = d.queue_end = 0
    for seat in range(2):
        d.plan[seat] = -1
        d.celerity[seat] = 0
        d.willpower_success[seat] = d.declared_willpower[seat] = 0
        d.slots[seat] = 0
        d.delayed[seat] = 0
        d.shots[seat] = 0
        d.declared_blood[seat] = 0
        # §4 (seed): 1d10 (or 6, fixed); every Celerity dot unused while the order of
        # declarations is set (§10 #22)
        d.roll[seat] = 6 if r.fixed_initiative else roll(dice, 10)
        score = _initiative(d, r, seat, 0)
        d.declare_initiative[seat] = d.initiative[seat] = score
    faster = _ranked(d, r)
    d.tied = faster < 0
    # §4: declarations in reverse order, the slowest first; a full tie declares blind
    d.current = 0 if faster < 0 else 1 - faster
    d.first_declarer = -1 if faster < 0 else 1 - faster
    d.phase = DECLARE


@numba.njit(cache=True)
def _ranked(d: np.void, r: np.void) -> int:
    """The faster seat by this turn's score, then the rating Dex + Wits (§4); -1 when both
    tie: they act simultaneously (§10 #11)."""
    if d.initiative[0] != d.initiative[1]:
        return 0 if d.initiative[0] > d.initiative[1] else 1
    first = r.attributes[0, DESTREZA] + r.attributes[0, ASTUCIA]
    second = r.attributes[1, DESTREZA] + r.attributes[1, ASTUCIA]
    if first == second:
        return -1
    return 0 if first > second else 1


@numba.njit(cache=True, inline="always")
def _extras(d: np.void, seat: int) -> bool:
    """§12: Celerity actions repeat a plan, never a Delay or a Heal."""
    return d.plan[seat] != A_DELAY and d.plan[seat] != A_HEAL


@numba.njit(cache=True)
def _modifier_legal(d: np.void, r: np.void, seat: int, k: int, wp: bool, extras: bool) -> bool:
    """§12: k <= Celerity and affordable in blood (`extras` False: none, for Delay or
    Heal); the Willpower success needs a point (§3)."""
    if wp and d.willpower[seat] < 1:
        return False
    if k == 0:
        return True
    cost = k if r.celerity_per_action else 1
    return extras and k <= r.celeridad[seat] and cost <= d.blood[seat]


@numba.njit(cache=True)
def _modifiers(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """`_spend_modifiers` (§8.3: blood for the extra actions; §3: one Willpower point, one
    automatic success this turn), then the declared actions; once both have declared,
    the actions."""
    k = K_OF[action]
    if k:
        d.declared_blood[seat] = k if r.celerity_per_action else 1
        d.blood[seat] -= d.declared_blood[seat]
        d.celerity[seat] = k
    if WP_OF[action]:
        d.willpower[seat] -= 1
        d.willpower_success[seat] = d.declared_willpower[seat] = 1
    _slots(d, r, seat, d.plan[seat], k)
    d.delayed[seat] = d.plan[seat] == A_DELAY
    d.declared[seat] = 1
    if not (d.declared[0] and d.declared[1]):
        d.current, d.phase = 1 - seat, DECLARE
        return
    _begin_actions(d, r, dice)


@numba.njit(cache=True)
def _slots(d: np.void, r: np.void, seat: int, plan: int, celerity: int) -> None:
    """The declared actions (§8.1: action k of N loses N + k - 1 dice); Celerity actions
    repeat the first at full pool (§8.3, §12)."""
    d.slots[seat] = 0
    if plan == A_DELAY:
        return
    if plan == A_SHOOT_TWICE:
        _add_slot(d, seat, SHOOT, 2)
        _add_slot(d, seat, SHOOT, 3)
    elif plan == A_ATTACK_DODGE:
        _add_slot(d, seat, _attack_move(d, r, seat), 2)
        _add_slot(d, seat, DODGE, 3)
    elif plan == A_DOUBLE_ATTACK:
        melee = _melee_move(d, r, seat)
        _add_slot(d, seat, melee, 2)
        _add_slot(d, seat, melee, 3)
    else:
        _add_slot(d, seat, PLAN_MOVE[plan], 0)
    for _ in range(celerity):
        _add_slot(d, seat, d.slot_move[seat, 0], 0)


@numba.njit(cache=True, inline="always")
def _add_slot(d: np.void, seat: int, move: int, penalty: int) -> None:
    i = d.slots[seat]
    d.slot_move[seat, i] = move
    d.slot_penalty[seat, i] = penalty
    d.slot_done[seat, i] = 0
    d.slots[seat] = i + 1


# --- the turn: actions (§4 Phase 2) --------------------------------------------------


@numba.njit(cache=True)
def _begin_actions(d: np.void, r: np.void, dice: np.ndarray) -> None:
    """§10 #22: the dots spent on Celerity actions leave the score, and the order is
    sorted again. First actions come at each one's initiative, the rest at the end of
    the turn, interleaved fastest first (§4, §10 #5, #31)."""
    for seat in range(2):
        d.initiative[seat] = _initiative(d, r, seat, d.celerity[seat])
    faster = _ranked(d, r)
    d.tied = faster < 0
    d.order[0] = 0 if faster < 0 else faster
    d.order[1] = 1 - d.order[0]
    # each seat's acting slots in turn, place by place (`batches`), the faster first; a
    # seat's first place is empty when its first action waits for the end too (§10 #5)
    d.queue_head = d.queue_end = 0
    waits0 = r.all_multi_at_end and d.slots[d.order[0]] > 1
    waits1 = r.all_multi_at_end and d.slots[d.order[1]] > 1
    next0 = next1 = 0  # the next slot of each to look at
    for place in range(MAX_SLOTS + 1):
        if place > 0 or not waits0:
            next0 = _enqueue(d, d.order[0], next0)
        if place > 0 or not waits1:
            next1 = _enqueue(d, d.order[1], next1)
    _next_action(d, r, dice, -1)


@numba.njit(cache=True, inline="always")
def _enqueue(d: np.void, seat: int, start: int) -> int:
    """Queue `seat`'s first slot from `start` that is no defence (defences wait to meet
    an attack, §5); returns where the next search starts."""
    for i in range(start, d.slots[seat]):
        if not IS_DEFENCE[d.slot_move[seat, i]]:
            d.queue_seat[d.queue_end] = seat
            d.queue_index[d.queue_end] = i
            d.queue_end += 1
            return i + 1
    return d.slots[seat]


@numba.njit(cache=True)
def _next_action(d: np.void, r: np.void, dice: np.ndarray, acted: int) -> None:
    """Take queued actions until one waits on a decision; a delayed fighter gets its
    moment right after its rival acts, or once its rival has nothing left (§4, §12)."""
    while not d.over:
        for k in range(2):  # §4: two delayers at once, the faster first (seed)
            seat = d.order[k]
            rival_left = False
            for q in range(d.queue_head, d.queue_end):
                rival_left = rival_left or d.queue_seat[q] != seat
            if d.delayed[seat] and (acted == 1 - seat or not rival_left):
                d.current, d.phase = seat, DELAYED
                return
        if d.queue_head == d.queue_end:
            _start_turn(d, r, dice)
            return
        seat, index = d.queue_seat[d.queue_head], d.queue_index[d.queue_head]
        d.queue_head += 1
        simultaneous = (
            d.tied and d.queue_head < d.queue_end and d.queue_seat[d.queue_head] != seat
        )  # §10 #11: both roll, then both apply
        if simultaneous:
            for side in range(2):
                d.held_penalty[side] = _wound_penalty(d, side)
        if _perform(d, r, seat, index, dice, simultaneous):
            d.held_penalty[:] = -1
            return  # waiting on the target's choice to abort (§8.2)
        if simultaneous:
            seat, index = d.queue_seat[d.queue_head], d.queue_index[d.queue_head]
            d.queue_head += 1
            waits = _perform(d, r, seat, index, dice, True)
            d.held_penalty[:] = -1
            if waits:
                return
        _settle(d)
        acted = seat


@numba.njit(cache=True)
def _perform(
    d: np.void, r: np.void, seat: int, index: int, dice: np.ndarray, simultaneous: bool
) -> bool:
    """One declared action; True when it waits on its target's choice to abort."""
    # `_take`: nothing comes of an action taken already, of a fighter out (unless the
    # exchange is simultaneous, §10 #11), or off balance from a brawl botch (§7)
    if d.slot_done[seat, index] or (_out(d, seat) and not simultaneous):
        return False
    d.slot_done[seat, index] = 1
    if d.off_balance[seat]:
        d.off_balance[seat] = 0
        return False
    move = d.slot_move[seat, index]
    if not IS_ATTACK[move]:
        if _move_possible(d, r, seat, move):  # else it can no longer be done (§10 #25)
            _other_move(d, r, seat, move)
        return False
    if not _attack_possible(d, r, seat, move):  # §10 #25
        return False
    struggle = move == CLINCH and d.clinched[seat]  # an opposed roll, not a blow
    if not (d.tied or struggle) and _may_abort(d, r, 1 - seat, seat, move):
        d.incoming, d.incoming_index, d.incoming_move = seat, index, move
        d.current, d.phase = 1 - seat, INTERRUPT
        return True
    _attack(d, r, seat, 1 - seat, index, dice)
    return False


# --- aborting to a defence (§8.2) ------------------------------------------------------


@numba.njit(cache=True)
def _abort(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    attacker, index = d.incoming, d.incoming_index
    d.incoming = -1
    _abort_to(d, r, seat, action, dice)
    _attack(d, r, attacker, seat, index, dice)
    _settle(d)
    _next_action(d, r, dice, attacker)


@numba.njit(cache=True)
def _abort_to(d: np.void, r: np.void, seat: int, action: int, dice: np.ndarray) -> None:
    """The choice made when attacked (§8.2): a point works, a Willpower roll may; the
    defence takes the next untaken action's slot and penalty (§10 #7, #38)."""
    if action == NO_ABORT:
        return
    block = action == ABORT_BLOCK_ROLL or action == ABORT_BLOCK_WP
    if action == ABORT_DODGE_WP or action == ABORT_BLOCK_WP:
        d.willpower[seat] -= 1  # §8.2: a point works automatically (§10 #23: apart)
        won = True
    else:  # §8.2, §10 #7: a Willpower roll, the permanent rating at 6
        net, _ = _read(dice, r.willpower[seat], STANDARD, 0, False, False, True)
        won = net >= 1
    if not won:
        return
    defence = BLOCK_PARRY if block else DODGE
    index = _next_untaken(d, seat)
    if index < 0:  # it had delayed: the defence is its action
        d.delayed[seat] = 0
        _add_slot(d, seat, defence, 0)
    else:  # §10 #7, #38: the defence takes the slot, and its penalty
        d.slot_move[seat, index] = defence


@numba.njit(cache=True)
def _next_untaken(d: np.void, seat: int) -> int:
    """The first declared action not yet taken that is no defence, -1 for none."""
    for i in range(d.slots[seat]):
        if not d.slot_done[seat, i] and not IS_DEFENCE[d.slot_move[seat, i]]:
            return i
    return -1


@numba.njit(cache=True)
def _may_abort(d: np.void, r: np.void, seat: int, attacker: int, move: int) -> bool:
    """§8.2: an untaken non-defensive action (or a delay, ASSUMPTION), and no unused
    declared defence that applies to this attack (§13.4)."""
    if _defence_for(d, r, seat, attacker, move) >= 0:
        return False
    return d.delayed[seat] != 0 or _next_untaken(d, seat) >= 0


# --- what may be declared and done (§5, §6, §12) -----------------------------------------


@numba.njit(cache=True)
def _plan_mask(d: np.void, r: np.void, seat: int, mask: np.ndarray) -> None:
    """`_plan_mask`: each plan that may be declared now (§12); a clinched fighter may only
    escape or strike in Brawl (§10 #39)."""
    w = _weapon(d, seat)
    for move in range(MOVES):
        if IS_ATTACK[move]:
            mask[PLAN_OF[move]] = _attack_possible(d, r, seat, move)
    shot = mask[A_SHOOT]
    mask[A_SHOOT_TWICE] = shot and r.w_rate[w] >= 2 and d.ammo[seat] >= 2
    first = False
    for move in ATTACK_FIRST_MOVES:
        first = first or mask[PLAN_OF[move]]
    mask[A_ATTACK_DODGE] = first
    mask[A_DOUBLE_ATTACK] = mask[PLAN_OF[_melee_move(d, r, seat)]]
    mask[A_CLOSE] = d.range > TOUCH and _move_possible(d, r, seat, CLOSE)
    mask[A_OPEN] = _move_possible(d, r, seat, OPEN)
    mask[A_RELOAD] = _reload_legal(d, r, seat)
    mask[A_AIM] = r.w_kind[w] == FIREARM
    mask[A_HEAL] = r.vampire[seat] != 0 and _move_possible(d, r, seat, HEAL)
    mask[A_DODGE] = mask[A_BLOCK_PARRY] = mask[A_DELAY] = True
    if d.clinched[seat]:  # §10 #39: an escape, or a Brawl attack at +1
        allowed = np.zeros(CLINCHED_PLANS.shape[0], np.bool_)
        for k in range(CLINCHED_PLANS.shape[0]):
            allowed[k] = mask[CLINCHED_PLANS[k]]
        mask[:] = False
        for k in range(CLINCHED_PLANS.shape[0]):
            mask[CLINCHED_PLANS[k]] = allowed[k]
        mask[A_BITE] = mask[A_BITE] and r.vampire[seat] != 0


@numba.njit(cache=True)
def _attack_possible(d: np.void, r: np.void, seat: int, move: int) -> bool:
    """An attack's preconditions (§5, §6), checked when declared and again when it comes
    up (§10 #25)."""
    w = _weapon(d, seat)
    distance = d.range
    if UNARMED[move]:
        return distance <= TOUCH + _walk(d, r, seat)
    if move == BITE:
        return r.vampire[seat] != 0 and d.clinched[seat] != 0
    if move == WEAPON_STRIKE:
        reach = ARMED + _walk(d, r, seat)
        return r.w_kind[w] == MELEE and distance <= reach and not d.clinched[seat]
    if r.w_kind[w] != FIREARM or d.jammed[seat] or d.clinched[seat]:
        return False
    in_range = distance <= RANGE_REACH * r.w_range[w] and d.shots[seat] < r.w_rate[w]
    if move == BURST:
        return in_range and r.w_burst[w] != 0 and d.ammo[seat] >= 3
    if move == FULL_AUTO:  # §10 #19
        return in_range and r.w_auto[w] != 0 and d.ammo[seat] >= max(1, r.w_clip[w] // 2)
    return in_range and d.ammo[seat] >= 1


@numba.njit(cache=True)
def _walk(d: np.void, r: np.void, seat: int) -> float:
    """How far a melee attack may walk in first (§6, §10 #15, `walk_with_action`): 7 m,
    or the wounded's own pace below that; nobody walks out of a clinch."""
    if not r.walk_with_action or d.clinched[seat]:
        return 0.0
    return min(WALK, _speed(d, r, seat))


@numba.njit(cache=True)
def _move_possible(d: np.void, r: np.void, seat: int, move: int) -> bool:
    """A non-attack action's preconditions when it comes up (§10 #25): nobody closes in
    at touch range or runs out of a clinch, and a heal needs blood and a wound."""
    if move == CLOSE and d.range <= TOUCH:
        return False
    if move == CLOSE or move == OPEN:
        return not d.clinched[seat] and _speed(d, r, seat) > 0
    if move == HEAL:
        wounded = d.health[seat, BASHING] > 0 or d.health[seat, LETHAL] > 0
        return d.blood[seat] >= 1 and wounded
    return True


@numba.njit(cache=True)
def _reload_legal(d: np.void, r: np.void, seat: int) -> bool:
    """§5: a dropped weapon to pick up, or a spent or jammed firearm."""
    if d.dropped[seat]:
        return True
    w = _weapon(d, seat)
    return r.w_kind[w] == FIREARM and (d.ammo[seat] < r.w_clip[w] or d.jammed[seat] != 0)


@numba.njit(cache=True)
def _melee_move(d: np.void, r: np.void, seat: int) -> int:
    """§12: a double attack's blow: a weapon strike with a melee weapon, else a strike."""
    return WEAPON_STRIKE if r.w_kind[_weapon(d, seat)] == MELEE else STRIKE


@numba.njit(cache=True)
def _attack_move(d: np.void, r: np.void, seat: int) -> int:
    """§12: the "attack" of Attack + Dodge, the first legal of a weapon strike, a strike
    and a shot (the mask allows the plan only with one at hand)."""
    for move in ATTACK_FIRST_MOVES:
        if _attack_possible(d, r, seat, move):
            return move
    return -1


# --- defences (§5, §8.2, §13.4) -------------------------------------------------------


@numba.njit(cache=True)
def _hit_type(d: np.void, r: np.void, attacker: int, target: int, move: int) -> int:
    """`state.hit_type`: fists, kicks and clinches bash; fangs aggravate; a weapon its own
    type; bullets on a vampire bash with `bullets_bashing_vs_vampires` (§5, §7, §10 #9)."""
    if move == BITE:
        return AGGRAVATED
    if move == STRIKE or move == KICK or move == CLINCH:
        return BASHING
    if move != WEAPON_STRIKE and r.bullets_bashing_vs_vampires and r.vampire[target]:
        return BASHING
    return r.w_type[_weapon(d, attacker)]


@numba.njit(cache=True)
def _blockable(d: np.void, r: np.void, seat: int, attacker: int, move: int) -> bool:
    """§5: Block and Parry meet melee attacks only; a bare-handed Block meets a lethal
    weapon only with Fortitude or armour, never aggravated damage (§10 #8)."""
    if not IS_MELEE[move]:
        return False
    if r.w_kind[_weapon(d, seat)] == MELEE:
        return True
    kind = _hit_type(d, r, attacker, seat, move)
    if kind == AGGRAVATED:
        return False
    return kind == BASHING or r.fortaleza[seat] >= 1 or r.armour_rating[seat] >= 1


@numba.njit(cache=True)
def _defence_for(d: np.void, r: np.void, seat: int, attacker: int, move: int) -> int:
    """The first unused declared defence that can meet `move`, -1 for none (§5, §13.4
    G3; §10 #40: a Block that cannot apply waits for one it can)."""
    for i in range(d.slots[seat]):
        slot = d.slot_move[seat, i]
        if d.slot_done[seat, i] or not IS_DEFENCE[slot]:
            continue
        if slot == DODGE or _blockable(d, r, seat, attacker, move):
            return i
    return -1


@numba.njit(cache=True)
def _defend(d: np.void, r: np.void, seat: int, attacker: int, move: int, dice: np.ndarray) -> int:
    """A declared (or aborted-to) defence that applies, rolled now: its net successes
    come off the attack's (§3, §5, §8.2); 0 without one."""
    index = _defence_for(d, r, seat, attacker, move)
    if index < 0:
        return 0
    d.slot_done[seat, index] = 1
    if d.slot_move[seat, index] == DODGE:
        ability = r.dodge_ability  # §5: Revised Dodge, or V20 Athletics
    else:
        ability = ARMAS_CC if r.w_kind[_weapon(d, seat)] == MELEE else PELEA  # parry, block
    pool, goal = _action_pool(d, r, seat, ability, DESTREZA, d.slot_penalty[seat, index])
    rolled, net, _ = _roll_action(d, r, seat, pool, _difficulty(goal), ability, dice)
    return net if rolled else 0


# --- an attack (§4 Phase 2, §5) ----------------------------------------------------


@numba.njit(cache=True)
def _attack(d: np.void, r: np.void, seat: int, target: int, index: int, dice: np.ndarray) -> None:
    move = d.slot_move[seat, index]
    if move == CLINCH and d.clinched[seat]:
        _struggle(d, r, seat, target, dice)
        return
    # `_walk_in`: to the attack's reach, if it is out of it
    reach = ARMED if move == WEAPON_STRIKE else TOUCH
    if IS_MELEE[move] and d.range > reach:
        d.range = reach
    ability, attribute = ARMAS_CC, DESTREZA
    if IS_SHOT[move]:
        ability = ARMAS_FUEGO
    elif move == CLINCH:
        ability, attribute = PELEA, FUERZA
    elif move != WEAPON_STRIKE:
        ability = PELEA
    pool, goal = _action_pool(d, r, seat, ability, attribute, d.slot_penalty[seat, index])
    w = _weapon(d, seat)
    goal += _move_shift(move, d.range, r.w_range[w], d.clinched[seat] != 0)
    if IS_SHOT[move]:
        goal += r.cover[target]  # §6: the target's cover
        pool += d.aiming[seat] + (2 if move == BURST else 10 if move == FULL_AUTO else 0)
        d.aiming[seat] = 0
        d.ammo[seat] -= 3 if move == BURST else d.ammo[seat] if move == FULL_AUTO else 1
        d.shots[seat] += 1
    rolled, net, botch = _roll_action(d, r, seat, pool, _difficulty(goal), ability, dice)
    if not rolled or (net == 0 and not botch):
        return  # nothing to roll, or a miss
    if botch:  # §7 (simulator defaults, §10 #16): a gun jams, a melee weapon drops
        if IS_SHOT[move]:
            d.jammed[seat] = 1
        elif move == WEAPON_STRIKE:
            d.dropped[seat] = 1
        else:
            d.off_balance[seat] = 1  # a brawler is off balance
        return
    left = net - _defend(d, r, target, seat, move, dice)  # `damage.defended`
    if left <= 0:  # §3: the defence took every success
        return
    if move == CLINCH:
        d.clinched[seat] = d.clinched[target] = 1  # §5 (published): both are held
    _damage(d, r, seat, target, move, left - 1, dice)


@numba.njit(cache=True)
def _struggle(d: np.void, r: np.void, seat: int, target: int, dice: np.ndarray) -> None:
    """§5, §10 #39: a clinched fighter's escape: opposed Str + Brawl; the winner breaks
    free, or keeps the hold and deals Strength bashing damage (published)."""
    pool, goal = _action_pool(d, r, seat, PELEA, FUERZA, 0)
    mine, _ = _read(dice, pool, goal, 0, False, False, True)
    pool, goal = _action_pool(d, r, target, PELEA, FUERZA, 0)
    theirs, _ = _read(dice, pool, goal, 0, False, False, True)
    if mine > theirs:
        d.clinched[seat] = d.clinched[target] = 0
    elif theirs > mine:
        _damage(d, r, target, seat, CLINCH, 0, dice)


@numba.njit(cache=True)
def _move_shift(move: int, distance: float, weapon_range: int, clinched: bool) -> int:
    """`exchange.move_shift`: a kick +1; a clinched brawler +1 (§10 #39); a shot -2
    within 2 m, +2 beyond its listed range; a burst +1, full auto +2 (§5, §6)."""
    if move == KICK:
        return 1 + (1 if clinched else 0)
    if move == STRIKE:
        return 1 if clinched else 0
    if IS_SHOT[move]:
        shift = -2 if distance <= POINT_BLANK else 2 if distance > weapon_range else 0
        return shift + (1 if move == BURST else 2 if move == FULL_AUTO else 0)
    return 0


@numba.njit(cache=True, inline="always")
def _difficulty(value: int) -> int:
    """§3, §10 #20: clamp a difficulty to 2..10."""
    return max(2, min(10, value))


@numba.njit(cache=True)
def _action_pool(
    d: np.void, r: np.void, seat: int, ability: int, attribute: int, penalty: int
) -> tuple[int, int]:
    """`exchange.action_pool` and `_action_pool`: Attribute + Ability; a missing Skill
    rolls at +1 difficulty; wounds (as held in a simultaneous exchange), the multiple
    action's place and, on Dexterity pools, armour cost dice (§3, §7, §8.1); unused
    Celerity dots add dice to Dexterity pools under `celerity_dice` (§8.3)."""
    rating = r.abilities[seat, ability]
    goal = STANDARD + (1 if rating == 0 and IS_SKILL[ability] else 0)
    held = d.held_penalty[seat]
    wounds = _wound_penalty(d, seat) if held < 0 else held
    pool = r.attributes[seat, attribute] + rating - wounds - penalty
    if attribute == DESTREZA:
        pool -= r.armour_penalty[seat]
        if r.celerity_dice:
            pool += r.celeridad[seat] - d.celerity[seat]
    return pool, goal


@numba.njit(cache=True)
def _roll_action(
    d: np.void, r: np.void, seat: int, pool: int, goal: int, ability: int, dice: np.ndarray
) -> tuple[bool, int, bool]:
    """`_roll_action`: (rolled, net, botch), with the turn's Willpower success if unused
    (§3, §10 #23); not rolled when the pool is empty, Willpower or not (§10 #13)."""
    if pool <= 0:
        return False, 0, False
    willpower = d.willpower_success[seat] != 0
    d.willpower_success[seat] = 0
    specialty = 0
    if r.specialties[seat, ability]:
        specialty = 2 if r.specialty_reroll else 1
    net, botch = _read(dice, pool, goal, specialty, willpower, r.willpower_cancellable, True)
    return True, net, botch


@numba.njit(cache=True)
def _read(
    dice: np.ndarray,
    pool: int,
    goal: int,
    specialty: int,
    willpower: bool,
    cancellable: bool,
    ones_cancel: bool,
) -> tuple[int, bool]:
    """`roll` and `odds.read_pool`: (net, botch) of `pool` d10 at `goal`. `specialty` 1
    counts a 10 twice, 2 rolls it again once after the pool (§8.5, §10 #27: a 1 there
    cancels nothing); a 1 cancels a success (unless not `ones_cancel`, §10 #3); no
    success and a 1 is a botch; Willpower's success counts apart, or is cancelled like
    a rolled one if `cancellable` (§3, §10 #26)."""
    successes = ones = again = 0
    for _ in range(max(pool, 0)):
        face = roll(dice, 10)
        if face == 1:
            ones += 1
        elif face >= goal:
            successes += 2 if face == 10 and specialty == 1 else 1
            if face == 10 and specialty == 2:
                again += 1
    for _ in range(again):
        face = roll(dice, 10)
        if face != 1 and face >= goal:
            successes += 1
    if not ones_cancel:
        ones = 0
    if willpower and not cancellable:
        return max(successes - ones, 0) + 1, False
    rolled = successes + (1 if willpower else 0)
    return max(rolled - ones, 0), rolled == 0 and ones > 0


# --- what a hit does (§4 Phase 3, §7) -----------------------------------------------


@numba.njit(cache=True)
def _damage(
    d: np.void, r: np.void, seat: int, target: int, move: int, extra: int, dice: np.ndarray
) -> None:
    """§4 Phase 3: the damage pool (+1 die per extra success, never below 1) at 6, no
    botch; the target soaks by type (§7), and what is left marks its health."""
    kind = _hit_type(d, r, seat, target, move)
    strength = r.attributes[seat, FUERZA]
    if move == KICK or move == BITE:  # `damage_dice` (§5, §7)
        base = strength + 1
    elif move == STRIKE or move == CLINCH:
        base = strength
    elif move == WEAPON_STRIKE:
        base = strength + r.w_bonus[_weapon(d, seat)]
    else:
        base = r.w_damage[_weapon(d, seat)]
    ones = r.ones_cancel_on_damage_soak  # §10 #3
    hits, _ = _read(dice, max(1, base + extra), STANDARD, 0, False, False, ones)
    vampire = r.vampire[target] != 0
    armour = r.armour_rating[target]
    if kind == AGGRAVATED:  # `damage.soak_pool` (§7)
        soak = r.fortaleza[target]
    elif kind == LETHAL and not vampire:
        soak = armour
    else:
        soak = r.attributes[target, RESISTENCIA] + r.fortaleza[target] + armour
    soaked, _ = _read(dice, soak, STANDARD, 0, False, False, ones)
    levels = max(hits - soaked, 0)  # `damage.after_soak`: a vampire halves bashing
    if kind == BASHING and vampire and r.halve_bashing_vs_vampires:
        levels //= 2
    status = _take(d, r, target, levels, kind)
    if vampire and status == INCAPACITATED and d.blood[target] <= 0:
        status = TORPOR  # §7: an Incapacitated vampire with no blood left
    d.status[target] = status


# --- the other actions (§5, §6) ----------------------------------------------------------


@numba.njit(cache=True)
def _other_move(d: np.void, r: np.void, seat: int, move: int) -> None:
    if move == CLOSE or move == OPEN:
        run = _speed(d, r, seat)
        before = d.range
        d.range = max(TOUCH, before - run) if move == CLOSE else before + run
        d.aiming[seat] = 0  # §5: aiming needs the shooter stationary
        if move == OPEN and d.range > _flee_range(r, 1 - seat):
            d.fled[seat] = 1  # §9, §10 #24: settled with the turn's other outcomes
    elif move == RELOAD:  # `_tend` (§5, §10 #18, #36)
        if d.dropped[seat]:
            d.dropped[seat] = 0  # §7: the dropped weapon, picked up
        else:
            d.ammo[seat], d.jammed[seat] = r.w_clip[seat], 0
    elif move == AIM:
        d.aiming[seat] = min(d.aiming[seat] + 1, r.attributes[seat, PERCEPCION])
    elif move == HEAL:  # 1 blood heals 1 level, bashing first
        d.blood[seat] -= 1
        d.health[seat, BASHING if d.health[seat, BASHING] else LETHAL] -= 1
        d.status[seat] = _status(d, r, seat)


# --- the end (§9) ---------------------------------------------------------------------------


@numba.njit(cache=True)
def _settle(d: np.void) -> None:
    """§9: the fight ends when a side is out or has fled; both out at once, or a flight,
    is a draw (§10 #24, #32)."""
    if d.over:
        return
    for seat in range(2):
        if d.fled[seat]:
            _finish(d, -1, FLEES, seat)
            return
    out0, out1 = _out(d, 0), _out(d, 1)
    if out0 and out1:
        _finish(d, -1, BOTH_OUT, -1)
    elif out0 or out1:
        loser = 0 if out0 else 1
        _finish(d, 1 - loser, LOSES, loser)


@numba.njit(cache=True)
def _finish(d: np.void, winner: int, ending: int, seat: int) -> None:
    d.over = True
    d.winner = winner
    d.truncated = False
    d.ending = ending
    d.ending_seat = seat


compile_into(globals())  # the env and tournament loops (loops.py), on these kernels
