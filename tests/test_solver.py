"""The exact solver: chance enumerated through the rules' own code,
values checked against Monte Carlo play, best responses and exploitability.

The duels solved here are Liminal's street fight cut small (Endurance 2, three
rounds), so that a solve takes seconds; `duelo solve` runs the shipped scenarios.
"""

from __future__ import annotations

import copy
import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from duelo.agents.registry import make_policy
from duelo.envs.core.dice import (
    ScriptedDice,
    chance_outcomes,
    convolve,
    dice_sum,
    die,
    roll_pool,
    roll_until,
    runs,
)
from duelo.envs.core.runner import duel_streams, play_duel
from duelo.envs.dunwich.rules import DunwichRuleset
from duelo.envs.liminal.rules import LiminalRuleset
from duelo.envs.liminal.setup import Character
from duelo.envs.systems import SYSTEMS
from duelo.evaluation.exploit import exact_scores, head_to_head
from duelo.evaluation.optimal import OptimalPolicy
from duelo.evaluation.solver import (
    NotSolvableError,
    TooLargeError,
    at_round,
    enumerate_duel,
    score_of_a,
    solve,
)
from tests import hostile

Z99 = 2.5758293035489004
MONTE_CARLO_DUELS = 10_000
NPCS = ("random", "aggressive", "cautious", "expert")


def small_street(round_cap: int = 3) -> LiminalRuleset:
    """A knife against a pistol across a street, each with 2 Endurance."""
    knife = Character(id="knife", name="Knife", weapons=("knife",), melee=2, endurance=2)
    pistol = Character(
        id="pistol", name="Pistol", weapons=("pistol", "knife"), shoot=2, melee=1, endurance=2
    )
    return LiminalRuleset("street", (knife, pistol), {"round_cap": round_cap})


@pytest.fixture(scope="module")
def graph():
    return enumerate_duel(small_street())


def within_monte_carlo(scores: list[float], exact: float) -> None:
    """`exact` lies in the 99 % normal interval of the mean of `scores`."""
    sample = np.array(scores)
    half = Z99 * sample.std(ddof=1) / np.sqrt(len(sample))
    assert abs(sample.mean() - exact) <= half, (sample.mean(), exact, half)


# --- chance ------------------------------------------------------------------------


def test_chance_outcomes_are_the_exact_distribution() -> None:
    """Every face sequence of a step, each with its probability: 2d6 + 1d4 as dice_sum
    counts it, and each outcome given once."""
    outcomes = list(
        chance_outcomes(lambda dice: dice.roll(6, "a") + dice.roll(6, "b") + dice.roll(4, "c"))
    )
    assert len(outcomes) == 6 * 6 * 4
    found: dict[int, Fraction] = {}
    for p, total in outcomes:
        found[total] = found.get(total, Fraction(0)) + p
    assert found == convolve(dice_sum(2, 6), die(4))


def test_chance_follows_rolls_that_depend_on_earlier_faces() -> None:
    """A second die rolled only on a 6: 5 outcomes of 1/6 and 6 of 1/36."""
    outcomes = list(
        chance_outcomes(
            lambda dice: (first := dice.roll(6, "a")) + (dice.roll(6, "b") if first == 6 else 0)
        )
    )
    assert sorted(p for p, _ in outcomes) == [Fraction(1, 36)] * 6 + [Fraction(1, 6)] * 5
    assert sum(p for p, _ in outcomes) == 1


def test_a_pool_read_by_class_branches_once_per_count() -> None:
    """Four d10 read by class (1, 2-5, 6-9, 10) are 35 outcomes, not 10,000, and give the
    distribution the die-by-die walk gives; a pool of every face keeps each multiset."""

    def successes(dice: Any, pool: Any) -> int:
        return sum(
            1 if face >= 6 else 0 for face in pool(dice, 4, 10, "attack", runs(10, 2, 6, 10))
        )

    by_class = list(chance_outcomes(lambda dice: successes(dice, roll_pool)))
    assert len(by_class) == 35
    die_by_die = list(
        chance_outcomes(
            lambda dice: successes(
                dice, lambda d, n, sides, why, classes: [d.roll(sides, why) for _ in range(n)]
            )
        )
    )
    assert len(die_by_die) == 10**4
    totals: list[dict[int, Fraction]] = [{}, {}]
    for found, outcomes in zip(totals, (by_class, die_by_die), strict=True):
        for p, value in outcomes:
            found[value] = found.get(value, Fraction(0)) + p
    assert totals[0] == totals[1] and sum(totals[0].values()) == 1
    assert len(list(chance_outcomes(lambda dice: roll_pool(dice, 3, 6, "damage")))) == 56


