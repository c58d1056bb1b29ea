"""Named reads of a skirmish observation, by row, for the systems' scripted NPCs.

A skirmish observation shows one row a fighter: row 0 the seat itself, rows 1 to
`max_side - 1` its allies, then its opponents (`ruleset.slot_rows`). Every system's
skirmish NPCs read it the same way; a system's `View` subclasses `RowView`, naming its
observation spec, its rows' names and its phases, and adds the reads its own rules
need.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from duelo.envs.core.observation import FieldReader, ObservationSpec

SELF = 0
"""The seat's own row."""


class RowView(FieldReader):
    """A `FieldReader` that also reads an entry of a row by the row's number."""

    __slots__ = ()
    SPEC: ClassVar[ObservationSpec]
    ROWS: ClassVar[tuple[str, ...]]
    """Each row's name in the spec's fields ("self", "ally1", ...)."""
    MAX_SIDE: ClassVar[int]
    PHASES: ClassVar[tuple[str, ...]] = ()
    """The `phase` key's fields, in order."""

    def __init__(self, observation: Mapping[str, np.ndarray]) -> None:
        super().__init__(self.SPEC, observation)

    @property
    def allies(self) -> range:
        return range(1, self.MAX_SIDE)

    @property
    def enemies(self) -> range:
        return range(self.MAX_SIDE, 2 * self.MAX_SIDE)

    def get(self, key: str, row: int | None = None, field: str | None = None) -> float:
        """Entry `field` of `key` for `row` (its whole row's entry without a field), or the
        key's own `field` without a row."""
        if row is None:
            return self(key, field)
        return self(key, self.ROWS[row] if field is None else f"{self.ROWS[row]}.{field}")

    @property
    def phase(self) -> str:
        return next(name for name in self.PHASES if self.get("phase", None, name))

    def active(self, row: int) -> bool:
        return bool(self.get("present", row)) and bool(self.get("status", row, "active"))

    def foes(self) -> list[int]:
        """The active opponents, in row order."""
        return [row for row in self.enemies if self.active(row)]

    def friends(self) -> list[int]:
        """The active allies, in row order."""
        return [row for row in self.allies if self.active(row)]

    def nearest_foes(self) -> list[int]:
        """The active opponents, nearest first (the `range` key's row entries)."""
        return sorted(self.foes(), key=lambda r: (self.get("range", r), r))
