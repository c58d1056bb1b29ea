"""The attack pipeline of Infierno (seed: TIRADA DE ATAQUE, GOLPES CRÍTICOS,
PIFIAS Y ENCASQUILLAMIENTO, DAÑO; digest §3, §7, §8.2-§8.7), and its exact odds.

Dice are consumed in the digest's §7 order: attack d20, confirmation d20 (only
for a natural 20 that is not already a critical), concealment d100, damage dice;
on a natural 1, the fumble or jam d20 and, for a fumble, the self-damage dice.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache, partial

from duelo.envs.core.dice import (
    Dice,
    Distribution,
    dice_sum,
    expectation,
    probability,
    transform,
)
from duelo.envs.infierno.setup import Feat, InfiernoOptions, Weapon
from duelo.envs.infierno.state import (
    CRIT_EFFECTS,
    Action,
    Attack,
    AttackMode,
    Fighter,
    InfiernoState,
    Phase,
    Place,
    StrShare,
    is_out,
)

_CRIT_MULTIPLY, _CRIT_MAXIMUM, _CRIT_LETHAL = (
    Action.CRIT_MULTIPLY,
    Action.CRIT_MAXIMUM,
    Action.CRIT_LETHAL,
)  # bound once: Python 3.11 looks enum members up slowly, and damage is rolled often

EFFECT_NAMES = {
    Action.CRIT_MULTIPLY: "C1 multiplier",
    Action.CRIT_MAXIMUM: "C2 maximum damage",
    Action.CRIT_IGNORE_RD: "C3 ignore RD",
    Action.CRIT_SEQUEL: "C4 moderate Sequel",
    Action.CRIT_LETHAL: "C5 nonlethal to lethal",
}

TEST_DC = 15
"""DC of fumble tests, jam tests and clearing a jam (seed: PIFIAS Y ENCASQUILLAMIENTO)."""


# --- modifiers -------------------------------------------------------------------


def strength_share(str_mod: int, share: StrShare) -> int:
    """Digest §7 table; x1.5 and x1/2 round down and apply to positive Str only (ASSUMPTION)."""
    if share == StrShare.NONE:
        return 0
    if share == StrShare.FULL or str_mod < 0:
        return str_mod
    return str_mod * 3 // 2 if share == StrShare.ONE_AND_HALF else str_mod // 2


def range_penalty(weapon: Weapon, distance: int, reading: str = "digest") -> int:
    """-2 per full increment (seed). The digest's reading (§6, default): the first
    increment includes its end point; the literal one: -2 at exactly one increment."""
    if reading == "literal":
        return -2 * (distance // weapon.increment)
    return -2 * ((distance + weapon.increment - 1) // weapon.increment - 1)


def crit_threshold(weapon: Weapon, target: Fighter) -> int:
    """Margin over Defense that makes a critical: (crit_low - 10) + armour RD (seed)."""
    return weapon.crit_low - 10 + target.character.rd


def sequel_penalty(fighter: Fighter, options: InfiernoOptions) -> int:
    """-2 per moderate Sequel on attacks and every d20 test (digest §10.2)."""
    return -options.sequel_penalty * fighter.sequels


def attack_modifier(state: InfiernoState, attack: Attack) -> tuple[int, str]:
    """Total attack bonus and a note of the situational modifiers (digest §8.7)."""
    fighter = state.fighters[attack.attacker]
    character = fighter.character
    notes = []
    if attack.mode == AttackMode.MELEE:
        bonus = character.melee_attack
    else:
        bonus = character.ranged_attack
        reading = state.options.range_increments
        penalty = range_penalty(attack.weapon, state.range_of(attack), reading)
        if penalty:
            notes.append(f"range {penalty:+d}")
            bonus += penalty
    if attack.penalty:
        notes.append(f"two weapons {attack.penalty:+d}")
        bonus += attack.penalty
    sequels = sequel_penalty(fighter, state.options)
    if sequels:
        notes.append(f"sequels {sequels:+d}")
        bonus += sequels
    if fighter.prone and attack.mode == AttackMode.MELEE:
        notes.append("attacking prone -4")
        bonus -= 4
    allies, note = state.teamwork(attack)
    if note:
        notes.append(note)
        bonus += allies
    return bonus, ", ".join(notes)


def dodge_lost(state: InfiernoState, attacker: Fighter, target: Fighter) -> str:
    """Why the target loses its Dodge bonus against this attack, or "" (digest §8.2)."""
    if target.stunned:
        return "stunned"  # Uncanny Dodge does not cover stunning (§8.2)
    if Feat.UNCANNY_DODGE in target.character.feats:
        return ""
    if target.flat_footed:
        return "flat-footed"
    if attacker.feint_turns > 0:
        return "feinted"
    if state.options.lighting != "clear":
        return "attacker concealed"
    return ""


def current_defense(state: InfiernoState, attack: Attack) -> tuple[int, str]:
    """The target's Defense against this attack, and why it differs from the sheet."""
    attacker = state.fighters[attack.attacker]
    target = state.fighters[state.target_of(attack)]
    distance = state.range_of(attack)
    character = target.character
    defense = character.defense
    notes = []
    lost = dodge_lost(state, attacker, target)
    if lost and character.dodge:
        defense -= character.dodge
        notes.append(f"{lost}, no Dodge")
    if target.cover and distance > 1:  # §8.4: no cover at range 1
        defense += state.options.partial_cover_defense
        notes.append(f"cover +{state.options.partial_cover_defense}")
    if target.prone:  # §8.7 (ASSUMPTION, d20 SRD)
        if attack.mode == AttackMode.MELEE:
            defense -= 4
            notes.append("target prone -4")
        elif distance > 1:
            defense += 4
            notes.append("target prone +4")
    if target.stunned and state.options.stunned_defense_penalty:
        defense -= state.options.stunned_defense_penalty
        notes.append(f"stunned -{state.options.stunned_defense_penalty}")
    return defense, ", ".join(notes)


