"""Property tests over arbitrary legal play (STYLE #10), for every system and scenario."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.testing import MAX_DECISIONS, Redeal, check_decision, check_end, check_ruleset
from duelo.envs.dunwich.group import DunwichGroupRuleset
from duelo.envs.dunwich.group_state import GroupState
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.dunwich.state import PLAN, DunwichState, Phase
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset, EsgrimaDuelState
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.infierno import InfiernoRuleset
from duelo.envs.infierno.setup import load_catalog
from duelo.envs.infierno.state import Action, InfiernoState
from duelo.envs.vampiro.group_state import DECODED, PLAN_IDS, WAIT_ID
from duelo.envs.vampiro.group_state import GroupState as VampiroGroupState
from duelo.envs.vampiro.rules import VampiroRuleset
from duelo.envs.vampiro.state import PLANS, Fighter, VampiroState
from duelo.registration import SYSTEMS

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    (name, {"scenario": scenario} if scenario else {})
    for name, info in SYSTEMS.items()
    for scenario in info.scenarios or (None,)
]
# Options and fighters that open other code paths: agent crit choices, repeats,
# concealment, two weapons, surprise; light reloads, rolled PNJ initiative, heavy
# armour; the faithful duel, first blood, a small deck.
VARIANTS += [
    ("infierno", {"options": {"crit_choice": "agent", "both_miss": "always_repeat"}}),
    ("infierno", {"scenario": "brawl", "options": {"lighting": "total_concealment"}}),
    ("infierno", {"fighters": ("tommy_dos_pistolas", "brawler"), "scenario": "brawl"}),
    (
        "infierno",
        {
            "fighters": ("johny", "guard"),
            "scenario": "ambush",
            "options": {"stun_duration": "end_of_round", "staredown_penalty": "C"},
        },
    ),
    ("esgrima", {"fighters": ("brute", "musketeer"), "options": {"light_reload": "action"}}),
    (
        "esgrima",
        {
            "fighters": ("swashbuckler", "duelist"),
            "scenario": "open_square",
            "options": {"npc_initiative": "roll"},
        },
    ),
    ("esgrima_duel", {"options": {"duel_variant": "faithful", "duel_end": "first_blood"}}),
    ("esgrima_duel", {"fighters": ("brute", "swashbuckler"), "options": {"deck_copies": 2}}),
    (
        "dunwich",
        {
            "fighters": ("deputy", "hunter"),
            "options": {"bank_extra_successes": True, "margin_dice": True, "pusher_follows": True},
        },
    ),
    ("dunwich", {"scenario": "crossfire", "options": {"escape_is_loss": True}}),
    (
        "vampiro",
        {  # a mirror match at fixed initiative: full ties, blind declarations (§10 #29)
            "fighters": ("brujah", "brujah"),
            "options": {"specialty_mode": "reroll", "fixed_initiative": True},
        },
    ),
    (
        "vampiro",
        {  # the reading that a declaration is public once made (ties still blind)
            "fighters": ("brujah", "ventrue"),
            "options": {"public_declarations": True},
        },
    ),
    (
        "vampiro",
        {
            "fighters": ("ventrue", "hunter"),
            "options": {
                "all_multi_at_end": True,
                "celerity_cost": "per_turn",
                "bullets_bashing_vs_vampires": True,
                "willpower_cancellable": True,
                "ones_cancel_on_damage_soak": False,
                "dodge_ability": "atletismo",
            },
        },
    ),
    (
        "liminal_skirmish",
        {
            "scenario": "mob",
            "options": {
                "taunt_duration": "until_next_attack",
                "rebalance_on_wipe": True,
                "spill_across_groups": True,
            },
        },
    ),
    (
        "esgrima_skirmish",
        {
            "scenario": "three_on_three",
            "options": {
                "pj_tie": "agree",
                "handover_in_hand": True,
                "suppress_timing": "after",
                "bodies_block": True,
            },
        },
    ),
    (
        "esgrima_skirmish",
        {"scenario": "ambush", "options": {"delay": "all", "light_reload": "action"}},
    ),
    (
        "vampiro_skirmish",
        {
            "scenario": "three_on_three",
            "options": {
                "multi_opponent_difficulty": "all",
                "team_shared_plan": True,
                "retarget_if_out": True,
                "botch_hits_ally": False,
                "flee_is_loss": True,
                "fixed_initiative": True,
                "all_multi_at_end": True,
                "celerity_cost": "per_turn",
            },
        },
    ),
    (
        "dunwich_skirmish",
        {
            "scenario": "outnumbered",
            "options": {
                "reaction_penalty": True,
                "gang_bonus": True,
                "fire_into_melee": True,
                "tie_break": "id",
                "team_shared_plan": True,
                "margin_dice": True,
            },
        },
    ),
    (
        "liminal_skirmish",
        {
            "scenario": "outnumbered",
            "options": {
                "adjacent_penalty": "target_only",
                "group_penalty_melee": True,
                "crit_choice": "fixed",
            },
        },
    ),
]


@settings(max_examples=200, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_legal_play_keeps_the_invariants(
    variant: tuple[str, dict[str, Any]], seed: int, data: st.DataObject
) -> None:
    name, kwargs = variant
    ruleset = SYSTEMS[name].ruleset(**kwargs)
    dice = GeneratorDice(seed)
    state = ruleset.new_duel(dice)
    decisions = 0
    while (seat := ruleset.to_act(state)) is not None:
        where = f"{name} {kwargs} decision {decisions + 1}"
        mask, observations = check_decision(ruleset, state, seat, where)
        spec = ruleset.observation_spec
        for flat in observations:
            assert (flat[spec.slice_of("hp")] <= flat[spec.slice_of("hp_max")]).all()
        action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()))
        ruleset.apply(state, seat, action, dice)
        decisions += 1
        assert decisions < MAX_DECISIONS, "a duel must end"
    check_end(ruleset, state, f"{name} {kwargs}")


@pytest.mark.parametrize(
    ("name", "kwargs"), VARIANTS, ids=[f"{name}-{i}" for i, (name, _) in enumerate(VARIANTS)]
)
def test_every_variant_passes_the_ruleset_checks(name: str, kwargs: dict[str, Any]) -> None:
    redeal = REDEALS.get(name)
    if kwargs.get("options", {}).get("public_declarations"):
        redeal = redeal_blind_tie
    assert check_ruleset(lambda: SYSTEMS[name].ruleset(**kwargs), redeal=redeal) > 0


def redeal_cards(state: EsgrimaDuelState, seat: int, rng: np.random.Generator) -> None:
    """Shuffle the deck with the opponent's hand: what a fencer may not see (digest §12)."""
    them = state.sides[1 - seat]
    pool = them.hand + state.deck
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    them.hand = sorted(pool[: len(them.hand)])
    state.deck = pool[len(them.hand) :]


