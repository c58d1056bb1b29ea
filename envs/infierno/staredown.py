"""The staredown that opens a formal duel (seed DUELOS "Cruce de miradas"; digest §8.1).

An opposed Intimidate test: the loser gets -2, and a difference of 4 or more
cows him (-4 to initiative instead). The seed's "-2 to his Intimidate roll" is
circular, so the reading is an option (digest §8.1):
A (default) -2 to the loser's initiative; B -2 to the loser's Intimidate total
before the margin is measured; C -2 to the loser's Intimidate in a repeated duel.
"""

from __future__ import annotations

from fractions import Fraction

from duelo.envs.core.dice import die
from duelo.envs.infierno.state import Staredown

LOSER_PENALTY = 2
COWED_MARGIN = 4
COWED_PENALTY = 4


def opposed_loser(totals: tuple[int, int], bonuses: tuple[int, int]) -> int | None:
    """Index of the loser of an opposed test; ties to the higher bonus, else none (§3)."""
    if totals[0] != totals[1]:
        return 0 if totals[0] < totals[1] else 1
    if bonuses[0] != bonuses[1]:
        return 0 if bonuses[0] < bonuses[1] else 1
    return None


def staredown_result(
    totals: tuple[int, int], bonuses: tuple[int, int], reading: str
) -> tuple[Staredown, Staredown]:
    """Each side's staredown state from the two Intimidate totals."""
    result = [Staredown.NONE, Staredown.NONE]
    loser = opposed_loser(totals, bonuses)
    if loser is None:
        return result[0], result[1]
    margin = totals[1 - loser] - totals[loser]
    if reading == "B":
        margin += LOSER_PENALTY
    result[loser] = Staredown.COWED if margin >= COWED_MARGIN else Staredown.LOST
    return result[0], result[1]


def initiative_penalty(staredown: Staredown, reading: str) -> int:
    """Initiative modifier of a staredown state (only reading A penalises a plain loss)."""
    if staredown == Staredown.COWED:
        return -COWED_PENALTY
    if staredown == Staredown.LOST and reading == "A":
        return -LOSER_PENALTY
    return 0


def staredown_odds(
    bonuses: tuple[int, int], reading: str = "A"
) -> dict[tuple[Staredown, Staredown], Fraction]:
    """Exact distribution of both sides' staredown states."""
    odds: dict[tuple[Staredown, Staredown], Fraction] = {}
    d20 = die(20)
    for a, pa in d20.items():
        for b, pb in d20.items():
            key = staredown_result((a + bonuses[0], b + bonuses[1]), bonuses, reading)
            odds[key] = odds.get(key, Fraction(0)) + pa * pb
    return odds
