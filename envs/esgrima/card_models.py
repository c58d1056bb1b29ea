"""The card duel's solved models as its system names them (`System.solved`): the
optimal policy, `duelo solve` and `duelo exploit` for a duel whose hidden cards the
exact solver does not walk. Each variant is solved under its own model
(`duelo.envs.esgrima.card_duel`, `duelo.envs.esgrima.card_duel_symmetric`), the value
checked by a Monte Carlo of the model's rules, and every policy played in the real duel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

import numpy as np

from duelo.envs.core.policy import Policy
from duelo.envs.core.runner import play_duel
from duelo.envs.esgrima.card_duel import CardDuelPolicy, EndlessDeckDuel, solve_card_duel
from duelo.envs.esgrima.card_duel_symmetric import (
    RedrawnHandsDuel,
    SymmetricDuelPolicy,
    solve_symmetric_duel,
)
from duelo.envs.esgrima.duel import EsgrimaDuelRuleset
from duelo.evaluation.solver import score_of_a

Z99 = 2.5758293035489004
"""The normal quantile of a two-sided 99 % interval."""
DEFAULT_DUELS = 10_000
"""Duels a Monte Carlo score plays when `--check` gives none."""
_APPRENTICE = ["--fighters", "apprentice", "pirate"]
SOLVES_SHOWN = {
    "faithful, apprentice vs pirate": ["--option", "duel_variant=faithful", *_APPRENTICE],
    "symmetric, the default mirror": [],
    "symmetric, apprentice vs pirate": _APPRENTICE,
}
"""The duels the docs show solved under these models, by label: `duelo solve`'s flags
(`docs/measure.py exact`)."""


def optimal_policy(ruleset: EsgrimaDuelRuleset) -> CardDuelPolicy | SymmetricDuelPolicy:
    """The solved play of the variant in play: the PJ's best play of the faithful duel,
    the symmetric duel's equilibrium with hands redrawn each exchange."""
    if ruleset.options.duel_variant == "faithful":
        return CardDuelPolicy(solve_card_duel(ruleset))
    return SymmetricDuelPolicy(solve_symmetric_duel(ruleset))


def print_solve(
    name: str,
    ruleset: EsgrimaDuelRuleset,
    variant: dict[str, Any],
    policies: Mapping[str, Policy],
    check: int,
    out: TextIO,
) -> None:
    """`solve` for either variant of the card duel."""
    where = ", ".join(f"{k} {v}" for k, v in variant.items()) or "default"
    if ruleset.options.duel_variant == "faithful":
        print_faithful(name, where, ruleset, variant, policies, check, out)
    else:
        print_symmetric(name, where, ruleset, variant, policies, check, out)


def print_faithful(
    name: str,
    where: str,
    ruleset: EsgrimaDuelRuleset,
    variant: dict[str, Any],
    policies: Mapping[str, Policy],
    check: int,
    out: TextIO,
) -> None:
    """The faithful duel: the PJ's problem under the endless-deck model, its Monte
    Carlo check against that model and the model's cost in the real duel; each policy's
    score in the real duel (it reads the discards the model forgets: no exact value)."""
    solution = solve_card_duel(ruleset)
    optimal = CardDuelPolicy(solution)
    print(
        f"{name} ({where}): the PJ's problem against the deck, {solution.decisions:,} decisions "
        f"an exchange over {ruleset.round_cap} exchanges, every draw even over the six cards "
        f"(endless-deck model); solved in {solution.seconds:.1f} s",
        file=out,
    )
    value = solution.value
    print(f"optimal play: the PJ scores {value:.6f}", file=out)
    duels = check or DEFAULT_DUELS
    if check:
        mean, half = monte_carlo(EndlessDeckDuel(**variant), optimal, check)
        verdict = "inside" if abs(mean - value) <= half else "OUTSIDE"
        print(
            f"Monte Carlo of optimal play against the endless deck, {check:,} duels: "
            f"{mean:.6f} ± {half:.6f} (99 %): the exact value is {verdict}",
            file=out,
        )
    best, best_half = monte_carlo(ruleset, optimal, duels)
    print(
        f"the same play in the real duel (shuffled deck), {duels:,} duels: {best:.6f} ± "
        f"{best_half:.6f} (99 %): the model's abstraction moves the PJ's score by "
        f"{best - value:+.4f}",
        file=out,
    )
    if not policies:
        return
    width = max(len(p) for p in [*policies, "policy"])
    print(f"{'policy':<{width}}  PJ score (real duel, 99 %)  below optimal play", file=out)
    for policy_name, policy in policies.items():
        mean, half = monte_carlo(ruleset, policy, duels)
        score = f"{mean:.4f} ± {half:.4f}"
        print(f"{policy_name:<{width}}  {score:<26}  {best - mean:+.4f}", file=out)


