"""Observation keys declared once, as data.

Each system lists its keys (name, meaning, bounds, shape) in one tuple. The
Gymnasium `Dict` space, the flat-vector view for MLPs and the docstring table
are all built from that tuple, so they cannot drift apart (STYLE #5).

A ruleset observes into one flat float32 vector laid out by that tuple. The
keyed views are made from it only where something reads keys: `split` for a
learner's Dict observation (a real dict, as Gymnasium requires), `view` for a
policy, which pays only for the keys it reads.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from math import prod

import numpy as np
from gymnasium import spaces

REQUIRED_KEYS = ("initiative", "hp", "range")
"""Every system's observation carries these (DESIGN.md layer 4)."""


@dataclass(frozen=True)
class ObsKey:
    """One observation entry: a float32 array of `shape` within [low, high]."""

    name: str
    meaning: str
    low: float
    high: float
    shape: tuple[int, ...] = (1,)

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


class ObservationSpec:
    """The declared keys of one system, and every view built from them."""

    def __init__(self, keys: tuple[ObsKey, ...]) -> None:
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
        self._format = f"{self.size}f"
        """`struct`'s layout of the vector (struct caches it compiled; a Struct cannot pickle)."""
        self.low = np.concatenate([np.full(k.size, k.low, np.float32) for k in keys])
        self.high = np.concatenate([np.full(k.size, k.high, np.float32) for k in keys])

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

    def dict_space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                key.name: spaces.Box(key.low, key.high, shape=key.shape, dtype=np.float32)
                for key in self.keys
            }
        )

    def flat_space(self) -> spaces.Box:
        return spaces.Box(self.low, self.high, dtype=np.float32)

    def split(self, flat: np.ndarray) -> FlatBackedObservation:
        """The Dict observation of a learner: every key, each a view into `flat`."""
        observation = FlatBackedObservation(
            (name, flat[start:stop] if shape is None else flat[start:stop].reshape(shape))
            for name, (start, stop, shape) in self.layout.items()
        )
        observation.flat = flat
        return observation

    def view(self, flat: np.ndarray) -> ObservationView:
        """The observation handed to a policy: keys made only when read."""
        return ObservationView(self, flat)

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

    def markdown_table(self) -> str:
        """The observation table for docs and `duelo systems`."""
        rows = ["| key | shape | bounds | meaning |", "|---|---|---|---|"]
        for key in self.keys:
            shape = "x".join(str(n) for n in key.shape)
            rows.append(f"| `{key.name}` | {shape} | [{key.low:g}, {key.high:g}] | {key.meaning} |")
        return "\n".join(rows)
