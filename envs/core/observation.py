"""Observation keys declared once, as data.

Each system lists its keys (name, meaning, bounds, shape, and the name of
every entry of a key with more than one) in one tuple. The Gymnasium spaces
(`envs/core/spaces.py`), the flat-vector view for MLPs, the docstring table
and a brain's published schema are all built from that tuple, so they cannot
drift apart (STYLE #5), and NPCs and tests read entries by name
(`ObservationSpec.index`), never at hand-counted offsets (STYLE #17).

A ruleset observes into one flat float32 vector laid out by that tuple. The
keyed views are made from it only where something reads keys: `split` for a
learner's Dict observation (a real dict, as Gymnasium requires), `view` for a
policy, which pays only for the keys it reads.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import wraps
from itertools import product
from math import prod
from typing import TypeVar

import numpy as np

MAX_CACHED = 4096
"""Entries each packing cache keeps before it starts over (each `gym.make` loads a new
catalog, so keys by identity would otherwise grow without end)."""
REQUIRED_KEYS = ("initiative", "hp", "range")
"""Every system's observation carries these (DESIGN.md layer 4)."""
SIDES = ("self", "opponent")
"""The names of a pair's entries: observations show [self, opponent]."""

Fixed = TypeVar("Fixed")
Shown = TypeVar("Shown")


def by_identity(show: Callable[[Fixed], Shown]) -> Callable[[Fixed], Shown]:
    """`show` remembered per argument object, up to `MAX_CACHED` of them: for what an
    observation shows of something fixed all fight long (a stat block, a weapon), where
    hashing a frozen dataclass of many fields would cost more than the work it saves.
    Each entry keeps its object alive, so an id is never reused while its entry stands."""
    shown: dict[int, tuple[Fixed, Shown]] = {}

    @wraps(show)
    def cached(fixed: Fixed) -> Shown:
        entry = shown.get(id(fixed))
        if entry is None or entry[0] is not fixed:
            if len(shown) >= MAX_CACHED:
                shown.clear()
            entry = shown[id(fixed)] = (fixed, show(fixed))
        return entry[1]

    return cached


Member = TypeVar("Member")


def one_hots(members: Iterable[Member]) -> dict[Member, tuple[float, ...]]:
    """Each member's one-hot over `members`, made once: what an observation shows of a
    phase or a maneuver, read from a table on the hot path (iterating an Enum there
    costs microseconds a step)."""
    listed = tuple(members)
    return {m: tuple(float(m == each) for each in listed) for m in listed}


def one_hot(members: Iterable[Enum | str]) -> tuple[str, ...]:
    """Field names of a one-hot over `members` (an enum's members are named in lower case)."""
    return tuple(m.name.lower() if isinstance(m, Enum) else m for m in members)


def grid(*axes: Iterable[Enum | str]) -> tuple[str, ...]:
    """Field names of a key whose entries are every combination of `axes`, in row-major
    (flat) order, joined by dots: `grid(SIDES, ("stunned", "prone"))` gives
    `("self.stunned", "self.prone", "opponent.stunned", "opponent.prone")`."""
    return tuple(".".join(names) for names in product(*(one_hot(axis) for axis in axes)))


@dataclass(frozen=True)
class ObsKey:
    """One observation entry: a float32 array of `shape` within [low, high].

    `fields` names each entry of the array in flat (row-major) order; a key of
    more than one entry must name them all (see `grid` and `one_hot`).
    """

    name: str
    meaning: str
    low: float
    high: float
    shape: tuple[int, ...] = (1,)
    fields: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.size > 1 and len(self.fields) != self.size:
            raise ValueError(
                f"observation key {self.name!r} has {self.size} entries but names "
                f"{len(self.fields)} fields"
            )
        if len(set(self.fields)) != len(self.fields):
            raise ValueError(f"observation key {self.name!r} repeats a field name")

    @property
    def size(self) -> int:
        return prod(self.shape)


class FlatBackedObservation(dict):
    """A Dict observation whose values are views into one flat vector, `flat`,
    so flattening it again (a brain reading a Dict observation) costs nothing."""

    flat: np.ndarray


class ObservationView(Mapping[str, np.ndarray]):
    """A policy's read-only Dict view of one flat observation, `flat`.

    Each key's array (a view into `flat`) is made on its first read: a policy
    that reads a few keys, or none (random play, a brain reading `flat`), does
    not pay for making all of them.
    """

    __slots__ = ("flat", "_spec", "_made")

    def __init__(self, spec: ObservationSpec, flat: np.ndarray) -> None:
        self.flat = flat
        self._spec = spec
        self._made: dict[str, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        made = self._made.get(name)
        if made is None:
            start, stop, shape = self._spec.layout[name]
            made = self.flat[start:stop] if shape is None else self.flat[start:stop].reshape(shape)
            self._made[name] = made
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._spec.layout)

    def __len__(self) -> int:
        return len(self._spec.layout)


class FieldReader:
    """Named reads of one observation for a policy: `read("flags", "self.evading")`.

    The flat vector is read once as a Python list: a policy reads a dozen
    entries a decision, and list items cost far less than numpy scalars.
    """

    __slots__ = ("values", "_spec", "_entries")

    def __init__(self, spec: ObservationSpec, observation: Mapping[str, np.ndarray]) -> None:
        self.values: list[float] = spec.flatten(observation).tolist()
        self._spec = spec
        self._entries = spec.entries

    def __call__(self, key: str, field: str | None = None) -> float:
        """Entry `field` of `key` (or the key itself, when it has one entry)."""
        at = self._entries.get((key, field))
        return self.values[self._spec.index(key, field) if at is None else at]

    def many(self, entries: tuple[tuple[str, str | None], ...]) -> list[float]:
        """Several entries at once, in order (a fighter's row for a policy's odds): the
        request's positions are looked up once per spec."""
        values = self.values
        return [values[i] for i in self._spec.positions(entries)]


