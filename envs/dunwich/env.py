"""`duelo/Dunwich-v2`: the Gymnasium face of Estirpe de Dunwich."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.dunwich.setup import Character, DunwichOptions, Scenario


class DunwichEnv(DuelEnv):
    """One-on-one fights of *Estirpe de Dunwich* (D.R.S.), a d6-pool noir system (seed 003).

    ## Description

    Melee is a pairing settled by one opposed Lucha check (pools of d6: a 5 is
    one success, a 6 two; more successes wins, a tie does nothing). Each
    combat turn opens with a sealed plan: when a pairing is in reach, both
    sides bid Advantage Points to act first (the higher bid pays and wins;
    equal bids keep the INI order), or commit to escaping. Then each side's
    Initiative Turn comes in order: charge or strike with a maneuver (Dañar,
    Desplazar, Incapacitar) and perhaps fall back after it, shoot from more
    than 5 m with a move before it, move 7 m, sprint either way, or win an
    advantageous position and strike. The target of a maneuver reacts (Dañar, Defenderse with
    rerolls, Desplazar, Incapacitar) and, if its turn had not come, loses it:
    initiative is worth a whole turn. Damage dice cross boxes of the Vitality
    register [1 2 2 3 3 4 5 6]; each even box crossed (and each even
    Non-Lethal die) adds an Incapacitation box, and at 4 a side is out.
    Pushes carry a side along the 1-D arena and into its walls.

    ## Action Space

    `Discrete(27)`, masked (`action_masks()`, `info["action_mask"]`):

    | id | action | phase | mask |
    |---|---|---|---|
    | 0 | BID_0 | plan | always (the turn's plan: no bid) |
    | 1 | BID_1 | plan | PV >= 1 and a pairing in reach (the two under 7 m apart): bid 1 Advantage Point to act first |
    | 2 | BID_2 | plan | as BID_1, PV >= 2 |
    | 3 | BID_3 | plan | as BID_1, PV >= 3 |
    | 4 | ESCAPE | plan | within 1 m of the wall at one's back, the rival more than 7 m away |
    | 5 | DANAR | act | rival under 7 m (within 1.5 m, or a charge) |
    | 6 | DESPLAZAR | act | as DANAR; the rival >= 1 m from the wall at its back |
    | 7 | INCAPACITAR | act | as DANAR (-1 die; a win makes a knockout roll) |
    | 8 | POSITION_DANAR | act | not engaged when the turn began; rival under 7 m; the scenario's `advantageous_position` |
    | 9 | DANAR_RETREAT | act | as DANAR, then the rest of the 7 m away |
    | 10 | DESPLAZAR_RETREAT | act | as DESPLAZAR, then the rest of the 7 m away |
    | 11 | INCAPACITAR_RETREAT | act | as INCAPACITAR, then the rest of the 7 m away |
    | 12 | SHOOT | act | a ranged weapon; rival more than 5 m away |
    | 13 | ADVANCE_SHOOT | act | as SHOOT, rival more than 5.5 m away: up to 7 m closer, staying beyond 5 m, then the shot |
    | 14 | RETREAT_SHOOT | act | as SHOOT: 7 m back, then the shot |
    | 15 | ADVANCE | act | rival more than 0.5 m away: 7 m toward it, stopping 0.5 m short |
    | 16 | RETREAT | act | always: 7 m back, stopping at the wall |
    | 17 | SPRINT | act | always: 11 m + 1 m per extra success of Físico back |
    | 18 | SPRINT_TOWARD | act | as ADVANCE: 11 m + 1 m per extra success toward the rival |
    | 19 | REACT_DANAR | react | not Defenderse-only (a failed advantageous position) |
    | 20 | REACT_DEFEND | react | always (rerolls up to Lucha failed dice) |
    | 21 | REACT_DESPLAZAR | react | as REACT_DANAR; the initiator >= 1 m from the wall at its back |
    | 22 | REACT_INCAPACITAR | react | as REACT_DANAR; not against INCAPACITAR |
    | 23 | PUSH_0 | push | the winner of a Desplazar holding PV: spend none (D = ceil(Físico / 2) m) |
    | 24 | PUSH_1 | push | PV >= 1: spend one, +0.5 m |
    | 25 | PUSH_2 | push | PV >= 2: spend two, +1 m |
    | 26 | PUSH_3 | push | PV >= 3: spend three, +1.5 m |

    ## Observation Space

    A `Dict` of float32 `Box`es (flat with `flat_observation=True`); pairs are
    [self, opponent]. Everything is shown but the rival's sealed plan: its bid
    and escape task appear only once both plans are in.

    | key | shape | meaning |
    |---|---|---|
    | `phase` | 4 | one-hot: plan, act, react, push |
    | `incoming` | 3 | the maneuver to react to, one-hot Dañar, Desplazar, Incapacitar |
    | `initiative` | 2 | 1 for the side acting first this turn, once ordered |
    | `turn` | 1 | current combat turn |
    | `position` | 2 | metres from the left wall |
    | `range` | 1 | metres between the two |
    | `behind` | 2 | metres to the wall at each one's back |
    | `capacities` | 2x4 | Físico, Lucha, disparo, this turn's INI |
    | `pv` | 2 | Advantage Points |
    | `vitality` | 2x8 | 1 per crossed Vitality box, valued 1 2 2 3 3 4 5 6 |
    | `hp` | 2 | Incapacitation boxes left before the side is out |
    | `hp_max` | 2 | Incapacitation boxes of a human (4) |
    | `arms` | 2x5 | melee dice, melee lethal, ranged dice, firearm, ballistic armour |
    | `status` | 2x7 | this turn: acted, reacted, escape task, Defenderse only, engaged at the start of its Initiative Turn, bonus successes, bid |

    ## Rewards

    +1 when the rival is incapacitated or dead, -1 for the same against the
    learner; 0 for an escape (option `escape_is_loss` makes it -1 for the one
    who fled) and at the round cap.

    ## Starting State

    By scenario (`configs/dunwich/scenarios.yaml`): `back_alley` (a bruiser and
    a cultist 6 m apart, default), `warehouse` (already at blows by a wall),
    `crossfire` (a pistol against a knife, 8 m apart), `rooftop` (a 6 m
    arena). The first combat turn's plan is the first decision.

    ## Episode End

    Terminated when a side is incapacitated or dead, or escapes. Truncated at
    the round cap (`round_cap`, 40 combat turns). The final `info` holds
    `dying`, by seat: five or more Vitality boxes crossed, not dead (§9).

    ## Arguments

    - `opponent`: the `Policy` playing the other seat (`gymnasium.make` takes a
      policy name such as `"random"`, the default).
    - `scenario`: `"back_alley"` (default), `"warehouse"`, `"crossfire"`, `"rooftop"` or a `Scenario`.
    - `fighters`: two character ids of `configs/dunwich/characters.yaml`; default the scenario's.
    - `options`: dict of `DunwichOptions` fields (banked extra successes, margin
      dice, the pusher following, the wound penalty, an escape as a loss, the
      round cap); `duelo systems` lists them.
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `illegal_limit`,
      `flat_observation`, `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements seed `003_e7f5011670d1317a.txt` as read by `rules/dunwich.md`:
    d6 pools with 5 = 1 and 6 = 2 successes, opposed checks where a tie does
    nothing (§3); the combat turn with its sealed Advantage Point bids of 0..3,
    open only when a pairing is in reach ("en un emparejamiento": the two under
    7 m apart, ASSUMPTION), the escape task committed with them, the INI order
    (Físico + Lucha; 2 x Físico on a task; ties by Lucha, then a roll) and
    reactions that cost a slower target its turn (§4, §8.1, §10 #1, #7, #23);
    moving 7 m with the action before or after it (a charge, a strike then
    the rest of the 7 m away, a move then a shot), sprinting either way with a
    Físico check, shooting from more than 5 m (an unopposed disparo check),
    charging from under 7 m (§4 (a)-(d), §6, §10 #14); the four maneuvers with
    the reactions each allows, Incapacitar's -1 die, Defenderse's rerolls of
    failed dice (§5, §10 #28); Desplazar's distance, the PV its winner chooses
    to spend once it has won (0..PV), and wall impacts (§8.2, §10 #16, #26);
    lethal and Non-Lethal damage, the knockout roll, ballistic armour, the
    wound penalty (§7, §10 #10-#13, #30); advantageous positions where the
    scenario allows them (§8.3, §10 #21, #25, #29; only `back_alley` does); the
    end, and who is dying after it, in `info` (§9).

    Left out, and why:
    - Chained actions by speed (§4 item 7) and hazards (§8.2 step 7): GM fiat.
    - The choice to push less than the full distance (§10 #22,
      `push_choose_distance`): on a 1-D arena a shorter push only spares the
      loser a wall, so the default's full push is kept and the flag is not offered.
    - Disarm, pin and hold under Incapacitar (§8.5): narrative; the knockout roll
      is the maneuver's one effect.
    - Surrender (§5): a simulator action the digest makes optional; under these
      rewards it is never better than fighting on.
    - The dying check each turn after the fight (§7, V13) and stabilising a
      dying side: they come after the duel (and stabilising needs a third
      character); the env reports who is dying.
    - A task's Defenderse-only reactions without rerolls (§4 item 3 (e)): the
      one task of a duel, escaping, starts more than 7 m from the rival, beyond
      any melee that turn, so the rule never applies (a shot may still come).
    - Moving after a shot: a shot is unopposed and its odds do not depend on
      the range, so a move after it is the same as the move before it (kept:
      ADVANCE_SHOOT, RETREAT_SHOOT). A move before a maneuver is the charge.

    ## Version History

    - v2: the rules review's fixes: no dying check inside the duel (`info`
      reports who is dying); a push's winner spends 0..PV once it has won, and
      bids reach 3; advantageous positions only where a scenario allows them;
      strike then fall back, move then shoot, sprint toward the rival; bids only
      when a pairing is in reach. Actions renumbered (`Discrete(27)`).
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
        scenario: str | Scenario = "back_alley",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: DunwichOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        super().__init__(DunwichRuleset(scenario, fighters, options), opponent, **env_options)
