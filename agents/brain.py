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
import math
import stat
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from duelo.agents.blas import one_thread
from duelo.envs.core import bounded_json
from duelo.envs.core.observation import ObservationSpec
from duelo.envs.core.referee import summary
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

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """`act` for a batch: flat observations (N, size) and masks (N, actions), one
        matrix product a layer (the batched tournament asks this way). A row with no
        legal action gets its highest logit, which the caller refuses as illegal. The
        products run on one BLAS thread (`blas.one_thread`)."""
        with one_thread():
            logits = self.logits(np.asarray(observations))
        logits[~np.asarray(action_masks, dtype=bool)] = -np.inf
        return logits.argmax(axis=1)

    def explain(
        self, observation: Mapping[str, np.ndarray] | np.ndarray, action_mask: np.ndarray
    ) -> str:
        """Its three likeliest legal actions and their probabilities under the policy's
        softmax over the legal logits (`duelo duel --explain`)."""
        logits = self.logits(self._flat(observation)).astype(np.float64)
        legal = np.flatnonzero(np.asarray(action_mask, dtype=bool))
        weights = np.exp(logits[legal] - logits[legal].max())
        chances = weights / weights.sum()
        names = self.manifest["actions"]
        best = np.argsort(-chances, kind="stable")[:3]
        return "probabilities: " + ", ".join(f"{names[legal[i]]} {chances[i]:.2f}" for i in best)

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
        if not np.isfinite(flat).all():  # a NaN's logits would argmax to action 0 unseen
            bad = int(np.flatnonzero(~np.isfinite(flat))[0])
            raise BrainError(
                f"brain {self.name}: observation entry {self.spec.field_names()[bad]} is "
                f"{flat[bad]}, not a finite number"
            )
        return flat


