"""`duelo/VampiroSkirmish-v0`: the Gymnasium face of Vampiro fights of several a side."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.vampiro.group import VampiroGroupRuleset
from duelo.envs.vampiro.group_setup import GroupOptions, GroupScenario
from duelo.envs.vampiro.setup import Character


class VampiroSkirmishEnv(DuelEnv):
    """Vampiro: La Mascarada fights of several fighters a side on a line (digest §13).

    ## Description

    Side A (one to three fighters) against side B (one to three), each fighter at its
    own point on a line. Every turn everyone rolls initiative and declares in reverse
    order across both sides: the slowest first, each seeing only the declarations made
    before its own, allies' included. A declaration names a target for each attack
    (two shots or two blows may go to two opponents), its Celerity actions and
    Willpower. Actions then come fastest first; declared dodges meet attacks one each,
    whoever attacks; a fighter attacked with no defence left may abort to one; a
    delayer chooses, sealed, before every later initiative slot whether to act now;
    extra actions come at the end of the turn, one each a round. Surrounded fighters
    roll at +1 difficulty per melee attacker beyond the first, and a botch may hit the
    attacker's ally beside the target. The learner is one fighter (`learner_seat`, or
    drawn each episode); `opponent` plays every opponent and `ally` (default:
    `opponent`) every other fighter of its side, inside `step`.

    ## Action Space

    `Discrete(68)`; `action_masks()` and `info["action_mask"]` give the legal ones.
    E0-E2 are the opponent slots (rows `enemy0`-`enemy2`). Plans (0-49) are declared
    in the declare phase, and a delayer's single-action plan, or WAIT, at its moment
    (delayed phase); the modifiers (50-61) follow a plan; the aborts (62-66) answer an
    attack (row `attacker`).

    | id | action | meaning |
    |---|---|---|
    | 0 | DODGE | dodge |
    | 1 | BLOCK_PARRY | block, or parry with a melee weapon (against melee) |
    | 2 | OPEN | run away (far enough, and you have fled) |
    | 3 | RELOAD | reload, or clear a jam |
    | 4 | AIM | aim (dice for your next shot) |
    | 5 | HEAL | heal a wound with blood (a vampire) |
    | 6 | DELAY | delay, and choose after their next action |
    | 7 | DODGE_TWICE | dodge twice (-2 dice, then -3), one attack each |
    | 8 | STRIKE_E0 | strike enemy 0 with your fists (within 1 m) |
    | 9 | STRIKE_E1 | strike enemy 1 with your fists (within 1 m) |
    | 10 | STRIKE_E2 | strike enemy 2 with your fists (within 1 m) |
    | 11 | KICK_E0 | kick enemy 0 (within 1 m) |
    | 12 | KICK_E1 | kick enemy 1 (within 1 m) |
    | 13 | KICK_E2 | kick enemy 2 (within 1 m) |
    | 14 | WEAPON_STRIKE_E0 | strike enemy 0 with your melee weapon (within 2 m) |
    | 15 | WEAPON_STRIKE_E1 | strike enemy 1 with your melee weapon (within 2 m) |
    | 16 | WEAPON_STRIKE_E2 | strike enemy 2 with your melee weapon (within 2 m) |
    | 17 | SHOOT_E0 | shoot enemy 0 |
    | 18 | SHOOT_E1 | shoot enemy 1 |
    | 19 | SHOOT_E2 | shoot enemy 2 |
    | 20 | BURST_E0 | fire a burst at enemy 0 (3 rounds) |
    | 21 | BURST_E1 | fire a burst at enemy 1 (3 rounds) |
    | 22 | BURST_E2 | fire a burst at enemy 2 (3 rounds) |
    | 23 | FULL_AUTO_E0 | fire full auto at enemy 0 (half the clip) |
    | 24 | FULL_AUTO_E1 | fire full auto at enemy 1 (half the clip) |
    | 25 | FULL_AUTO_E2 | fire full auto at enemy 2 (half the clip) |
    | 26 | CLOSE_E0 | run at enemy 0, stopping at 1 m |
    | 27 | CLOSE_E1 | run at enemy 1, stopping at 1 m |
    | 28 | CLOSE_E2 | run at enemy 2, stopping at 1 m |
    | 29 | ATTACK_DODGE_E0 | attack enemy 0 (-2 dice), and dodge when needed (-3 dice) |
    | 30 | ATTACK_DODGE_E1 | attack enemy 1 (-2 dice), and dodge when needed (-3 dice) |
    | 31 | ATTACK_DODGE_E2 | attack enemy 2 (-2 dice), and dodge when needed (-3 dice) |
    | 32 | SHOOT_TWICE_E0_E0 | shoot enemy 0 (-2 dice), then enemy 0 (-3 dice) |
    | 33 | SHOOT_TWICE_E0_E1 | shoot enemy 0 (-2 dice), then enemy 1 (-3 dice) |
    | 34 | SHOOT_TWICE_E0_E2 | shoot enemy 0 (-2 dice), then enemy 2 (-3 dice) |
    | 35 | SHOOT_TWICE_E1_E0 | shoot enemy 1 (-2 dice), then enemy 0 (-3 dice) |
    | 36 | SHOOT_TWICE_E1_E1 | shoot enemy 1 (-2 dice), then enemy 1 (-3 dice) |
    | 37 | SHOOT_TWICE_E1_E2 | shoot enemy 1 (-2 dice), then enemy 2 (-3 dice) |
    | 38 | SHOOT_TWICE_E2_E0 | shoot enemy 2 (-2 dice), then enemy 0 (-3 dice) |
    | 39 | SHOOT_TWICE_E2_E1 | shoot enemy 2 (-2 dice), then enemy 1 (-3 dice) |
    | 40 | SHOOT_TWICE_E2_E2 | shoot enemy 2 (-2 dice), then enemy 2 (-3 dice) |
    | 41 | DOUBLE_ATTACK_E0_E0 | attack enemy 0 in melee (-2 dice), then enemy 0 (-3 dice) |
    | 42 | DOUBLE_ATTACK_E0_E1 | attack enemy 0 in melee (-2 dice), then enemy 1 (-3 dice) |
    | 43 | DOUBLE_ATTACK_E0_E2 | attack enemy 0 in melee (-2 dice), then enemy 2 (-3 dice) |
    | 44 | DOUBLE_ATTACK_E1_E0 | attack enemy 1 in melee (-2 dice), then enemy 0 (-3 dice) |
    | 45 | DOUBLE_ATTACK_E1_E1 | attack enemy 1 in melee (-2 dice), then enemy 1 (-3 dice) |
    | 46 | DOUBLE_ATTACK_E1_E2 | attack enemy 1 in melee (-2 dice), then enemy 2 (-3 dice) |
    | 47 | DOUBLE_ATTACK_E2_E0 | attack enemy 2 in melee (-2 dice), then enemy 0 (-3 dice) |
    | 48 | DOUBLE_ATTACK_E2_E1 | attack enemy 2 in melee (-2 dice), then enemy 1 (-3 dice) |
    | 49 | DOUBLE_ATTACK_E2_E2 | attack enemy 2 in melee (-2 dice), then enemy 2 (-3 dice) |
    | 50 | K0 | Celerity: 0 extra actions |
    | 51 | K0_WP | Celerity: 0 extra actions, and 1 Willpower for an automatic success |
    | 52 | K1 | Celerity: 1 extra action |
    | 53 | K1_WP | Celerity: 1 extra action, and 1 Willpower for an automatic success |
    | 54 | K2 | Celerity: 2 extra actions |
    | 55 | K2_WP | Celerity: 2 extra actions, and 1 Willpower for an automatic success |
    | 56 | K3 | Celerity: 3 extra actions |
    | 57 | K3_WP | Celerity: 3 extra actions, and 1 Willpower for an automatic success |
    | 58 | K4 | Celerity: 4 extra actions |
    | 59 | K4_WP | Celerity: 4 extra actions, and 1 Willpower for an automatic success |
    | 60 | K5 | Celerity: 5 extra actions |
    | 61 | K5_WP | Celerity: 5 extra actions, and 1 Willpower for an automatic success |
    | 62 | NO_ABORT | attacked: keep your plan |
    | 63 | ABORT_DODGE_ROLL | attacked: abort to a dodge (roll Willpower) |
    | 64 | ABORT_DODGE_WP | attacked: abort to a dodge (spend 1 Willpower) |
    | 65 | ABORT_BLOCK_ROLL | attacked: abort to a block or parry (roll Willpower) |
    | 66 | ABORT_BLOCK_WP | attacked: abort to a block or parry (spend 1 Willpower) |
    | 67 | WAIT | delayed: keep waiting |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`, the
    same values concatenated in this order). A key of 6 rows has one per fighter
    slot: self, ally1-ally2 (its side's others in slot order), enemy0-enemy2 (the
    other side's). An empty slot is zeros with `present` 0. Bounds are in
    `observation_space`; `duelo systems --verbose` prints every entry.

    | key | shape | meaning |
    |---|---|---|
    | `phase` | 4 | one-hot: declare, modifiers, interrupt, delayed |
    | `incoming` | 4 | the attack met by an abort: melee, bashing, lethal, aggravated |
    | `attacker` | 6 | 1 for the fighter whose attack waits on an abort, by slot |
    | `turn` | 1 | current turn |
    | `present` | 6 | 1 where a fighter holds the slot, by slot |
    | `status` | 6x3 | one-hot active, down, fled, by slot |
    | `current` | 6 | 1 for the fighter deciding now, by slot |
    | `declared` | 6 | 1 once it has declared this turn, by slot |
    | `initiative` | 6 | initiative rolled this turn, every Celerity dot unused, by slot |
    | `position` | 6 | metres along the line, by slot |
    | `offset` | 6 | position less the observer's, in metres, by slot |
    | `range` | 6 | metres from the observer, by slot |
    | `hp` | 6 | health levels left, by slot |
    | `hp_max` | 6 | health levels, by slot |
    | `health` | 6x3 | levels of bashing, lethal, aggravated damage, by slot |
    | `wound_penalty` | 6 | dice lost to wounds, by slot |
    | `willpower` | 6x2 | points, rating, by slot |
    | `blood` | 6x3 | points, pool, spendable a turn, by slot |
    | `traits` | 6x4 | vampire, Celerity, Fortitude, Potence, by slot |
    | `dots` | 6x10 | Attributes and Abilities, by slot |
    | `weapon` | 6x17 | the weapon in hand, by slot |
    | `armour` | 6x2 | rating, Dexterity penalty, by slot |
    | `condition` | 6x3 | aiming dice, off balance, delaying, by slot |
    | `plan` | 6x21 | where seen: known, plan (one-hot), Celerity actions, Willpower, by slot |
    | `targets` | 6x2 | where seen, the slot (1-6) of its 1st and 2nd targets; 0 none, by slot |

    ## Rewards

    +1 to every fighter of the side that wins (every fighter of the other down or
    fled), -1 to every fighter of the other, whether still standing or not; 0 for all
    when both sides go out in one simultaneous exchange, when every fighter of the
    side that went out fled (unless `flee_is_loss`), or at the round cap. Illegal
    actions as in `DuelEnv`.

    ## Starting State

    By scenario (`configs/vampiro/skirmishes.yaml`): `two_on_two` (a Brujah and a
    hunter against a Ventrue and a gunman), `three_on_three` (a vampire, a thug and a
    hunter a side), `outnumbered` (two Kindred against two thugs and a gunman) and
    `crossfire` (two pistols against two Kindred 20 m away). The first turn's
    initiative is rolled before the first decision.

    ## Episode End

    Terminated when a side has no active fighter; truncated at the round cap
    (`round_cap`, 20 turns).

    ## Arguments

    - `opponent`, `ally`: the policies of the opponents and of the learner's allies.
    - `scenario`: a skirmish id or a `GroupScenario`; `fighters`: a character id for
      every fighter, side A's first; `options`: `GroupOptions` fields (the duel's
      rulings and edition flags, and §13.11's: `multi_opponent_difficulty`,
      `team_shared_plan`, `retarget_if_out`, `botch_hits_ally`, `flee_is_loss`).
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements §13 of `rules/vampiro.md` over the duel's exchanges (see
    `duelo/Vampiro-v2`): each fighter at its own point, the range of a pair the
    distance between them, fighters no obstacles; a run at one chosen opponent stops
    1 m from it, a run away goes from the nearest active opponent and has fled once
    beyond every opponent's flee range (§13.1, §9); +1 difficulty to a fighter's
    attack and defence rolls per distinct opponent beyond the first that declared a
    melee attack on it this turn (G1, `multi_opponent_difficulty`); out fighters
    untargetable and acting no more (§13.1). Everyone rolls initiative in id order;
    declarations lowest first across both sides, ties on score and Dex + Wits
    declaring blind to each other, each seeing only what was declared before it,
    allies too (G2, `team_shared_plan`); the Phase-2 order by final initiative after
    Celerity, full ties simultaneous (§13.2, S13-1, S13-2). A target for each attack,
    two shots or two blows at two opponents, wounds taken since the declaration
    costing dice when the action is rolled, an action whose target is out or out of
    reach lost (G4, `retarget_if_out`) (§13.3, S13-1). Declared defences meet
    attacks one each as they come, the lowest slot first, whoever the attacker
    (§13.4, G3, S13-1). A delayer is offered act-now-or-wait before each Phase-2
    slot from its own on and once after the last; all offered at one moment choose
    sealed, and those who act go fastest first with a single action and its target
    (§13.5, G5, S13-2). A botched attack hits the attacker's active ally within 1 m
    of the target, nearest first, with the attack's base damage, instead of the §7
    mishap (§13.6, G6, S13-2). End-of-turn actions in rounds of one each by
    initiative, own multiple actions before own Celerity actions (§13.7, G7). The
    end when a side has no active fighter, the team reward, a draw when both go out
    at once or when all of the losers fled (§13.9, G9).

    Left out, and why:
    - Clinches, holds and bites: §13 says nothing of who holds whom among many, or
      of a third fighter striking a held one; a bite needs a clinch.
    - `auto_defend` off (§13.4 G3): declining a declared dodge would add a decision
      to every attack for a choice the digest's default never offers.
    - `bodies_block_fire` (§13.1 G10): a line of fire through bodies on a line is no
      single rule once fighters share points.
    - Revealing a later declaration as each of its actions happens (§13.8): the
      observation keeps it hidden all turn, as the duel does (§10 #30); the
      narration shows each action when it comes.
    - Shaping by health levels (§13.9, optional), and the duel's cover (§6): a
      skirmish scenario has no cover.

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
        ruleset = VampiroGroupRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)
