"""`duelo/EsgrimaSkirmish-v0`: the Gymnasium face of Esgrima's fights of several a side."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.esgrima.group import EsgrimaGroupRuleset
from duelo.envs.esgrima.group_setup import GroupOptions, GroupScenario
from duelo.envs.esgrima.setup import Character


class EsgrimaSkirmishEnv(DuelEnv):
    """Esgrima skirmishes of several fighters a side on a zone line (digest §13).

    ## Description

    Side A (one to three fighters, the PJs in the default scenarios) against side B
    (one to three, PNJs) on a line of zones with terrain objects. The band between
    each pair of fighters comes from their zone difference: 0 Adjacent, 1 Near, 2+
    Far. Each PJ rolls 2d6 for initiative once, each PNJ keeps 7.5, and everyone acts
    in one order, highest first, each turn two Actions. The learner is one fighter
    (`learner_seat`, or drawn each episode); `opponent` plays every enemy and `ally`
    (default: `opponent`) every other fighter of its side, inside `step`. Out-of-turn
    events resolve themselves: an Evasion save, a suppressive Shot.

    ## Action Space

    `Discrete(77)`; `action_masks()` and `info["action_mask"]` give the legal ones.
    Slots: A1-A2 the allies (rows `ally1`-`ally2`), E0-E2 the enemies (rows
    `enemy0`-`enemy2`); M<n> and P<n> are zone offsets from the actor's zone, down
    and up the line. A delay is no Action: the turn's two Actions follow it, at the
    new slot.

    | id | action | meaning |
    |---|---|---|
    | 0 | MOVE_TOWARD_A1 | move one zone toward ally 1 |
    | 1 | MOVE_TOWARD_A2 | move one zone toward ally 2 |
    | 2 | MOVE_TOWARD_E0 | move one zone toward enemy 0 |
    | 3 | MOVE_TOWARD_E1 | move one zone toward enemy 1 |
    | 4 | MOVE_TOWARD_E2 | move one zone toward enemy 2 |
    | 5 | MOVE_AWAY_A1 | move one zone away from ally 1 (off the map while Far: flight) |
    | 6 | MOVE_AWAY_A2 | move one zone away from ally 2 (off the map while Far: flight) |
    | 7 | MOVE_AWAY_E0 | move one zone away from enemy 0 (off the map while Far: flight) |
    | 8 | MOVE_AWAY_E1 | move one zone away from enemy 1 (off the map while Far: flight) |
    | 9 | MOVE_AWAY_E2 | move one zone away from enemy 2 (off the map while Far: flight) |
    | 10 | RELOCATE_NEAR_A1 | relocate to the zone on the other side of ally 1, Near |
    | 11 | RELOCATE_NEAR_A2 | relocate to the zone on the other side of ally 2, Near |
    | 12 | RELOCATE_NEAR_E0 | relocate to the zone on the other side of enemy 0, Near |
    | 13 | RELOCATE_NEAR_E1 | relocate to the zone on the other side of enemy 1, Near |
    | 14 | RELOCATE_NEAR_E2 | relocate to the zone on the other side of enemy 2, Near |
    | 15 | MELEE_ATTACK_E0 | attack enemy 0 in melee |
    | 16 | MELEE_ATTACK_E1 | attack enemy 1 in melee |
    | 17 | MELEE_ATTACK_E2 | attack enemy 2 in melee |
    | 18 | SHOT_E0 | shoot at enemy 0 |
    | 19 | SHOT_E1 | shoot at enemy 1 |
    | 20 | SHOT_E2 | shoot at enemy 2 |
    | 21 | THROW_WEAPON_E0 | throw your light melee weapon at enemy 0 |
    | 22 | THROW_WEAPON_E1 | throw your light melee weapon at enemy 1 |
    | 23 | THROW_WEAPON_E2 | throw your light melee weapon at enemy 2 |
    | 24 | EVADE | evade |
    | 25 | DRAW_WEAPON | draw or swap weapon |
    | 26 | RELOAD | reload |
    | 27 | FOCALIZAR | Focalizar: take Foco (Advantage on your next Action) |
    | 28 | LOCATE_E0 | locate enemy 0, hidden |
    | 29 | LOCATE_E1 | locate enemy 1, hidden |
    | 30 | LOCATE_E2 | locate enemy 2, hidden |
    | 31 | SUPPRESSIVE_FIRE_M8 | suppressive fire on the zone 8 zones down |
    | 32 | SUPPRESSIVE_FIRE_M7 | suppressive fire on the zone 7 zones down |
    | 33 | SUPPRESSIVE_FIRE_M6 | suppressive fire on the zone 6 zones down |
    | 34 | SUPPRESSIVE_FIRE_M5 | suppressive fire on the zone 5 zones down |
    | 35 | SUPPRESSIVE_FIRE_M4 | suppressive fire on the zone 4 zones down |
    | 36 | SUPPRESSIVE_FIRE_M3 | suppressive fire on the zone 3 zones down |
    | 37 | SUPPRESSIVE_FIRE_M2 | suppressive fire on the zone 2 zones down |
    | 38 | SUPPRESSIVE_FIRE_M1 | suppressive fire on the zone 1 zone down |
    | 39 | SUPPRESSIVE_FIRE_P0 | suppressive fire on your own zone |
    | 40 | SUPPRESSIVE_FIRE_P1 | suppressive fire on the zone 1 zone up |
    | 41 | SUPPRESSIVE_FIRE_P2 | suppressive fire on the zone 2 zones up |
    | 42 | SUPPRESSIVE_FIRE_P3 | suppressive fire on the zone 3 zones up |
    | 43 | SUPPRESSIVE_FIRE_P4 | suppressive fire on the zone 4 zones up |
    | 44 | SUPPRESSIVE_FIRE_P5 | suppressive fire on the zone 5 zones up |
    | 45 | SUPPRESSIVE_FIRE_P6 | suppressive fire on the zone 6 zones up |
    | 46 | SUPPRESSIVE_FIRE_P7 | suppressive fire on the zone 7 zones up |
    | 47 | SUPPRESSIVE_FIRE_P8 | suppressive fire on the zone 8 zones up |
    | 48 | TAKE_COVER | take cover behind an object here |
    | 49 | HIDE | hide behind an object here |
    | 50 | INTERACT_EDGE_E0 | use an object here for an edge over enemy 0 |
    | 51 | INTERACT_EDGE_E1 | use an object here for an edge over enemy 1 |
    | 52 | INTERACT_EDGE_E2 | use an object here for an edge over enemy 2 |
    | 53 | INTERACT_AREA_M1 | use an object here to hurt the zone 1 zone down |
    | 54 | INTERACT_AREA_P0 | use an object here to hurt your own zone |
    | 55 | INTERACT_AREA_P1 | use an object here to hurt the zone 1 zone up |
    | 56 | INTERACT_BLOCK_M1 | use an object here to close the way to the zone 1 zone down |
    | 57 | INTERACT_BLOCK_P1 | use an object here to close the way to the zone 1 zone up |
    | 58 | CANCEL_EDGE_E0 | cancel the edge enemy 0 holds over you |
    | 59 | CANCEL_EDGE_E1 | cancel the edge enemy 1 holds over you |
    | 60 | CANCEL_EDGE_E2 | cancel the edge enemy 2 holds over you |
    | 61 | HAND_WEAPON_A1 | hand a weapon to ally 1 (your spare, else the one in hand) |
    | 62 | HAND_WEAPON_A2 | hand a weapon to ally 2 (your spare, else the one in hand) |
    | 63 | HAND_AMMO_A1 | share your ammunition with ally 1, who has none |
    | 64 | HAND_AMMO_A2 | share your ammunition with ally 2, who has none |
    | 65 | PASS | pass |
    | 66 | SURRENDER | surrender: you are out |
    | 67 | DELAY_AFTER_A1 | delay: act right after ally 1 (not an Action) |
    | 68 | DELAY_AFTER_A2 | delay: act right after ally 2 (not an Action) |
    | 69 | DELAY_AFTER_E0 | delay: act right after enemy 0 (not an Action) |
    | 70 | DELAY_AFTER_E1 | delay: act right after enemy 1 (not an Action) |
    | 71 | DELAY_AFTER_E2 | delay: act right after enemy 2 (not an Action) |
    | 72 | DELAY_BEFORE_A1 | delay: act right before ally 1 (not an Action) |
    | 73 | DELAY_BEFORE_A2 | delay: act right before ally 2 (not an Action) |
    | 74 | DELAY_BEFORE_E0 | delay: act right before enemy 0 (not an Action) |
    | 75 | DELAY_BEFORE_E1 | delay: act right before enemy 1 (not an Action) |
    | 76 | DELAY_BEFORE_E2 | delay: act right before enemy 2 (not an Action) |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`, the
    same values concatenated in this order). A key of 6 rows has one per fighter
    slot: self, ally1-ally2 (its side's others in slot order), enemy0-enemy2 (the
    other side's). An empty slot is zeros with `present` 0. Bounds are in
    `observation_space`; `duelo systems --verbose` prints every entry.

    | key | shape | meaning |
    |---|---|---|
    | `present` | 6 | 1 where a fighter holds the slot, by slot |
    | `status` | 6x4 | one-hot active, down, surrendered, fled, by slot |
    | `initiative` | 6 | initiative score (§13.2), by slot |
    | `place` | 6 | place in this round's order, 1 = first; 0 if none, by slot |
    | `current` | 6 | 1 for the fighter whose turn it is, by slot |
    | `hp` | 6 | PG left, by slot |
    | `hp_max` | 6 | maximum PG, by slot |
    | `zone` | 6 | zone on the line (a hidden fighter's too), by slot |
    | `offset` | 6 | zone less the observer's, by slot |
    | `range` | 6 | zones from the observer (0 Adjacent, 1 Near, 2+ Far), by slot |
    | `band` | 6x3 | one-hot band from the observer, by slot |
    | `armour` | 6x3 | light, heavy, points left, by slot |
    | `weapon` | 6x8 | the weapon in hand, as one on one's `weapon`, by slot |
    | `carried` | 6x4 | weapons carried by class, not lost (in hand too), by slot |
    | `flags` | 6x8 | Foco, evading, hidden, cover, used guns, delayed, shield, PJ, by slot |
    | `ammo` | 6x3 | one-hot ammunition: some, shared, none (§13.7), by slot |
    | `skills` | 6x10 | ratings 1-5, and the one melee uses, by slot |
    | `suppressing` | 6 | zone + 1 under its suppressive fire (0: none), by slot |
    | `edge_on` | 6 | row + 1 of the enemy it holds an edge over (0: none), by slot |
    | `zones` | 1 | zones on the line |
    | `objects` | 4x6 | per terrain object slot: present, zone, cover, hide, interact, spent |
    | `blocked` | 8 | closed zone boundaries (boundary b between zones b and b+1) |
    | `karma` | 2 | Karma pool of [own side, other side] (§13.7) |
    | `round` | 1 | current round |
    | `turn` | 2 | own turn; Actions left in it |

    ## Rewards

    +1 to every fighter of the side that wins (every fighter of the other down,
    surrendered or fled), -1 to every fighter of the other, whether still standing or
    not; 0 for a draw (area damage taking the last fighters of both sides) or at the
    round cap. Illegal actions as in `DuelEnv`. After the fight `info` holds each
    fighter's ammunition (`ammo`) and each side's Karma (`karma`), never a reward.

    ## Starting State

    By scenario (`configs/esgrima/skirmishes.yaml`): `two_on_two`, `three_on_three`
    (on seven zones), `outnumbered` (two PJs against three) and `ambush` (two PJs
    walk into a musketeer and a bosun in cover; the GM calls the marksman's
    ammunition check in round 3). Initiative is rolled before the first decision.

    ## Episode End

    Terminated when a side is out; truncated at the round cap (`round_cap`, 30).

    ## Arguments

    - `opponent`, `ally`: the policies of the enemies and of the learner's allies.
    - `scenario`: a skirmish id or a `GroupScenario`; `fighters`: a character id for
      every fighter, side A's first; `options`: `GroupOptions` fields (the
      skirmish's rulings and §13.9's: `pj_tie`, `handover_in_hand`,
      `suppress_timing`, `bodies_block`).
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements §13 of `rules/esgrima.md` over the one-on-one skirmish's rules (see
    `duelo/Esgrima-v2`): a zone per fighter, any number to a zone, the band between
    each pair, moves toward, away from or around any other fighter, flight off the
    map only while Far from every enemy, fighters no obstacle unless `bodies_block`
    (§13.1); each PJ's 2d6 against the PNJs' 7.5 in one order, PJ ties settled by a
    1d6 roll-off kept while their scores stand (`pj_tie`), PNJ ties in id order, a
    PNJ side alone rolling as in self-play (`npc_initiative`) (§13.2, S13-1); a
    delay before or after any fighter, at the new slot this round, the score kept;
    two Actions a turn, lost when taken out (§13.3, S13-1); handing a weapon (it
    arrives stowed unless `handover_in_hand`) or an ammunition share to an ally in
    the same zone (§13.4, §13.7); area damage on a zone at distance 1 or less, one
    Talento Test with Disadvantage and 1 PG to everyone there, allies and the
    activator included (§13.5, S13-2); suppressive fire on a zone in the weapon's
    reach, a Shot with Disadvantage at every enemy who enters it and at one who began
    its turn there and acts other than leaving, hiding or protecting itself, before
    the Action (`suppress_timing`), once a turn, each suppressor in initiative order
    (§13.6, S13-2); a PJ without ammunition cannot shoot, sharing sets both to
    Disadvantage on the next check, the GM's mid-combat check adds 1 PK to the side,
    and each PJ who used projectiles checks after the fight, with Advantage when its
    side won and looted ammunition it can use (§13.7); the team reward (§13.8).

    Left out, and why:
    - Handing an object to an enemy (§13.4): the digest does not model it.
    - Delay for PNJs: the seed gives it to players; `delay = all` lets PNJs delay.
    - The edge of an Interact object names one enemy; an ally cannot cancel an
      edge held over another (§8.3 is one on one; ASSUMPTION).

    ## Version History

    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | GroupScenario = "two_on_two",
        fighters: tuple[str | Character, ...] | None = None,
        options: GroupOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        ruleset = EsgrimaGroupRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)