def test_a_rerolled_tie_is_one_throw_to_the_solver_and_a_loop_to_real_dice() -> None:
    """`roll_until`: scripted dice replay the loop (the tie is heard and re-rolled); the
    solver's dice give each of the 30 untied throws of 2d6 at 1/30."""
    heard: list[tuple[int, ...]] = []
    dice = ScriptedDice([3, 3, 2, 5])

    def untie(faces: tuple[int, ...]) -> bool:
        return faces[0] != faces[1]

    faces = roll_until(dice, (6, 6), ("a", "b"), untie, heard.append)
    assert faces == (2, 5) and heard == [(3, 3)] and dice.remaining == 0
    outcomes = list(
        chance_outcomes(lambda d: roll_until(d, (6, 6), ("a", "b"), lambda f: f[0] != f[1]))
    )
    assert len(outcomes) == 30 and {p for p, _ in outcomes} == {Fraction(1, 30)}
    assert all(a != b for _, (a, b) in outcomes)


# --- states ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_a_clone_is_a_deep_copy(name: str) -> None:
    """`DuelState.clone` keeps the key and shares nothing mutable: a duel played on from
    the clone leaves the original as it was."""
    ruleset = SYSTEMS[name].ruleset()
    dice, _ = duel_streams(3)
    state = ruleset.new_duel(dice)
    for _ in range(4):
        seat = ruleset.to_act(state)
        if seat is None:
            break
        ruleset.apply(state, seat, int(np.flatnonzero(ruleset.legal_actions(state, seat))[0]), dice)
    before = copy.deepcopy(state)
    clone = state.clone()
    assert clone.key() == state.key() and clone is not state
    while (seat := ruleset.to_act(clone)) is not None:
        legal = np.flatnonzero(ruleset.legal_actions(clone, seat))
        ruleset.apply(clone, seat, int(legal[-1]), dice)
    assert state.key() == before.key() and state.round == before.round


# --- values ------------------------------------------------------------------------


def test_the_value_matches_monte_carlo_of_optimal_play(graph) -> None:
    """Optimal play against itself, 10,000 duels from the tournament's seeds: the exact
    value lies in the mean's 99 % interval."""
    solution = solve(graph)
    assert 0 < solution.value < 1
    scores = [score_of_a(solution.play(seed)) for seed in range(MONTE_CARLO_DUELS)]
    within_monte_carlo(scores, solution.value)


def test_a_scripted_pairing_is_valued_as_the_runner_plays_it(graph) -> None:
    """The expert against the aggressive NPC, valued exactly, and played by `play_duel`."""
    ruleset = graph.ruleset
    expert, aggressive = make_policy("expert", "liminal"), make_policy("aggressive", "liminal")
    exact = solve(graph, (expert, aggressive)).value
    scores = [
        score_of_a(play_duel(ruleset, (expert, aggressive), seed).outcome)
        for seed in range(MONTE_CARLO_DUELS)
    ]
    within_monte_carlo(scores, exact)


def test_random_play_is_valued_from_its_probabilities(graph) -> None:
    """A policy that draws at random is valued through `action_distribution`, not sampled."""
    random = make_policy("random", "liminal")
    exact = solve(graph, (random, random)).value
    scores = [
        score_of_a(play_duel(graph.ruleset, (random, random), seed).outcome)
        for seed in range(MONTE_CARLO_DUELS)
    ]
    within_monte_carlo(scores, exact)


def test_the_round_cap_is_a_draw_as_the_rules_make_it() -> None:
    """With a one-round cap many duels end drawn; the value still matches play."""
    graph = enumerate_duel(small_street(round_cap=1))
    expert = make_policy("expert", "liminal")
    exact = solve(graph, (expert, expert)).value
    outcomes = [play_duel(graph.ruleset, (expert, expert), seed).outcome for seed in range(4000)]
    assert any(outcome.truncated for outcome in outcomes)
    within_monte_carlo([score_of_a(outcome) for outcome in outcomes], exact)


