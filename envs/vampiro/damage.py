"""Vampiro's damage: soak by damage and creature type, the seven health levels, their
wound penalties, overflow and who is out (digest §7, §9). Pure functions over a health
track the rules own; the §11 vectors test them directly."""

from __future__ import annotations

from enum import StrEnum

from duelo.envs.vampiro.setup import HEALTH_LEVELS, Damage

LEVELS = ("Bruised", "Hurt", "Injured", "Wounded", "Mauled", "Crippled", "Incapacitated")
PENALTY = (0, 0, 1, 1, 2, 2, 5)
"""§7 (published): dice lost (and initiative) with 0..6 levels filled."""
SEVERITY = {Damage.BASHING: 0, Damage.LETHAL: 1, Damage.AGGRAVATED: 2}


class Status(StrEnum):
    """§9: how a combatant stands."""

    ACTIVE = "active"
    INCAPACITATED = "incapacitated"
    UNCONSCIOUS = "unconscious"
    DEAD = "dead"
    TORPOR = "torpor"
    FINAL_DEATH = "final death"


def soak_pool(damage: Damage, vampire: bool, stamina: int, fortitude: int, armour: int) -> int:
    """§7 (seed, published): bashing is soaked by everyone with Stamina + Fortitude +
    armour; lethal by a mortal's armour only, a vampire's all three; aggravated by
    Fortitude alone."""
    if damage == Damage.AGGRAVATED:
        return fortitude
    if damage == Damage.LETHAL and not vampire:
        return armour
    return stamina + fortitude + armour


def wound_penalty(health: list[Damage]) -> int:
    """§7: dice lost from action pools and initiative (0 once out: nothing to roll)."""
    return PENALTY[len(health)] if len(health) < HEALTH_LEVELS else 0


def take(health: list[Damage], levels: int, damage: Damage, vampire: bool) -> Status:
    """Mark `levels` of `damage` on `health` (worst first), with the published overflow
    (§7, §10 #28): on a full track a bashing level turns a bashing box lethal, or counts
    as lethal when none is left; past that, a mortal dies, a vampire falls into torpor
    (Final Death if the damage is aggravated). Returns the combatant's status."""
    for _ in range(levels):
        if len(health) < HEALTH_LEVELS:
            health.append(damage)
            health.sort(key=SEVERITY.__getitem__, reverse=True)
            continue
        kind = damage
        if kind != Damage.AGGRAVATED and (kind == Damage.BASHING or vampire):
            if Damage.BASHING in health:
                health[health.index(Damage.BASHING)] = Damage.LETHAL
                health.sort(key=SEVERITY.__getitem__, reverse=True)
                continue
            kind = Damage.LETHAL
        if not vampire:
            return Status.DEAD
        return Status.FINAL_DEATH if kind == Damage.AGGRAVATED else Status.TORPOR
    return status(health, vampire)


def status(health: list[Damage], vampire: bool) -> Status:
    """Out at seven levels (§9): a mortal filled only with bashing is unconscious."""
    if len(health) < HEALTH_LEVELS:
        return Status.ACTIVE
    if not vampire and all(level == Damage.BASHING for level in health):
        return Status.UNCONSCIOUS
    return Status.INCAPACITATED


def without_blood(current: Status, vampire: bool, blood: int) -> Status:
    """§7: an Incapacitated vampire with no blood left falls into torpor."""
    return Status.TORPOR if vampire and current == Status.INCAPACITATED and blood <= 0 else current


def after_soak(damage_successes: int, soak_successes: int, bashing_vs_vampire: bool) -> int:
    """Health levels taken: damage less soak; a vampire halves bashing after soak, rounding
    down (§7, §10 #10, published)."""
    left = max(damage_successes - soak_successes, 0)
    return left // 2 if bashing_vs_vampire else left


def multiple_action_penalties(actions: int) -> list[int]:
    """§8.1 (published): with N actions, action k (from 1) loses N + k - 1 dice."""
    return [actions + k for k in range(actions)]


def initiative(
    roll: int, dexterity: int, wits: int, penalty: int, celerity: int, celerity_used: int
) -> int:
    """§4 (seed): 1d10 + Dexterity + Wits - the wound penalty + unused Celerity dots."""
    return roll + dexterity + wits - penalty + (celerity - celerity_used)


def damage_pool(dice: int) -> int:
    """§4 (seed): a damage pool is never below one die."""
    return max(1, dice)


def defended(attack_net: int, defence_net: int) -> int | None:
    """§3 (published): each defence success removes an attack success; None is a miss,
    else the extra successes left for the damage pool."""
    left = attack_net - defence_net
    return None if left <= 0 else left - 1
