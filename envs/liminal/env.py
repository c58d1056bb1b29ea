"""`duelo/Liminal-v2` and `duelo/LiminalMob-v2`: the Gymnasium faces of Liminal."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.liminal.mob import LiminalMobRuleset, MobScenario
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import Character, LiminalOptions, Scenario


class LiminalEnv(DuelEnv):
    """One-on-one fights of *Liminal*, a 2d6 urban-fantasy system (seed 001).

    ## Description

    Quick and deadly: every roll is 2d6 + skill against a Challenge Level of 8 +
    the rival's skill (a tie succeeds, CL + 5 is a critical, an unskilled roller
    faces +2). One side rolls Perception at the start; whoever wins acts first
    in every round. Each turn is one `step`: a free move on the distance track
    (0 adjacent, 1 near, 2-3 medium, 4-5 far, 6 gone) with the turn's action
    (melee, shoot, defensive stance, demand surrender), or a fast move, or
    recovering a dropped weapon. A critical is its own decision: +1d6, act first
    from the next round, or disarm (after an attack); perfect cover or withdraw
    (after a defensive stance). Weapons deal 1d6 + 1..4 to Endurance (8 +
    Athletics); at 0 a fighter is down. Drawing a carried weapon is free, once a
    round, and automatic when the chosen attack needs it.

    ## Action Space

    `Discrete(25)`, masked (`action_masks()`, `info["action_mask"]`):

    | id | action | mask |
    |---|---|---|
    | 0 | HOLD | main or bonus phase |
    | 1 | HOLD_MELEE | adjacent; the rival not in perfect cover |
    | 2 | HOLD_SHOOT | a ranged weapon usable at the band, held or drawable this round; no perfect cover |
    | 3 | HOLD_DEFEND | always: Athletics at 8, damage halved until the own next turn |
    | 4 | HOLD_SOCIAL | distance <= 3 (option `social_action`): surrender if at half Endurance, else shaken |
    | 5 | ADVANCE | distance > 0, free move unspent: one step in |
    | 6 | ADVANCE_MELEE | as HOLD_MELEE, one step closer |
    | 7 | ADVANCE_SHOOT | as HOLD_SHOOT, one step closer |
    | 8 | ADVANCE_DEFEND | one step closer, then the stance |
    | 9 | ADVANCE_SOCIAL | as HOLD_SOCIAL, one step closer |
    | 10 | RETREAT | free move unspent: one step back (at far, out: a withdrawal) |
    | 11 | RETREAT_MELEE | never legal (retreating leaves melee reach) |
    | 12 | RETREAT_SHOOT | as HOLD_SHOOT, one step back |
    | 13 | RETREAT_DEFEND | one step back, then the stance |
    | 14 | RETREAT_SOCIAL | as HOLD_SOCIAL, one step back |
    | 15 | RECOVER | disarmed, main phase: the weapon back; Athletics at 12 gives a bonus action |
    | 16 | FAST_ADVANCE | distance > 0: two steps in (one if the Athletics test fails, when engaged) |
    | 17 | FAST_RETREAT | two steps back (one on a failed test); out past far withdraws |
    | 18 | CRIT_DAMAGE | attack critical: +1d6 damage |
    | 19 | CRIT_ACT_FIRST | attack critical, not already first: act first from the next round |
    | 20 | CRIT_DISARM | attack critical, the rival holds a weapon: it drops |
    | 21 | CRIT_DRAW_ATTACKS | never legal (needs a third combatant) |
    | 22 | DEFEND_PERFECT_COVER | stance critical: no attack reaches you until your next turn |
    | 23 | DEFEND_WITHDRAW | stance critical: leave the fight |
    | 24 | DEFEND_ALLY_WITHDRAWS | never legal (needs an ally) |

    ## Observation Space

    A `Dict` of float32 `Box`es (flat with `flat_observation=True`); pairs are
    [self, opponent], and nothing is hidden (a GM-run duel has no secrets, §10 #20).

    | key | shape | meaning |
    |---|---|---|
    | `initiative` | 2 | 1 for the side acting first this round |
    | `hp` | 2 | Endurance left, floored at 0 |
    | `hp_max` | 2 | Endurance at the start |
    | `range` | 1 | distance track: 0 adjacent, 1 near, 2-3 medium, 4-5 far |
    | `band` | 4 | one-hot: adjacent, near, medium, far |
    | `round` | 1 | current round |
    | `phase` | 4 | one-hot: main, attack critical, defence critical, bonus action |
    | `turn` | 3 | own turn: deciding now, free move spent, free draw spent |
    | `skills` | 2x6 | melee, shoot, athletics, perception, social, conviction |
    | `traits` | 2x2 | melee damage bonus, defence bonus |
    | `held` | 2x9 | weapon in hand: present, melee, damage bonus, usable adjacent/near/medium/far, adjacent penalty, melee tier |
    | `spare` | 2x9 | the other weapon carried, same features |
    | `status` | 2x9 | disarmed, defending, perfect cover, in cover, high ground, unseen, shaken, acted this round, first from the next round |

    ## Rewards

    +1 when the rival is down or surrenders, -1 for the same against the learner;
    +0.5 when the rival withdraws and -0.5 for withdrawing (option
    `withdraw_stake`, digest §12); 0 at the round cap.

    ## Starting State

    By scenario (`configs/liminal/scenarios.yaml`): `standoff` (gunman against
    duelist at medium range), `brawl` (adjacent), `street` (near), `long_shot`
    (far). Weapons: the first listed in hand. Initiative is rolled before `reset`
    returns; if the opponent acts first, its turn is played.

    ## Episode End

    Terminated when a fighter is down, surrenders or withdraws. Truncated at
    the round cap (`round_cap`, 30).

    ## Arguments

    - `opponent`: the `Policy` playing the other seat (`gymnasium.make` takes a
      policy name such as `"random"`, the default).
    - `scenario`: `"standoff"` (default), `"brawl"`, `"street"`, `"long_shot"` or a `Scenario`.
    - `fighters`: two character ids of `configs/liminal/characters.yaml`; default the scenario's.
    - `options`: dict of `LiminalOptions` fields (initiative mode, critical choice,
      better-weapon rule, social action, surrender threshold, unskilled criticals,
      strength talents, withdrawal stake, round cap); `duelo systems` lists them.
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `illegal_limit`,
      `flat_observation`, `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements seed `001_3a3a9868b83ae6e2.txt` as read by `rules/liminal.md`: the
    2d6 test with opposed CLs, ties to the roller, criticals at CL + 5 and the
    unskilled +2 (§3); initiative by the roller's Perception test, randomised
    roller (§4, §10 #7, option `initiative_mode`); the round with free shout,
    free automatic draw, free move and one action (§4); the half-band distance
    track (§6); melee and ranged attacks with their CLs and the +-2 modifiers for
    cover, high ground, unseen targets, a better weapon and a pistol fired
    adjacent, the same advantage on both sides cancelling (§5, §8, seed L67); damage 1d6 + weapon + strength talent, unarmed non-lethal
    (§7, §9); the three attack criticals and the stance criticals, chosen as
    decisions (§7; under `crit_choice="fixed"` the digest's preference, §10 #18, and
    a stance's critical always perfect cover, never the withdrawal); a second disarm
    dropping a second weapon, the first of the loadout recovered first (ASSUMPTION);
    the defensive stance; the fast move and its Athletics test (§10 #11); recovering
    a dropped weapon with the quick grab and its bonus action (§5, §10 #12); the
    social test (§10 #14); withdrawal (§9); the round cap. The preset stat blocks
    hold §10 #4's skills and no others.

    Left out, and why:
    - Mobs (turbas, §8): not in this env; a hero against a mob is `duelo/LiminalMob-v2`.
    - The move after the action (§10 #9, option `allow_move_after_action`): the free
      move comes before the action, which keeps the action space small; not built.
    - Hidden opponent stats (§10 #20, option `hide_opponent_stats`): a GM-run duel
      hides nothing, and the observation shows both sides whole; not built.
    - Surprise (§4): an optional scenario rule, not in the shipped scenarios.
    - Thrown weapons (`thrown_uses`, §10): not in any default loadout.
    - "Become an enemy's next target" and "let an ally withdraw" (§7): they need a
      third combatant; always masked.
    - Will, snake eyes and failure complications (§10 #16, #19): GM fiat, off.
    - Picking a target out of a tight group (§8): no groups in a duel.

    ## Version History

    - v2: the rules review's fixes: a second disarm no longer gives back the first
      weapon; the same modifier on both sides cancels (high ground, darkness); the
      preset stat blocks lose the skills §10 #4 does not give them.
    - v1: a duel the opponent ends before the learner's first decision is an episode
      of one step whose only legal action, `TAKE_RESULT`, takes its result (it was
      dealt again, which scored the learner above a tournament); the opponent's
      generator is keyed (`opponent_key`), and the seats' in tournaments are a one-way
      hash of the duel seed.
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | Scenario = "standoff",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: LiminalOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        super().__init__(LiminalRuleset(scenario, fighters, options), opponent, **env_options)


_DUEL_DOC = LiminalEnv.__doc__ or ""
_ACTIONS = _DUEL_DOC[
    _DUEL_DOC.index("    | id | action | mask |") : _DUEL_DOC.index("    ## Observation")
]
_KEYS = _DUEL_DOC[
    _DUEL_DOC.index("    | key | shape | meaning |") : _DUEL_DOC.index("    ## Rewards")
]


class LiminalMobEnv(DuelEnv):
    __doc__ = f"""A Liminal hero (seat 0) against a mob (turba, seat 1): digest §8, §12.

    ## Description

    A group of unskilled people, dangerous because there are many: one attack a
    round at a level of 1 per 2 members standing (at most 3), 1d6 damage (1d6+1
    armed), and 3 Endurance a member, damage spilling from one to the next. The
    hero fights as in `duelo/Liminal-v2`; the mob only moves, fast-moves and
    strikes in melee, defends and tests at skill 0, takes +1d6 on its criticals,
    and breaks to a demand to surrender once half its members are down. The
    learner may play either side (`learner_seat`).

    ## Action Space

    `Discrete(25)`, the duel's, masked; the mob's mask allows only HOLD,
    HOLD_MELEE, ADVANCE, ADVANCE_MELEE and FAST_ADVANCE (a mob never retreats
    unless broken, §12, and a broken mob ends the fight), and the hero's never
    CRIT_DISARM:

{_ACTIONS}
    ## Observation Space

    The duel's keys (the mob's skills row shows its attack level as melee), and
    `mob`:

{_KEYS}    | `mob` | 5 | the mob: members at the start, standing, the front member's Endurance, its attack level, armed |

    ## Rewards

    +1 to the hero when the mob is down or breaks, -1 when the hero is down (and
    the reverse for the mob); a withdrawal is worth `withdraw_stake` (0.5); 0 at
    the round cap.

    ## Starting State

    By scenario (`configs/liminal/mobs.yaml`): `street_gang` (a gunman and eight
    unarmed gang members, near), `back_alley` (a duelist and ten locals with
    clubs and bottles, near). The hero rolls Perception against the mob's 0
    for initiative.

    ## Episode End

    Terminated when the hero or the whole mob is down, the mob breaks, or the
    hero withdraws; truncated at the round cap (30). The final `info` holds
    `members_downed` (members down at the end) and `members_saved`: when the
    hero won and has Medicine, it rolls 2d6 + Medicine once after the fight and
    saves one downed member per point above 8 (seed L87-88, §8; a statistic,
    never reward).

    ## Arguments

    - `opponent`: the policy playing the other seat (a name for `gymnasium.make`).
    - `scenario`: `"street_gang"` (default), `"back_alley"` or a `MobScenario`.
    - `hero`: a character id of `configs/liminal/characters.yaml`; default the scenario's.
    - `options`: dict of `LiminalOptions` fields, as in `duelo/Liminal-v2`.
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `illegal_limit`,
      `flat_observation`, `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements seed `001_3a3a9868b83ae6e2.txt` ("Turbas") as read by
    `rules/liminal.md` §8: the grouped attack and its level, damage that spills
    from member to member (a pool of 3 x members), skill 0 for everything else,
    the mob's +1d6 criticals, breaking at half strength, a mob that never
    retreats (§12), the +2 of a blade against an unarmed mob, and saving downed
    members with Medicine after a fight the hero won (§8; ASSUMPTION: a healer
    standing at the end, §13.6; a fight cut at the round cap has no aftermath
    roll); the rest is the duel's rules.

    Left out, and why:
    - Several heroes and split mobs, a ringleader with a real weapon (§8, §12):
      they need more than two sides.

    ## Version History

    - v2: the rules review's fixes: the mob never retreats; `members_downed` and
      `members_saved` in the final `info`; the duel's v2 fixes.
    - v1: a duel the opponent ends before the learner's first decision is an episode
      of one step whose only legal action, `TAKE_RESULT`, takes its result (it was
      dealt again, which scored the learner above a tournament); the opponent's
      generator is keyed (`opponent_key`), and the seats' in tournaments are a one-way
      hash of the duel seed.
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | MobScenario = "street_gang",
        hero: str | Character | None = None,
        options: LiminalOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        super().__init__(LiminalMobRuleset(scenario, hero, options), opponent, **env_options)
