"""Esgrima's shared mechanics: 2d6 Tests, armour, initiative and the duel cards.

Seed `002_70e56d1a02349f0d.txt` ("Reglas/Basicas/Combate"), digest `rules/esgrima.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction

from duelo.envs.core.dice import Dice, Distribution, roll_until
from duelo.envs.core.observation import SIDES, grid
from duelo.envs.esgrima.setup import ARMOUR_POINTS, Armour, Character

ARMOUR_FIELDS = grid(SIDES, ("light", "heavy", "points"))
"""The entries of the `armour` observation key: the armour worn and its points left."""

PNJ_INITIATIVE = 7.5
"""Seed (Establecer la iniciativa): most PNJs have 7.5, so they never tie a PJ."""


def dice_count(advantage: int) -> int:
    """2d6; 3d6 with Advantage, 1d6 with Disadvantage; they cancel, never stack (§3 ASSUMPTION)."""
    return 3 if advantage > 0 else 1 if advantage < 0 else 2


def roll_test(dice: Dice, rating: int, advantage: int, purpose: str) -> tuple[int, list[int]]:
    """Successes and faces of a Test: each die <= the rating succeeds (§3, §10 #1 ASSUMPTION)."""
    faces = [dice.roll(6, purpose) for _ in range(dice_count(advantage))]
    return sum(face <= rating for face in faces), faces


def success_chance(rating: int, advantage: int = 0) -> Fraction:
    """P(at least one success) = 1 - (1 - r/6)^N (digest §3)."""
    return 1 - (1 - Fraction(rating, 6)) ** dice_count(advantage)


def successes_distribution(rating: int, advantage: int = 0) -> Distribution:
    """Exact distribution of the number of successes of a Test (binomial)."""
    p = Fraction(rating, 6)
    n = dice_count(advantage)
    out: Distribution = {}
    for k in range(n + 1):
        ways = 1
        for i in range(k):
            ways = ways * (n - i) // (i + 1)
        out[k] = ways * p**k * (1 - p) ** (n - k)
    return out


def d3(dice: Dice, purpose: str) -> tuple[int, int]:
    """1d3 as 1d6 halved, rounding up (§3): (the 1d3, the d6 face) for the narration."""
    face = dice.roll(6, purpose)
    return (face + 1) // 2, face


@dataclass
class Body:
    """PG and armour of one combatant (seed: Tipos de armaduras; digest §7)."""

    pg: int
    pg_max: int
    armour: Armour
    armour_pts: int

    @classmethod
    def of(cls, character: Character) -> Body:
        return cls(
            character.pg_max, character.pg_max, character.armour, ARMOUR_POINTS[character.armour]
        )

    @property
    def out(self) -> bool:
        return self.pg <= 0

    def take_damage(self, damage: int) -> int:
        """Apply one hit through armour; return the PG actually lost (digest §7)."""
        if damage <= 0:
            return 0
        if self.armour == Armour.HEAVY and self.armour_pts > 0:
            damage = max(1, damage - 1)  # heavy: -1, minimum 1
        if self.armour != Armour.NONE and self.armour_pts > 0:
            self.armour_pts -= 1  # the first PG goes to the armour
            damage -= 1
        lost = min(damage, self.pg)
        self.pg -= lost
        return lost

    @property
    def deteriorated(self) -> bool:
        """Armour at 0 points gives no protection (§10 #16 ASSUMPTION)."""
        return self.armour != Armour.NONE and self.armour_pts == 0


def roll_initiative(dice: Dice, name: str, fixed: bool) -> tuple[float, str]:
    """2d6 (a PJ), or a PNJ's fixed 7.5 when `fixed` (seed: Establecer la iniciativa)."""
    if fixed:
        return PNJ_INITIATIVE, f"{name} keeps {PNJ_INITIATIVE}"
    faces = [dice.roll(6, "initiative"), dice.roll(6, "initiative")]
    return float(sum(faces)), f"{name} 2d6 {faces} = {sum(faces)}"


def first_by_initiative(dice: Dice, scores: tuple[float, float]) -> tuple[int, list[str]]:
    """The seat acting first; ties go to a 1d6 roll-off, re-rolled while tied (§4, §10 #8)."""
    if scores[0] != scores[1]:
        return (0 if scores[0] > scores[1] else 1), []
    notes: list[str] = []

    def note(faces: tuple[int, ...]) -> None:
        notes.append(f"initiative tie: roll-off {faces[0]} vs {faces[1]}")

    purpose = "initiative roll-off"
    a, b = roll_until(dice, (6, 6), (purpose, purpose), lambda faces: faces[0] != faces[1], note)
    note((a, b))
    return (0 if a > b else 1), notes


class Card(IntEnum):
    """The six duel cards (seed: Las cartas de duelo)."""

    ESTOCADA_ALTA = 0
    ESTOCADA_PROFUNDA = 1
    TAJO_CIRCULAR = 2
    TRETA = 3
    FINTA = 4
    INSULTO = 5


ADVANTAGE_OVER = {
    Card.ESTOCADA_ALTA: Card.INSULTO,
    Card.ESTOCADA_PROFUNDA: Card.ESTOCADA_ALTA,
    Card.TAJO_CIRCULAR: Card.ESTOCADA_PROFUNDA,
    Card.TRETA: Card.TAJO_CIRCULAR,
    Card.FINTA: Card.TRETA,
    Card.INSULTO: Card.FINTA,
}
"""Seed: the card each card has Advantage against (a six-card cycle)."""


def matchup(roller: Card, opponent: Card) -> int:
    """+1 if the roller's card has Advantage, -1 if the opponent's has it, else 0."""
    if ADVANTAGE_OVER[roller] == opponent:
        return 1
    if ADVANTAGE_OVER[opponent] == roller:
        return -1
    return 0