def test_best_responses_bound_every_pairing(graph) -> None:
    """No opponent does better against a policy than its best response, and an optimal
    policy gives nothing away: its worst case is the game's value."""
    value = solve(graph).value
    policies = {name: make_policy(name, "liminal") for name in NPCS}
    for name, policy in policies.items():
        worst_a = solve(graph, (policy, None)).value
        worst_b = solve(graph, (None, policy)).value
        assert worst_a <= value + 1e-12 and worst_b >= value - 1e-12, name
        for other in policies.values():
            assert worst_a <= solve(graph, (policy, other)).value + 1e-12
            assert worst_b >= solve(graph, (other, policy)).value - 1e-12
    optimal = solve(graph)
    assert solve(graph, (optimal, None)).value == pytest.approx(value, abs=1e-12)
    assert solve(graph, (None, optimal)).value == pytest.approx(value, abs=1e-12)


def test_exploitability_orders_the_npcs(graph) -> None:
    """Random play gives most away; every score is a seat-swapped one."""
    scores = {name: exact_scores(graph, name, make_policy(name, "liminal")) for name in NPCS}
    assert scores["random"].exploitability > 0.01
    for s in scores.values():
        assert 0 <= s.exploitability <= 0.5 and s.worst <= s.against_optimal + 1e-12
    assert scores["random"].exploitability > scores["expert"].exploitability
    expert, random = make_policy("expert", "liminal"), make_policy("random", "liminal")
    assert head_to_head(graph, expert, random) == pytest.approx(
        1 - head_to_head(graph, random, expert), abs=1e-12
    )


# --- refusals ----------------------------------------------------------------------


def test_hidden_information_is_refused() -> None:
    with pytest.raises(NotSolvableError, match="perfect information"):
        enumerate_duel(DunwichRuleset())


def test_a_duel_too_large_says_how_far_it_got() -> None:
    with pytest.raises(
        TooLargeError, match=r"not solvable here: over 50 states, still walking round 1"
    ):
        enumerate_duel(small_street(), max_states=50)


class Noisy:
    """`small_street` whose every step first rolls eight d10 that change nothing: 10^8
    outcomes a step."""

    def __init__(self) -> None:
        self.rules = small_street()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def apply(self, state: Any, seat: int, action: int, dice: Any) -> None:
        for _ in range(8):
            dice.roll(10, "noise")
        self.rules.apply(state, seat, action, dice)


def test_the_time_limit_holds_within_one_step() -> None:
    """A step of a hundred million outcomes stops at the time limit, not after them."""
    with pytest.raises(TooLargeError, match="time limit"):
        enumerate_duel(Noisy(), max_seconds=1.0)


def test_a_policy_that_draws_in_secret_is_refused(graph) -> None:
    """A policy choosing through its generator, with no action_distribution, would be
    solved as if it were deterministic: it is refused instead."""

    class Coin:
        name, description = "coin", "a legal action at random"

        def act(self, observation, mask, rng):
            legal = np.flatnonzero(mask)
            return int(legal[rng.integers(legal.size)])

    with pytest.raises(ValueError, match="chooses at random"):
        solve(graph, (Coin(), None))


def test_the_optimal_policy_plays_the_solution_from_observations(graph) -> None:
    """`liminal:optimal` reads only observations: where none of them clash, it plays the
    value the solver computed, through the tournament's own runner."""
    solution = solve(graph)
    policy = OptimalPolicy(solution)
    assert policy.clashes == 0 and len(policy.moves) >= graph.size
    scores = [
        score_of_a(play_duel(graph.ruleset, (policy, policy), seed).outcome)
        for seed in range(MONTE_CARLO_DUELS)
    ]
    within_monte_carlo(scores, solution.value)
    assert solve(graph, (None, policy)).value == pytest.approx(solution.value, abs=1e-12)


def test_the_optimal_policy_refuses_a_duel_it_did_not_solve(graph) -> None:
    """Met with an observation of another duel, it forfeits with a reason."""
    policy = OptimalPolicy(solve(graph))
    other = LiminalRuleset("brawl")
    dice, rngs = duel_streams(0)
    state = other.new_duel(dice)
    seat = other.to_act(state)
    observation = other.observation_spec.view(other.observe(state, seat))
    with pytest.raises(ValueError, match="never reaches"):
        policy.act(observation, other.legal_actions(state, seat), rngs[seat])