class ObservationSpec:
    """The declared keys of one system, and every view built from them."""

    def __init__(self, keys: tuple[ObsKey, ...]) -> None:
        self._positions: dict[tuple[tuple[str, str | None], ...], list[int]] = {}
        names = [key.name for key in keys]
        missing = [name for name in REQUIRED_KEYS if name not in names]
        if missing:
            raise ValueError(f"observation spec lacks required keys {missing}")
        if len(set(names)) != len(names):
            raise ValueError(f"observation spec repeats a key: {names}")
        self.keys = keys
        self.size = sum(key.size for key in keys)
        self._offsets: dict[str, tuple[int, int]] = {}
        start = 0
        for key in keys:
            self._offsets[key.name] = (start, start + key.size)
            start += key.size
        self.layout: dict[str, tuple[int, int, tuple[int, ...] | None]] = {
            k.name: (*self._offsets[k.name], None if len(k.shape) == 1 else k.shape) for k in keys
        }
        """name -> (start, stop, shape to reshape to, or None when a slice is already right)."""
        self._splits = tuple((name, *place) for name, place in self.layout.items())
        self._format = f"{self.size}f"
        """`struct`'s layout of the vector (struct caches it compiled; a Struct cannot pickle)."""
        self.low = np.concatenate([np.full(k.size, k.low, np.float32) for k in keys])
        self.high = np.concatenate([np.full(k.size, k.high, np.float32) for k in keys])
        self.entries: dict[tuple[str, str | None], int] = {
            (key.name, name): self._offsets[key.name][0] + i
            for key in keys
            for i, name in enumerate(key.fields or (None,))
        }
        """(key, field name) -> index in the flat vector; a single-entry key's field is None."""

    def pack(self, values: list[float]) -> np.ndarray:
        """One new float32 vector of `values`, in declaration order.

        Rulesets observe through this: `struct` packs a list of Python numbers
        about twice as fast as `np.array` does, and refuses a wrong count.
        """
        return self.join((struct.pack(self._format, *values),))

    def join(self, parts: Iterable[bytes]) -> np.ndarray:
        """One new float32 vector from packed parts (`struct` "f" floats, in declaration
        order): for rulesets that pack the constant parts of an observation once."""
        data = bytearray(b"".join(parts))
        if len(data) != 4 * self.size:
            raise ValueError(f"{len(data) // 4} floats packed for an observation of {self.size}")
        return np.frombuffer(data, np.float32)

    def split(self, flat: np.ndarray) -> FlatBackedObservation:
        """The Dict observation of a learner: every key, each a view into `flat`."""
        observation = FlatBackedObservation()
        for name, start, stop, shape in self._splits:  # every learner step: no generator
            observation[name] = (
                flat[start:stop] if shape is None else flat[start:stop].reshape(shape)
            )
        observation.flat = flat
        return observation

    def split_rows(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The Dict observation of many rows (`flat`: (..., size), as a vector env
        returns them): every key, each a view into `flat` of shape (..., *key.shape)."""
        lead = flat.shape[:-1]
        return {
            key.name: flat[..., start:stop].reshape(*lead, *key.shape)
            for key, (_, start, stop, _) in zip(self.keys, self._splits, strict=True)
        }

    def view(self, flat: np.ndarray) -> ObservationView:
        """The observation handed to a policy: keys made only when read."""
        return ObservationView(self, flat)

    def read(self, observation: Mapping[str, np.ndarray]) -> FieldReader:
        """Named reads of `observation` (a Dict, a view or a flat-backed Dict)."""
        return FieldReader(self, observation)

    def flatten(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """The flat view: the keys' values concatenated in declaration order.

        An observation made by `split` or `view` already is that vector underneath: no copy.
        """
        if isinstance(observation, FlatBackedObservation | ObservationView):
            return observation.flat
        return np.concatenate([observation[key.name].ravel() for key in self.keys])

    def slice_of(self, name: str) -> slice:
        """Where key `name` lies in the flat view."""
        start, stop = self._offsets[name]
        return slice(start, stop)

    def index(self, key: str, field: str | None = None) -> int:
        """Where one entry lies in the flat view: field `field` of key `key`, or the
        key itself when it has a single entry."""
        at = self.entries.get((key, field))
        if at is not None:
            return at
        if key not in self._offsets:
            raise KeyError(f"no observation key {key!r}")
        if field is None:
            start, stop = self._offsets[key]
            raise KeyError(f"observation key {key!r} has {stop - start} entries: name a field")
        raise KeyError(f"observation key {key!r} has no field {field!r}")

    def positions(self, entries: tuple[tuple[str, str | None], ...]) -> list[int]:
        """`index` of each (key, field) of `entries`, remembered for the next request."""
        found = self._positions.get(entries)
        if found is None:
            found = self._positions[entries] = [self.index(key, f) for key, f in entries]
        return found

    def field_names(self) -> list[str]:
        """Every entry of the flat view, named `key` or `key[field]`, in flat order
        (what a brain's manifest publishes)."""
        return [
            f"{key.name}[{name}]" if key.fields else key.name
            for key in self.keys
            for name in (key.fields or (key.name,))
        ]

    def markdown_table(self) -> str:
        """The observation table of the docs' system pages (`docs/hooks.py`)."""
        rows = ["| key | shape | bounds | meaning |", "|---|---|---|---|"]
        for key in self.keys:
            shape = "x".join(str(n) for n in key.shape)
            rows.append(f"| `{key.name}` | {shape} | [{key.low:g}, {key.high:g}] | {key.meaning} |")
        return "\n".join(rows)
