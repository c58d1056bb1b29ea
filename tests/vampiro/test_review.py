"""The rules review's findings in Vampiro (issue 29, items 1-5), each replayed with
scripted dice through the engine: a full tie is simultaneous, a bloodless Incapacitated
vampire falls into torpor, two delayers act fastest first, Willpower rescues no empty
pool, and a Celerity Close at touch range is lost."""

from __future__ import annotations

from duelo.envs.vampiro.setup import Damage
from duelo.envs.vampiro.state import Phase
from tests.vampiro.test_turn import A, duel, fighter


def test_a_full_tie_rolls_both_blows_before_either_lands() -> None:
    """§4, §10 #11: both thugs (Dex 2 + Wits 2 + 5) strike at once. The first blow marks
    six levels (penalty -5), yet the second thug rolls its full 4 dice: both roll as
    they stood. Before, its pool was -1 and the tie went to seat 0."""
    first = fighter("thug", name="First thug")
    second = fighter("thug", name="Second thug")
    fight = duel(first, second, 1, [5, 5])
    assert fight.state.tied
    fight.act(A.STRIKE)
    fight.act(A.K0)
    fight.act(A.STRIKE)
    # each: 4 dice, 4 net; 3 + 3 = 6 damage dice, 6; Stamina 2 soaks none: 6 bashing;
    # then the next turn's initiative
    blow = [10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 2, 2]
    fight.act(A.K0, *blow, *blow, 5, 5)
    log = fight.log()
    assert "Second thug rolls [10, 10, 10, 10] at 6: 4 net" in log
    assert [len(f.health) for f in fight.state.fighters] == [6, 6]


def test_a_bloodless_vampire_brought_to_incapacitated_falls_into_torpor() -> None:
    """§7: the Brujah, six lethal levels marked and no blood, takes a seventh."""
    fight = duel(fighter("hunter"), fighter("brujah"), 5, [10, 1])
    brujah = fight.state.fighters[1]
    brujah.health, brujah.blood = [Damage.LETHAL] * 6, 0
    fight.act(A.CLOSE)  # the Brujah declares first
    fight.act(A.K0)
    fight.act(A.SHOOT)
    fight.act(A.K0)
    # the shot: 5 dice, 1 net; 5 damage dice, 1; Stamina 3 + Fortitude 1 soak none
    fight.act(A.NO_ABORT, 8, 2, 2, 2, 2, 8, 2, 2, 2, 2, 2, 2, 2, 2)
    assert brujah.status.value == "torpor" and fight.state.result.winner == 0
    assert "Brujah brawler is torpor" in fight.state.result.reason


def test_two_delayed_fighters_released_together_go_fastest_first() -> None:
    """§4 (seed: "el de mayor iniciativa en ese turno lo hará primero"): seat 1 is
    faster (3 + 2 + 10 + 1 against 2 + 2 + 1), so seat 1 acts first; before, seat 0."""
    fight = duel(fighter("thug"), fighter("brujah"), 1, [1, 10])
    fight.act(A.DELAY)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.DELAY)
    fight.act(A.K0)
    assert fight.state.phase == Phase.DELAYED and fight.seat == 1


def test_willpower_does_not_rescue_an_empty_pool() -> None:
    """§10 #13: a thug with six levels (penalty -5) has 2 + 2 - 5 = -1 dice to strike:
    the strike cannot be attempted, and its Willpower success waits for a roll. Before,
    it rolled "[] + Willpower: 1 net"."""
    fight = duel(fighter("thug"), fighter("brujah"), 1, [10, 1])
    fight.state.fighters[0].health = [Damage.BASHING] * 6
    fight.act(A.DODGE)  # the Brujah declares first
    fight.act(A.K0)
    fight.act(A.STRIKE)
    fight.act(A.K0_WP, 5, 5)  # nothing rolled; the next turn's initiative
    log = fight.log()
    assert "Street thug has no dice left to strike" in log and "+ Willpower" not in log
    assert fight.state.fighters[0].willpower_success is False  # a new turn: spent or not


