"""Observations: one flat vector from each ruleset, keyed views made from it."""

from __future__ import annotations

import struct
from collections.abc import Mapping

import numpy as np
import pytest

from duelo.envs.core import observation
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.observation import SIDES, ObservationSpec, ObsKey, by_identity, grid
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


def test_fields_are_named_in_flat_order() -> None:
    spec = ObservationSpec(
        (
            ObsKey("initiative", "", 0, 99, (2,), SIDES),
            ObsKey("hp", "", 0, 9, (2,), SIDES),
            ObsKey("range", "", 0, 9),
            ObsKey("flags", "", 0, 1, (2, 2), grid(SIDES, ("stunned", "prone"))),
        )
    )
    assert spec.field_names() == [
        "initiative[self]",
        "initiative[opponent]",
        "hp[self]",
        "hp[opponent]",
        "range",
        "flags[self.stunned]",
        "flags[self.prone]",
        "flags[opponent.stunned]",
        "flags[opponent.prone]",
    ]
    flat = spec.pack([1, 2, 3, 4, 5, 0, 1, 1, 0])
    assert spec.split(flat)["flags"][0, 1] == flat[spec.index("flags", "self.prone")] == 1
    assert spec.read(spec.view(flat))("flags", "opponent.stunned") == 1
    assert spec.index("range") == 4
    with pytest.raises(KeyError, match="'flags' has no field 'self.cover'"):
        spec.index("flags", "self.cover")
    with pytest.raises(KeyError, match="'hp' has 2 entries: name a field"):
        spec.index("hp")


def test_a_key_of_several_entries_must_name_them() -> None:
    with pytest.raises(ValueError, match="'hp' has 2 entries but names 0 fields"):
        ObsKey("hp", "", 0, 9, (2,))
    with pytest.raises(ValueError, match="'hp' repeats a field"):
        ObsKey("hp", "", 0, 9, (2,), ("self", "self"))


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_every_shipped_entry_has_a_name(name: str) -> None:
    spec = SYSTEMS[name].ruleset().observation_spec
    names = spec.field_names()
    assert len(names) == spec.size and len(set(names)) == spec.size


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_a_reader_reads_many_entries_as_it_reads_each(name: str) -> None:
    ruleset = SYSTEMS[name].ruleset()
    spec = ruleset.observation_spec
    read = spec.read(spec.view(ruleset.observe(ruleset.new_duel(GeneratorDice(5)), 0)))
    entries = tuple(reversed(list(spec.entries)))
    assert read.many(entries) == [read(key, field) for key, field in entries]
    assert read.many(entries) == [read(key, field) for key, field in entries]  # remembered
    with pytest.raises(KeyError, match="no observation key"):
        read.many((("no_such_key", None),))


def test_by_identity_shows_each_object_once_and_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shown: list[object] = []

    @by_identity
    def show(block: list[int]) -> tuple[int, ...]:
        shown.append(block)
        return tuple(block)

    first, twin = [1, 2], [1, 2]  # equal, but two objects: each shown on its own
    assert show(first) == (1, 2) and show(first) is show(first)
    assert show(twin) == (1, 2) and [id(b) for b in shown] == [id(first), id(twin)]
    monkeypatch.setattr(observation, "MAX_CACHED", 2)
    show([3])  # a third object: the cache starts over rather than grow
    show(first)
    assert [id(b) for b in shown][-1] == id(first) and len(shown) == 4


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_rows_split_as_each_row_does(name: str) -> None:
    ruleset = SYSTEMS[name].ruleset()
    spec = ruleset.observation_spec
    state = ruleset.new_duel(GeneratorDice(5))
    rows = np.stack([ruleset.observe(state, 0), ruleset.observe(state, 1)])
    keyed = spec.split_rows(rows)
    assert list(keyed) == [key.name for key in spec.keys]
    for row in range(2):
        alone = spec.split(rows[row])
        for key in spec.keys:
            assert keyed[key.name].shape == (2, *key.shape)
            assert np.shares_memory(keyed[key.name], rows)
            np.testing.assert_array_equal(keyed[key.name][row], alone[key.name])
