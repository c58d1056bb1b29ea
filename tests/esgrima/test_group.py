"""rules/esgrima.md §13: fights of several a side, each worked example replayed with
scripted dice, every rule and option tested, and the exact odds asserted exactly."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from duelo.envs.core.config import ConfigError
from duelo.envs.core.dice import chance_outcomes
from duelo.envs.core.testing import ScriptedDuel
from duelo.envs.esgrima.group import EsgrimaGroupRuleset
from duelo.envs.esgrima.group_odds import attack_odds, before_pnj, blows_left, harm
from duelo.envs.esgrima.group_setup import AmmoEvent, GroupScenario, Post
from duelo.envs.esgrima.group_state import ACTION_IDS as ID
from duelo.envs.esgrima.group_state import Ammo, GroupState, Standing
from duelo.envs.esgrima.setup import Armour, Character, Role, TerrainObject

PJ1 = Character(id="pj1", name="PJ1", role=Role.PJ, weapons=("sabre", "pistol"), talento=3)
PJ2 = Character(id="pj2", name="PJ2", role=Role.PJ, weapons=("sabre",))
PJ3 = Character(id="pj3", name="PJ3", role=Role.PJ, weapons=("knife",))
GUNNER = Character(id="gunner", name="PJ3", role=Role.PJ, weapons=("pistol",), punteria=4)
PNJ1 = Character(id="pnj1", name="PNJ1", weapons=("sabre",), armour=Armour.LIGHT)
PNJ2 = Character(id="pnj2", name="PNJ2", weapons=("sabre",), pg_max=1)
PNJ3 = Character(id="pnj3", name="PNJ3", weapons=("pistol",))
PNJ4 = Character(id="pnj4", name="PNJ4", weapons=("pistol",), pg_max=2)


def scenario(
    side_a: list[int],
    side_b: list[int],
    zones: int = 5,
    objects: tuple[TerrainObject, ...] = (),
    ammo_event: AmmoEvent | None = None,
) -> GroupScenario:
    """A test fight: each side's fighters by zone (the characters come with the duel)."""
    return GroupScenario(
        id="test",
        description="a test fight",
        zones=zones,
        side_a=tuple(Post("duelist", z) for z in side_a),
        side_b=tuple(Post("pirate", z) for z in side_b),
        objects=objects,
        ammo_event=ammo_event,
    )


def scripted(
    fight: GroupScenario, fighters: tuple[Character, ...], opening: list[int], **options: Any
) -> ScriptedDuel:
    return ScriptedDuel(EsgrimaGroupRuleset(fight, fighters, options or None), opening)


def state_of(duel: ScriptedDuel) -> GroupState:
    assert isinstance(duel.state, GroupState)
    return duel.state


def passes(duel: ScriptedDuel, turns: int) -> None:
    for _ in range(2 * turns):
        duel.act(ID["PASS"])


# --- S13-1: initiative of five, a PJ tie settled once, a delay, a hand-over ----------

S13_1 = scenario([0, 1, 0], [2, 2])
FIVE = (PJ1, PJ2, PJ3, PNJ1, PNJ2)


def test_s13_1_initiative_of_five_with_a_pj_tie_rolled_off() -> None:
    """PJ1 [4, 4] = 8, PJ2 [6, 2] = 8, PJ3 [1, 3] = 4, the PNJs 7.5; the tie: PJ1 [2],
    PJ2 [5]. Order: PJ2, PJ1, PNJ1, PNJ2, PJ3."""
    duel = scripted(S13_1, FIVE, [4, 4, 6, 2, 1, 3, 2, 5])
    state = state_of(duel)
    assert state.order == [1, 0, 3, 4, 2]
    assert duel.seat == 1
    assert "roll-off PJ1 2, PJ2 5" in duel.log()
    assert duel.field(1, "place", "self") == 1
    assert duel.field(1, "place", "enemy1") == 4