def redeal_plan(state: DunwichState, seat: int, rng: np.random.Generator) -> None:
    """Another sealed plan for the rival, once it has planned and `seat` has not (§4)."""
    if state.plans[1 - seat] is not None and state.plans[seat] is None:
        state.plans[1 - seat] = PLAN[int(rng.integers(len(PLAN)))]


def _rival_declared_first(state: VampiroState, seat: int) -> bool:
    """§4: the slower declares first, by the score with no Celerity spent, then Dexterity
    + Wits; a full tie declares blind (§10 #29). Worked out here, apart from the rules."""
    keys = [
        (f.declare_initiative, f.character.destreza + f.character.astucia) for f in state.fighters
    ]
    return keys[1 - seat] < keys[seat]


def redeal_declaration(state: VampiroState, seat: int, rng: np.random.Generator) -> None:
    """Another declaration for the rival, whenever it declared after `seat` or beside it
    in a tie (§12 "known only if the opponent declared earlier", §10 #29, #30): its plan,
    Celerity actions, Willpower flag, delay, and the blood and Willpower they cost."""
    them = state.fighters[1 - seat]
    if not state.declared[1 - seat] or _rival_declared_first(state, seat):
        return
    _redeclare(them, rng)


def redeal_blind_tie(state: VampiroState, seat: int, rng: np.random.Generator) -> None:
    """With `public_declarations`, only a full tie's declaration before both are in."""
    if state.tied and state.declared[1 - seat] and not state.declared[seat]:
        _redeclare(state.fighters[1 - seat], rng)


def _redeclare(them: Fighter, rng: np.random.Generator) -> None:
    them.willpower += them.declared_willpower
    them.blood += them.declared_blood
    them.plan = PLANS[int(rng.integers(len(PLANS)))]
    them.celerity = int(rng.integers(them.character.celeridad + 1))
    them.declared_blood = min(them.celerity, them.blood)
    them.blood -= them.declared_blood
    them.declared_willpower = bool(rng.integers(2)) and them.willpower > 0
    them.willpower -= them.declared_willpower
    them.delayed = bool(rng.integers(2))


def redeal_plans(state: GroupState, seat: int, rng: np.random.Generator) -> None:
    """Every other fighter's plan already chosen this turn, allies' too (G7), re-dealt
    among its legal plans: what `seat` must not see."""
    if state.phase != Phase.PLAN:
        return
    shared = state.options.team_shared_plan
    for other, plan in enumerate(state.plans):
        if other == seat or plan is None or not state.active(other):
            continue
        if shared and state.sides[other] == state.sides[seat]:
            continue
        allowed = DunwichGroupRuleset._plan_mask(state, other)
        legal = [p for p, ok in zip(PLAN, allowed, strict=True) if ok]
        state.plans[other] = legal[int(rng.integers(len(legal)))]


