"""`duelo/LiminalSkirmish-v0`: the Gymnasium face of Liminal's skirmishes."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.liminal.setup import Character
from duelo.envs.liminal.skirmish import LiminalSkirmishRuleset
from duelo.envs.liminal.skirmish_setup import SkirmishOptions, SkirmishScenario


class LiminalSkirmishEnv(DuelEnv):
    """Fights of several a side in *Liminal*: a party against enemies and a mob (§13).

    ## Description

    A party (side A, one to four individuals) against the enemy side (side B, one to
    four individuals, and maybe a mob split into groups, one for each hero). Everyone
    stands somewhere on the duel's half-band track; the range between two fighters
    is the difference of their positions (0 adjacent, 1 near, 2-3 medium, 4-5 far).
    Each party member rolls Perception against 8 + the best enemy Perception at the
    start: those who succeed act before the enemy every round, the others after it.
    The learner is one individual (`learner_seat`, or drawn each episode); `opponent`
    plays every enemy and `ally` (default: `opponent`) every other fighter of its
    side, inside `step`. The mob's groups play §12's scripted mob: toward their hero,
    striking when adjacent. A turn is two decisions: the free move (hold, a step back
    or toward any fighter, or a move that is the turn's action: two steps fast,
    recovering a weapon), then the action at a target slot.

    ## Action Space

    `Discrete(68)`; `action_masks()` and `info["action_mask"]` give the legal ones.
    Slots: E0-E3 the enemy individuals (rows `enemy0`-`enemy3`), M0-M3 the mob's
    groups by the slot of their hero (rows `group0`-`group3`), A1-A3 the allies (rows
    `ally1`-`ally3`). An enemy bound by a "next target" critical may name only its
    critter.

    | id | action | meaning |
    |---|---|---|
    | 0 | HOLD | stay where you are |
    | 1 | STEP_BACK | step back, away from the enemy (30 paces) |
    | 2 | STEP_TO_E0 | step toward enemy 0 (30 paces) |
    | 3 | STEP_TO_E1 | step toward enemy 1 (30 paces) |
    | 4 | STEP_TO_E2 | step toward enemy 2 (30 paces) |
    | 5 | STEP_TO_E3 | step toward enemy 3 (30 paces) |
    | 6 | STEP_TO_M0 | step toward the mob group of hero 0 (30 paces) |
    | 7 | STEP_TO_M1 | step toward the mob group of hero 1 (30 paces) |
    | 8 | STEP_TO_M2 | step toward the mob group of hero 2 (30 paces) |
    | 9 | STEP_TO_M3 | step toward the mob group of hero 3 (30 paces) |
    | 10 | STEP_TO_A1 | step toward ally 1 (30 paces) |
    | 11 | STEP_TO_A2 | step toward ally 2 (30 paces) |
    | 12 | STEP_TO_A3 | step toward ally 3 (30 paces) |
    | 13 | FAST_BACK | fall back two steps fast (the action) |
    | 14 | FAST_TO_E0 | move two steps toward enemy 0 fast (the action) |
    | 15 | FAST_TO_E1 | move two steps toward enemy 1 fast (the action) |
    | 16 | FAST_TO_E2 | move two steps toward enemy 2 fast (the action) |
    | 17 | FAST_TO_E3 | move two steps toward enemy 3 fast (the action) |
    | 18 | FAST_TO_M0 | move two steps toward the mob group of hero 0 fast (the action) |
    | 19 | FAST_TO_M1 | move two steps toward the mob group of hero 1 fast (the action) |
    | 20 | FAST_TO_M2 | move two steps toward the mob group of hero 2 fast (the action) |
    | 21 | FAST_TO_M3 | move two steps toward the mob group of hero 3 fast (the action) |
    | 22 | FAST_TO_A1 | move two steps toward ally 1 fast (the action) |
    | 23 | FAST_TO_A2 | move two steps toward ally 2 fast (the action) |
    | 24 | FAST_TO_A3 | move two steps toward ally 3 fast (the action) |
    | 25 | RECOVER | pick up your dropped weapon (no move; the action) |
    | 26 | PASS | take no action |
    | 27 | DEFEND | take the defensive stance |
    | 28 | MELEE_E0 | strike enemy 0 in melee |
    | 29 | MELEE_E1 | strike enemy 1 in melee |
    | 30 | MELEE_E2 | strike enemy 2 in melee |
    | 31 | MELEE_E3 | strike enemy 3 in melee |
    | 32 | MELEE_M0 | strike the mob group of hero 0 in melee |
    | 33 | MELEE_M1 | strike the mob group of hero 1 in melee |
    | 34 | MELEE_M2 | strike the mob group of hero 2 in melee |
    | 35 | MELEE_M3 | strike the mob group of hero 3 in melee |
    | 36 | SHOOT_E0 | shoot at enemy 0 |
    | 37 | SHOOT_E1 | shoot at enemy 1 |
    | 38 | SHOOT_E2 | shoot at enemy 2 |
    | 39 | SHOOT_E3 | shoot at enemy 3 |
    | 40 | SHOOT_M0 | shoot at the mob group of hero 0 |
    | 41 | SHOOT_M1 | shoot at the mob group of hero 1 |
    | 42 | SHOOT_M2 | shoot at the mob group of hero 2 |
    | 43 | SHOOT_M3 | shoot at the mob group of hero 3 |
    | 44 | SOCIAL_E0 | press enemy 0 to give up |
    | 45 | SOCIAL_E1 | press enemy 1 to give up |
    | 46 | SOCIAL_E2 | press enemy 2 to give up |
    | 47 | SOCIAL_E3 | press enemy 3 to give up |
    | 48 | SOCIAL_M0 | press the mob group of hero 0 to give up |
    | 49 | SOCIAL_M1 | press the mob group of hero 1 to give up |
    | 50 | SOCIAL_M2 | press the mob group of hero 2 to give up |
    | 51 | SOCIAL_M3 | press the mob group of hero 3 to give up |
    | 52 | CRIT_DAMAGE | critical: +1d6 damage |
    | 53 | CRIT_ACT_FIRST | critical: act first from next round |
    | 54 | CRIT_DISARM | critical: disarm them |
    | 55 | CRIT_TARGET_ME_E0 | critical: become the next target of enemy 0 |
    | 56 | CRIT_TARGET_ME_E1 | critical: become the next target of enemy 1 |
    | 57 | CRIT_TARGET_ME_E2 | critical: become the next target of enemy 2 |
    | 58 | CRIT_TARGET_ME_E3 | critical: become the next target of enemy 3 |
    | 59 | CRIT_TARGET_ME_M0 | critical: become the next target of the mob group of hero 0 |
    | 60 | CRIT_TARGET_ME_M1 | critical: become the next target of the mob group of hero 1 |
    | 61 | CRIT_TARGET_ME_M2 | critical: become the next target of the mob group of hero 2 |
    | 62 | CRIT_TARGET_ME_M3 | critical: become the next target of the mob group of hero 3 |
    | 63 | DEFEND_PERFECT_COVER | defence critical: perfect cover |
    | 64 | DEFEND_WITHDRAW | defence critical: withdraw from the fight |
    | 65 | ALLY_WITHDRAWS_A1 | defence critical: let ally 1 withdraw |
    | 66 | ALLY_WITHDRAWS_A2 | defence critical: let ally 2 withdraw |
    | 67 | ALLY_WITHDRAWS_A3 | defence critical: let ally 3 withdraw |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`, the
    same values concatenated in this order). A key of 8 rows has one per individual
    slot: self, ally1-ally3 (its side's other individuals in slot order),
    enemy0-enemy3 (the other side's); a key of 4 one per mob group. An empty slot is
    zeros with `present` 0. Bounds are in `observation_space`; `duelo systems
    --verbose` prints every entry.

    | key | shape | meaning |
    |---|---|---|
    | `present` | 8 | 1 where a fighter holds the slot, by slot |
    | `status` | 8x4 | one-hot active, down, surrendered, withdrawn, by slot |
    | `hp` | 8 | Endurance left, floored at 0, by slot |
    | `hp_max` | 8 | Endurance at the start, by slot |
    | `skills` | 8x6 | melee, shoot, athletics, perception, social, conviction, by slot |
    | `traits` | 8x2 | melee damage bonus, defence bonus, by slot |
    | `held` | 8x9 | weapon in hand (as the duel's `held`), by slot |
    | `spare` | 8x9 | the other weapon carried, same features, by slot |
    | `flags` | 8x9 | disarmed, stance, cover, places, shaken, acted, act first, by slot |
    | `initiative` | 8x4 | band one-hot: crit-first, before, enemy, after (§13.2), by slot |
    | `place` | 8 | place in this round's order, 1 = first; 0 if none, by slot |
    | `current` | 8 | 1 for the fighter whose turn it is, by slot |
    | `offset` | 8 | position less the observer's, toward the enemy positive, by slot |
    | `range` | 8 | range from the observer on the track (0 adjacent), by slot |
    | `tight` | 8 | 1 if it shares its position with another unit (-2 to pick), by slot |
    | `bound_to` | 8 | row + 1 of the individual it must target next turn (0: free), by slot |
    | `group_present` | 4 | 1 where the mob has a group for that hero, by group |
    | `group_hostile` | 4 | 1 if the group is the observer's enemy, by group |
    | `group_standing` | 4 | members standing, by group |
    | `group_members` | 4x12 | standing members' Endurance in list order, then zeros, by group |
    | `group_level` | 4 | attack level (1 per 2 standing, at most 3), by group |
    | `group_armed` | 4 | 1 if armed (1d6+1), by group |
    | `group_hero` | 4 | row + 1 of the hero it is assigned to, by group |
    | `group_acted` | 4 | 1 if it has had its turn this round, by group |
    | `group_place` | 4 | place in this round's order, 1 = first, by group |
    | `group_offset` | 4 | position less the observer's, toward the enemy positive, by group |
    | `group_range` | 4 | range from the observer, by group |
    | `group_bound_to` | 4 | row + 1 of the individual it must attack next, by group |
    | `mob` | 2 | the whole mob: members at the start, members down (0 without a mob) |
    | `struck` | 12 | one-hot: the unit an attack critical struck, awaiting its effect |
    | `round` | 1 | current round |
    | `phase` | 4 | one-hot: main, attack critical, defence critical, bonus action |
    | `turn` | 3 | own turn: deciding now, free move spent, free draw spent |

    ## Rewards

    +1 to every fighter of the side that wins (every individual of the other side
    down, surrendered or withdrawn, and its mob wiped out or broken), -1 to every
    fighter of the other, whether still standing or not; +-0.5 instead when every out
    member of the losing side withdrew (§13.7, `withdraw_stake`); 0 at the round cap.
    Illegal actions as in `DuelEnv`. After a fight with a mob, `info` holds
    `members_downed` and `members_saved` (the party's Medicine), never a reward.

    ## Starting State

    By scenario (`configs/liminal/skirmishes.yaml`): `two_on_two`, `three_on_three`,
    `outnumbered` (three against four), `ambush` (two walk into two gunmen in cover)
    and `mob` (three heroes against a hunter and ten armed locals, split 4, 3, 3).
    Initiative is rolled before the first decision.

    ## Episode End

    Terminated when a side is out; truncated at the round cap (`round_cap`, 30).

    ## Arguments

    - `opponent`, `ally`: the policies of the enemies and of the learner's allies.
    - `scenario`: a skirmish id or a `SkirmishScenario`; `fighters`: a character id
      for every individual, the party's first; `options`: `SkirmishOptions` fields
      (the duel's rulings and §13's: `adjacent_penalty`, `group_penalty_melee`,
      `taunt_duration`, `rebalance_on_wipe`, `spill_across_groups`).
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements §13 of `rules/liminal.md` over the duel's rules (see
    `duelo/Liminal-v2`): positions on the half-band track and the range between any
    two, adjacent meaning the same position (§13.1); the pistol's -2, and no shot
    with a larger weapon, when the shooter stands with any active enemy (§13.1);
    moves toward any fighter or back, the fast move's test when engaged, near an
    enemy or under fire, withdrawal when one's own move leaves one 6 or more from
    every enemy (§13.1); the party's initiative against the best enemy Perception,
    with no unskilled +2, and the round order crit-first, before, enemy, mob, after
    (§13.2, S13-1); a target slot for every attack and demand, -2 to pick an
    individual out of a tight group with a shot (§13.3); the critical "become the
    next target of the enemy you choose", binding that enemy's next turn, a mob
    group's attack included, or until its next attack (`taunt_duration`) (§13.4,
    S13-3); the defensive critical "let an ally withdraw" (§13.5); a mob split among
    the heroes, one attack a group a round, damage spilling within a group, the
    fallen hero's members moved to the smallest groups (a group wiped while its hero
    stands refilled with `rebalance_on_wipe`), the whole mob broken by a demand once
    half of it is down, and the healers' Medicine after the fight (§13.6, S13-2);
    the end when a side is out and the halved stake of a side that all withdrew
    (§13.7).

    Left out, and why:
    - `party_side` and `within_band_order` (§13.2): the scenario's side A is the
      party, and tournaments swap sides, so each policy plays the party half its
      fights; the bands keep slot order.
    - Arrivals mid-fight (§13.2): no Liminal scenario has one (the Infierno
      skirmish plays them).
    - `mob_split_over = "pcs_only"` (§13.6): stat blocks do not say who is a PC.
    - `reward_mode = "individual"` (§13.7): the team reward is played; the core
      scores sides, not fighters.
    - A learned mob: the groups play the digest's scripted mob (§12) so that every
      seat is an individual a policy plays.

    ## Version History

    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | SkirmishScenario = "two_on_two",
        fighters: tuple[str | Character, ...] | None = None,
        options: SkirmishOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        ruleset = LiminalSkirmishRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)