def test_s13_1_a_delay_after_a_pnj_a_hand_over_and_the_next_round() -> None:
    """PJ2 delays after PNJ2 (7.49): PJ1, PNJ1, PNJ2, PJ2, PJ3. PJ1 hands its spare
    pistol to PJ3 (stowed), moves toward PNJ1; PJ3 draws and shoots. Round 2: PJ1, PNJ1,
    PNJ2, PJ2, PJ3, with no roll-off (the tie is gone)."""
    duel = scripted(S13_1, FIVE, [4, 4, 6, 2, 1, 3, 2, 5])
    state = state_of(duel)
    duel.act(ID["DELAY_AFTER_E1"])
    assert state.fighters[1].initiative == pytest.approx(7.49)
    assert state.order == [0, 3, 4, 1, 2]
    assert duel.seat == 0
    duel.act(ID["HAND_WEAPON_A2"])
    assert [h.weapon.id for h in state.fighters[2].weapons] == ["knife", "pistol"]
    assert state.fighters[2].in_hand == 0  # stowed (§13.4 G4)
    assert [h.weapon.id for h in state.fighters[0].weapons] == ["sabre"]
    duel.act(ID["MOVE_TOWARD_E0"])
    assert state.fighters[0].zone == 1
    passes(duel, 3)  # PNJ1, PNJ2, then PJ2 at its new slot
    assert duel.seat == 2
    assert not duel.mask()[ID["DELAY_AFTER_E0"]]  # PJ3 is last: no later slot
    duel.act(ID["DRAW_WEAPON"])
    duel.act(ID["SHOT_E0"], 5, 6)  # Far: the pistol's 2d6 vs Puntería 3 -> miss
    assert state.round == 2
    assert state.order == [0, 3, 4, 1, 2]


def test_delay_before_needs_a_slot_two_on() -> None:
    """§13.3: the new slot must be later than the current one: before the very next
    fighter is no delay at all; before a later one, +0.01 on its score (7.51 before
    PNJ2 is before PNJ1 too, both at 7.5)."""
    duel = scripted(S13_1, FIVE, [4, 4, 6, 2, 1, 3, 2, 5])
    state = state_of(duel)
    assert not duel.mask()[ID["DELAY_BEFORE_A1"]]  # PJ1 is next
    duel.act(ID["DELAY_BEFORE_E1"])
    assert state.fighters[1].initiative == pytest.approx(7.51)
    assert state.order == [0, 1, 3, 4, 2]


def test_a_delay_moves_on_while_the_score_is_taken() -> None:
    """§13.3: "moving a further 0.01 in the same direction while the score is taken"."""
    duel = scripted(S13_1, FIVE, [4, 4, 6, 2, 1, 3, 2, 5])
    state = state_of(duel)
    duel.act(ID["DELAY_AFTER_E1"])  # PJ2 at 7.49
    duel.act(ID["DELAY_AFTER_E1"])  # PJ1 after PNJ2 too: 7.49 taken -> 7.48
    assert state.fighters[0].initiative == pytest.approx(7.48)
    assert state.order == [3, 4, 1, 0, 2]


def test_a_pnj_may_not_delay_unless_the_gm_allows_it() -> None:
    fight = scenario([0], [2, 2])
    duel = scripted(fight, (PJ3, PNJ1, PNJ2), [1, 1])
    assert duel.seat == 1
    assert not duel.mask()[ID["DELAY_AFTER_E0"]]
    duel = scripted(fight, (PJ3, PNJ1, PNJ2), [1, 1], delay="all")
    assert duel.mask()[ID["DELAY_AFTER_E0"]]


def test_a_tie_is_kept_for_the_next_rounds_without_new_dice() -> None:
    duel = scripted(scenario([0, 0], [4]), (PJ1, PJ2, PNJ1), [4, 4, 6, 2, 2, 5])
    passes(duel, 3)  # round 2 opens with no die scripted
    assert state_of(duel).order == [1, 0, 2]


def test_three_tied_pjs_roll_again_among_those_still_tied() -> None:
    """§13.2: 1d6 each, in id order, highest first; the two still tied roll again."""
    fight = scenario([0, 0, 0], [4])
    duel = scripted(fight, (PJ1, PJ2, PJ3, PNJ1), [4, 4, 6, 2, 5, 3, 3, 3, 6, 2, 4])
    assert state_of(duel).order == [2, 1, 0, 3]


def test_agreeing_settles_a_tie_by_the_lower_seat_with_no_die() -> None:
    duel = scripted(scenario([0, 0], [4]), (PJ1, PJ2, PNJ1), [4, 4, 6, 2], pj_tie="agree")
    assert state_of(duel).order == [0, 1, 2]