def redeal_declarations(state: VampiroGroupState, seat: int, rng: np.random.Generator) -> None:
    """Every declaration `seat` may not see re-dealt (§13.2, §13.8), allies' too unless
    `team_shared_plan`: the plan and its targets, Celerity actions, Willpower flag and
    delay, with the blood and Willpower they cost; and every sealed act-now choice of
    the moment made by another delayer (§13.5)."""
    for other, them in enumerate(state.fighters):
        if state.sees(seat, other) or not them.declared:
            continue
        them.willpower += them.declared_willpower
        them.blood += them.declared_blood
        them.choice = PLAN_IDS[int(rng.integers(len(PLAN_IDS)))]
        them.celerity = int(rng.integers(them.character.celeridad + 1))
        them.declared_blood = min(them.celerity, them.blood)
        them.blood -= them.declared_blood
        them.declared_willpower = bool(rng.integers(2)) and them.willpower > 0
        them.willpower -= them.declared_willpower
        them.delayed = DECODED[them.choice].plan is not None and bool(rng.integers(2))
    for other in state.choices:
        if other != seat:
            state.choices[other] = (*PLAN_IDS, WAIT_ID)[int(rng.integers(len(PLAN_IDS) + 1))]


INFIERNO_WEAPONS = tuple(load_catalog().weapons.values())


def redeal_infierno(state: InfiernoState, seat: int, rng: np.random.Generator) -> None:
    """What an Infierno fighter hides: each weapon the rival has never drawn (digest §12:
    a holstered derringer stays hidden), and its honour choice, made and not yet told
    (seed DUELOS: both choose, then both are told)."""
    for item in state.fighters[1 - seat].carried:
        if not item.shown:
            item.weapon = INFIERNO_WEAPONS[int(rng.integers(len(INFIERNO_WEAPONS)))]
    if 1 - seat in state.honour_choices and seat not in state.honour_choices:
        state.honour_choices[1 - seat] = (Action.SETTLE, Action.INSIST)[int(rng.integers(2))]


REDEALS: dict[str, Redeal] = {
    "infierno": redeal_infierno,
    "esgrima_duel": redeal_cards,
    "dunwich": redeal_plan,
    "dunwich_skirmish": redeal_plans,
    "vampiro": redeal_declaration,
    "vampiro_skirmish": redeal_declarations,
}
"""What each system hides from a seat, re-dealt by the hidden-information check."""


def test_the_card_check_catches_a_peek_at_the_deck() -> None:
    """The hidden-card check fails a ruleset whose observation shows the deck's top card."""

    class Peeking(EsgrimaDuelRuleset):
        def observe(self, state: EsgrimaDuelState, seat: int) -> np.ndarray:
            flat = super().observe(state, seat).copy()
            flat[self.observation_spec.index("foco")] = state.deck[0] == Card.INSULTO
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(Peeking, redeal=redeal_cards)


def test_the_plan_check_catches_a_peek_at_the_sealed_bid() -> None:
    """The hidden-plan check fails a Dunwich ruleset that shows the rival's bid early."""

    class Peeking(DunwichRuleset):
        def observe(self, state: DunwichState, seat: int) -> np.ndarray:
            flat = super().observe(state, seat).copy()
            plan = state.plans[1 - seat]
            flat[self.observation_spec.index("status", "opponent.bid")] = plan or 0
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(Peeking, redeal=redeal_plan)


def test_the_tie_check_catches_a_peek_at_a_blind_declaration() -> None:
    """The hidden-declaration check fails a Vampiro ruleset that shows a blind plan."""

    class Peeking(VampiroRuleset):
        def observe(self, state: VampiroState, seat: int) -> np.ndarray:
            flat = super().observe(state, seat).copy()
            plan = state.fighters[1 - seat].plan
            known = 0 if plan is None else PLANS.index(plan) % 5
            flat[self.observation_spec.index("plan", "opponent.celerity")] = known
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(  # a mirror match at fixed initiative: full ties
            lambda: Peeking(fighters=("brujah", "brujah"), options={"fixed_initiative": True}),
            redeal=redeal_declaration,
        )


def test_the_weapon_check_catches_a_peek_at_a_holstered_weapon() -> None:
    """The re-deal of Infierno's undrawn weapons fails a ruleset whose observation tells
    the rival's holstered weapon (its top damage, added to the range)."""

    class Peeking(InfiernoRuleset):
        def observe(self, state: InfiernoState, seat: int) -> np.ndarray:
            flat = super().observe(state, seat).copy()
            hidden = [item for item in state.fighters[1 - seat].carried if not item.shown]
            flat[self.observation_spec.index("range")] += (
                hidden[0].weapon.damage[1] if hidden else 0
            )
            return flat

    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(Peeking, redeal=redeal_infierno)


def test_the_declaration_check_catches_the_public_once_made_reading() -> None:
    """Vampiro's re-deal fails the reading that a declaration is public once made, which
    the digest does not take (§12, §10 #30), and passes it where that option is asked."""
    public = {"options": {"public_declarations": True}}
    with pytest.raises(AssertionError, match="sees what was re-dealt"):
        check_ruleset(lambda: SYSTEMS["vampiro"].ruleset(**public), redeal=redeal_declaration)
    assert check_ruleset(lambda: SYSTEMS["vampiro"].ruleset(**public), redeal=redeal_blind_tie)
