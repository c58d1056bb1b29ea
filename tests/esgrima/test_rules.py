"""Esgrima rules beyond the worked examples, pinned with scripted dice."""

from __future__ import annotations

import copy
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import yaml

import duelo  # noqa: F401
from duelo.envs.core.config import ConfigError, packaged_config, read_yaml_mapping
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.esgrima.duel import DuelAction
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.setup import TerrainObject, load_catalog
from duelo.envs.esgrima.skirmish_state import SkirmishAction as A
from duelo.envs.esgrima.skirmish_state import reach
from tests.esgrima.helpers import CATALOG, character, duel, layout, skirmish

C = Card


def pj(**changes: object):
    return character("duelist", traits=(), armour="none", **changes)


def pnj(**changes: object):
    return character("pirate", armour="none", **changes)


# --- skirmish --------------------------------------------------------------------


def test_weapon_reach_by_band() -> None:
    w = CATALOG.weapons
    assert [reach(w["sabre"], d) for d in (0, 1, 2)] == [0, None, None]
    assert [reach(w["greatsword"], d) for d in (0, 1, 2)] == [0, -1, None]
    assert [reach(w["pistol"], d) for d in (0, 1, 2)] == [-1, 0, 0]
    assert [reach(w["musket"], d) for d in (0, 1, 2)] == [None, 0, 0]
    assert reach(w["knife"], 2, thrown=True) == 0


def test_cover_gives_the_shooter_disadvantage() -> None:
    where = layout((1, 2), TerrainObject(1, cover=True))
    fight = skirmish(pj(), pnj(weapons=("pistol",)), where, [6, 6])
    fight.act(A.TAKE_COVER)
    fight.act(A.PASS)
    fight.act(A.SHOT, 4)  # 1d6 with Disadvantage: 4 > 3, miss
    assert "1d6 [4] vs 3, Disadvantage -> miss" in fight.log()


def test_hidden_cannot_be_attacked_and_attacks_from_hiding_with_advantage() -> None:
    where = layout((2, 2), TerrainObject(2, hide=True))
    fight = skirmish(pj(), pnj(), where, [6, 6])
    fight.act(A.HIDE, 1, 6)  # Discreción 3: one success
    fight.act(A.PASS)
    mask = fight.ruleset.legal_actions(fight.state, 1)
    assert not mask[A.MELEE_ATTACK] and mask[A.LOCATE]
    fight.act(A.PASS)
    fight.act(A.PASS)
    fight.act(A.MELEE_ATTACK, 6, 6, 1)  # leaves hiding: 3d6
    assert "leaves hiding" in fight.log() and fight.state.fighters[1].body.pg == 4


def test_locate_reveals_the_hidden() -> None:
    where = layout((2, 2), TerrainObject(2, hide=True))
    fight = skirmish(pj(), pnj(), where, [6, 6])
    fight.act(A.HIDE, 1, 6)
    fight.act(A.PASS)
    fight.act(A.LOCATE, 2, 6)
    assert not fight.state.fighters[0].hidden


def test_suppressive_fire_shoots_at_an_enemy_acting_in_the_zone() -> None:
    fight = skirmish(pj(weapons=("pistol",)), pnj(), layout((1, 2)), [6, 6])
    fight.act(A.SUPPRESSIVE_FIRE)
    fight.act(A.PASS)
    fight.act(A.PASS, 1)  # acting inside the zone: a shot with Disadvantage, 1d6 1 hits
    assert "suppressive fire answers" in fight.log() and fight.state.fighters[1].body.pg == 4
    fight.act(A.MOVE_AWAY)  # leaving the zone draws no shot
    assert fight.state.fighters[1].body.pg == 4


def test_edge_and_cancel() -> None:
    where = layout((2, 2), TerrainObject(2, interact=True))
    fight = skirmish(pj(), pnj(), where, [6, 6])
    fight.act(A.INTERACT_EDGE)
    fight.act(A.MELEE_ATTACK, 6, 6, 6)  # Advantage: 3d6
    fight.act(A.CANCEL_EDGE)
    assert not fight.state.fighters[0].edge
    fight.act(A.MELEE_ATTACK, 6, 6)  # back to 2d6
    assert fight.state.spent == [True]


def test_thrown_weapon_is_lost_and_flight_at_the_edge_loses() -> None:
    fight = skirmish(pj(weapons=("knife", "sabre")), pnj(), layout((0, 3)), [6, 6])
    fight.act(A.THROW_WEAPON, 6, 6)
    assert fight.state.fighters[0].weapons[0].lost and fight.state.fighters[0].in_hand is None
    fight.act(A.MOVE_AWAY, 1, 1)  # Far at the map edge: flight, then the ammo check
    outcome = fight.state.result
    assert outcome is not None and outcome.winner == 1 and "flees" in outcome.reason


def test_light_reload_as_an_action() -> None:
    fight = skirmish(pj(weapons=("pistol",)), pnj(), layout((1, 2)), [6, 6], light_reload="action")
    fight.act(A.SHOT, 6, 6)
    assert not fight.ruleset.legal_actions(fight.state, 0)[A.SHOT]
    fight.act(A.RELOAD)  # no Test for a light weapon
    assert fight.state.fighters[0].weapons[0].loaded


