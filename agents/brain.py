"""Trained brains as small, pickle-free artifacts that run with numpy alone.

A brain is a folder of two files:

- `manifest.json`: the format, the system, env id and version, the observation
  schema (every key's shape, bounds and entry names), the action names, the network shape,
  the training settings and the evaluation results;
- `weights.npz`: the observation normaliser (`obs_mean`, `obs_var`) and the
  policy network's layers (`layer_K_weight`, `layer_K_bias`, then
  `action_weight`, `action_bias`), read with `allow_pickle=False`.

The forward pass is `clip((x - mean) / sqrt(var + eps))`, hidden layers with the
activation, logits, then the masked argmax: the same decision as the trained
stable-baselines3 policy's masked deterministic action, without torch.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from duelo.envs.core.observation import ObservationSpec
from duelo.envs.systems import SYSTEMS

FORMAT = "duelo-brain"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
WEIGHTS = "weights.npz"
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": lambda x: np.tanh(x, out=x),
    "relu": lambda x: np.maximum(x, 0.0, out=x),
}
"""Activations by manifest name, applied in place to a layer's fresh output."""


class BrainError(ValueError):
    """A brain that cannot be used here; the message names the file and the mismatch."""


def observation_schema(spec: ObservationSpec) -> list[dict[str, Any]]:
    """The manifest's description of an observation, compared on load: each key's name,
    shape, bounds and the names of its entries in flat order, so another program can
    build the vector, and a brain is refused where an entry changed its meaning."""
    return [
        {
            "name": k.name,
            "shape": list(k.shape),
            "low": k.low,
            "high": k.high,
            "fields": list(k.fields),
        }
        for k in spec.keys
    ]