def test_a_celerity_close_at_touch_range_is_lost() -> None:
    """§10 #25: the Brujah runs from 5 m to 1 m; its Celerity Close then finds the thug
    within reach and is lost (before: "runs: 1.0 m -> 1.0 m", which reset its aim)."""
    fight = duel(fighter("brujah"), fighter("thug"), 5, [10, 1])
    fight.act(A.DODGE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.CLOSE)
    fight.act(A.K1, 5, 5)  # no dice this turn; the next turn's initiative
    log = fight.log()
    assert "runs: 5 m -> 1.0 m" in log and "1.0 m -> 1.0 m" not in log
    assert "Brujah brawler can no longer close" in log


# --- §11's worked examples, replayed through the engine (issue 29, item 7) ---------------


def test_v1_to_v3_a_sword_cut_on_an_unarmoured_mortal() -> None:
    """V1: Dex 3 + Melee 2 = 5 dice [7, 1, 10, 3, 6]: 2 net, 1 extra. V2: Str 3 + 2 + 1 =
    6 dice [2, 9, 6, 1, 8, 5]: 2. V3: no armour, nothing soaks lethal: 2 levels, Hurt
    (-1): the thug strikes back with 2 + 2 - 1 = 3 dice."""
    swordsman = fighter("ventrue", fuerza=3, armas_cc=2, specialties=())
    fight = duel(swordsman, fighter("thug"), 1, [10, 1])
    fight.act(A.STRIKE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.WEAPON_STRIKE)
    fight.act(A.K0)
    fight.act(A.NO_ABORT, 7, 1, 10, 3, 6, 2, 9, 6, 1, 8, 5, 2, 2, 2, 5, 5)
    log = fight.log()
    assert "Ventrue swordsman rolls [7, 1, 10, 3, 6] at 6: 2 net" in log
    assert "Damage [2, 9, 6, 1, 8, 5] = 2 lethal" in log
    assert "Street thug rolls [2, 2, 2] at 6: 0 net" in log
    assert fight.state.fighters[1].health == [Damage.LETHAL] * 2


def test_v4_a_vampire_soaks_lethal_with_stamina_and_fortitude() -> None:
    """V4: a bullet's 2 damage successes; the Brujah soaks with Stamina 3 + Fortitude 1 =
    4 dice [6, 2, 9, 1]: 1: one lethal level."""
    fight = duel(fighter("hunter"), fighter("brujah"), 5, [10, 1])
    fight.act(A.CLOSE)  # the Brujah declares first
    fight.act(A.K0)
    fight.act(A.SHOOT)
    fight.act(A.K0)
    # the shot: 5 dice, 2 net; 5 + 1 damage dice, 2; the soak; the Brujah runs in; a turn
    fight.act(A.NO_ABORT, 8, 8, 2, 2, 2, 8, 8, 2, 2, 2, 2, 6, 2, 9, 1, 5, 5)
    assert "Brujah brawler soaks [6, 2, 9, 1] = 1: 1 level(s)" in fight.log()
    assert fight.state.fighters[1].health == [Damage.LETHAL]


def test_v5_a_vampire_halves_bashing_after_soak() -> None:
    """V5: a punch of Str 4 + 2 extra = 6 dice [6, 7, 8, 9, 10, 2]: 5; Stamina 3 soaks
    [6, 7, 2] = 2; 3 left, halved down: 1 bashing level."""
    fight = duel(fighter("thug", fuerza=4), fighter("brujah", fortaleza=0), 1, [10, 1])
    fight.act(A.DODGE)  # the Brujah declares first
    fight.act(A.K0)
    fight.act(A.STRIKE)
    # the strike: 4 dice, 3 net; the Brujah's Dodge (3 + 2 = 5 dice) takes none; damage,
    # soak; the next turn's initiative
    fight.act(A.K0, 8, 8, 8, 2, 2, 2, 2, 2, 2, 6, 7, 8, 9, 10, 2, 6, 7, 2, 5, 5)
    log = fight.log()
    assert "Damage [6, 7, 8, 9, 10, 2] = 5 bashing; Brujah brawler soaks [6, 7, 2] = 2" in log
    assert fight.state.fighters[1].health == [Damage.BASHING]