def monte_carlo(ruleset: Any, policy: Policy, duels: int) -> tuple[float, float]:
    """Side A's mean score over duels 0..duels-1 with `policy` in both seats, and the
    half-width of its 99 % interval."""
    scores = np.array(
        [score_of_a(play_duel(ruleset, (policy, policy), seed).outcome) for seed in range(duels)]
    )
    return float(scores.mean()), float(Z99 * scores.std(ddof=1) / np.sqrt(duels))


def print_symmetric(
    name: str,
    where: str,
    ruleset: EsgrimaDuelRuleset,
    variant: dict[str, Any],
    policies: Mapping[str, Policy],
    check: int,
    out: TextIO,
) -> None:
    """The symmetric duel: the equilibrium of the redrawn-hands abstraction, its Monte
    Carlo check against the abstraction's rules; each policy against it in the real
    duel, seat-swapped (a score above 0.5 exploits what the abstraction leaves out)."""
    solution = solve_symmetric_duel(ruleset)
    optimal = SymmetricDuelPolicy(solution)
    print(
        f"{name} ({where}): both hands dealt afresh each exchange (abstraction), "
        f"{2 * solution.cells.size:,} states an exchange over {ruleset.round_cap} exchanges; "
        f"solved in {solution.seconds:.1f} s",
        file=out,
    )
    value = solution.value
    print(
        f"the abstraction's equilibrium: side A scores {value:.6f}, side B {1 - value:.6f}",
        file=out,
    )
    if check:
        mean, half = monte_carlo(RedrawnHandsDuel(**variant), optimal, check)
        verdict = "inside" if abs(mean - value) <= half else "OUTSIDE"
        print(
            f"Monte Carlo of equilibrium play with hands redrawn, {check:,} duels: side A "
            f"{mean:.6f} ± {half:.6f} (99 %): the exact value is {verdict}",
            file=out,
        )
    if not policies:
        return
    duels = check or DEFAULT_DUELS
    width = max(len(p) for p in [*policies, "policy"])
    print(f"{'policy':<{width}}  against optimal in the real duel, seat-swapped (99 %)", file=out)
    for policy_name, policy in policies.items():
        mean, half = seat_swapped(ruleset, policy, optimal, duels)
        print(f"{policy_name:<{width}}  {mean:.4f} ± {half:.4f}", file=out)


def print_exploit(
    name: str, policy: Policy, ruleset: EsgrimaDuelRuleset, duels: int, out: TextIO
) -> bool:
    """In the faithful duel only the PJ chooses, so a best response is the best PJ play:
    seat-swapped, a policy loses half its gap to it (the solved play stands in for it).
    False for the symmetric duel: there a best response is trained (`duelo exploit`)."""
    if ruleset.options.duel_variant != "faithful":
        return False
    optimal = CardDuelPolicy(solve_card_duel(ruleset))
    best, best_half = monte_carlo(ruleset, optimal, duels)
    mean, half = monte_carlo(ruleset, policy, duels)
    print(
        f"the faithful duel is the PJ's problem alone: as the PJ, {name} scores {mean:.4f} ± "
        f"{half:.4f} and the solved play {best:.4f} ± {best_half:.4f} (99 %, {duels:,} duels "
        f"each); its exploitability, half the gap, is about {(best - mean) / 2:.4f}",
        file=out,
    )
    return True


def seat_swapped(ruleset: Any, policy: Policy, opponent: Policy, duels: int) -> tuple[float, float]:
    """`policy`'s mean score against `opponent`, each seed played from both seats, and
    the half-width of its 99 % interval (over the games, each two duels)."""
    games = (
        np.array(
            [
                score_of_a(play_duel(ruleset, (policy, opponent), seed).outcome)
                + 1
                - score_of_a(play_duel(ruleset, (opponent, policy), seed).outcome)
                for seed in range(max(1, duels // 2))
            ]
        )
        / 2
    )
    return float(games.mean()), float(Z99 * games.std(ddof=1) / np.sqrt(len(games)))
