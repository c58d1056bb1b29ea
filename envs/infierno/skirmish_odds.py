"""Exact chances of what a skirmish adds (digest §13.2, §13.4, §13.5), for tests and
the NPCs: the shot into a melee and who acts first. Flanking is the duel's hit chance
at +2 (`odds.hit_chance`)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from duelo.envs.infierno.odds import hit_chance
from duelo.envs.infierno.skirmish_state import AIMED_PENALTY


def melee_shot_chances(
    bonus: int, defense: int, participants: int, aimed: bool
) -> tuple[Fraction, Fraction]:
    """§13.5: (P(the target is hit), P(an ally is hit)) of one shot into a melee of
    `participants` (the target and the shooter's allies beside it). Aimed: -4 and only
    the target; unaimed: a hit lands on each participant alike."""
    if aimed:
        return hit_chance(bonus - AIMED_PENALTY, defense), Fraction(0)
    hit = hit_chance(bonus, defense)
    return hit / participants, hit * (participants - 1) / participants


def first_chances(fighters: list[tuple[int, int, int]]) -> list[Fraction]:
    """§13.2: each fighter's chance to act first, given (the bonus it adds to its d20,
    its Dexterity, its Initiative bonus): the highest total, then Dexterity, then the
    Initiative bonus; fighters tied on all three roll off, each alike."""
    share: list[Fraction] = [Fraction(0)] * len(fighters)
    for faces in product(range(1, 21), repeat=len(fighters)):
        keys = [
            (face + bonus, dex, init)
            for face, (bonus, dex, init) in zip(faces, fighters, strict=True)
        ]
        best = max(keys)
        tied = [i for i, key in enumerate(keys) if key == best]
        for i in tied:
            share[i] += Fraction(1, len(tied))
    total = 20 ** len(fighters)
    return [s / total for s in share]
