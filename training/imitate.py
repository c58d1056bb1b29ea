"""A warm start by imitation: the learner copies a teacher before it learns by reward.

DAgger (Ross, Gordon and Bagnell, 2011): in each round the envs play, the teacher
names its move at every decision met, and the network is fitted to those moves by
cross-entropy over the legal actions, its value head to the returns that followed.
The first round plays the teacher's moves; each later one more of the learner's own,
so that it also learns what to do where its own mistakes lead. With a solved policy as
the teacher (`SYSTEM:optimal`), PPO starts from the optimum instead of from nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.utils import get_action_masks

from duelo.envs.core.observation import ObservationSpec
from duelo.envs.core.policy import Policy

ROUNDS = 4
EPOCHS = 8
BATCH = 512
VALUE_WEIGHT = 0.5
"""The value loss's weight beside the cross-entropy (PPO's own `vf_coef`)."""
LEARNING_RATE = 1e-3
"""Adam's step in the fit: a supervised fit takes larger steps than PPO's updates."""


@dataclass(frozen=True)
class Imitation:
    decisions: int
    """Decisions the teacher labelled, over all rounds."""
    agreement: float
    """The share of the last round's decisions where the learner's most likely move was
    the teacher's, before that round's fit."""


def imitate(
    model: Any,
    venv: Any,
    teachers: Sequence[Policy],
    spec: ObservationSpec,
    decisions: int,
    gamma: float,
    seed: int,
) -> Imitation:
    """Fit `model`'s policy to `teachers[i]` in env i over `decisions` labelled decisions
    (see the module docstring); `venv` is the training VecNormalize, whose statistics it
    updates."""
    rng = np.random.default_rng(seed)
    raw: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    returns: list[np.ndarray] = []
    per_round = max(1, decisions // (ROUNDS * venv.num_envs))
    agreement = 0.0
    venv.reset()
    for round_ in range(ROUNDS):
        teacher_share = 1 - round_ / ROUNDS
        seen, agreed = _play(model, venv, teachers, spec, per_round, teacher_share, gamma, rng)
        raw += [s[0] for s in seen]
        masks += [s[1] for s in seen]
        labels += [s[2] for s in seen]
        returns += [s[3] for s in seen]
        agreement = agreed
        _fit(model, venv, np.concatenate(raw), np.concatenate(masks), labels, returns, rng)
    return Imitation(int(sum(len(x) for x in labels)), agreement)


def _play(
    model: Any,
    venv: Any,
    teachers: Sequence[Policy],
    spec: ObservationSpec,
    steps: int,
    teacher_share: float,
    gamma: float,
    rng: np.random.Generator,
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], float]:
    """`steps` steps of every env; each decision labelled by the teacher. Returns, per
    step, (raw observations, masks, the teacher's moves, the discounted returns that
    followed: complete episodes only) and the learner's agreement with the teacher."""
    n = venv.num_envs
    observed, masked, taught, rewards, dones = [], [], [], [], []
    agreed = 0
    for _ in range(steps):
        raw = venv.get_original_obs()
        mask = get_action_masks(venv)
        moves = np.array([_label(teachers[i], spec, raw[i], mask[i], rng) for i in range(n)])
        own, _ = model.predict(venv.normalize_obs(raw), action_masks=mask, deterministic=True)
        agreed += int((own == moves).sum())
        chosen = np.where(rng.random(n) < teacher_share, moves, own)
        _, reward, done, _ = venv.step(chosen)
        observed.append(raw.copy())
        masked.append(mask.copy())
        taught.append(moves)
        rewards.append(reward)
        dones.append(done)
    # returns backward per env; the steps after an env's last finished episode have none
    ret = np.zeros(n)
    complete = np.zeros(n, dtype=bool)
    out = []
    for t in range(steps - 1, -1, -1):
        complete |= dones[t]
        ret = rewards[t] + gamma * ret * ~dones[t]
        keep = complete.copy()
        out.append((observed[t][keep], masked[t][keep], taught[t][keep], ret[keep].copy()))
    return out[::-1], agreed / (steps * n)


def _fit(
    model: Any,
    venv: Any,
    raw: np.ndarray,
    masks: np.ndarray,
    labels: list[np.ndarray],
    returns: list[np.ndarray],
    rng: np.random.Generator,
) -> None:
    policy = model.policy
    observations = torch.as_tensor(venv.normalize_obs(raw), dtype=torch.float32)
    mask_tensor = torch.as_tensor(masks)
    actions = torch.as_tensor(np.concatenate(labels))
    targets = torch.as_tensor(np.concatenate(returns), dtype=torch.float32)
    policy.set_training_mode(True)
    rates = [group["lr"] for group in policy.optimizer.param_groups]
    for group in policy.optimizer.param_groups:
        group["lr"] = LEARNING_RATE
    for _ in range(EPOCHS):
        order = torch.as_tensor(rng.permutation(len(actions)))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            values, log_prob, _ = policy.evaluate_actions(
                observations[batch], actions[batch], action_masks=mask_tensor[batch]
            )
            loss = -log_prob.mean() + VALUE_WEIGHT * torch.nn.functional.mse_loss(
                values.flatten(), targets[batch]
            )
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
    for group, rate in zip(policy.optimizer.param_groups, rates, strict=True):
        group["lr"] = rate  # PPO's own, for what follows
    policy.set_training_mode(False)


def _label(
    teacher: Policy,
    spec: ObservationSpec,
    raw: np.ndarray,
    mask: np.ndarray,
    rng: np.random.Generator,
) -> int:
    """The teacher's move; a decision with one legal action needs no teacher (a duel the
    opponent ended at once: its `TAKE_RESULT` step shows a state no solver reaches)."""
    legal = np.flatnonzero(mask)
    if legal.size == 1:
        return int(legal[0])
    return int(teacher.act(spec.view(raw), mask.copy(), rng))