def shipped_brains(system: str, variant: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the brains shipped with duelo for `system` ("brain:NAME"); with `variant`,
    only those whose training fixed no option or fighter the variant does not (a brain
    trained as the PJ of the faithful card duel sits out the symmetric one). Scenarios
    do not count: a brain is judged in every scenario of its system."""
    names = []
    for folder in sorted(Path(str(resources.files("duelo.brains"))).iterdir()):
        manifest = folder / MANIFEST
        if not manifest.is_file():
            continue
        read = json.loads(manifest.read_text("utf-8"))
        if read.get("system") == system and (variant is None or _within(fixed_by(read), variant)):
            names.append(f"brain:{folder.name}")
    return names


def fixed_by(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What a brain's training fixed of the duel (options, fighters), scenarios aside: it
    is judged in every scenario of its system, but only in duels that fix those alike."""
    return {k: v for k, v in manifest.get("env_kwargs", {}).items() if k != "scenario"}


def check_fits(brain: NumpyBrain, variant: Mapping[str, Any]) -> None:
    """Refuse (`BrainError`) a duel that does not fix what the brain's training fixed:
    the faithful card duel's PJ in a symmetric duel would play a game it never saw."""
    fixed = fixed_by(brain.manifest)
    if not _within(fixed, variant):
        raise BrainError(
            f"{brain.name}: trained with {fixed}, which this duel ({dict(variant)}) does not set"
        )


def _within(fixed: Any, variant: Any) -> bool:
    """Whether `variant` sets everything `fixed` sets, alike (nested dicts by key)."""
    if isinstance(fixed, Mapping):
        return isinstance(variant, Mapping) and all(
            _within(value, variant.get(key)) for key, value in fixed.items()
        )
    return bool(fixed == variant)


def brain_folder(reference: str | Path) -> Path:
    """The shipped brain of that name, or else a folder path: a bare name ("infierno") is a
    shipped brain even where a folder of that name lies in the working directory; write
    "./infierno" (or any path) for the folder."""
    text = str(reference)
    bare = isinstance(reference, str) and not text.startswith(".") and "/" not in text
    shipped = Path(str(resources.files("duelo.brains"))) / text
    return shipped if bare and (shipped / MANIFEST).is_file() else Path(text)


def load_brain(path: str | Path, system: str | None = None) -> NumpyBrain:
    """Load a brain folder (or a shipped brain by name), checking it against this code.

    A brain may come from anyone: only regular files of bounded size are read, the
    manifest's fields are type-checked, only the arrays the network needs are read
    (each header checked for a real float dtype and the expected shape before its
    data), and every value must be finite. Anything else is a `BrainError` naming the
    file and the field.
    """
    folder = brain_folder(path)
    where = folder / MANIFEST
    manifest = _read_manifest(where)
    brain_system = manifest["system"]
    if brain_system not in SYSTEMS:
        raise BrainError(f"{where}: unknown system {summary(repr(brain_system))}")
    if system is not None and brain_system != system:
        raise BrainError(f"{where}: a brain for {brain_system!r}, not for {system!r}")
    ruleset = SYSTEMS[brain_system].ruleset
    if manifest["env_version"] != ruleset.version:
        raise BrainError(
            f"{where}: trained on {brain_system} env version {manifest['env_version']}, "
            f"but this duelo runs version {ruleset.version}; retrain or use a matching duelo"
        )
    spec: ObservationSpec = ruleset.observation_spec
    if manifest.get("observation") != observation_schema(spec):
        raise BrainError(f"{where}: its observation schema differs from {brain_system}'s")
    actions = [a.name for a in ruleset.actions]
    if manifest.get("actions") != actions:
        raise BrainError(f"{where}: its action names differ from {brain_system}'s")
    network = _network(manifest, where)
    widths = [spec.size, *network["hidden"], len(actions)]
    parameters = network_parameters(widths)
    if parameters > MAX_PARAMETERS:
        raise BrainError(
            f"{where}: a network of {parameters:,} parameters, more than the {MAX_PARAMETERS:,} "
            f"a brain may have (about {MAX_PARAMETERS * 12 >> 20} MiB to load)"
        )
    arrays = _read_weights(folder / WEIGHTS, _expected_arrays(widths))
    if np.any(arrays["obs_var"] < 0):
        raise BrainError(f"{folder / WEIGHTS}: obs_var has negative entries")
    hidden = len(network["hidden"])
    layers = [(arrays[f"layer_{k}_weight"], arrays[f"layer_{k}_bias"]) for k in range(hidden)]
    obs_scale = 1.0 / np.sqrt(arrays["obs_var"] + network["epsilon"])
    bound = logit_bound(
        network["clip"],
        [*layers, (arrays["action_weight"], arrays["action_bias"])],
        network["activation"],
    )
    if not bound <= MAX_LOGIT:
        raise BrainError(
            f"{folder / WEIGHTS}: its logits may reach {bound:.3g}, past the {MAX_LOGIT:g} "
            "that float32 computes safely (weights or network.clip too large)"
        )
    for field in ("name", "description"):
        if field in manifest and not manifest[field].isprintable():
            raise BrainError(f"{where}: field {field!r} holds control characters")
    return NumpyBrain(
        name=f"brain:{manifest.get('name', folder.name)}",
        description=manifest.get("description", "a trained brain"),
        system=brain_system,
        spec=spec,
        obs_mean=arrays["obs_mean"],
        obs_scale=obs_scale,
        clip=network["clip"],
        layers=[_transposed(w, b) for w, b in layers],
        head=_transposed(arrays["action_weight"], arrays["action_bias"]),
        activation=ACTIVATIONS[network["activation"]],
        manifest=manifest,
    )


MAX_MANIFEST_BYTES = 1 << 20
"""A manifest is a few kB; anything past a MiB is not one."""
MAX_WEIGHTS_BYTES = 256 << 20
MAX_LAYERS, MAX_WIDTH = 8, 4096
"""Bounds on the network a brain may declare."""
MAX_PARAMETERS = 1 << 22
"""Weights and biases a brain may hold: read in float64 then kept in float32, about 48 MiB
while it loads and 16 MiB loaded (and a 16 MiB `.onnx`); the shipped brains hold ~10,000."""
MAX_LOGIT = 1e30
"""The largest logit a brain may be able to produce: far inside float32 (3.4e38), so that
no layer overflows to an infinity and no softmax to NaN, in numpy, ONNX or torch alike."""
FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "description": str,
    "system": str,
    "env_id": str,
    "env_version": int,
    "observation": list,
    "actions": list,
    "network": dict,
}
"""The manifest fields read, and their types (the others are information only)."""


def network_parameters(widths: list[int]) -> int:
    """Weights and biases of an MLP whose layer widths are `widths` (input to output)."""
    return sum((inputs + 1) * outputs for inputs, outputs in pairwise(widths))


