"""`duelo/InfiernoSkirmish-v0`: the Gymnasium face of Infierno's skirmishes."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.infierno.setup import Character
from duelo.envs.infierno.skirmish import InfiernoSkirmishRuleset
from duelo.envs.infierno.skirmish_setup import SkirmishOptions, SkirmishScenario


class InfiernoSkirmishEnv(DuelEnv):
    """Fights of several fighters a side in *Infierno de Cobardes* (digest §13).

    ## Description

    Two sides of one to four fighters stand on a line of 1.5 m squares (side A's home
    edge is square 0, side B's the arena's last). Every fighter rolls initiative; one
    list, sides interleaved, holds every round (ties by Dexterity, then the Initiative
    bonus, then a roll-off). The learner is one fighter (`learner_seat`, or drawn each
    episode); `opponent` plays every enemy and `ally` (default: `opponent`) every other
    fighter of its side, inside `step`. Each fighter's turn is the duel's: one standard
    and one move action, or one full-round action, a 1.5 m step and free actions.

    ## Action Space

    `Discrete(69)`; `action_masks()` and `info["action_mask"]` give the legal ones. The
    duel's untargeted actions and critical effects, then each action at an enemy once
    per enemy slot E0-E3 (the order of `enemy0`-`enemy3` in the observation), then a
    delay after each ally slot A1-A3 and enemy slot. Costs and preconditions are the
    duel's (`duelo/Infierno-v2`) at the range of the chosen target.

    | id | action | meaning |
    |---|---|---|
    | 0 | END_TURN | end your turn |
    | 1 | DRAW_PRIMARY | draw your primary weapon |
    | 2 | DRAW_SECONDARY | draw your secondary weapon |
    | 3 | HOLSTER_MAIN | holster the weapon in your main hand |
    | 4 | RETREAT | move toward your home edge (a move action; off it: flee) |
    | 5 | STEP_BACK | take a 1.5 m step toward your home edge |
    | 6 | STEP_FORWARD | take a 1.5 m step toward the enemy's edge |
    | 7 | RUN_HOME | run toward your home edge (full round; off it: flee) |
    | 8 | TAKE_COVER | get behind the cover nearby |
    | 9 | CLEAR_JAM | clear your jammed firearm |
    | 10 | RELOAD | reload your firearm (full round) |
    | 11 | PRONE_TOGGLE | drop prone, or stand up |
    | 12 | SURRENDER | surrender: you leave the fight |
    | 13 | CRIT_MULTIPLY | critical: multiply the damage |
    | 14 | CRIT_MAXIMUM | critical: maximum damage |
    | 15 | CRIT_IGNORE_RD | critical: ignore the damage reduction |
    | 16 | CRIT_SEQUEL | critical: leave a Sequel (-2 to their rolls) |
    | 17 | CRIT_LETHAL | critical: make the nonlethal damage lethal |
    | 18 | ATTACK_MAIN_E0 | attack enemy 0 with the weapon in your main hand |
    | 19 | ATTACK_MAIN_E1 | attack enemy 1 with the weapon in your main hand |
    | 20 | ATTACK_MAIN_E2 | attack enemy 2 with the weapon in your main hand |
    | 21 | ATTACK_MAIN_E3 | attack enemy 3 with the weapon in your main hand |
    | 22 | ATTACK_MAIN_AIMED_E0 | fire at enemy 0 in a melee, aimed (-4) |
    | 23 | ATTACK_MAIN_AIMED_E1 | fire at enemy 1 in a melee, aimed (-4) |
    | 24 | ATTACK_MAIN_AIMED_E2 | fire at enemy 2 in a melee, aimed (-4) |
    | 25 | ATTACK_MAIN_AIMED_E3 | fire at enemy 3 in a melee, aimed (-4) |
    | 26 | ATTACK_UNARMED_E0 | punch or kick enemy 0 (adjacent) |
    | 27 | ATTACK_UNARMED_E1 | punch or kick enemy 1 (adjacent) |
    | 28 | ATTACK_UNARMED_E2 | punch or kick enemy 2 (adjacent) |
    | 29 | ATTACK_UNARMED_E3 | punch or kick enemy 3 (adjacent) |
    | 30 | PISTOL_WHIP_E0 | strike enemy 0 with your firearm's butt |
    | 31 | PISTOL_WHIP_E1 | strike enemy 1 with your firearm's butt |
    | 32 | PISTOL_WHIP_E2 | strike enemy 2 with your firearm's butt |
    | 33 | PISTOL_WHIP_E3 | strike enemy 3 with your firearm's butt |
    | 34 | THROW_MAIN_E0 | throw the weapon in your main hand at enemy 0 |
    | 35 | THROW_MAIN_E1 | throw the weapon in your main hand at enemy 1 |
    | 36 | THROW_MAIN_E2 | throw the weapon in your main hand at enemy 2 |
    | 37 | THROW_MAIN_E3 | throw the weapon in your main hand at enemy 3 |
    | 38 | THROW_MAIN_AIMED_E0 | throw at enemy 0 in a melee, aimed (-4) |
    | 39 | THROW_MAIN_AIMED_E1 | throw at enemy 1 in a melee, aimed (-4) |
    | 40 | THROW_MAIN_AIMED_E2 | throw at enemy 2 in a melee, aimed (-4) |
    | 41 | THROW_MAIN_AIMED_E3 | throw at enemy 3 in a melee, aimed (-4) |
    | 42 | TWO_WEAPON_ATTACK_E0 | attack enemy 0 with both hands |
    | 43 | TWO_WEAPON_ATTACK_E1 | attack enemy 1 with both hands |
    | 44 | TWO_WEAPON_ATTACK_E2 | attack enemy 2 with both hands |
    | 45 | TWO_WEAPON_ATTACK_E3 | attack enemy 3 with both hands |
    | 46 | TWO_WEAPON_AIMED_E0 | both hands at enemy 0, shots aimed (-4) |
    | 47 | TWO_WEAPON_AIMED_E1 | both hands at enemy 1, shots aimed (-4) |
    | 48 | TWO_WEAPON_AIMED_E2 | both hands at enemy 2, shots aimed (-4) |
    | 49 | TWO_WEAPON_AIMED_E3 | both hands at enemy 3, shots aimed (-4) |
    | 50 | ADVANCE_E0 | move toward enemy 0 (a move action) |
    | 51 | ADVANCE_E1 | move toward enemy 1 (a move action) |
    | 52 | ADVANCE_E2 | move toward enemy 2 (a move action) |
    | 53 | ADVANCE_E3 | move toward enemy 3 (a move action) |
    | 54 | RUN_TO_E0 | run toward enemy 0 (full round) |
    | 55 | RUN_TO_E1 | run toward enemy 1 (full round) |
    | 56 | RUN_TO_E2 | run toward enemy 2 (full round) |
    | 57 | RUN_TO_E3 | run toward enemy 3 (full round) |
    | 58 | FEINT_E0 | feint against enemy 0: your next attack is a sneak attack |
    | 59 | FEINT_E1 | feint against enemy 1: your next attack is a sneak attack |
    | 60 | FEINT_E2 | feint against enemy 2: your next attack is a sneak attack |
    | 61 | FEINT_E3 | feint against enemy 3: your next attack is a sneak attack |
    | 62 | DELAY_AFTER_A1 | delay: from now on, act right after ally 1 |
    | 63 | DELAY_AFTER_A2 | delay: from now on, act right after ally 2 |
    | 64 | DELAY_AFTER_A3 | delay: from now on, act right after ally 3 |
    | 65 | DELAY_AFTER_E0 | delay: from now on, act right after enemy 0 |
    | 66 | DELAY_AFTER_E1 | delay: from now on, act right after enemy 1 |
    | 67 | DELAY_AFTER_E2 | delay: from now on, act right after enemy 2 |
    | 68 | DELAY_AFTER_E3 | delay: from now on, act right after enemy 3 |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`, the
    same values concatenated in this order). A key of 8 rows has one per slot: self,
    ally1-ally3 (its side's other fighters in slot order), enemy0-enemy3 (the other
    side's); an empty slot is zeros with `present` 0. Bounds are in
    `observation_space`; `duelo systems --verbose` prints every entry.

    | key | shape | meaning |
    |---|---|---|
    | `present` | 8 | 1 where a fighter holds the slot, by slot |
    | `status` | 8x5 | one-hot active, down, knocked_out, surrendered, fled, by slot |
    | `initiative` | 8 | initiative totals; 0 before rolling, by slot |
    | `place` | 8 | place in the initiative list, 1 = first; 0 before it is set, by slot |
    | `waiting` | 8 | 1 if it is yet to act this round, by slot |
    | `current` | 8 | 1 for the fighter whose turn it is, by slot |
    | `hp` | 8 | lethal hit points left, floored at 0, by slot |
    | `hp_max` | 8 | maximum hit points, by slot |
    | `nonlethal` | 8 | nonlethal damage taken, by slot |
    | `sequels` | 8 | moderate Sequels, -2 each, by slot |
    | `position` | 8 | square on the line (side A's home edge is 0), by slot |
    | `range` | 8 | range from the observer in squares (0 for itself), by slot |
    | `adjacent` | 8 | 1 if within one square of the observer, by slot |
    | `flank` | 8 | 1 if the observer's attack on this enemy would flank (+2), by slot |
    | `melee` | 8 | fighters a shot at it could hit (1: no ally beside it), by slot |
    | `flags` | 8x9 | flat-footed, stunned, prone, cover, feats, by slot |
    | `stats` | 8x13 | the stat block (as the duel's `stats`), by slot |
    | `main_hand` | 8x12 | main-hand weapon (as the duel's), by slot |
    | `off_hand` | 8x12 | off-hand weapon, same features, by slot |
    | `round` | 1 | current round (0 = surprise round) |
    | `phase` | 3 | one-hot: surprise, round, crit choice |
    | `budget` | 5 | own turn left: standard, move, full_round, step, nothing_done |
    | `lighting` | 3 | one-hot: clear, partial, total concealment |

    ## Rewards

    +1 to every fighter of the side that wins (every enemy out: down, knocked out,
    surrendered or fled), -1 to every fighter of the other, whether still standing or
    not (the team reward of §13.8); 0 for a draw or truncation. Illegal actions as in
    `DuelEnv`.

    ## Starting State

    By scenario (`configs/infierno/skirmishes.yaml`): `two_on_two`, `three_on_three`,
    `outnumbered` (three against four), `ambush` (one against two, with a surprise
    round for side A) and `reinforcements` (two against two, a third for side B riding
    in at round 2). A fighter yet to arrive holds its slot with `present` 0.

    ## Episode End

    Terminated when a side is out, both at once being a draw; truncated at the round
    cap (`round_cap`, 20).

    ## Arguments

    - `opponent`, `ally`: the policies of the enemies and of the learner's allies.
    - `scenario`: a skirmish id or a `SkirmishScenario`; `fighters`: a character id
      for every fighter, side A's first; `options`: `SkirmishOptions` fields (the
      duel's rulings and §13's: `flank_counts_stunned`, `melee_participants`,
      `stray_needs_exceed`).
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements §13 of `rules/infierno.md` over the duel's rules (see
    `duelo/Infierno-v2`): squares, pairwise range and adjacency (§13.1); moves toward a
    chosen fighter, stopping adjacent, retreat and run toward one's home edge, and
    flight off it (§13.1); cover lost by moving and useless against an adjacent
    attacker (§13.1); initiative among many with the seed's Dexterity tie-break, then
    the Initiative bonus and a roll-off in slot order (§13.2); the surprise round of
    the aware, one standard or move action each, the unaware rolling after it
    (§13.2); arrivals mid-fight, rolling on arrival and taking their place in the list,
    this round if it comes after the fighter about to act, else the next (§13.2);
    delaying after any fighter yet to act (§13.2); a target for every attack,
    feint and advance, never an ally (§13.3); flanking, +2 beside an active, unstunned
    ally (§13.4); the shot into a melee, aimed at -4 or unaimed with a participant die
    and a normal stray hit on an ally (§13.5); individual surrender and the end when a
    side is out, both at once a draw (§13.8).

    Left out, and why:
    - The staredown and the both-miss decision (§13.1): the seed describes them for
      two gunfighters only.
    - The options `stray_hits_can_crit` and `reward_mode` (§13.5, §13.8): the digest's
      defaults are played (a stray hit is never critical; the team reward). A critical
      on an ally needs its own confirmation against the ally, and an individual reward
      needs a reward a fighter where the core scores sides.
    - The concealment miss chance applies to a stray hit as to any hit (§8.5; the
      digest's dice order is for clear light).
    - §13.9's range band one-hot per fighter: the range is observed, and the band
      follows from it and the weapon in hand (`main_hand.range_increment`).

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
        ruleset = InfiernoSkirmishRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)