def test_heavy_armour_cannot_evade_without_a_shield() -> None:
    fight = skirmish(character("brute"), pj(), layout((1, 2)), [1, 1])
    assert not fight.ruleset.legal_actions(fight.state, 0)[A.EVADE]


# --- the duel --------------------------------------------------------------------


def symmetric(deck: list[Card], opening: list[int], **options: object):
    return duel(pj(), pnj(), deck, opening, **options)


DECK = [
    C.TRETA,
    C.INSULTO,
    C.ESTOCADA_ALTA,
    C.TAJO_CIRCULAR,
    C.FINTA,
    C.ESTOCADA_PROFUNDA,
    C.FINTA,
    C.TRETA,
    C.INSULTO,
    C.TAJO_CIRCULAR,
]


def test_symmetric_reveal_order_and_tie_to_foco() -> None:
    fencing = symmetric(DECK, [6, 6, 1, 1])  # 12 vs 2: seat 0 holds Foco
    assert fencing.seat == 1  # the side without Foco commits first
    fencing.act(DuelAction.PLAY_ESTOCADA_PROFUNDA)
    # revealed to the Foco holder
    assert fencing.field(0, "cards", "revealed.estocada_profunda") == 1
    # neutral matchup; the side without Foco rolls first: one success each, Foco wins
    fencing.act(DuelAction.PLAY_TRETA, 3, 6, 3, 6)
    assert fencing.state.sides[1].body.pg == 4  # Treta with Foco in hand: 1 PG


def test_repositioner_needs_strictly_more_successes() -> None:
    fencing = symmetric(DECK, [6, 6, 1, 1])
    fencing.act(DuelAction.REPOSITION_KEEP_ALL)
    fencing.act(DuelAction.PLAY_TRETA, 1, 6, 1, 6)  # Defense 1 vs 1: not strictly more
    assert "Treta of the duelist takes effect" in fencing.log()


def test_first_blood_ends_the_duel() -> None:
    fencing = symmetric(DECK, [6, 6, 1, 1], duel_end="first_blood")
    fencing.act(DuelAction.PLAY_ESTOCADA_PROFUNDA)
    fencing.act(DuelAction.PLAY_TRETA, 1, 1, 6, 6)  # the pirate rolls first: its thrust wins
    outcome = fencing.state.result
    assert outcome is not None and outcome.winner == 1 and "first blood" in outcome.reason


def test_hidden_cards_never_reach_the_observation() -> None:
    env = gym.make("duelo/EsgrimaDuel-v2", learner_seat=0)
    observation, _ = env.reset(seed=3)
    state = env.unwrapped.state
    ruleset = env.unwrapped.ruleset
    changed = copy.deepcopy(state)
    changed.sides[1].hand = sorted([C.INSULTO, C.INSULTO, C.FINTA])  # the opponent's hand
    changed.deck = list(reversed(changed.deck))  # and the deck order
    again = ruleset.observation_spec.split(ruleset.observe(changed, 0))
    assert all(np.array_equal(observation[k], again[k]) for k in observation)


def test_faithful_duel_learner_is_the_pj() -> None:
    env = gym.make("duelo/EsgrimaDuel-v2", options={"duel_variant": "faithful"})
    assert env.reset(seed=0)[1]["seat"] == 0
    with pytest.raises(ValueError, match="learner_seat 0"):
        gym.make("duelo/EsgrimaDuel-v2", options={"duel_variant": "faithful"}, learner_seat=1)


def test_an_empty_deck_is_the_shuffled_discard_pile() -> None:
    fencing = symmetric(list(Card) * 2, [6, 6, 1, 1], deck_copies=2)
    dice = GeneratorDice(0)
    for _ in range(4):  # both discard whole hands: 6 cards left in the deck run out
        fencing.ruleset.apply(fencing.state, fencing.seat, DuelAction.REPOSITION_123, dice)
    assert "shuffled into a new deck" in fencing.log()


def test_duel_needs_a_mastered_melee_weapon() -> None:
    with pytest.raises(ValueError, match="needs a mastered melee weapon"):
        duel(character("duelist", mastered="pistol"), pnj(), DECK, [6, 6])


# --- configs ------------------------------------------------------------------------


def write(tmp_path: Path, name: str, key: str, change: dict) -> Path:
    data = read_yaml_mapping(packaged_config(f"esgrima/{name}.yaml"))
    data[key].update(change)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "key", "change", "message"),
    [
        (
            "characters",
            "duelist",
            {"weapons": ["rapier"]},
            r"duelist.weapons\[0\]: unknown weapon 'rapier'",
        ),
        ("characters", "duelist", {"agresividad": 7}, "agresividad 7 must lie in 1..5"),
        (
            "characters",
            "duelist",
            {"traits": ["flying"]},
            r"duelist.traits\[0\]: 'flying' is not one of 'afortunado'",
        ),
        ("characters", "duelist", {"pg": 5}, "unknown key 'pg'"),
        ("weapons", "sabre", {"cls": "medium_melee"}, "'medium_melee' is not one of"),
        ("layouts", "ship_deck", {"start": [1, 9]}, "start zones"),
    ],
)
def test_bad_configs_name_file_key_and_value(
    tmp_path: Path, name: str, key: str, change: dict, message: str
) -> None:
    path = write(tmp_path, name, key, change)
    with pytest.raises(ConfigError, match=message) as error:
        load_catalog(**{name: path})
    assert str(path) in str(error.value)