@dataclass
class NumpyBrain:
    """A trained policy: a masked argmax over an MLP's logits."""

    name: str
    description: str
    system: str
    spec: ObservationSpec
    obs_mean: np.ndarray
    obs_scale: np.ndarray
    clip: float
    layers: list[tuple[np.ndarray, np.ndarray]]
    """(weight transposed to (inputs, outputs), bias), float32, contiguous."""
    head: tuple[np.ndarray, np.ndarray]
    activation: Callable[[np.ndarray], np.ndarray]
    manifest: dict[str, Any]

    def logits(self, flat: np.ndarray) -> np.ndarray:
        """Action logits of one flat observation or a batch of them.

        Normalised in float64 then run in float32, as VecNormalize and torch do. A hot
        path (one decision is a dozen numpy calls): every step after the first
        subtraction works in place, and the clip is a minimum and a maximum.
        """
        x = flat - self.obs_mean
        x *= self.obs_scale
        np.minimum(x, self.clip, out=x)
        np.maximum(x, -self.clip, out=x)
        x = x.astype(np.float32)
        for weight_t, bias in self.layers:
            x = np.dot(x, weight_t)  # `@` as BLAS, without the matmul ufunc's dispatch
            x += bias
            self.activation(x)
        weight_t, bias = self.head
        x = np.dot(x, weight_t)
        x += bias
        return x

    def act(
        self,
        observation: Mapping[str, np.ndarray] | np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        """The legal action of highest logit. A flat vector or a Dict of the spec's keys is
        read; anything else, or a mask with no legal action, is a `BrainError` naming
        what was expected."""
        flat = self._flat(observation)
        mask = np.asarray(action_mask, dtype=bool)
        actions = len(self.head[1])
        if mask.shape != (actions,):
            raise BrainError(
                f"brain {self.name}: action mask of shape {mask.shape}, expected ({actions},)"
            )
        logits = self.logits(flat)
        logits[~mask] = -np.inf
        best = int(logits.argmax())
        if not mask[best]:
            raise BrainError(f"brain {self.name}: the action mask allows no action")
        return best

    def _flat(self, observation: Mapping[str, np.ndarray] | np.ndarray) -> np.ndarray:
        """The flat observation vector, checked against the spec (shape and a real dtype)."""
        expected = (
            f"a float vector of shape ({self.spec.size},) or a Dict of the {self.system} keys"
        )
        if isinstance(observation, np.ndarray):
            flat = observation
        elif isinstance(observation, Mapping):
            try:
                flat = self.spec.flatten(observation)
            except (KeyError, ValueError, TypeError, AttributeError) as error:
                raise BrainError(
                    f"brain {self.name}: observation is not {expected}: {error}"
                ) from None
        else:
            raise BrainError(
                f"brain {self.name}: observation is a {type(observation).__name__}, not {expected}"
            )
        if flat.shape != (self.spec.size,) or flat.dtype.kind not in "fiub":
            raise BrainError(
                f"brain {self.name}: observation of shape {flat.shape} and dtype {flat.dtype}, "
                f"expected {expected}"
            )
        return flat


def shipped_brains(system: str) -> list[str]:
    """Names of the brains shipped with duelo for `system` ("brain:NAME")."""
    names = []
    for folder in sorted(Path(str(resources.files("duelo.brains"))).iterdir()):
        manifest = folder / MANIFEST
        if manifest.is_file() and json.loads(manifest.read_text("utf-8")).get("system") == system:
            names.append(f"brain:{folder.name}")
    return names


def brain_folder(reference: str | Path) -> Path:
    """The shipped brain of that name, or else a folder path: a bare name ("infierno") is a
    shipped brain even where a folder of that name lies in the working directory; write
    "./infierno" (or any path) for the folder."""
    text = str(reference)
    bare = isinstance(reference, str) and not text.startswith(".") and "/" not in text
    shipped = Path(str(resources.files("duelo.brains"))) / text
    return shipped if bare and (shipped / MANIFEST).is_file() else Path(text)


def load_brain(path: str | Path, system: str | None = None) -> NumpyBrain:
    """Load a brain folder (or a shipped brain by name), checking it against this code."""
    folder = brain_folder(path)
    manifest = _read_manifest(folder / MANIFEST)
    where = str(folder / MANIFEST)
    brain_system = manifest.get("system")
    if brain_system not in SYSTEMS:
        raise BrainError(f"{where}: unknown system {brain_system!r}")
    if system is not None and brain_system != system:
        raise BrainError(f"{where}: a brain for {brain_system!r}, not for {system!r}")
    ruleset = SYSTEMS[brain_system].ruleset
    if manifest.get("env_version") != ruleset.version:
        raise BrainError(
            f"{where}: trained on {brain_system} env version {manifest.get('env_version')}, "
            f"but this duelo runs version {ruleset.version}; retrain or use a matching duelo"
        )
    spec: ObservationSpec = ruleset.observation_spec
    if manifest.get("observation") != observation_schema(spec):
        raise BrainError(f"{where}: its observation schema differs from {brain_system}'s")
    actions = [a.name for a in ruleset.actions]
    if manifest.get("actions") != actions:
        raise BrainError(f"{where}: its action names differ from {brain_system}'s")
    network = manifest.get("network", {})
    activation = ACTIVATIONS.get(network.get("activation"))
    if activation is None:
        raise BrainError(f"{where}: unknown activation {network.get('activation')!r}")
    arrays = _read_weights(folder / WEIGHTS)
    layers, head = _layers(arrays, spec.size, len(actions), folder / WEIGHTS)
    return NumpyBrain(
        name=f"brain:{manifest.get('name', folder.name)}",
        description=manifest.get("description", "a trained brain"),
        system=brain_system,
        spec=spec,
        obs_mean=arrays["obs_mean"],
        obs_scale=1.0 / np.sqrt(arrays["obs_var"] + float(network.get("epsilon", 1e-8))),
        clip=float(network.get("clip", 10.0)),
        layers=[_transposed(w, b) for w, b in layers],
        head=_transposed(*head),
        activation=activation,
        manifest=manifest,
    )


def _transposed(weight: np.ndarray, bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(weight.T, dtype=np.float32), bias.astype(np.float32)


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise BrainError(
            f"{path}: no such file; a brain folder holds {MANIFEST} and {WEIGHTS}"
        ) from error
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BrainError(f"{path}: not a readable JSON manifest ({error})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BrainError(f"{path}: not a {FORMAT} manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BrainError(
            f"{path}: format version {manifest.get('format_version')}, expected {FORMAT_VERSION}"
        )
    return manifest


def _read_weights(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: np.asarray(data[name], dtype=np.float64) for name in data.files}
    except FileNotFoundError as error:
        raise BrainError(f"{path}: no such file") from error
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise BrainError(f"{path}: not a readable .npz of weights ({error})") from error
    return arrays


def _layers(
    arrays: dict[str, np.ndarray], inputs: int, outputs: int, path: Path
) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray]]:
    """The hidden layers and the action head, their shapes chained and checked."""
    for name in ("obs_mean", "obs_var", "action_weight", "action_bias"):
        if name not in arrays:
            raise BrainError(f"{path}: missing array {name!r}")
    if arrays["obs_mean"].shape != (inputs,) or arrays["obs_var"].shape != (inputs,):
        raise BrainError(f"{path}: normaliser shape differs from the observation size {inputs}")
    layers = []
    width = inputs
    k = 0
    while f"layer_{k}_weight" in arrays:
        weight, bias = arrays[f"layer_{k}_weight"], arrays.get(f"layer_{k}_bias")
        if (
            bias is None
            or weight.ndim != 2
            or weight.shape[1] != width
            or bias.shape != weight.shape[:1]
        ):
            raise BrainError(f"{path}: layer {k} does not fit a width of {width}")
        layers.append((weight, bias))
        width = weight.shape[0]
        k += 1
    head = (arrays["action_weight"], arrays["action_bias"])
    if head[0].shape != (outputs, width) or head[1].shape != (outputs,):
        raise BrainError(f"{path}: the action layer does not map {width} to {outputs} actions")
    return layers, head
