"""Observations: one flat vector from each ruleset, keyed views made from it."""

from __future__ import annotations

import struct
from collections.abc import Mapping

import numpy as np
import pytest

from duelo.envs.core.dice import GeneratorDice
from duelo.envs.systems import SYSTEMS


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_a_policys_view_reads_the_learners_dict(name: str) -> None:
    ruleset = SYSTEMS[name].ruleset()
    spec = ruleset.observation_spec
    state = ruleset.new_duel(GeneratorDice(3))
    flat = ruleset.observe(state, 0)
    assert flat.dtype == np.float32 and flat.shape == (spec.size,) and flat.flags.writeable
    view, learner = spec.view(flat), spec.split(flat)
    assert isinstance(view, Mapping) and not isinstance(view, dict)
    assert list(view) == [key.name for key in spec.keys] == list(learner) and len(view) == len(
        learner
    )
    for key in spec.keys:
        assert view[key.name].shape == key.shape
        assert np.array_equal(view[key.name], learner[key.name])
    assert spec.flatten(view) is flat and spec.flatten(learner) is flat
    assert np.array_equal(spec.flatten(dict(view)), flat)  # a plain dict is concatenated
    with pytest.raises(KeyError):
        view["no_such_key"]


def test_a_view_makes_each_key_once_as_a_view_of_the_vector() -> None:
    ruleset = SYSTEMS["infierno"].ruleset()
    flat = ruleset.observe(ruleset.new_duel(GeneratorDice(3)), 1)
    view = ruleset.observation_spec.view(flat)
    assert view["hp"] is view["hp"]
    flat[ruleset.observation_spec.slice_of("hp")] = 7
    assert view["hp"].tolist() == [7, 7]


def test_pack_refuses_a_wrong_count() -> None:
    spec = SYSTEMS["esgrima_duel"].ruleset.observation_spec
    assert spec.pack([1.0] * spec.size).tolist() == [1.0] * spec.size
    with pytest.raises(struct.error):
        spec.pack([1.0] * (spec.size - 1))