def logit_bound(clip: float, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> float:
    """An upper bound on every |value| the forward pass computes, for any observation:
    the normalised input lies in [-clip, clip] whatever the observation (the clip sees to
    it), and each layer maps a bound `b` on its input to `|W| b + |bias|`, which tanh
    caps at 1 (relu keeps it). Infinite where float64 itself overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.full(layers[0][0].shape[1], clip)
        worst = clip
        for k, (weight, bias) in enumerate(layers):
            bound = np.abs(weight) @ bound + np.abs(bias)
            worst = max(worst, float(bound.max()))
            if activation == "tanh" and k < len(layers) - 1:
                bound = np.minimum(bound, 1.0)
    return worst if math.isfinite(worst) else math.inf


def _transposed(weight: np.ndarray, bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.ascontiguousarray(weight.T, dtype=np.float32), bias.astype(np.float32)


def _regular_bytes(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (no FIFO, device or link to one)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BrainError(
            f"{path}: no such file; a brain folder holds {MANIFEST} and {WEIGHTS}"
        ) from None
    except OSError as error:
        raise BrainError(f"{path}: cannot be read ({error.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise BrainError(f"{path}: not a regular file")
    if info.st_size > limit:
        raise BrainError(f"{path}: {info.st_size} bytes, more than the {limit} a brain may have")
    with path.open("rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise BrainError(f"{path}: more than the {limit} bytes a brain may have")
    return data


def _read_manifest(path: Path) -> dict[str, Any]:
    data = _regular_bytes(path, MAX_MANIFEST_BYTES)
    try:
        manifest = bounded_json.loads(data, str(path), MAX_MANIFEST_BYTES)
    except ValueError as error:
        raise BrainError(str(error)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BrainError(f"{path}: not a {FORMAT} manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BrainError(
            f"{path}: format version {summary(repr(manifest.get('format_version')))}, "
            f"expected {FORMAT_VERSION}"
        )
    for name, types in FIELD_TYPES.items():
        value = manifest.get(name)
        if name in ("system", "env_version", "network") and value is None:
            raise BrainError(f"{path}: missing field {name!r}")
        if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
            raise BrainError(f"{path}: field {name!r} is {summary(repr(value))}")
    return manifest


def _network(manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    """The manifest's network: hidden widths, activation, clip and epsilon, checked."""
    network = manifest["network"]
    hidden = network.get("hidden")
    if (
        not isinstance(hidden, list)
        or len(hidden) > MAX_LAYERS
        or not all(type(w) is int and 1 <= w <= MAX_WIDTH for w in hidden)
    ):
        raise BrainError(
            f"{path}: network.hidden must list up to {MAX_LAYERS} widths in 1..{MAX_WIDTH}, "
            f"not {summary(repr(hidden))}"
        )
    if not isinstance(network.get("activation"), str) or network["activation"] not in ACTIVATIONS:
        raise BrainError(f"{path}: unknown activation {summary(repr(network.get('activation')))}")
    checked = {"hidden": hidden, "activation": network["activation"]}
    for name, default in (("clip", 10.0), ("epsilon", 1e-8)):
        value = network.get(name, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not (math.isfinite(value) and value > 0)
        ):
            raise BrainError(f"{path}: network.{name} must be a positive number, not {value!r}")
        checked[name] = float(value)
    return checked


def _expected_arrays(widths: list[int]) -> dict[str, tuple[int, ...]]:
    """Every array the forward pass reads, with its shape, for layer widths `widths`
    (observation size, hidden widths, actions)."""
    expected: dict[str, tuple[int, ...]] = {"obs_mean": (widths[0],), "obs_var": (widths[0],)}
    for k, (inputs, outputs) in enumerate(zip(widths[:-2], widths[1:-1], strict=True)):
        expected[f"layer_{k}_weight"] = (outputs, inputs)
        expected[f"layer_{k}_bias"] = (outputs,)
    expected["action_weight"] = (widths[-1], widths[-2])
    expected["action_bias"] = (widths[-1],)
    return expected


ZIP_ERRORS = (
    OSError,
    ValueError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
    NotImplementedError,  # a compression method zipfile lacks
    RuntimeError,  # an encrypted member
)
"""What zipfile and numpy raise for a damaged, encrypted or exotic archive."""


def _read_weights(path: Path, expected: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The `expected` arrays of the .npz at `path`, in float64, and nothing else."""
    _regular_bytes_size_check(path)
    try:
        archive = zipfile.ZipFile(path)
    except ZIP_ERRORS as error:
        raise BrainError(
            f"{path}: not a readable .npz of weights ({summary(str(error))})"
        ) from None
    arrays = {}
    with archive:
        members = set(archive.namelist())
        for name, shape in expected.items():
            if f"{name}.npy" not in members:
                raise BrainError(f"{path}: missing array {name!r}")
            array = _read_member(archive, path, name, shape)
            if not np.all(np.isfinite(array)):
                raise BrainError(f"{path}: array {name!r} holds NaN or infinite values")
            arrays[name] = array
    return arrays


def _read_member(
    archive: zipfile.ZipFile, path: Path, name: str, shape: tuple[int, ...]
) -> np.ndarray:
    """One array of the archive in float64: its header is checked (floats of `shape`)
    before its data is read."""
    try:
        with archive.open(f"{name}.npy") as stream:
            version = np.lib.format.read_magic(stream)
            read_header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            header = read_header(stream)
        if header[0] != shape or np.dtype(header[2]).kind != "f":
            raise BrainError(
                f"{path}: array {name!r} is {np.dtype(header[2])} of shape "
                f"{header[0]}, expected floats of shape {shape}"
            )
        with archive.open(f"{name}.npy") as stream:
            return np.asarray(
                np.lib.format.read_array(stream, allow_pickle=False), dtype=np.float64
            )
    except BrainError:
        raise
    except ZIP_ERRORS as error:
        raise BrainError(f"{path}: array {name!r} is unreadable ({summary(str(error))})") from None


def _regular_bytes_size_check(path: Path) -> None:
    """`path` is a regular file of at most MAX_WEIGHTS_BYTES (read by the zip reader)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BrainError(f"{path}: no such file") from None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_WEIGHTS_BYTES:
        raise BrainError(f"{path}: not a regular file of at most {MAX_WEIGHTS_BYTES} bytes")
