"""Turn a trained stable-baselines3 policy into a pickle-free numpy brain."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from duelo.agents.brain import FORMAT, FORMAT_VERSION, MANIFEST, WEIGHTS, observation_schema
from duelo.envs.systems import SYSTEMS
from duelo.training.settings import TrainSettings

NORMALIZER_CLIP = 10.0
NORMALIZER_EPSILON = 1e-8
"""VecNormalize's defaults, repeated in the manifest for the numpy forward pass."""


def policy_arrays(policy: Any) -> dict[str, np.ndarray]:
    """The actor's layers of an SB3 ActorCriticPolicy with a plain MLP extractor."""
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    arrays = {}
    for k, layer in enumerate(linears):
        arrays[f"layer_{k}_weight"] = layer.weight.detach().cpu().numpy()
        arrays[f"layer_{k}_bias"] = layer.bias.detach().cpu().numpy()
    arrays["action_weight"] = policy.action_net.weight.detach().cpu().numpy()
    arrays["action_bias"] = policy.action_net.bias.detach().cpu().numpy()
    return arrays


def write_brain(
    out: Path,
    policy: Any,
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
    arrays.update(policy_arrays(policy))
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
    """Replace `out` with the finished folder (a reader never sees half a brain)."""
    if out.exists():
        shutil.rmtree(out)
    os.replace(staging, out)
    return out