class Recording:
    """Dice that remember every face they roll, to roll them again."""

    def __init__(self, dice) -> None:
        self.dice, self.faces = dice, []

    def roll(self, sides: int, purpose: str) -> int:
        self.faces.append(self.dice.roll(sides, purpose))
        return self.faces[-1]


@pytest.mark.parametrize(
    "name", [name for name, info in sorted(SYSTEMS.items()) if info.ruleset.perfect_information]
)
def test_the_rules_read_the_round_only_through_the_cap_and_its_key(name: str) -> None:
    """The solver's premise: a duel moved three rounds on plays on alike, step for step
    with the same dice, its key unchanged, until the cap (`ROUND_RELATIVE` holds the
    fields that compare with the round)."""
    ruleset = SYSTEMS[name].ruleset()
    for seed in range(20):
        dice, rngs = duel_streams(seed)
        state = ruleset.new_duel(dice)
        for _ in range(3):  # a few decisions in
            if (seat := ruleset.to_act(state)) is None:
                break
            legal = np.flatnonzero(ruleset.legal_actions(state, seat))
            ruleset.apply(state, seat, int(legal[rngs[0].integers(legal.size)]), dice)
        if state.over:
            continue
        moved = at_round(state.clone(), state.round + 3)
        assert moved.key() == state.key()
        while (seat := ruleset.to_act(state)) is not None and moved.round < ruleset.round_cap:
            legal = np.flatnonzero(ruleset.legal_actions(state, seat))
            assert (np.flatnonzero(ruleset.legal_actions(moved, seat)) == legal).all()
            action = int(legal[rngs[0].integers(legal.size)])
            recording = Recording(dice)
            ruleset.apply(state, seat, action, recording)
            ruleset.apply(moved, seat, action, ScriptedDice(recording.faces))
            assert moved.key() == state.key() and moved.round - state.round == 3
            assert (moved.result is None) == (state.result is None)


def test_the_optimal_policy_reads_every_form_of_observation(graph) -> None:
    """A view, the flat vector and a plain Dict (a Gymnasium env's) give one move."""
    policy = OptimalPolicy(solve(graph))
    ruleset = graph.ruleset
    dice, rngs = duel_streams(1)
    state = ruleset.new_duel(dice)
    while (seat := ruleset.to_act(state)) is not None:
        flat, mask = ruleset.observe(state, seat), ruleset.legal_actions(state, seat)
        view = ruleset.observation_spec.view(flat)
        plain = {key.name: np.asarray(view[key.name]) for key in ruleset.observation_spec.keys}
        moves = {policy.act(form, mask, rngs[seat]) for form in (view, flat, plain)}
        assert len(moves) == 1
        ruleset.apply(state, seat, moves.pop(), dice)


class LopsidedChances:
    """Says it plays at random, but puts weight on actions the mask forbids."""

    name, description = "lopsided", "a distribution over illegal actions"

    def act(self, observation, mask, rng):
        return int(np.flatnonzero(mask)[0])

    def action_distribution(self, observation, mask):
        return np.where(mask, 0.0, 1.0) / max((~mask).sum(), 1)


@pytest.mark.parametrize(
    ("hostile", "said"),
    [
        (hostile.Raiser(), "policy 'raiser' failed: ValueError: boom"),
        (hostile.SysExiter(), "policy 'sys_exiter' failed: SystemExit"),
        (hostile.MaskEditor(), "policy 'mask_editor' chose the illegal action"),
        (hostile.NonInteger(), "policy 'non_integer' chose the illegal action"),
        (hostile.StringAnswer(), "policy 'string_answer' chose the illegal action"),
        (LopsidedChances(), "policy 'lopsided' gave no distribution over the legal actions"),
    ],
)
def test_a_hostile_policy_is_refused_by_name(graph, hostile, said: str) -> None:
    """Someone else's policy that raises, exits, edits its mask, answers with a non-action
    or a distribution over forbidden actions ends the solve with one clear error."""
    with pytest.raises(ValueError, match=re.escape(said)):
        solve(graph, (hostile, None))
