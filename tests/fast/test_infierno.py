"""The batched Infierno duel plays the scalar env's duels, decision for decision
(`helpers.compare`): every scenario, each GM option off its default, stat blocks with
knives, bottles, rifles, two revolvers and a derringer, and the surprise rolled or
given to side B."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from duelo.envs.infierno import fast as infierno  # noqa: E402
from duelo.envs.infierno.combat import best_effect  # noqa: E402
from duelo.envs.infierno.rules import InfiernoRuleset  # noqa: E402
from duelo.envs.infierno.setup import Surprise, load_catalog  # noqa: E402
from duelo.envs.infierno.state import Attack, AttackMode, StrShare  # noqa: E402
from tests.fast.helpers import compare  # noqa: E402

ENV_ID = "duelo/Infierno-v2"
SCENARIOS = ("formal_duel", "brawl", "ambush")
OPTIONS: dict[str, dict[str, Any]] = {
    "agent_crits_reading_C": {
        "crit_choice": "agent",
        "staredown_penalty": "C",
        "lighting": "partial_concealment",
        "stun_duration": "end_of_round",
        "crit_mode": "multiply_total",
    },
    "always_c1_reading_B": {
        "crit_choice": "always_c1",
        "staredown_penalty": "B",
        "lighting": "total_concealment",
        "stunned_defense_penalty": 2,
        "track_ammo": False,
        "allow_prone": False,
        "range_increments": "literal",
        "quick_draw_free": False,
    },
    "repeats_and_a_short_cap": {
        "both_miss": "always_repeat",
        "max_duel_repeats": 5,
        "round_cap": 3,
    },
    "fight_on_a_small_arena": {"both_miss": "continue", "arena": 12, "speed": 3},
}


def setups() -> dict[str, dict[str, Any]]:
    """Fighter pairs over the scenarios, including surprise rolled and given to side B."""
    catalog = load_catalog()
    ambush = catalog.scenarios["ambush"]
    return {
        "brawler_vs_tommy_brawl": {
            "scenario": "brawl",
            "fighters": ("brawler", "tommy_dos_pistolas"),
        },
        "rifleman_vs_quick_draw_formal": {
            "scenario": "formal_duel",
            "fighters": ("rifleman", "quick_draw_artist"),
        },
        "drunk_vs_guard_rolled_surprise": {
            "scenario": dataclasses.replace(ambush, surprise=Surprise.ROLLED),
            "fighters": ("drunk", "guard"),
        },
        "outlaw_vs_brawler_surprise_b": {
            "scenario": dataclasses.replace(ambush, surprise=Surprise.B, drawn=(False, True)),
            "fighters": ("outlaw", "brawler"),
        },
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 1_000) > 10


@pytest.mark.parametrize("name", OPTIONS)
def test_every_option_matches_the_reference(name: str) -> None:
    scenario = "brawl" if name == "always_c1_reading_B" else "formal_duel"
    assert compare(ENV_ID, {"scenario": scenario, "options": OPTIONS[name]}, 2_000) > 10


@pytest.mark.parametrize("name", list(setups()))
def test_every_kind_of_fighter_matches_the_reference(name: str) -> None:
    assert compare(ENV_ID, setups()[name], 2_000) > 10


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_hundred_thousand_decisions_match_the_reference(scenario: str) -> None:
    assert compare(ENV_ID, {"scenario": scenario}, 100_000, num_envs=64, seed=2026) > 1_000


def test_the_critical_table_is_the_references_choice() -> None:
    """auto_best (§7.1) read from the table equals `combat.best_effect` on live states: the
    choice depends on the damage that puts the target out, hp - nonlethal, alone."""
    ruleset = InfiernoRuleset("brawl", ("brawler", "rifleman"))
    rules = infierno.rules_of(ruleset)[0]
    state = ruleset.new_duel(_Faces())
    target = state.fighters[1]
    checked = 0
    for weapon_id in ("knife", "bottle", "fists", "rifle"):
        weapon = ruleset.catalog.weapons[weapon_id]
        index = next(i for i in range(infierno.MAX_WEAPONS) if _same(rules, i, weapon))
        for share in StrShare:
            attack = Attack(0, weapon, AttackMode.MELEE, share)
            for hp in range(1, target.character.hp_max + 1):
                for nonlethal in range(0, hp, 3):
                    target.hp, target.nonlethal = hp, nonlethal
                    table = rules["best_effect"][0, index, share, hp - nonlethal]
                    assert table == best_effect(state, attack), (weapon_id, share, hp, nonlethal)
                    checked += 1
    hp_max = target.character.hp_max
    assert checked == 4 * len(StrShare) * sum(len(range(0, hp, 3)) for hp in range(1, hp_max + 1))


def _same(rules: np.void, index: int, weapon: Any) -> bool:
    return bool(
        rules["w_count"][index] == weapon.damage[0]
        and rules["w_sides"][index] == weapon.damage[1]
        and rules["w_crit_low"][index] == weapon.crit_low
        and rules["w_lethal"][index] == weapon.lethal
        and rules["w_multiplier"][index] == weapon.multiplier
        and rules["w_hands"][index] == weapon.hands
    )


class _Faces:
    """Dice that roll 10 on everything (a duel to read stat blocks from)."""

    def roll(self, sides: int, purpose: str) -> int:
        return min(10, sides)
