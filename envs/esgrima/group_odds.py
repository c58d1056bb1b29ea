"""Exact odds of an Esgrima fight of several a side, as the rules apply them (§3, §7,
§13): what the expert weighs and what the tests assert against the engine's dice."""

from __future__ import annotations

from fractions import Fraction

from duelo.envs.esgrima.mechanics import Body, success_chance
from duelo.envs.esgrima.setup import Armour, WeaponClass
from duelo.envs.esgrima.skirmish_state import REACH, band

ARMOURS = (Armour.NONE, Armour.LIGHT, Armour.HEAVY)
"""The armour an observation's 0 / 1 / 2 stands for."""


def reach_of(cls: WeaponClass, distance: int, thrown: bool = False) -> int | None:
    """`skirmish_state.reach` by class: None out of reach, else the band's Advantage."""
    return REACH[WeaponClass.LIGHT_RANGED if thrown else cls].get(band(distance))


def attack_odds(rating: int, edge: int, evade_reflejos: int = 0) -> Fraction:
    """The chance an attack takes effect: its Test at `edge` (Advantage > 0), times the
    chance the target's Evasion save (Reflejos with Disadvantage) fails, when it evades
    (`evade_reflejos` > 0)."""
    hit = success_chance(rating, edge)
    if evade_reflejos:
        hit *= 1 - success_chance(evade_reflejos, -1)
    return hit


def blows_left(body: tuple[int, int, int]) -> int:
    """How many 1-PG hits still take a body of (PG, armour 0-2, armour points) out: its
    durability, armour included (§7)."""
    pg, armour, points = body
    copy = Body(pg, max(pg, 1), ARMOURS[armour], points)
    blows = 0
    while not copy.out:
        copy.take_damage(1)
        blows += 1
    return blows


def harm(body: tuple[int, int, int], damage: int) -> tuple[Fraction, int]:
    """(the share of its durability lost, 1 if taken out) when a hit of `damage` lands
    on a body of (PG, armour 0-2, armour points): §7's armour applied to a copy."""
    pg, armour, points = body
    copy = Body(pg, max(pg, 1), ARMOURS[armour], points)
    before = blows_left(body)
    copy.take_damage(damage)
    after = blows_left((copy.pg, armour, copy.armour_pts))
    return Fraction(before - after, max(before, 1)), int(pg > 0 and copy.out)


def before_pnj(pj_count: int) -> Fraction:
    """§13.2: the chance that each of `pj_count` PJs rolls above the PNJs' 7.5 (2d6 >= 8,
    15/36 each)."""
    return Fraction(15, 36) ** pj_count