def test_delay_acts_after_the_opponent_for_good() -> None:
    fight = skirmish(pj(), pnj(), layout((1, 2)), [6, 6])  # the PJ (12) acts first
    fight.act(A.DELAY)
    assert fight.seat == 1 and fight.state.fighters[0].initiative == pytest.approx(7.49)
    assert not fight.ruleset.legal_actions(fight.state, 1)[A.DELAY]  # once a round
    fight.act(A.PASS)
    fight.act(A.PASS)
    assert fight.seat == 0 and fight.state.actions_left == 2  # the delayer still acts
    fight.act(A.PASS)
    fight.act(A.PASS)
    assert fight.state.round == 2 and fight.state.order == [1, 0]


def test_block_closes_the_way_toward_the_opponent() -> None:
    where = layout((1, 3), TerrainObject(1, interact=True))
    fight = skirmish(pj(), pnj(), where, [6, 6])
    fight.act(A.INTERACT_BLOCK)
    assert fight.state.blocked == {1} and fight.state.spent == [True]
    assert not fight.ruleset.legal_actions(fight.state, 0)[A.MOVE_TOWARD]
    fight.act(A.PASS)
    fight.act(A.MOVE_TOWARD)  # the pirate walks from 3 to 2...
    mask = fight.ruleset.legal_actions(fight.state, 1)
    assert not mask[A.MOVE_TOWARD] and not mask[A.RELOCATE_NEAR]  # ...and no further
    assert fight.field(1, "blocked", "boundary1") == 1


# --- findings of the rules review (issue 13) ------------------------------------------


def test_two_pnjs_both_roll_initiative_by_default() -> None:
    """Digest §10 #8: two PNJs would both keep 7.5 and always tie, so both roll 2d6; with
    npc_initiative "fixed" they keep 7.5 and a 1d6 roll-off orders them."""
    fight = skirmish(pnj(), pnj(), layout((1, 2)), [2, 3, 6, 5])  # 5 vs 11
    assert [f.initiative for f in fight.state.fighters] == [5, 11] and fight.seat == 1
    fixed = skirmish(pnj(), pnj(), layout((1, 2)), [2, 3], npc_initiative="fixed")
    assert [f.initiative for f in fixed.state.fighters] == [7.5, 7.5] and fixed.seat == 1
    # a PNJ against a PJ keeps its 7.5 either way
    mixed = skirmish(pj(), pnj(), layout((1, 2)), [6, 6])
    assert [f.initiative for f in mixed.state.fighters] == [12, 7.5]


def test_only_a_pj_delays_by_default() -> None:
    """Seed (Retrasar el turno): "Los jugadores pueden retrasar su turno"."""
    fight = skirmish(pj(), pnj(), layout((1, 2)), [1, 1])  # the PJ (2) acts after 7.5
    assert fight.seat == 1 and not fight.mask()[A.DELAY]
    fight = skirmish(pj(), pnj(), layout((1, 2)), [1, 1], delay="all")
    assert fight.mask()[A.DELAY]


def test_evading_inside_a_suppressed_zone_draws_no_shot() -> None:
    """Seed (Fuego de supresión): no shot at an enemy that leaves, hides "o se protege de
    algún modo"; Evasión protects."""
    fight = skirmish(pj(weapons=("pistol",)), pnj(), layout((1, 2)), [6, 6])
    fight.act(A.SUPPRESSIVE_FIRE)
    fight.act(A.PASS)
    fight.act(A.EVADE)  # no die is rolled: no shot
    assert "suppressive fire answers" not in fight.log()


def test_area_damage_hits_a_hidden_combatant() -> None:
    """Digest §8.3: every combatant in the area takes 1 PG; hiding stops attacks only."""
    where = layout((1, 2), TerrainObject(1, interact=True), TerrainObject(2, hide=True))
    fight = skirmish(pj(talento=5), pnj(), where, [1, 1])  # the PNJ (7.5) acts first
    fight.act(A.HIDE, 1, 6)
    fight.act(A.PASS)
    fight.act(A.INTERACT_AREA, 1)  # Talento 5 with Disadvantage: 1d6 1 succeeds
    assert fight.state.fighters[1].hidden and fight.state.fighters[1].body.pg == 4


def test_the_seeds_own_duel_has_its_own_id() -> None:
    env = gym.make("duelo/EsgrimaDuelFaithful-v2")
    _, info = env.reset(seed=1)
    assert env.unwrapped.ruleset.options.duel_variant == "faithful" and info["seat"] == 0
    env = gym.make("duelo/EsgrimaDuelFaithful-v2", options={"duel_end": "first_blood"})
    assert env.unwrapped.ruleset.options.duel_variant == "faithful"
