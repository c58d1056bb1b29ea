"""`duelo/Esgrima-v2` and `duelo/EsgrimaDuel-v2`: the Gymnasium faces of esgrima."""

from __future__ import annotations

from typing import Any

from duelo.envs.core.duel_env import DuelEnv
from duelo.envs.core.policy import Policy
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.envs.esgrima.mechanics import Card
from duelo.envs.esgrima.setup import Character, EsgrimaOptions, Layout
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset


class EsgrimaEnv(DuelEnv):
    """Skirmish combat of the unnamed 2d6 swashbuckling system (seed 002).

    ## Description

    Two combatants on a line of zones (same zone Adjacent, next zone Near,
    further Far) with terrain objects for cover, hiding and one-use tricks.
    Each turn is exactly two Actions, one `step` each: move, attack (melee,
    shot, throw), evade, draw, reload, focus, locate, suppressive fire, take
    cover, hide, use the terrain, pass. Tests roll 2d6 (3d6 with Advantage,
    1d6 with Disadvantage) and succeed with one die at or under the rating.
    Hits deal a fixed 1 or 2 PG through armour that soaks and deteriorates.

    ## Action Space

    `Discrete(21)`, masked (`action_masks()`, `info["action_mask"]`):

    | id | action | mask |
    |---|---|---|
    | 0 | MOVE_TOWARD | not Adjacent; the boundary ahead is not blocked |
    | 1 | MOVE_AWAY | open room behind, or Far at the map edge (then it is flight, a loss) |
    | 2 | RELOCATE_NEAR | Near, the zone beyond the opponent exists, no blocked boundary between |
    | 3 | MELEE_ATTACK | melee weapon in hand in reach (heavy also Near, with Disadvantage) |
    | 4 | SHOT | ranged weapon in hand and loaded, band in reach |
    | 5 | THROW_WEAPON | light melee weapon in hand: thrown as a light missile, then lost |
    | 6 | EVADE | not in heavy armour without a shield |
    | 7 | DRAW_WEAPON | another weapon not lost (the next in the loadout) |
    | 8 | RELOAD | unloaded heavy ranged weapon (Técnica Test; a failure makes the next Reload automatic) |
    | 9 | FOCALIZAR | always: initiative +1d6 and Foco (Advantage) for the next Action |
    | 10 | LOCATE | the opponent is hidden within Near |
    | 11 | SUPPRESSIVE_FIRE | as SHOT: until own next turn, shots with Disadvantage when the opponent acts in its zone |
    | 12 | TAKE_COVER | cover object in own zone: shots at you have Disadvantage |
    | 13 | HIDE | hide object in own zone (Discreción Test) |
    | 14 | INTERACT_EDGE | unspent interact object here: Advantage against the opponent until own next turn |
    | 15 | INTERACT_AREA | unspent interact object here, opponent within Near: 1 PG to everyone in its zone |
    | 16 | CANCEL_EDGE | the opponent's edge is active against you |
    | 17 | PASS | always |
    | 18 | SURRENDER | always |
    | 19 | DELAY | start of own turn, acting first this round, once a round: act after the opponent from now on (not an Action) |
    | 20 | INTERACT_BLOCK | unspent interact object here, opponent in another zone: close the boundary toward it for the combat |

    ## Observation Space

    A `Dict` of float32 `Box`es (flat with `flat_observation=True`); pairs are
    [self, opponent].

    | key | shape | meaning |
    |---|---|---|
    | `initiative` | 2 | initiative scores |
    | `hp` | 2 | PG left |
    | `hp_max` | 2 | maximum PG |
    | `range` | 1 | distance in zones |
    | `band` | 3 | one-hot: Adjacent, Near, Far |
    | `zones` | 2 | own and opponent zone (a hidden opponent stays where it hid) |
    | `turn` | 2 | own turn; Actions left |
    | `armour` | 2x3 | light, heavy, points left |
    | `weapon` | 2x8 | class in hand (4), loaded, reload pending, weapons to draw, weapons lost |
    | `flags` | 2x7 | Foco next Action, evading, hidden, in cover, suppressing, edge, used projectiles |
    | `objects` | 4x6 | per terrain object: present, zone, cover, hide, interact, spent |
    | `round` | 1 | current round |
    | `blocked` | 8 | closed zone boundaries (boundary b lies between zones b and b+1) |

    ## Rewards

    +1 when the opponent falls (0 PG), surrenders or flees; -1 for the same
    against the learner; 0 for truncation.

    ## Starting State

    The layout's zones, objects and start zones (`configs/esgrima/layouts.yaml`);
    first weapon in hand and loaded; initiative rolled (PJ 2d6, PNJ 7.5).

    ## Episode End

    Terminated when a side is out; truncated at `round_cap` (30) rounds.

    ## Arguments

    `opponent`, `scenario` (a layout: "ship_deck", "open_square" or a `Layout`), `fighters`,
    `options` (dict of `EsgrimaOptions`), `learner_seat`, `illegal_action`,
    `illegal_penalty`, `flat_observation`, `render_mode`: see `DuelEnv`.

    ## Rules

    Implements seed `002_70e56d1a02349f0d.txt` as read by `rules/esgrima.md`:
    initiative with the PNJ 7.5, re-sorting each round and delaying (§4), two
    Actions a turn (§4), the Action catalogue (§5), the zone model and weapon reach (§6),
    armour with soak, heavy -1 and Deterioration (§7), suppressive fire (§8.2),
    terrain cover, hiding and the three interactions: edge, block, area damage
    (§8.3), slow reload and improvised
    throws (§8.4), end-of-combat ammo checks (§8.4, in the narration), flight (§9).

    Readings where the seed is short (each an option where a GM could rule otherwise):
    - Initiative of PNJs (`npc_initiative`, §10 #8): a PNJ keeps 7.5 against a PJ; two
      PNJs both roll 2d6 (default), or keep 7.5 with a 1d6 roll-off ("fixed"), or every
      PNJ rolls ("roll").
    - Delay (`delay`, §4 step 5): the seed gives Retrasar el turno to the players, so
      only a PJ may delay (default); "all" lets a PNJ delay too.
    - Evasion inside a suppressed zone draws no shot: the seed exempts "protecting
      oneself in some way" (the digest names taking cover only).
    - Area damage hits a hidden combatant too (digest §8.3: every combatant in the
      area; hiding only stops attacks, and area damage is not one, §5).

    Left out, and why:
    - Delaying to act *before* someone (§4 step 5): with two combatants it is the
      same as the other one delaying, and the seed calls the rule a delay.
    - Spells and inventory items (§5): the seed gives no effects.
    - Karma (§3): a group pool with no spending rule in the seed; off.
    - The `player_facing` resolution (§10 #7): both sides are policies, so the
      attacker rolls.
    - Ammo sharing and looting (§8.4): group and campaign rules.

    ## Version History

    - v2: a duel the opponent ends before the learner's first decision is an episode
      of one step whose only legal action, `TAKE_RESULT`, takes its result (it was
      dealt again, which scored the learner above a tournament); the opponent's
      generator is keyed (`opponent_key`), and the seats' in tournaments are a one-way
      hash of the duel seed.
    - v1: two PNJs both roll initiative; only a PJ delays; Evasion draws no
      suppressive shot (`npc_initiative`, `delay` options).
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        scenario: str | Layout = "ship_deck",
        fighters: tuple[str | Character, str | Character] | None = None,
        options: EsgrimaOptions | dict[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        ruleset = EsgrimaSkirmishRuleset(scenario, fighters, options)
        super().__init__(ruleset, opponent, **env_options)


class EsgrimaDuelEnv(DuelEnv):
    """The fencing duel of the unnamed 2d6 system (seed 002), played with cards.

    ## Description

    Two duelists, always Adjacent, fight a series of exchanges. Each holds a
    hand of three duel cards drawn from a shared deck (6 copies of each of 6
    cards). In each exchange the side without Foco commits first, face up; the
    Foco holder commits knowing it. Each card has Advantage over the next in the
    cycle Insulto > Finta > Treta > Tajo circular > Estocada profunda > Estocada
    alta > Insulto, which sets the dice of the Test (3d6 / 2d6 / 1d6) that
    decides whose card takes effect. Reposition discards and redraws instead,
    then defends. The opponent's hand and the deck order stay hidden.

    Not the seed's duel by default: `duelo/EsgrimaDuel-v2` plays the symmetric
    variant (§8.1 item 14), where both sides hold hands and roll, the better
    two-seat game for self-play and tournaments: in a neutral matchup the Foco
    holder's card lands 11/16 of the time. The seed's own duel is
    `duelo/EsgrimaDuelFaithful-v2` (or `options={"duel_variant": "faithful"}`): the
    learner is the PJ (seat 0), the PNJ turns over the deck's top card, and one
    Test of the PJ decides (3/4 for the PJ in a neutral matchup, whoever holds Foco).

    ## Action Space

    `Discrete(15)`:

    | id | action | mask |
    |---|---|---|
    | 0 | PLAY_ESTOCADA_ALTA | in hand: 1d3 PG |
    | 1 | PLAY_ESTOCADA_PROFUNDA | in hand: 2 PG |
    | 2 | PLAY_TAJO_CIRCULAR | in hand: 1d3 PG |
    | 3 | PLAY_TRETA | in hand: take Foco, or 1 PG if holding it |
    | 4 | PLAY_FINTA | in hand: as Treta |
    | 5 | PLAY_INSULTO | in hand: re-roll initiative for Foco, recover 1 PG |
    | 6 | REPOSITION_KEEP_ALL | always: discard nothing, then a Defense Test |
    | 7 | REPOSITION_1 | always: discard hand slot 1 (slots sorted by card id), redraw, defend |
    | 8 | REPOSITION_2 | always: discard slot 2 |
    | 9 | REPOSITION_12 | always: discard slots 1 and 2 |
    | 10 | REPOSITION_3 | always: discard slot 3 |
    | 11 | REPOSITION_13 | always: discard slots 1 and 3 |
    | 12 | REPOSITION_23 | always: discard slots 2 and 3 |
    | 13 | REPOSITION_123 | always: discard the whole hand |
    | 14 | SURRENDER | always |

    ## Observation Space

    | key | shape | meaning |
    |---|---|---|
    | `initiative` | 2 | initiative scores [self, opponent] |
    | `hp` | 2 | PG left |
    | `hp_max` | 2 | maximum PG |
    | `range` | 1 | always 0 (Adjacent) |
    | `armour` | 2x3 | light, heavy, points left |
    | `ratings` | 2x2 | duel rating and Defense, the ratings each side tests with |
    | `foco` | 1 | 1 if this side holds Foco |
    | `commit_order` | 2 | this side commits first / second now |
    | `cards` | 22 | own hand counts (6), opponent's commit one-hot (6 cards, Reposition, not revealed), discard counts (6), deck size, opponent's hand size |
    | `duel` | 2 | first-blood rule on; exchange number |

    ## Rewards

    +1 win, -1 loss (0 PG, surrender, or first blood with `duel_end="first_blood"`),
    0 for truncation.

    ## Starting State

    A shuffled deck (or `deck=` for a fixed order), hands of three, initiative
    rolled (symmetric: both 2d6; faithful: PJ 2d6, PNJ 7.5), Foco to the higher.

    ## Episode End

    Terminated when a side is out, surrenders or loses first blood; truncated
    after `exchange_cap` (60) exchanges.

    ## Arguments

    `opponent`, `fighters` (need a mastered melee weapon; by default the duelist
    against the pirate, and in the faithful duel the apprentice, a PJ of duel rating
    2, against the pirate: at the duelist's 4 the PJ wins nearly every duel whatever
    it plays), `options` (dict of
    `EsgrimaOptions`: `duel_variant`, `duel_end`, `deck_copies`, ...), `deck`,
    `learner_seat` (must be 0, the PJ, in the faithful variant), `illegal_action`,
    `illegal_penalty`, `flat_observation`, `render_mode`: see `DuelEnv`.

    ## Rules

    Implements the seed's Duelo de esgrima and Las cartas de duelo as read by
    `rules/esgrima.md` §8.1: initiative and Foco, the shared deck and hands of
    three, the reveal order by Foco, the Advantage cycle and the resolution
    roll, Reposition with its Defense Test, Insulto re-rolling initiative,
    Treta and Finta stealing Foco, first blood, armour in the duel (§10 #14).

    Left out, and why:
    - The eight duel traits other than Esgrima elegante (§8.1 item 11): the seed
      gives them no effect; Artista Marcial and Garras de la bestia only make a
      fighter eligible without a weapon.
    - Describing movement (§8.1 item 2): narration only, no rule.

    ## Version History

    - v2: a duel the opponent ends before the learner's first decision is an episode
      of one step whose only legal action, `TAKE_RESULT`, takes its result (it was
      dealt again, which scored the learner above a tournament); the opponent's
      generator is keyed (`opponent_key`), and the seats' in tournaments are a one-way
      hash of the duel seed.
    - v1: the observation shows both sides' duel rating and Defense (`ratings`):
      the odds of every card depend on them, and a policy could not see them. The
      faithful duel's default PJ is the apprentice (duel rating 2), so that play
      matters there.
    - v0: initial release.
    """

    def __init__(
        self,
        opponent: Policy,
        fighters: tuple[str | Character, str | Character] | None = None,
        options: EsgrimaOptions | dict[str, Any] | None = None,
        deck: list[Card] | None = None,
        **env_options: Any,
    ) -> None:
        ruleset = EsgrimaDuelRuleset(fighters, options, deck)
        if ruleset.options.duel_variant == "faithful":
            if env_options.get("learner_seat") not in (None, 0):
                raise ValueError("in the faithful duel the learner is the PJ: learner_seat 0")
            env_options["learner_seat"] = 0
        super().__init__(ruleset, opponent, **env_options)