def test_pnjs_alone_roll_as_in_self_play() -> None:
    """§13.2, §10 #8: a fight of PNJs only (self-play) rolls 2d6 for everyone."""
    duel = scripted(scenario([0], [4]), (PNJ1, PNJ2), [1, 2, 6, 6])
    assert state_of(duel).order == [1, 0]


# --- S13-2: area damage hits friend and foe -------------------------------------------

RIGGING = (TerrainObject(1, interact=True),)


def test_s13_2_area_damage_hits_every_fighter_in_the_zone() -> None:
    """PJ1 (Talento 3, zone 1) brings the rigging down on zone 2: 1d6 [3] -> success.
    PNJ1 (light armour) armour 2, PG 5; PNJ2 PG 0, out; PJ2 PG 4; PJ1 untouched."""
    fight = scenario([1, 2], [2, 2], objects=RIGGING)
    duel = scripted(fight, (PJ1, PJ2, PNJ1, PNJ2), [6, 6, 1, 1])
    state = state_of(duel)
    duel.act(ID["INTERACT_AREA_P1"], 3)
    assert (state.fighters[2].body.armour_pts, state.fighters[2].body.pg) == (2, 5)
    assert state.standing[3] == Standing.DOWN
    assert state.fighters[1].body.pg == 4
    assert state.fighters[0].body.pg == 5
    assert state.spent == [True]
    assert not duel.mask()[ID["INTERACT_AREA_P0"]]  # spent either way


def test_area_damage_taking_the_last_of_both_sides_is_a_draw() -> None:
    """§13.8 ASSUMPTION: no simultaneous resolution but area damage: a draw, 0 for all."""
    weak = Character(id="weak", name="Weak", role=Role.PJ, weapons=("sabre",), pg_max=1)
    duel = scripted(scenario([1], [1], objects=RIGGING), (weak, PNJ2), [6, 6])
    duel.act(ID["INTERACT_AREA_P0"], 1)
    result = state_of(duel).result
    assert result is not None and result.winner is None
    assert result.reason == "both sides are out"


def test_area_damage_is_r_over_6_for_everyone_together() -> None:
    """§13.5: P(success) = r/6, all fighters in the zone hit together or not at all: by
    every outcome of the engine's own die."""
    fight = scenario([1, 2], [2, 2], objects=RIGGING)
    ruleset = EsgrimaGroupRuleset(fight, (PJ1, PJ2, PNJ1, PNJ2))
    opening = scripted(fight, (PJ1, PJ2, PNJ1, PNJ2), [6, 6, 1, 1]).state

    def area(dice: Any) -> tuple[int, ...]:
        state = opening.clone()
        ruleset.apply(state, 0, ID["INTERACT_AREA_P1"], dice)
        return tuple(f.body.pg + f.body.armour_pts for f in state.fighters[1:])

    outcomes: dict[tuple[int, ...], Fraction] = {}
    for p, hurt in chance_outcomes(area):
        outcomes[hurt] = outcomes.get(hurt, Fraction(0)) + p
    assert outcomes == {(4, 7, 0): Fraction(3, 6), (5, 8, 1): Fraction(3, 6)}


# --- S13-2: suppressive fire on entry and on acting -----------------------------------

COVER = (TerrainObject(3, cover=True),)


def suppressed(**options: Any) -> ScriptedDuel:
    """PJ3 (Puntería 4, pistol, zone 1) suppresses zone 3, where PNJ4 stands; PNJ3 is in
    zone 4. PJ3 rolls 12; PNJ3 and PNJ4 keep 7.5, in id order."""
    fight = scenario([1], [4, 3], objects=COVER)
    duel = scripted(fight, (GUNNER, PNJ3, PNJ4), [6, 6], **options)
    duel.act(ID["SUPPRESSIVE_FIRE_P2"])
    duel.act(ID["PASS"])
    return duel


def test_s13_2_suppressive_fire_on_entry_and_on_acting() -> None:
    """PNJ3 enters zone 3: 1d6 [5] miss; its Shot draws no second one. PNJ4 (began its
    turn in zone 3) takes cover: no Shot; then shoots: the suppressive Shot first, still
    1d6 (cover's Disadvantage does not stack) [2] hit, PNJ4 at 1 PG; then its Shot."""
    duel = suppressed()
    state = state_of(duel)
    assert state.fighters[0].suppressing == 3
    duel.act(ID["MOVE_TOWARD_E0"], 5)
    duel.act(ID["SHOT_E0"], 6, 6)
    duel.act(ID["TAKE_COVER"])
    duel.act(ID["SHOT_E0"], 2, 6, 6)
    assert state.fighters[2].body.pg == 1
    log = duel.log()
    assert log.index("PJ3 shoots with the pistol at PNJ4: 1d6 [2]") < log.index(
        "PNJ4 shoots with the pistol at PJ3"
    )


