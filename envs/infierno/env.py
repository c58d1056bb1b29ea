"""`duelo/Infierno-v2`: the Gymnasium face of the Infierno de Cobardes ruleset."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import Character, InfiernoOptions, Scenario


class InfiernoEnv(DuelEnv):
    """Wild West duels of *Infierno de Cobardes*, a d20-derived system.

    ## Description

    Two fighters face each other on a one-dimensional street (distance in 1.5 m
    squares). In the formal duel they stare each other down (opposed Intimidate),
    draw (initiative with weapon draw modifiers) and shoot until one bites the
    dust, is knocked out, surrenders or flees. Attacks are 1d20 + Attack against
    Defense; natural 1s fumble or jam, natural 20s threaten criticals, and
    beating Defense by 10 (less for keen weapons, more against armour) is a
    critical with five possible effects. Each `step` is one decision of the
    learner's turn (draw, shoot, move, take cover...): a turn is one standard
    plus one move action, or one full-round action, plus a 1.5 m step and free
    actions, ending on `END_TURN` or when the budget runs out. The opponent
    policy plays its turns inside `step`.

    ## Action Space

    `Discrete(29)`; `action_masks()` and `info["action_mask"]` give the legal ones.

    | id | action | cost and precondition |
    |---|---|---|
    | 0 | END_TURN | ends the turn; unused actions are lost |
    | 1 | ATTACK_MAIN | standard; main-hand weapon usable at this range (firearm: loaded, not jammed) |
    | 2 | ATTACK_UNARMED | standard; adjacent (1d3 + Str nonlethal) |
    | 3 | PISTOL_WHIP | standard; adjacent, firearm in hand (pistol-whip or rifle butt) |
    | 4 | THROW_MAIN | standard; throwable weapon in hand, within 5 increments, not prone |
    | 5 | TWO_WEAPON_ATTACK | full-round; two one-handed weapons in hand, both usable |
    | 6 | DRAW_PRIMARY | move (free with Quick Draw); primary holstered, hands free |
    | 7 | DRAW_SECONDARY | move (free with Quick Draw); secondary holstered, hands free |
    | 8 | HOLSTER_MAIN | move; a weapon in the main hand |
    | 9 | ADVANCE | move; 6 squares closer (not past adjacent); not prone, no step taken |
    | 10 | RETREAT | move; 6 squares back; at the arena edge it is flight (a loss) |
    | 11 | STEP_IN | the 1.5 m step; only if no other distance moved this turn |
    | 12 | STEP_OUT | the 1.5 m step back |
    | 13 | RUN_IN | full-round; 24 squares closer |
    | 14 | RUN_OUT | full-round; 24 squares back; at the arena edge it is flight |
    | 15 | TAKE_COVER | move; cover nearby, not adjacent: +4 Defense until moving |
    | 16 | CLEAR_JAM | standard; Craft (Mechanics) DC 15 on a jammed weapon in hand |
    | 17 | RELOAD | full-round; a firearm in hand below capacity (ammo tracked) |
    | 18 | FEINT | standard; adjacent; Deceive vs Attention: next attack is a sneak attack |
    | 19 | PRONE_TOGGLE | drop prone (free) or stand up (move) |
    | 20 | DELAY | start of turn, acting first this round: act after the opponent from now on |
    | 21 | SURRENDER | free; the duel is lost |
    | 22 | SETTLE | after a round-1 double miss in a formal duel: let it go |
    | 23 | INSIST | after a round-1 double miss: honour demands a repeat |
    | 24 | CRIT_MULTIPLY | crit choice (option `crit_choice="agent"`): C1, weapon multiplier |
    | 25 | CRIT_MAXIMUM | C2, maximum damage |
    | 26 | CRIT_IGNORE_RD | C3, normal damage ignoring RD (only against RD > 0) |
    | 27 | CRIT_SEQUEL | C4, normal damage plus a moderate Sequel (-2) |
    | 28 | CRIT_LETHAL | C5, nonlethal damage applied as lethal (only for nonlethal attacks) |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`,
    the same values concatenated in this order). Pairs are [self, opponent].

    | key | shape | meaning |
    |---|---|---|
    | `initiative` | 2 | initiative totals; 0 before rolling |
    | `initiative_rolled` | 2 | 1 once the initiative is rolled (a total may be 0) |
    | `acts_first` | 1 | 1 if this seat acts first each round |
    | `hp` | 2 | lethal hit points left, floored at 0 |
    | `hp_max` | 2 | maximum hit points |
    | `nonlethal` | 2 | nonlethal damage taken |
    | `sequels` | 2 | moderate Sequels (-2 each) |
    | `range` | 1 | distance in 1.5 m squares (1 = adjacent) |
    | `round` | 1 | current round (0 = surprise round) |
    | `phase` | 4 | one-hot: surprise, round, both-miss decision, crit choice |
    | `budget` | 5 | own turn left: standard, move, full-round, step, nothing done yet |
    | `status` | 2x11 | flat-footed, stunned, prone, cover, cover nearby, lost staredown, cowed, feint ready, Uncanny Dodge, Quick Draw, Two-Weapon Fighting |
    | `stats` | 2x13 | melee and ranged attack, Defense, Dodge, RD, Init, Str, Dex, Reflex, Craft, Intimidate, Deceive, Attention |
    | `main_hand` | 2x12 | weapon features: present, firearm, throwable, two-handed, mean damage, crit threshold, increment, max range, ammo, capacity, jammed, reliability |
    | `off_hand` | 2x12 | the same for the off hand |
    | `holstered` | 2x2 | primary and secondary still holstered (the opponent's: only weapons it has drawn) |
    | `loadout` | 2x2x12 | primary and secondary weapon features wherever they are (thrown: zeros); of the opponent's, only weapons it has drawn: one never drawn stays hidden |
    | `lighting` | 3 | one-hot: clear, partial concealment, total concealment |
    | `duel_repeats` | 1 | times the formal duel was repeated |

    Bounds are in `observation_space`; `duelo systems` prints them.

    ## Rewards

    +1 when the opponent is out (hp <= 0 or nonlethal >= hp), surrenders or
    flees; -1 for the same against the learner; 0 for a settled duel and for
    truncation. An illegal action is a no-op rewarded `-illegal_penalty` (the
    episode is truncated after `illegal_limit` of them in a row), or raises
    `IllegalActionError` with `illegal_action="raise"`.

    ## Starting State

    By scenario (`configs/infierno/scenarios.yaml`): `formal_duel` at 15 m,
    weapons holstered, staredown and initiative rolled; `brawl` at 1-4 squares,
    initiative rolled; `ambush` with a surprise round for side A, weapon drawn.
    If the opponent acts first, its turn is played before `reset` returns.

    ## Episode End

    Terminated when a fighter is out, surrenders or flees, or both duelists
    settle after a double miss. Truncated at the round cap (`round_cap`, 20).

    ## Arguments

    - `opponent`: the `Policy` playing the other seat (`gymnasium.make` takes a
      policy name such as `"random"`, the default).
    - `scenario`: `"formal_duel"` (default), `"brawl"`, `"ambush"` or a `Scenario`.
    - `fighters`: two character ids of `configs/infierno/characters.yaml` (or
      `Character`s); default the scenario's.
    - `options`: dict of `InfiernoOptions` fields, the GM rulings where the seed is
      silent (staredown reading, both-miss handling, crit choice and mode, stun
      duration, ammo, prone, lighting, the range penalty at exactly one increment,
      round cap...); `duelo systems` lists them with their defaults.
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Not the seed's, and on by default: dropping prone and its modifiers are the
    digest's d20 values (§10.2), which the seed does not have; they change the
    formal duel a lot (300 duels of the expert against itself last 2.7 rounds on
    average with prone, 1.9 without). `options={"allow_prone": False}` plays
    without them.

    Implements seed `000_21e506418ba0c894.txt` as read by `rules/infierno.md`:
    flat-footed and surprise (§4), initiative with draw modifiers and the
    Dexterity tie-break (§4), the action economy and the 1.5 m step (§4, §5),
    melee, ranged and thrown attacks with range increments (§6), natural 1 and
    20, criticals with margin, crit range, RD, confirmation and all five
    effects (§7), fumbles, jams and clearing them (§7), damage with the
    Strength rules and minimum 1, nonlethal damage and KO (§7, §9), partial
    cover and concealment (§8.4, §8.5), sneak attacks and feints (§8.2), the
    duel opening with staredown, cowing, draw, shootout and both-miss decision
    (§8.1), surrender and flight (§9), two-weapon fighting, prone, delay.

    Readings where the seed is ambiguous (each an option, the digest's the default):
    the range penalty at exactly one increment (`range_increments`: "digest", no
    penalty, or "literal", -2: every opening shot of the formal duel at 15 m).
    Both duelists' honour choices after a double miss are told when both are in.
    A weapon in the off hand takes the lead when the main-hand one is thrown.

    Left out, and why:
    - Flanking and firing into melee (§8.6): they need a third combatant; they are
      played in `duelo/InfiernoSkirmish-v0` (§13).
    - Total cover (duck/peek, §5): off by default in the digest, it only stalls duels.
    - Dropping and picking up items (§5): the 1-D duel has no map to drop them on
      and §12 leaves them out of the action set; thrown weapons are gone.
    - Action Points (§10.2): the seed only names them; off by default.
    - Death at -10 (§9): a statistic only; "down" already ends the duel.
    - Non-proficiency and minimum Strength penalties, GM circumstantial
      modifiers and "something unexpected" sneak attacks (§10.4): GM fiat, off.
    - Mid-fight arrivals and group initiative (§4): duels have two fighters (both
      are played in `duelo/InfiernoSkirmish-v0`).

    ## Version History

    - v2: a duel the opponent ends before the learner's first decision is an episode
      of one step whose only legal action, `TAKE_RESULT`, takes its result (it was
      dealt again, which scored the learner above a tournament); the opponent's
      generator is keyed (`opponent_key`), and the seats' in tournaments are a one-way
      hash of the duel seed.
    - v1: the opponent's holstered weapons show only once drawn; `initiative_rolled`;
      the off-hand weapon takes the lead after a throw; honour choices told together;
      the `range_increments` option.
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | Scenario = "formal_duel",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: InfiernoOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        super().__init__(InfiernoRuleset(scenario, fighters, options), opponent, **env_options)
