"""Turn a trained stable-baselines3 policy into a pickle-free numpy brain."""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from duelo.agents.brain import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    WEIGHTS,
    BrainError,
    load_brain,
    observation_schema,
)
from duelo.envs.core.referee import summary
from duelo.envs.systems import SYSTEMS
from duelo.training.settings import TrainSettings

NORMALIZER_CLIP = 10.0
NORMALIZER_EPSILON = 1e-8
"""VecNormalize's defaults, repeated in the manifest for the numpy forward pass."""


def policy_arrays(state: Mapping[str, Any], where: Path | str) -> dict[str, np.ndarray]:
    """The actor's layers from the state dict of an SB3 ActorCriticPolicy with a plain MLP
    extractor (`policy.state_dict()`, or `policy.pth` of a checkpoint); a missing or
    non-tensor entry is a ValueError naming `where` and the key."""
    if not isinstance(state, Mapping):
        raise ValueError(f"{where}: not a state dict of tensors")
    prefix = "mlp_extractor.policy_net."
    indices = {key[len(prefix) :].split(".")[0] for key in state if str(key).startswith(prefix)}
    if not all(index.isdigit() for index in indices):
        raise ValueError(f"{where}: {prefix} holds layers that are not numbered")
    arrays = {}
    for k, index in enumerate(sorted(map(int, indices))):
        arrays[f"layer_{k}_weight"] = _array(state, f"{prefix}{index}.weight", where)
        arrays[f"layer_{k}_bias"] = _array(state, f"{prefix}{index}.bias", where)
    arrays["action_weight"] = _array(state, "action_net.weight", where)
    arrays["action_bias"] = _array(state, "action_net.bias", where)
    return arrays


MAX_POLICY_BYTES = 256 << 20
"""What `policy.pth` may hold uncompressed: far more than the largest network a brain may
have (`MAX_PARAMETERS`), far less than a zip bomb asks for."""


def checkpoint_policy_state(checkpoint: Path) -> dict[str, Any]:
    """The policy's weights in an SB3 checkpoint, read with `torch.load(weights_only=True)`:
    tensors only, so a doctored checkpoint cannot run code (SB3's own `load` unpickles),
    and at most `MAX_POLICY_BYTES`, so a zip bomb is refused before it is inflated."""
    where = f"{checkpoint}: policy.pth"
    try:
        with zipfile.ZipFile(checkpoint) as archive:
            if archive.getinfo("policy.pth").file_size > MAX_POLICY_BYTES:
                raise ValueError(f"{where}: more than the {MAX_POLICY_BYTES} bytes it may hold")
            with archive.open("policy.pth") as stream:
                data = stream.read(MAX_POLICY_BYTES + 1)
    except ValueError:
        raise
    except (
        OSError,
        KeyError,
        EOFError,
        zipfile.BadZipFile,
        NotImplementedError,
        RuntimeError,
    ) as error:
        raise ValueError(
            f"{checkpoint}: not a readable checkpoint ({summary(str(error))})"
        ) from None
    if len(data) > MAX_POLICY_BYTES:
        raise ValueError(f"{where}: more than the {MAX_POLICY_BYTES} bytes it may hold")
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # torch's loader raises many kinds for a damaged file
        raise ValueError(f"{where}: not a readable state dict ({summary(str(error))})") from None


def _array(state: Mapping[str, Any], key: str, where: Path | str) -> np.ndarray:
    tensor = state.get(key)
    if not isinstance(tensor, torch.Tensor):
        found = (
            "is missing"
            if tensor is None
            else f"holds an object of type {type(tensor).__name__}, not a tensor"
        )
        raise ValueError(f"{where}: {key} {found}")
    return tensor.detach().cpu().to(torch.float64).numpy()


def write_brain(
    out: Path,
    policy_state: Mapping[str, Any],
    obs_mean: np.ndarray,
    obs_var: np.ndarray,
    settings: TrainSettings,
    evaluation: dict[str, Any],
    name: str,
    source: Path | str = "the policy",
) -> Path:
    """Write manifest.json and weights.npz into `out`, replacing it atomically, once the
    brain loads (`source`, where the weights came from, names what is refused)."""
    entry = SYSTEMS[settings.system]
    ruleset = entry.ruleset
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name,
        "description": f"{settings.algo} brain for {settings.env_id}",
        "system": settings.system,
        "env_id": settings.env_id,
        "env_version": ruleset.version,
        "env_kwargs": settings.env_kwargs,
        "max_side": entry.max_side,
        "observation": observation_schema(ruleset.observation_spec),
        "actions": [a.name for a in ruleset.actions],
        "network": {
            "hidden": list(settings.net_arch),
            "activation": settings.activation,
            "clip": NORMALIZER_CLIP,
            "epsilon": NORMALIZER_EPSILON,
        },
        "training": json.loads(json.dumps(settings.__dict__, default=list)),
        "evaluation": evaluation,
    }
    arrays = {"obs_mean": np.asarray(obs_mean), "obs_var": np.asarray(obs_var)}
    arrays.update(policy_arrays(policy_state, source))
    staging = _staging(out)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    np.savez(staging / WEIGHTS, allow_pickle=False, **arrays)
    return _publish(staging, out, source)


def copy_brain(source: Path, out: Path, evaluation: dict[str, Any]) -> Path:
    """Copy a brain folder to `out` under that name, with its evaluation results, once the
    copy loads."""
    manifest = load_brain(source).manifest  # refused as any brain is, before anything is copied
    manifest.update(name=out.name, evaluation=evaluation)
    staging = _staging(out)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.copyfile(source / WEIGHTS, staging / WEIGHTS)
    return _publish(staging, out, source)


def _staging(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a brain folder is for sharing
    return staging


def _publish(staging: Path, out: Path, source: Path | str) -> Path:
    """Replace `out` with the finished folder, if it loads as a brain (else it is removed,
    `out` untouched, and the `BrainError` names `source`): the old one is moved aside first
    and removed only once the new one is in place, so a kill leaves a whole brain (old or
    new) at `out` or beside it, never none."""
    try:
        load_brain(staging)
    except BrainError as error:
        shutil.rmtree(staging)
        reason = (
            str(error)
            .removeprefix(f"{staging / MANIFEST}: ")
            .removeprefix(f"{staging / WEIGHTS}: ")
        )
        raise BrainError(f"{source}: not exported, the brain would be refused: {reason}") from None
    replace_folder(staging, out, out.with_name(f".{out.name}.old"))
    return out


def replace_folder(fresh: Path, target: Path, old: Path) -> None:
    """Put the finished folder `fresh` at `target` as one step that a kill cannot split:
    its files are flushed to disk, the old `target` is moved to `old`, `fresh` takes its
    place, and only then is `old` removed (a kill in between leaves `old` whole)."""
    for path in (*fresh.iterdir(), fresh):
        fsync(path)
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(fresh, target)
    fsync(target.parent)
    if old.exists():
        shutil.rmtree(old)


def fsync(path: Path) -> None:
    """Flush a file, or a folder's entries, to the disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
