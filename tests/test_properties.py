"""Property tests over arbitrary legal play (STYLE #10), for every system and scenario."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.spaces import dict_space
from duelo.registration import SYSTEMS

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    (name, {"scenario": scenario} if scenario else {})
    for name, info in SYSTEMS.items()
    for scenario in info.scenarios or (None,)
]
# Options and fighters that open other code paths: agent crit choices, repeats,
# concealment, two weapons, surprise; light reloads, rolled PNJ initiative, heavy
# armour; the faithful duel, first blood, a small deck.
VARIANTS += [
    ("infierno", {"options": {"crit_choice": "agent", "both_miss": "always_repeat"}}),
    ("infierno", {"scenario": "brawl", "options": {"lighting": "total_concealment"}}),
    ("infierno", {"fighters": ("tommy_dos_pistolas", "brawler"), "scenario": "brawl"}),
    (
        "infierno",
        {
            "fighters": ("johny", "guard"),
            "scenario": "ambush",
            "options": {"stun_duration": "end_of_round", "staredown_penalty": "C"},
        },
    ),
    ("esgrima", {"fighters": ("brute", "musketeer"), "options": {"light_reload": "action"}}),
    (
        "esgrima",
        {
            "fighters": ("swashbuckler", "duelist"),
            "scenario": "open_square",
            "options": {"npc_initiative": "roll"},
        },
    ),
    ("esgrima_duel", {"options": {"duel_variant": "faithful", "duel_end": "first_blood"}}),
    ("esgrima_duel", {"fighters": ("brute", "swashbuckler"), "options": {"deck_copies": 2}}),
]


@settings(max_examples=200, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_legal_play_keeps_the_invariants(
    variant: tuple[str, dict[str, Any]], seed: int, data: st.DataObject
) -> None:
    name, kwargs = variant
    ruleset = SYSTEMS[name].ruleset(**kwargs)
    dice = GeneratorDice(seed)
    state = ruleset.new_duel(dice)
    spec = ruleset.observation_spec
    space = dict_space(spec)
    decisions = 0
    while (seat := ruleset.to_act(state)) is not None:
        mask = ruleset.legal_actions(state, seat)
        assert mask.any(), "a seat to act must have a legal action"
        assert not ruleset.legal_actions(state, 1 - seat).any(), "only one seat decides"
        for each in (0, 1):
            observation = spec.split(ruleset.observe(state, each))
            assert space.contains(observation)  # bounds include HP >= 0
            assert np.all(observation["hp"] <= observation["hp_max"])
        action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()))
        ruleset.apply(state, seat, action, dice)
        decisions += 1
        assert decisions < 5_000, "a duel must end"
    outcome = state.result
    assert outcome is not None
    assert outcome.reward(0) + outcome.reward(1) == 0  # zero-sum
    assert state.round <= ruleset.round_cap + 1
    assert outcome.truncated == (state.round > ruleset.round_cap)
    if outcome.winner is not None:
        assert not outcome.truncated