def hits(roll: int, bonus: int, defense: int) -> bool:
    """Natural 20 always hits, natural 1 always misses (seed: TIRADA DE ATAQUE)."""
    return roll == 20 or (roll != 1 and roll + bonus >= defense)


def confirms(roll: int, bonus: int, defense: int) -> bool:
    """The confirmation roll must reach Defense (seed: GOLPES CRÍTICOS); 20 confirms and
    1 fails (ASSUMPTION §7)."""
    return hits(roll, bonus, defense)


# --- damage and critical effects (§7, §7.1) ---------------------------------------


def damage_dice(weapon: Weapon, effect: Action | None, crit_mode: str) -> tuple[int, int]:
    """How many dice of how many sides a hit rolls for damage (seed: DAÑO; §7.1): the
    weapon's, m times as many for C1 rolled again, none for C2's maximum."""
    count, sides = weapon.damage
    if effect == _CRIT_MAXIMUM:
        return 0, sides
    if effect == _CRIT_MULTIPLY and crit_mode == "reroll":
        return count * weapon.multiplier, sides
    return count, sides


def damage_rolled(
    weapon: Weapon, flat: int, effect: Action | None, crit_mode: str, faces: int
) -> int:
    """Damage before RD, from the sum of the `damage_dice` faces (§7, §7.1)."""
    multiplier = weapon.multiplier
    if effect == _CRIT_MAXIMUM:
        return maximum_damage(weapon, flat)
    if effect == _CRIT_MULTIPLY:
        if crit_mode == "reroll":
            return _min_one(faces + flat * multiplier)
        return _min_one(faces + flat) * multiplier
    return _min_one(faces + flat)


def is_lethal(weapon: Weapon, effect: Action | None) -> bool:
    """Lethal damage, unless the weapon deals nonlethal and C5 does not convert it (§7.1)."""
    return weapon.lethal or effect == _CRIT_LETHAL


