"""Any config the loaders accept keeps every observation inside its declared space
(issue 12): random valid stat blocks, weapons and options, played with random legal moves."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.testing import check_decision, check_end
from duelo.envs.esgrima.setup import RATINGS
from duelo.envs.esgrima.setup import load_catalog as esgrima_catalog
from duelo.envs.esgrima.skirmish import EsgrimaSkirmishRuleset
from duelo.envs.infierno.rules import InfiernoRuleset
from duelo.envs.infierno.setup import STAT_FIELDS
from duelo.envs.infierno.setup import load_catalog as infierno_catalog

INFIERNO = infierno_catalog()
ESGRIMA = esgrima_catalog()
stat = st.integers(-20, 40)


@st.composite
def infierno_fighter(draw: st.DrawFn) -> object:
    base = INFIERNO.characters[draw(st.sampled_from(sorted(INFIERNO.characters)))]
    changes = {
        name: draw(st.integers(0, 40) if name == "rd" else stat)
        for name in STAT_FIELDS
        if getattr(base, name) is not None
    }
    changes["hp_max"] = draw(st.integers(1, 999))
    weapons = []
    for weapon in (INFIERNO.weapons[w] for w in base.weapons):
        weapons.append(
            dataclasses.replace(
                weapon,
                damage=(draw(st.integers(1, 10)), draw(st.integers(2, 100))),
                draw_modifier=draw(st.integers(-10, 10)),
            )
        )
    return dataclasses.replace(base, **changes), weapons


def play(ruleset: object, seed: int, data: st.DataObject) -> None:
    dice = GeneratorDice(seed)
    state = ruleset.new_duel(dice)
    decisions = 0
    while (seat := ruleset.to_act(state)) is not None:
        mask, _ = check_decision(ruleset, state, seat, f"decision {decisions + 1}")
        ruleset.apply(state, seat, data.draw(st.sampled_from(np.flatnonzero(mask).tolist())), dice)
        decisions += 1
    check_end(ruleset, state, "the end")


@settings(max_examples=150, deadline=None)
@given(
    a=infierno_fighter(),
    b=infierno_fighter(),
    scenario=st.sampled_from(sorted(INFIERNO.scenarios)),
    options=st.fixed_dictionaries(
        {
            "sequel_penalty": st.integers(0, 10),
            "round_cap": st.integers(1, 998),
            "max_duel_repeats": st.integers(0, 10),
            "crit_choice": st.sampled_from(["auto_best", "always_c1", "agent"]),
            "partial_cover_defense": st.integers(0, 10),
        }
    ),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_infierno_configs_stay_in_the_space(
    a: tuple, b: tuple, scenario: str, options: dict, seed: int, data: st.DataObject
) -> None:
    catalog = dataclasses.replace(
        INFIERNO, weapons={**INFIERNO.weapons, **{w.id: w for w in (*a[1], *b[1])}}
    )
    play(InfiernoRuleset(scenario, (a[0], b[0]), options, catalog), seed, data)


@settings(max_examples=100, deadline=None)
@given(
    names=st.tuples(*[st.sampled_from(sorted(ESGRIMA.characters))] * 2),
    ratings=st.lists(st.integers(1, 5), min_size=18, max_size=18),
    pg=st.tuples(st.integers(1, 10), st.integers(1, 10)),
    layout=st.sampled_from(sorted(ESGRIMA.layouts)),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_random_esgrima_configs_stay_in_the_space(
    names: tuple, ratings: list, pg: tuple, layout: str, seed: int, data: st.DataObject
) -> None:
    fighters = tuple(
        dataclasses.replace(
            ESGRIMA.characters[name],
            pg_max=pg[i],
            **dict(zip(RATINGS, ratings[9 * i : 9 * i + 9], strict=True)),
        )
        for i, name in enumerate(names)
    )
    play(EsgrimaSkirmishRuleset(layout, fighters, None, ESGRIMA), seed, data)
