"""`duelo/Vampiro-v2`: the Gymnasium face of Vampiro: La Mascarada."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.vampiro.rules import VampiroRuleset
from duelo.envs.vampiro.setup import Character, Scenario, VampiroOptions


class VampiroEnv(DuelEnv):
    """One-on-one fights of *Vampiro: La Mascarada*, the Storyteller system (seed 004).

    ## Description

    Every turn, both roll initiative (1d10 + Dexterity + Wits, less wounds, plus
    unused Celerity) and declare in reverse order: the slower first, so the faster
    sees its plan, and the slower never sees the faster's, all turn; in a full tie
    both declare blind (§12, §10 #29, #30; `public_declarations` shows a
    declaration to both once made). A declaration is a plan (one step), then its modifiers (a second step):
    Celerity actions, paid in blood, that repeat the plan's first action at the end
    of the turn, and a Willpower point for an automatic success. Actions then come
    fastest first, extra ones at the end of the turn. Attacks are d10 pools at
    difficulty 6 (a 1 cancels a success; no success and a 1 is a botch); declared
    Dodges and Blocks meet attacks when they come, and a combatant attacked before
    its action may abort to one by a Willpower roll or point (a third kind of
    step). Extra successes add damage dice; the target soaks by damage type and
    creature; what is left fills its seven health levels, whose wound penalties
    cut pools and initiative.

    ## Action Space

    `Discrete(36)`, masked (`action_masks()`, `info["action_mask"]`):

    | id | action | phase | mask |
    |---|---|---|---|
    | 0 | STRIKE | declare, delayed | within 1 m (Dex + Brawl, Strength bashing) |
    | 1 | KICK | declare, delayed | within 1 m (difficulty 7, Strength + 1) |
    | 2 | WEAPON_STRIKE | declare, delayed | a melee weapon in hand; within 2 m |
    | 3 | SHOOT | declare, delayed | a firearm, loaded, not jammed; within twice its range; shots left in its rate |
    | 4 | SHOOT_TWICE | declare | as SHOOT; rate and ammunition for two (-2, then -3 dice) |
    | 5 | BURST | declare, delayed | as SHOOT; burst-capable, 3 rounds (+2 dice, +1 difficulty) |
    | 6 | FULL_AUTO | declare, delayed | as SHOOT; automatic, half a clip (+10 dice, +2 difficulty) |
    | 7 | DODGE | declare, delayed | always: meets the next attack |
    | 8 | BLOCK_PARRY | declare, delayed | always: meets the next melee attack it can (Parry with a melee weapon) |
    | 9 | ATTACK_DODGE | declare | an attack is legal: the attack at -2 dice, a Dodge at -3 |
    | 10 | DOUBLE_ATTACK | declare | a melee attack is legal: -2, then -3 dice |
    | 11 | CLOSE | declare, delayed | more than 1 m apart; able to move: run in, stopping at 1 m |
    | 12 | OPEN | declare, delayed | able to move: run away; past twice the rival's gun range (30 m without) it has fled |
    | 13 | RELOAD | declare, delayed | a jammed or partly spent firearm, or a dropped weapon to pick up |
    | 14 | AIM | declare, delayed | a firearm: +1 die to the next shot, up to Perception |
    | 15 | CLINCH | declare, delayed | within 1 m (Str + Brawl); while clinched, the attempt to break free |
    | 16 | BITE | declare, delayed | a vampire, clinched: Strength + 1 aggravated |
    | 17 | HEAL | declare, delayed | a vampire with blood and a bashing or lethal level |
    | 18 | DELAY | declare | always: choose a single action after the rival's next one |
    | 19 | K0 | modifiers | always: no Celerity action, no Willpower |
    | 20 | K0_WP | modifiers | a Willpower point for an automatic success |
    | 21 | K1 | modifiers | 1 Celerity action (Celerity >= 1, the blood for them; not with DELAY or HEAL) |
    | 22 | K1_WP | modifiers | 1 Celerity action (Celerity >= 1, the blood for them; not with DELAY or HEAL); a Willpower point for an automatic success |
    | 23 | K2 | modifiers | 2 Celerity actions (Celerity >= 2, the blood for them; not with DELAY or HEAL) |
    | 24 | K2_WP | modifiers | 2 Celerity actions (Celerity >= 2, the blood for them; not with DELAY or HEAL); a Willpower point for an automatic success |
    | 25 | K3 | modifiers | 3 Celerity actions (Celerity >= 3, the blood for them; not with DELAY or HEAL) |
    | 26 | K3_WP | modifiers | 3 Celerity actions (Celerity >= 3, the blood for them; not with DELAY or HEAL); a Willpower point for an automatic success |
    | 27 | K4 | modifiers | 4 Celerity actions (Celerity >= 4, the blood for them; not with DELAY or HEAL) |
    | 28 | K4_WP | modifiers | 4 Celerity actions (Celerity >= 4, the blood for them; not with DELAY or HEAL); a Willpower point for an automatic success |
    | 29 | K5 | modifiers | 5 Celerity actions (Celerity >= 5, the blood for them; not with DELAY or HEAL) |
    | 30 | K5_WP | modifiers | 5 Celerity actions (Celerity >= 5, the blood for them; not with DELAY or HEAL); a Willpower point for an automatic success |
    | 31 | NO_ABORT | interrupt | always |
    | 32 | ABORT_DODGE_ROLL | interrupt | always: a Willpower roll |
    | 33 | ABORT_DODGE_WP | interrupt | a Willpower point |
    | 34 | ABORT_BLOCK_ROLL | interrupt | the attack is melee and can be met bare-handed or parried |
    | 35 | ABORT_BLOCK_WP | interrupt | as 34; a Willpower point |

    While clinched, only STRIKE and KICK (at +1 difficulty), CLINCH (breaking free)
    and BITE may be declared.

    ## Observation Space

    A `Dict` of float32 `Box`es (flat with `flat_observation=True`); pairs are
    [self, opponent].

    | key | shape | meaning |
    |---|---|---|
    | `phase` | 4 | one-hot: declare, modifiers, interrupt, delayed |
    | `initiative` | 2 | 1 for the side acting first, once both have declared and the rival's declaration is seen |
    | `score` | 2 | initiative rolled this turn, every Celerity dot unused |
    | `hp` | 2 | health levels left |
    | `hp_max` | 2 | health levels (7) |
    | `health` | 2x3 | levels of bashing, lethal, aggravated damage |
    | `wound_penalty` | 2 | dice lost to wounds |
    | `range` | 1 | metres between the two |
    | `turn` | 1 | current turn |
    | `willpower` | 2x2 | points, rating (a rival's unseen declaration not yet spent) |
    | `blood` | 2x3 | points, pool, spendable a turn (likewise) |
    | `traits` | 2x4 | vampire, Celerity, Fortitude, Potence |
    | `dots` | 2x10 | Strength, Dexterity, Stamina, Wits, Perception, Brawl, Dodge, Athletics, Melee, Firearms |
    | `weapon` | 2x17 | kind one-hot, bonus, damage, damage type one-hot, range, rate, clip, ammunition, burst, auto, jammed, dropped |
    | `armour` | 2x2 | rating, Dexterity penalty |
    | `condition` | 2x4 | clinched, aiming dice, off balance, delaying (a rival's only if its declaration is seen) |
    | `plan` | 2x22 | declared this turn: known, the plan one-hot, Celerity actions, Willpower; the rival's only if it declared first |
    | `incoming` | 4 | the attack met by an abort: melee, bashing, lethal, aggravated |

    ## Rewards

    +1 when the rival is out (incapacitated, unconscious, dead, in torpor, Final
    Death), -1 for the same against the learner; 0 when a side flees, both fall
    at once, or at the round cap.

    ## Starting State

    By scenario (`configs/vampiro/scenarios.yaml`): `alley` (a Brujah brawler and
    a Kevlar-clad hunter 5 m apart, default), `elysium` (a Ventrue swordsman and the
    Brujah at 2 m), `stakeout` (the hunter and a knife-wielding thug at 15 m).
    Vampires start with half their blood pool; guns with full clips. A scenario
    may give either side cover (`cover`: +1 to +3 difficulty to shots at it, §6);
    the shipped ones give none.

    ## Episode End

    Terminated when a side is out or flees. Truncated at the round cap
    (`round_cap`, 20 turns).

    ## Arguments

    - `opponent`: the `Policy` playing the other seat (`gymnasium.make` takes a
      policy name such as `"random"`, the default).
    - `scenario`: `"alley"` (default), `"elysium"`, `"stakeout"` or a `Scenario`.
    - `fighters`: two character ids of `configs/vampiro/characters.yaml`; default the scenario's.
    - `options`: dict of `VampiroOptions` fields (the edition flags and GM rulings
      of digest §10); `duelo systems` lists them.
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `illegal_limit`,
      `flat_observation`, `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements seed `004_28b7eda06dabcb9d.txt` as read by `rules/vampiro.md`: d10
    pools, specialties (a 10 twice, or rerolled: `specialty_mode`), unskilled
    Talents and Skills, botches (§3); Willpower's automatic success (§3, §10 #23,
    #26); initiative with wounds and unused Celerity, declarations in reverse
    order, actions in initiative order, extra actions at the end of the turn,
    simultaneous full ties, both rolling with the wounds they had when the exchange
    began (§4, §10 #11, #22, #29, #31); the attacks, Dodge,
    Block and Parry, aborts by Willpower (§5, §8.2, §10 #7, #8, #38, #40);
    multiple actions (§8.1); Celerity (§8.3, `celerity_cost`, `celerity_dice`);
    the walk beside an action (§6, §10 #15) as the option `walk_with_action`: a melee
    attack declared up to 7 m (less when wounded) beyond its reach walks in first. It is
    off by default, where §12's mask holds: a blow only within reach, and a Close is the
    whole action; the digest's two sections disagree, and the mask is what every
    policy and brain was built on;
    delays (§8.4);
    ranges, point blank and long range, cover, running by wound level, fleeing (§6,
    §9, §10 #24); damage, soak by damage and creature type, vampires halving
    bashing, the health track, overflow, torpor and Final Death (§7, §10 #10,
    #28), torpor for an Incapacitated vampire with no blood (§7); botches: jams,
    drops, off balance (§7, §10 #16); clinches and bites
    (§5, §10 #39); healing with blood (§10 #18, #36).

    Left out, and why:
    - Thrown weapons, hold, tackle, sweep, disarm, standing up and prone (§5):
      not in the digest's action mapping (§12), so no knockdown or prone arises.
    - Potence (§2): the digest gives it no effect.
    - Draining blood with a bite (§5): "may drain", with no rate given.
    - Group rules (§5, §13): a duel is one against one; fights of several a side are
      `duelo/VampiroSkirmish-v0`.
    - GM fiat (§10): situational difficulties, botch narratives, staking.

    ## Version History

    - v2: the rules review's fixes (issue 29): a full tie is simultaneous, both roll as
      they stood before either blow lands (§10 #11); an Incapacitated vampire with no
      blood falls into torpor (§7); two delayers released together act fastest first
      (§4); Willpower does not rescue an empty pool (§10 #13); a Celerity Close at
      touch range is lost (§10 #25); the option `walk_with_action` (§6, §10 #15).
    - v1: the rival's declaration is seen only by who declares after it (§12, §10 #30),
      with what would tell it (spent Willpower and blood, its delay, Phase 2's order);
      the option `public_declarations`; a duel the opponent ends before the learner's
      first decision is a one-step episode (`TAKE_RESULT`), and the opponent's
      generator is keyed (`opponent_key`).
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | Scenario = "alley",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: VampiroOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        super().__init__(VampiroRuleset(scenario, fighters, options), opponent, **env_options)
