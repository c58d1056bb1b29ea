"""Turn a trained stable-baselines3 policy into a pickle-free numpy brain."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from duelo.agents.brain import FORMAT, FORMAT_VERSION, MANIFEST, WEIGHTS, observation_schema
from duelo.envs.core.referee import summary
from duelo.envs.systems import SYSTEMS
from duelo.training.settings import TrainSettings

NORMALIZER_CLIP = 10.0
NORMALIZER_EPSILON = 1e-8
"""VecNormalize's defaults, repeated in the manifest for the numpy forward pass."""


def policy_arrays(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The actor's layers from the state dict of an SB3 ActorCriticPolicy with a plain MLP
    extractor (`policy.state_dict()`, or `policy.pth` of a checkpoint)."""
    prefix = "mlp_extractor.policy_net."
    layers = sorted(
        {int(key[len(prefix) :].split(".")[0]) for key in state if key.startswith(prefix)}
    )
    arrays = {}
    for k, index in enumerate(layers):
        arrays[f"layer_{k}_weight"] = _array(state[f"{prefix}{index}.weight"])
        arrays[f"layer_{k}_bias"] = _array(state[f"{prefix}{index}.bias"])
    arrays["action_weight"] = _array(state["action_net.weight"])
    arrays["action_bias"] = _array(state["action_net.bias"])
    return arrays


def checkpoint_policy_state(checkpoint: Path) -> dict[str, Any]:
    """The policy's weights in an SB3 checkpoint, read with `torch.load(weights_only=True)`:
    tensors only, so a doctored checkpoint cannot run code (SB3's own `load` unpickles)."""
    try:
        with zipfile.ZipFile(checkpoint) as archive, archive.open("policy.pth") as stream:
            return torch.load(io.BytesIO(stream.read()), map_location="cpu", weights_only=True)
    except (OSError, KeyError, zipfile.BadZipFile, RuntimeError, pickle.UnpicklingError) as error:
        raise ValueError(
            f"{checkpoint}: not a readable checkpoint ({summary(str(error))})"
        ) from None


def _array(tensor: Any) -> np.ndarray:
    return tensor.detach().cpu().numpy()


def write_brain(
    out: Path,
    policy_state: Mapping[str, Any],
    obs_mean: np.ndarray,
    obs_var: np.ndarray,
    settings: TrainSettings,
    evaluation: dict[str, Any],
    name: str,
) -> Path:
    """Write manifest.json and weights.npz into `out`, replacing it atomically."""
    ruleset = SYSTEMS[settings.system].ruleset
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name,
        "description": f"{settings.algo} brain for {settings.env_id}",
        "system": settings.system,
        "env_id": settings.env_id,
        "env_version": ruleset.version,
        "env_kwargs": settings.env_kwargs,
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
    arrays.update(policy_arrays(policy_state))
    staging = _staging(out)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    np.savez(staging / WEIGHTS, **arrays)
    return _publish(staging, out)


def copy_brain(source: Path, out: Path, evaluation: dict[str, Any]) -> Path:
    """Copy a brain folder to `out` under that name, with its evaluation results."""
    manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    manifest.update(name=out.name, evaluation=evaluation)
    staging = _staging(out)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.copyfile(source / WEIGHTS, staging / WEIGHTS)
    return _publish(staging, out)


def _staging(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a brain folder is for sharing
    return staging


def _publish(staging: Path, out: Path) -> Path:
    """Replace `out` with the finished folder: the old one is moved aside first and removed
    only once the new one is in place, so a kill leaves a whole brain (old or new) at `out`
    or beside it, never none."""
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