def damage_dealt(rolled: int, rd: int) -> int:
    """§7 step 5: RD is subtracted after the minimum of 1, and may bring damage to 0."""
    return max(0, rolled - rd)


@lru_cache(maxsize=1024)
def damage_distribution(
    weapon: Weapon, flat: int, effect: Action | None, crit_mode: str
) -> Distribution:
    """Damage before RD for a normal hit (effect None) or a critical effect (§7.1),
    counted through `damage_dice` and `damage_rolled`, as `deal_damage` rolls it.

    Cached: exact convolutions are slow and a duel asks for the same few again.
    The returned dict is shared, so callers must not change it.
    """
    count, sides = damage_dice(weapon, effect, crit_mode)
    return transform(
        dice_sum(count, sides), lambda faces: damage_rolled(weapon, flat, effect, crit_mode, faces)
    )


def maximum_damage(weapon: Weapon, flat: int) -> int:
    """C2: every die at its maximum; x3 weapons x1.5 (round down), x4 weapons x2 (seed)."""
    count, sides = weapon.damage
    top = _min_one(count * sides + flat)
    return {2: top, 3: top * 3 // 2, 4: top * 2}[weapon.multiplier]


def _min_one(value: int) -> int:
    """Minimum damage 1 (seed: DAÑO), applied to the roll before RD."""
    return max(1, value)


def allowed_effects(attack: Attack, target: Fighter) -> list[Action]:
    """C5 only converts nonlethal damage; C3 matters only against RD (digest §12)."""
    effects = [Action.CRIT_MULTIPLY, Action.CRIT_MAXIMUM]
    if target.character.rd > 0:
        effects.append(Action.CRIT_IGNORE_RD)
    effects.append(Action.CRIT_SEQUEL)
    if not attack.weapon.lethal:
        effects.append(Action.CRIT_LETHAL)
    return effects


def best_effect(state: InfiernoState, attack: Attack) -> Action:
    """auto_best (digest §7.1): most likely to put the target out, then most damage."""
    target = state.fighters[state.target_of(attack)]
    return _best_effect(
        attack.weapon,
        damage_flat(state, attack),
        tuple(allowed_effects(attack, target)),
        target.character.rd,
        target.hp,
        target.nonlethal,
        state.options.crit_mode,
    )


@lru_cache(maxsize=4096)
def _best_effect(
    weapon: Weapon,
    flat: int,
    effects: tuple[Action, ...],
    target_rd: int,
    target_hp: int,
    target_nonlethal: int,
    crit_mode: str,
) -> Action:
    """The pure (and cached) part of `best_effect`: exact odds are slow to compute."""
    best: tuple[Fraction, Fraction, int] | None = None
    choice = Action.CRIT_MULTIPLY
    for effect in effects:
        rd = 0 if effect == Action.CRIT_IGNORE_RD else target_rd
        lethal = is_lethal(weapon, effect)
        dealt = transform(
            damage_distribution(weapon, flat, effect, crit_mode),
            partial(damage_dealt, rd=rd),
        )

        def out(damage: int, lethal: bool = lethal) -> bool:
            if lethal:
                return is_out(target_hp - damage, target_nonlethal)
            return is_out(target_hp, target_nonlethal + damage)

        key = (probability(dealt, out), expectation(dealt), -CRIT_EFFECTS.index(effect))
        if best is None or key > best:
            best, choice = key, effect
    return choice


# --- resolution ------------------------------------------------------------------


def damage_flat(state: InfiernoState, attack: Attack) -> int:
    return strength_share(state.fighters[attack.attacker].character.str_mod, attack.str_share)


def resolve_attack(state: InfiernoState, attack: Attack, dice: Dice) -> None:
    """Roll one attack to its end, or stop at a critical the attacker must choose for."""
    seat = attack.attacker
    attacker = state.fighters[seat]
    target = state.fighters[state.target_of(attack)]
    if attack.item is not None:
        item = attacker.carried[attack.item]
        if attack.mode == AttackMode.RANGED and state.options.track_ammo:
            item.ammo -= 1  # spent hit or miss, jammed or not (§5, §7 ASSUMPTION)
        if attack.mode == AttackMode.THROWN:
            item.place = Place.THROWN_AWAY  # §5: the weapon leaves the hand
            off = attacker.off
            if off is not None:  # seed: any weapon in hand can attack; the other hand leads now
                off.place = Place.MAIN_HAND
    bonus, bonus_notes = attack_modifier(state, attack)
    defense, defense_notes = current_defense(state, attack)
    attacker.feint_turns = 0  # the feint is spent on the next attack (§5)
    roll = dice.roll(20, "attack")
    total = roll + bonus
    verb = {AttackMode.MELEE: "strikes at", AttackMode.RANGED: "fires at"}.get(
        attack.mode, "throws at"
    )
    hand = " (off hand)" if attack.off_hand else ""
    notes = "; ".join(n for n in (bonus_notes, defense_notes) if n)
    line = (
        f"{attacker.name} {verb} {target.name} with the {attack.weapon.name}{hand}: "
        f"d20 {roll} {bonus:+d} = {total} vs Defense {defense}" + (f" ({notes})" if notes else "")
    )
    if roll == 1:
        state.say(seat, line + " -> natural 1, miss")
        _natural_one(state, attack, dice)
        return
    strict = state.exceed_needed(attack) and roll != 20  # §13.5 option stray_needs_exceed
    if not hits(roll, bonus, defense + strict):
        state.say(seat, line + (" -> a tie does not pass it: miss" if strict else " -> miss"))
        return
    stray, into = state.stray_victim(attack, dice)
    line += into
    if stray is not None:  # §13.5: a normal hit on the ally, no critical check
        state.say(seat, line + " -> a stray hit")
        if not _concealment_spares(state, seat, dice):
            deal_damage(state, attack, None, dice, target_seat=stray)
        return
    margin = total - defense
    threshold = crit_threshold(attack.weapon, target)
    critical = margin >= threshold
    ignore_rd = False
    if critical:
        line += f" -> hit, margin {margin} >= {threshold}: CRITICAL"
    elif roll == 20:
        confirm = dice.roll(20, "critical confirmation")
        confirmed = confirms(confirm, bonus, defense)
        line += f" -> natural 20, threat; confirmation d20 {confirm} {bonus:+d} = {confirm + bonus}"
        if confirmed:
            critical = True
            line += ": CRITICAL"
        else:
            ignore_rd = True  # seed: an unconfirmed threat is a normal hit ignoring armour
            line += ": not confirmed, normal hit ignoring RD"
    else:
        line += " -> hit"
    state.say(seat, line)
    if _concealment_spares(state, seat, dice):
        return
    if not critical:
        deal_damage(state, attack, None, dice, ignore_rd=ignore_rd)
    elif state.options.crit_choice == "agent":
        state.pending_crit = attack
        state.phase = Phase.CRIT_CHOICE
    elif state.options.crit_choice == "always_c1":
        deal_damage(state, attack, Action.CRIT_MULTIPLY, dice)
    else:
        deal_damage(state, attack, best_effect(state, attack), dice)


def _concealment_spares(state: InfiernoState, seat: int, dice: Dice) -> bool:
    """§8.5: the concealment miss chance, rolled after the critical check."""
    if state.options.lighting == "clear":
        return False
    miss = (
        state.options.partial_concealment_miss
        if state.options.lighting == "partial_concealment"
        else state.options.total_concealment_miss
    )
    percent = dice.roll(100, "concealment")
    if percent <= miss:
        state.say(seat, "Concealment: d100 {} <= {}, the hit is lost", percent, miss)
        return True
    state.say(seat, "Concealment: d100 {} > {}, the hit stands", percent, miss)
    return False


def _natural_one(state: InfiernoState, attack: Attack, dice: Dice) -> None:
    """Fumble or jam threat (seed: PIFIAS Y ENCASQUILLAMIENTO)."""
    seat = attack.attacker
    fighter = state.fighters[seat]
    penalty = sequel_penalty(fighter, state.options)
    if attack.mode == AttackMode.RANGED:
        reliability = attack.weapon.reliability
        roll = dice.roll(20, "jam test")
        total = roll + reliability + penalty
        text = f"Jam test: d20 {roll} {reliability + penalty:+d} = {total} vs {TEST_DC}"
        if total < TEST_DC and attack.item is not None:
            fighter.carried[attack.item].jammed = True
            state.say(seat, text + f" -> the {attack.weapon.name} JAMS")
        else:
            state.say(seat, text + " -> no jam")
        return
    reflex = fighter.character.reflex
    roll = dice.roll(20, "fumble test (Reflex)")
    total = roll + reflex + penalty
    text = f"Fumble test (Reflex): d20 {roll} {reflex + penalty:+d} = {total} vs {TEST_DC}"
    if total >= TEST_DC:
        state.say(seat, text + " -> recovers")
        return
    state.say(seat, text + " -> FUMBLE: hurts himself and is stunned")
    deal_damage(state, attack, None, dice, target_seat=seat)
    fighter.stunned = True


def deal_damage(
    state: InfiernoState,
    attack: Attack,
    effect: Action | None,
    dice: Dice,
    ignore_rd: bool = False,
    target_seat: int | None = None,
) -> None:
    """Roll and apply damage (seed: DAÑO; critical effects C1-C5 of §7.1)."""
    seat = attack.attacker
    target_seat = state.target_of(attack) if target_seat is None else target_seat
    target = state.fighters[target_seat]
    weapon = attack.weapon
    flat = damage_flat(state, attack)
    crit_mode = state.options.crit_mode
    count, sides = damage_dice(weapon, effect, crit_mode)
    faces = [dice.roll(sides, "damage") for _ in range(count)]
    rolled = damage_rolled(weapon, flat, effect, crit_mode, sum(faces))
    if effect == Action.CRIT_MAXIMUM:
        formula = f"maximum {rolled}"
    elif effect == Action.CRIT_MULTIPLY and crit_mode != "reroll":  # one roll, multiplied
        multiplier = weapon.multiplier
        once = rolled // multiplier
        formula = f"{count}d{sides}{flat:+d} {faces} = {once}, x{multiplier} = {rolled}"
    else:
        bonus = flat * weapon.multiplier if effect == Action.CRIT_MULTIPLY else flat
        formula = f"{count}d{sides}{bonus:+d} {faces} = {rolled}"
    lethal = is_lethal(weapon, effect)
    rd = 0 if ignore_rd or effect == Action.CRIT_IGNORE_RD else target.character.rd
    dealt = damage_dealt(rolled, rd)
    if lethal:
        target.hp -= dealt
    else:
        target.nonlethal += dealt
    if effect == Action.CRIT_SEQUEL:
        target.sequels += 1
    if dealt > 0 and target_seat != seat:
        state.fighters[seat].damaged_opponent = True
    chosen = f"{EFFECT_NAMES[effect]}, " if effect is not None else ""
    kind = "lethal" if lethal else "nonlethal"
    rd_note = f" - RD {rd}" if rd else ""
    sequel = ", and a moderate Sequel" if effect == Action.CRIT_SEQUEL else ""
    state.say(
        seat,
        "Damage ({}{}){}: {} {} to {} (hp {}/{}, nonlethal {}){}",
        chosen,
        formula,
        rd_note,
        dealt,
        kind,
        target.name,
        target.hp,
        target.character.hp_max,
        target.nonlethal,
        sequel,
    )
