"""`duelo/DunwichSkirmish-v0`: the Gymnasium face of Dunwich fights of several a side."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.dunwich.group import DunwichGroupRuleset
from duelo.envs.dunwich.group_setup import GroupOptions, GroupScenario
from duelo.envs.dunwich.setup import Character


class DunwichSkirmishEnv(DuelEnv):
    """Dunwich (D.R.S.) fights of several fighters a side on a 1-D arena (digest §13).

    ## Description

    Side A (one to three fighters) against side B (one to three) on a line with walls
    at both ends. Each combat turn opens with a sealed plan for every fighter at once
    (a bid of Advantage Points, or the escape task), hidden from allies too; then one
    order for everyone, by bid, INI and Lucha, ties rolled off. Each fighter's
    Initiative Turn comes in that order: every melee action is a pairing of two, and a
    target whose turn had not come loses it, so a slow fighter chosen by a fast one only
    reacts, and reacts again to every later pairing. A shot needs more than 5 m to every
    active opponent; a charge reaches any opponent under 7 m. The learner is one
    fighter (`learner_seat`, or drawn each episode); `opponent` plays every opponent and
    `ally` (default: `opponent`) every other fighter of its side, inside `step`.

    ## Action Space

    `Discrete(44)`; `action_masks()` and `info["action_mask"]` give the legal ones.
    E0-E2 are the opponent slots (rows `enemy0`-`enemy2`); a reaction answers the
    pairing's initiator (row `partner`); moves take the nearest active opponent as
    their reference (§13.8).

    | id | action | meaning |
    |---|---|---|
    | 0 | BID_0 | bid no Advantage Points for the initiative |
    | 1 | BID_1 | bid 1 Advantage Point for the initiative |
    | 2 | BID_2 | bid 2 Advantage Points for the initiative |
    | 3 | BID_3 | bid 3 Advantage Points for the initiative |
    | 4 | ESCAPE | try to escape by the arena's end (a task) |
    | 5 | ADVANCE | advance 7 m toward the nearest opponent (no action) |
    | 6 | RETREAT | fall back 7 m from the nearest opponent (no action) |
    | 7 | SPRINT | sprint away from the nearest opponent |
    | 8 | SPRINT_TOWARD | sprint toward the nearest opponent |
    | 9 | REACT_DANAR | react: Dañar back |
    | 10 | REACT_DEFEND | react: defend yourself |
    | 11 | REACT_DESPLAZAR | react: Desplazar them |
    | 12 | REACT_INCAPACITAR | react: Incapacitar them |
    | 13 | PUSH_0 | push them half your Físico in metres (no Advantage Points) |
    | 14 | PUSH_1 | push them 0.5 m further for 1 Advantage Point |
    | 15 | PUSH_2 | push them 1 m further for 2 Advantage Points |
    | 16 | PUSH_3 | push them 1.5 m further for 3 Advantage Points |
    | 17 | DANAR_E0 | Dañar: strike enemy 0 to harm |
    | 18 | DANAR_E1 | Dañar: strike enemy 1 to harm |
    | 19 | DANAR_E2 | Dañar: strike enemy 2 to harm |
    | 20 | DESPLAZAR_E0 | Desplazar: push enemy 0 back |
    | 21 | DESPLAZAR_E1 | Desplazar: push enemy 1 back |
    | 22 | DESPLAZAR_E2 | Desplazar: push enemy 2 back |
    | 23 | INCAPACITAR_E0 | Incapacitar: grapple enemy 0 to subdue |
    | 24 | INCAPACITAR_E1 | Incapacitar: grapple enemy 1 to subdue |
    | 25 | INCAPACITAR_E2 | Incapacitar: grapple enemy 2 to subdue |
    | 26 | POSITION_DANAR_E0 | win an advantageous position, then Dañar enemy 0 |
    | 27 | POSITION_DANAR_E1 | win an advantageous position, then Dañar enemy 1 |
    | 28 | POSITION_DANAR_E2 | win an advantageous position, then Dañar enemy 2 |
    | 29 | DANAR_RETREAT_E0 | Dañar enemy 0, then fall back |
    | 30 | DANAR_RETREAT_E1 | Dañar enemy 1, then fall back |
    | 31 | DANAR_RETREAT_E2 | Dañar enemy 2, then fall back |
    | 32 | DESPLAZAR_RETREAT_E0 | Desplazar enemy 0, then fall back |
    | 33 | DESPLAZAR_RETREAT_E1 | Desplazar enemy 1, then fall back |
    | 34 | DESPLAZAR_RETREAT_E2 | Desplazar enemy 2, then fall back |
    | 35 | INCAPACITAR_RETREAT_E0 | Incapacitar enemy 0, then fall back |
    | 36 | INCAPACITAR_RETREAT_E1 | Incapacitar enemy 1, then fall back |
    | 37 | INCAPACITAR_RETREAT_E2 | Incapacitar enemy 2, then fall back |
    | 38 | SHOOT_E0 | shoot enemy 0 (more than 5 m from every opponent) |
    | 39 | SHOOT_E1 | shoot enemy 1 (more than 5 m from every opponent) |
    | 40 | SHOOT_E2 | shoot enemy 2 (more than 5 m from every opponent) |
    | 41 | RETREAT_SHOOT_E0 | fall back 7 m, then shoot enemy 0 |
    | 42 | RETREAT_SHOOT_E1 | fall back 7 m, then shoot enemy 1 |
    | 43 | RETREAT_SHOOT_E2 | fall back 7 m, then shoot enemy 2 |

    ## Observation Space

    A `Dict` of float32 `Box`es (or one flat `Box` with `flat_observation=True`, the
    same values concatenated in this order). A key of 6 rows has one per fighter
    slot: self, ally1-ally2 (its side's others in slot order), enemy0-enemy2 (the
    other side's). An empty slot is zeros with `present` 0. Bounds are in
    `observation_space`; `duelo systems --verbose` prints every entry.

    | key | shape | meaning |
    |---|---|---|
    | `phase` | 4 | one-hot: plan, act, react, push |
    | `incoming` | 3 | the maneuver to react to, one-hot danar, desplazar, incapacitar |
    | `partner` | 6 | 1 for the other fighter of the pairing being resolved, by slot |
    | `turn` | 1 | current combat turn |
    | `arena` | 1 | the arena's length in metres |
    | `present` | 6 | 1 where a fighter holds the slot, by slot |
    | `status` | 6x3 | one-hot active, down, fled, by slot |
    | `initiative` | 6 | place in this turn's order, 1 = first; 0 until every plan is in, by slot |
    | `current` | 6 | 1 for the fighter deciding now, by slot |
    | `position` | 6 | metres from the left wall, by slot |
    | `offset` | 6 | position less the observer's, in metres, by slot |
    | `range` | 6 | metres from the observer, by slot |
    | `capacities` | 6x4 | Físico, Lucha, disparo, this turn's INI, by slot |
    | `pv` | 6 | Advantage Points, by slot |
    | `vitality` | 6x8 | 1 per crossed Vitality box, valued 1 2 2 3 3 4 5 6, by slot |
    | `hp` | 6 | Incapacitation boxes left before it is out, by slot |
    | `hp_max` | 6 | Incapacitation boxes of a human, by slot |
    | `arms` | 6x5 | melee dice, melee lethal, ranged dice, firearm, ballistic armour, by slot |
    | `flags` | 6x8 | acted, reacted, task, defend_only, engaged, bonus, bid, pairings, by slot |
    | `plan` | 6 | an ally's plan (team_shared_plan): bid + 1, 5 to escape, else 0, by slot |

    ## Rewards

    +1 to every fighter of the side that wins (every fighter of the other down or
    fled), -1 to every fighter of the other, whether still standing or not; 0 when
    every fighter of the side that went out escaped (unless `escape_is_loss`), or at
    the round cap. Illegal actions as in `DuelEnv`. After the fight `info["dying"]`
    says, by seat, who has five or more Vitality boxes crossed, never as reward.

    ## Starting State

    By scenario (`configs/dunwich/skirmishes.yaml`): `two_on_two` (a 12 m cellar),
    `three_on_three` (a 16 m dock, a gun behind each line), `outnumbered` (two against
    three thugs, crates to climb for a position) and `crossfire` (two guns against two
    blades, 16 m). The first plan step comes before the first decision.

    ## Episode End

    Terminated when a side has no active fighter; truncated at the round cap
    (`round_cap`, 40 combat turns).

    ## Arguments

    - `opponent`, `ally`: the policies of the opponents and of the learner's allies.
    - `scenario`: a skirmish id or a `GroupScenario`; `fighters`: a character id for
      every fighter, side A's first; `options`: `GroupOptions` fields (the duel's
      rulings and §13.9's: `reaction_penalty`, `gang_bonus`, `fire_into_melee`,
      `tie_break`, `team_shared_plan`).
    - `learner_seat`, `illegal_action`, `illegal_penalty`, `flat_observation`,
      `render_mode` (`"ansi"`): see `DuelEnv`.

    ## Rules

    Implements §13 of `rules/dunwich.md` over the duel's rules (see
    `duelo/Dunwich-v2`): everyone's own position on the line, fighters no obstacles
    and free to share a point, the charger landing 0.5 m short on its side, down and
    fled fighters ignored by every distance test and untargetable (§13.1); one order
    for everyone by bid, then INI (2 x Físico on a task), then Lucha, a full tie rolled
    off 1d6 in seat order and re-rolled among those still tied (`tie_break`), set
    after the plan step and kept for the turn; the next to act is the highest-ordered
    active fighter that has neither acted nor reacted (§13.2, S13-1); every melee
    action a pairing of an initiator and an opponent, only the target reacting, its
    maneuver applying to its initiator alone; a target whose Initiative Turn had not
    come loses it the first time, and reacts to every later pairing with the full list
    and full dice (`reaction_penalty`), no ally joining or adding dice (`gang_bonus`)
    (§13.3, S13-1, S13-2); a busy fighter (the escape task) answering every pairing
    with Defenderse only and without rerolls, still escaping at its Initiative Turn if
    standing (§13.3, §4 (e)); a shot only from more than 5 m of every active opponent,
    at any of them, allies not counting, no penalty for one engaged with an ally
    (`fire_into_melee`); a charge at any opponent under 7 m, measured when the turn
    arrives (§13.4, S13-2); a push straight away from the winner, only walls stopping
    it, from the same point toward the end with more room (§13.5); the plan step
    simultaneous and sealed from allies too (`team_shared_plan`), bids and tasks
    revealed at once, a fighter paying its bid iff some active opponent bid less
    (§13.6, S13-2); the end when a side has no active fighter, the team reward, a draw
    when all of the losers escaped (§13.7).

    Left out, and why:
    - `bodies_block` (§13.1 G2): fighters blocking charges and pushes need a charge
      path through bodies the digest does not define beyond "strictly between".
    - `pv_bid_scope = pairing` (§13.6 G6): bids that reorder only one pairing leave
      the turn's order undefined for everyone else.
    - `target_downed` (§13.1 G8): finishing blows on the downed change nothing of
      who wins, since a downed fighter is already out.
    - The duel's advance-then-shoot: where it may stop beyond 5 m of every opponent
      at once is no single rule with several opponents.
    - Chained actions by speed and other GM fiat (§4 item 7, §10), as in the duel.

    ## Version History

    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | GroupScenario = "three_on_three",
        fighters: tuple[str | Character, ...] | None = None,
        options: GroupOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        ruleset = DunwichGroupRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)