def test_v8_and_v12_attack_and_dodge_pools_and_the_dodge_subtraction() -> None:
    """V8: Strike (pool 7) and Dodge (pool 6), N = 2: 5 dice, then 3. V12: the thug's
    strike nets 3, the Dodge 2: 1 left, a hit with no extra success (3 damage dice)."""
    dancer = fighter("brujah", pelea=4, esquivar=3)  # Dex 3 + Brawl 4, Dex 3 + Dodge 3
    fight = duel(dancer, fighter("thug"), 1, [10, 1])
    fight.act(A.STRIKE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.ATTACK_DODGE)
    fight.act(A.K0)
    # the Brujah's strike misses; the thug's nets 3, the Dodge 2; 3 damage dice; Stamina 3
    # + Fortitude 1 soak; the next turn's initiative
    fight.act(A.NO_ABORT, 2, 2, 2, 2, 2, 8, 8, 8, 2, 8, 8, 2, 8, 2, 2, 2, 2, 2, 2, 5, 5)
    log = fight.log()
    assert "Brujah brawler rolls [2, 2, 2, 2, 2] at 6: 0 net" in log  # 7 - 2 dice
    assert "Street thug rolls [8, 8, 8, 2] at 6: 3 net" in log
    assert "Brujah brawler rolls [8, 8, 2] at 6: 2 net" in log  # 6 - 3 dice
    assert "Damage [8, 2, 2] = 1 bashing" in log  # Str 3 + 0 extra


def test_v6_a_failure_is_not_a_botch_and_v7_a_specialty_counts_tens_twice() -> None:
    """V7: the swordsman's Melee specialty, Dex 1 + Melee 3 = 4 dice [10, 10, 1, 6]:
    2 + 2 + 1 - 1 = 4 net (3 extra: 2 + 2 + 3 = 7 damage dice). V6: the thug's
    [6, 1, 1, 2] rolls a success, which the 1s cancel: a miss, not a botch."""
    swordsman = fighter("ventrue", destreza=1)
    fight = duel(swordsman, fighter("thug"), 1, [10, 1])
    fight.act(A.STRIKE)  # the thug declares first
    fight.act(A.K0)
    fight.act(A.WEAPON_STRIKE)
    fight.act(A.K0)
    fight.act(A.NO_ABORT, 10, 10, 1, 6, *[2] * 7, 6, 1, 1, 2, 5, 5)
    log = fight.log()
    assert "Ventrue swordsman rolls [10, 10, 1, 6] at 6: 4 net" in log
    assert "Damage [2, 2, 2, 2, 2, 2, 2] = 0 lethal" in log
    assert "Street thug rolls [6, 1, 1, 2] at 6: 0 net" in log  # cancelled: a failure
    assert "Street thug misses" in log and "botch" not in log


def test_a_blow_walks_in_first_under_walk_with_action() -> None:
    """§6, §10 #15 (issue 29, item 6): the thug's knife at 5 m. Under §12's mask, the
    default, it cannot strike from there; with `walk_with_action` it walks the 3 m to
    its 2 m reach and strikes: Dex 2 + Melee 2 = 4 dice."""
    for walk in (False, True):
        fight = duel(fighter("thug"), fighter("brujah"), 5, [10, 1], walk_with_action=walk)
        fight.act(A.DODGE)  # the Brujah declares first
        fight.act(A.K0)
        assert fight.seat == 0 and fight.mask()[A.WEAPON_STRIKE] == walk
    fight.act(A.WEAPON_STRIKE)
    fight.act(A.K0, 2, 2, 2, 2, 5, 5)  # a miss; the next turn's initiative
    log = fight.log()
    assert "Street thug walks in: 5 m -> 2.0 m" in log
    assert "Street thug rolls [2, 2, 2, 2] at 6: 0 net" in log and fight.state.range == 2.0


def test_no_walk_beyond_seven_metres() -> None:
    fight = duel(fighter("thug"), fighter("brujah"), 10, [10, 1], walk_with_action=True)
    fight.act(A.DODGE)
    fight.act(A.K0)
    assert not fight.mask()[A.WEAPON_STRIKE]  # 10 m: past 2 + 7