def test_suppress_timing_after_shoots_once_the_action_is_done() -> None:
    duel = suppressed(suppress_timing="after")
    duel.act(ID["PASS"])
    duel.act(ID["PASS"])
    duel.act(ID["SHOT_E0"], 6, 6, 2)  # PNJ4's Shot, then the suppressive one
    log = duel.log()
    assert log.index("PNJ4 shoots with the pistol at PJ3") < log.index("PJ3 shoots")


def test_a_fighter_downed_by_a_suppressive_shot_loses_its_action() -> None:
    """§13.6: the Shot comes before the Action; downed, PNJ4 rolls nothing of its own
    and the round goes on to PJ3."""
    duel = suppressed()
    state = state_of(duel)
    state.fighters[2].body.pg = 1
    duel.act(ID["PASS"])
    duel.act(ID["PASS"])
    duel.act(ID["SHOT_E0"], 1)
    assert state.standing[2] == Standing.DOWN
    assert (state.round, duel.seat) == (2, 0)


def test_suppressive_fire_never_shoots_an_ally() -> None:
    fight = scenario([1, 4], [3], objects=COVER)
    duel = scripted(fight, (GUNNER, PJ2, PNJ3), [6, 6, 5, 5])
    duel.act(ID["SUPPRESSIVE_FIRE_P2"])
    duel.act(ID["PASS"])
    duel.act(ID["MOVE_TOWARD_E0"])  # PJ2 into zone 3: no die
    assert state_of(duel).fighters[1].zone == 3


# --- §13.4, §13.7: hand-overs and the group's ammunition ------------------------------


def test_handover_in_hand_gives_a_ready_weapon() -> None:
    duel = scripted(scenario([0, 0], [4]), (PJ1, PJ3, PNJ1), [6, 6, 1, 1], handover_in_hand=True)
    duel.act(ID["HAND_WEAPON_A1"])
    fighter = state_of(duel).fighters[1]
    assert fighter.held is not None and fighter.held.weapon.id == "pistol"


def test_a_hand_over_needs_the_same_zone() -> None:
    duel = scripted(scenario([0, 1], [4]), (PJ1, PJ3, PNJ1), [6, 6, 1, 1])
    assert not duel.mask()[ID["HAND_WEAPON_A1"]]


def test_ammo_event_and_sharing() -> None:
    """§13.7: the GM's check at round 2 empties S; PJ1 shares; both shared."""
    event = AmmoEvent(round=2, fighter=1)
    fight = scenario([0, 0], [2], ammo_event=event)
    shooter = Character(id="s", name="S", role=Role.PJ, weapons=("pistol",))
    duel = scripted(fight, (PJ1, shooter, PNJ2), [6, 6, 5, 5])
    state = state_of(duel)
    duel.act(ID["DRAW_WEAPON"])
    duel.act(ID["PASS"])
    duel.act(ID["PASS"])
    duel.act(ID["PASS"])
    duel.act(ID["PASS"])
    duel.act(ID["PASS"], 5, 6)  # PNJ2's last Action; round 2 opens with the GM's check
    assert state.round == 2
    assert state.ammo[1] == Ammo.EMPTY
    assert state.karma == [1, 0]
    assert duel.field(0, "karma", "own") == 1
    assert duel.seat == 0
    duel.act(ID["HAND_AMMO_A1"])
    assert state.ammo[:2] == [Ammo.SHARED, Ammo.SHARED]
    duel.act(ID["PASS"])
    assert duel.seat == 1 and duel.mask()[ID["SHOT_E0"]]


def test_an_empty_pj_cannot_shoot() -> None:
    event = AmmoEvent(round=2, fighter=1)
    fight = scenario([0, 0], [2], ammo_event=event)
    shooter = Character(id="s", name="S", role=Role.PJ, weapons=("pistol",))
    duel = scripted(fight, (PJ1, shooter, PNJ2), [6, 6, 5, 5])
    passes(duel, 2)
    duel.act(ID["PASS"])
    duel.act(ID["PASS"], 6, 6)
    passes(duel, 1)
    assert duel.seat == 1
    assert not duel.mask()[ID["SHOT_E0"]]
    assert not duel.mask()[ID["SUPPRESSIVE_FIRE_P2"]]


