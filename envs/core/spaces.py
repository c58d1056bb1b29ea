"""Gymnasium spaces built from an observation spec (the env layer's side of it).

The rules layer declares its observation (`observation.py`) without Gymnasium;
only the env adapter, and what sits above it, turns that into spaces.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from gymnasium import spaces

from duelo.envs.core.observation import ObservationSpec


def dict_space(spec: ObservationSpec) -> spaces.Dict:
    """One float32 `Box` per declared key, in declared order: Gymnasium sorts the keys of
    a plain dict, which would make `FlattenObservation`'s vector differ from the flat
    observation a brain reads."""
    return spaces.Dict(
        OrderedDict(
            (key.name, spaces.Box(key.low, key.high, shape=key.shape, dtype=np.float32))
            for key in spec.keys
        )
    )


def flat_space(spec: ObservationSpec) -> spaces.Box:
    """The flat vector's `Box`, with each entry's own bounds."""
    return spaces.Box(spec.low, spec.high, dtype=np.float32)