def test_after_the_fight_each_pj_who_shot_checks_looting_with_advantage() -> None:
    """§13.7: the winners looted a pistol: 3d6 against Suerte 3."""
    shooter = Character(id="s", name="S", role=Role.PJ, weapons=("pistol",))
    duel = scripted(scenario([0], [2]), (shooter, PNJ3), [6, 6])
    state = state_of(duel)
    state.fighters[1].body.pg = 1
    duel.act(ID["SHOT_E0"], 1, 6, 6, 6, 4)  # the hit, then the check: [6, 6, 4] -> none
    assert state.result is not None and state.result.winner == 0
    assert state.ammo_checks == ["S: has used it all up"]
    assert state.ammo[0] == Ammo.EMPTY


def test_an_ammo_event_must_name_a_pj() -> None:
    fight = scenario([0], [2], ammo_event=AmmoEvent(round=2, fighter=1))
    with pytest.raises(ConfigError, match="ammo_event.fighter 1 is not a PJ"):
        EsgrimaGroupRuleset(fight, (PJ1, PNJ1))


# --- §13.1 bands, moves and obstacles --------------------------------------------------


def test_flight_only_while_far_from_every_enemy() -> None:
    duel = scripted(scenario([0], [2, 1]), (PJ3, PNJ1, PNJ2), [6, 6])
    assert not duel.mask()[ID["MOVE_AWAY_E0"]]  # PNJ2 is Near
    duel = scripted(scenario([0], [2, 3]), (PJ3, PNJ1, PNJ2), [6, 6])
    duel.act(ID["MOVE_AWAY_E0"])
    state = state_of(duel)
    assert state.standing[0] == Standing.FLED
    assert state.result is not None and state.result.winner == 1


def test_bodies_block_a_relocation_through_an_enemy_held_zone() -> None:
    fight = scenario([1], [2])
    assert scripted(fight, (PJ3, PNJ1), [6, 6]).mask()[ID["RELOCATE_NEAR_E0"]]
    blocked = scripted(fight, (PJ3, PNJ1), [6, 6], bodies_block=True)
    assert not blocked.mask()[ID["RELOCATE_NEAR_E0"]]


def test_each_pair_has_its_own_band() -> None:
    duel = scripted(scenario([0, 2], [1, 4]), (PJ1, PJ2, PNJ1, PNJ2), [6, 6, 1, 1])
    assert duel.field(0, "band", "enemy0.near") == 1
    assert duel.field(0, "band", "enemy1.far") == 1
    assert duel.field(0, "offset", "ally1") == 2
    assert duel.field(1, "range", "enemy0") == 1


# --- exact odds -------------------------------------------------------------------------


def test_a_pj_acts_before_the_pnjs_with_chance_15_in_36() -> None:
    """§13.2: 2d6 >= 8 puts a PJ ahead of the PNJs' 7.5: 15/36, by the formula and by
    every outcome of the engine's own initiative rolls."""
    ruleset = EsgrimaGroupRuleset(scenario([0], [4, 4]), (PJ3, PNJ1, PNJ2))
    engine = sum(
        (p for p, order in chance_outcomes(lambda d: ruleset.new_duel(d).order) if order[0] == 0),
        start=Fraction(0),
    )
    assert engine == before_pnj(1) == Fraction(15, 36)


def test_a_suppressive_shot_at_a_covered_target_is_rating_over_6() -> None:
    assert attack_odds(4, -2) == Fraction(4, 6)  # Disadvantage does not stack (§3)
    assert attack_odds(3, 0, evade_reflejos=2) == Fraction(3, 4) * Fraction(4, 6)


def test_the_expert_weighs_armour_as_blows_left() -> None:
    """§7: light armour (3 points) on 5 PG takes 8 blows of 1 PG; heavy armour turns a
    2-PG blow into 1 that the armour takes."""
    assert blows_left((5, 1, 3)) == 8
    assert harm((5, 2, 5), 2) == (Fraction(1, 10), 0)
    assert harm((1, 0, 0), 1) == (Fraction(1), 1)
