"""Numpy brains: loading, deciding, and every way a brain file can be wrong."""

from __future__ import annotations

import io
import json
import os
import re
import threading
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from duelo.agents.brain import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    WEIGHTS,
    BrainError,
    load_brain,
    observation_schema,
)
from duelo.agents.registry import make_policy
from duelo.envs.core.dice import GeneratorDice
from duelo.envs.core.runner import play_duel
from duelo.envs.infierno import Action, InfiernoRuleset


def write_random_brain(folder: Path, hidden: tuple[int, ...] = (16, 8), seed: int = 0) -> Path:
    """A brain with random weights, written the way `duelo export` writes one."""
    rng = np.random.default_rng(seed)
    spec = InfiernoRuleset.observation_spec
    widths = [spec.size, *hidden, len(Action)]
    arrays = {"obs_mean": rng.normal(size=spec.size), "obs_var": rng.uniform(0.5, 2, spec.size)}
    for k, (n_in, n_out) in enumerate(zip(widths[:-2], widths[1:-1], strict=True)):
        arrays[f"layer_{k}_weight"] = rng.normal(size=(n_out, n_in))
        arrays[f"layer_{k}_bias"] = rng.normal(size=n_out)
    arrays["action_weight"] = rng.normal(size=(len(Action), widths[-2]))
    arrays["action_bias"] = rng.normal(size=len(Action))
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / WEIGHTS, **arrays)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": folder.name,
        "system": "infierno",
        "env_id": "duelo/Infierno-v2",
        "env_version": InfiernoRuleset.version,
        "observation": observation_schema(spec),
        "actions": [a.name for a in Action],
        "network": {"hidden": list(hidden), "activation": "tanh", "clip": 10.0, "epsilon": 1e-8},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def edit_manifest(folder: Path, **changes: object) -> None:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest.update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def test_brain_plays_legal_moves_in_duels_and_tournament_names(tmp_path: Path) -> None:
    folder = write_random_brain(tmp_path / "b")
    brain = make_policy(f"brain:{folder}", "infierno")
    assert brain.name == "brain:b"
    for seed in range(20):
        result = play_duel(InfiernoRuleset(), (brain, make_policy("expert", "infierno")), seed)
        assert result.forfeit is None  # never an illegal action


def test_forward_pass_is_the_documented_formula(tmp_path: Path) -> None:
    brain = load_brain(write_random_brain(tmp_path / "b"))
    flat = np.random.default_rng(1).normal(size=brain.spec.size) * 5
    with np.load(tmp_path / "b" / WEIGHTS) as w:
        x = np.clip((flat - w["obs_mean"]) / np.sqrt(w["obs_var"] + 1e-8), -10, 10)
        x = np.tanh(w["layer_0_weight"] @ x + w["layer_0_bias"])
        x = np.tanh(w["layer_1_weight"] @ x + w["layer_1_bias"])
        logits = w["action_weight"] @ x + w["action_bias"]
    # the brain runs its layers in float32, as torch does: a float32 rounding (about 6e-8
    # relative) per product, over sums of tens of terms of order 1, against float64 here
    assert np.allclose(brain.logits(flat), logits, rtol=1e-5, atol=1e-5)
    mask = np.zeros(len(Action), bool)
    mask[[Action.END_TURN, Action.RETREAT]] = True
    chosen = brain.act(flat, mask, np.random.default_rng(0))
    assert chosen == max((Action.END_TURN, Action.RETREAT), key=lambda a: logits[a])


def _rename_field(folder: Path, key: str, entry: int, name: str) -> None:
    """A manifest whose observation puts another meaning at the same place and shape."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    schema = manifest["observation"]
    next(k for k in schema if k["name"] == key)["fields"][entry] = name
    edit_manifest(folder, observation=schema)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / MANIFEST).write_text("{not json", encoding="utf-8"), "not JSON"),
        (lambda f: (f / MANIFEST).unlink(), "no such file"),
        (lambda f: edit_manifest(f, format="pickle"), "not a duelo-brain manifest"),
        (lambda f: edit_manifest(f, format_version=9), "format version 9"),
        (lambda f: edit_manifest(f, system="poker"), "unknown system 'poker'"),
        (lambda f: edit_manifest(f, env_version=7), "env version 7, but this duelo runs version"),
        (lambda f: edit_manifest(f, actions=["FIRE"]), "action names differ"),
        (lambda f: edit_manifest(f, observation=[]), "observation schema differs"),
        (lambda f: _rename_field(f, "hp", 0, "mine"), "observation schema differs"),
        (
            lambda f: edit_manifest(f, network={"hidden": [16, 8], "activation": "swish"}),
            "unknown activation 'swish'",
        ),
        (lambda f: (f / WEIGHTS).write_bytes(b"garbage"), "not a readable .npz"),
        (lambda f: (f / WEIGHTS).unlink(), "weights.npz: no such file"),
        (lambda f: _drop_array(f, "layer_1_weight"), "missing array 'layer_1_weight'"),
        (lambda f: _drop_array(f, "obs_var"), "missing array 'obs_var'"),
    ],
)
def test_bad_brains_are_clear_errors(tmp_path: Path, damage, message: str) -> None:  # noqa: ANN001
    folder = write_random_brain(tmp_path / "b")
    damage(folder)
    with pytest.raises(BrainError, match=message) as error:
        load_brain(folder)
    assert str(folder) in str(error.value)


def test_brain_for_another_system_is_refused(tmp_path: Path) -> None:
    folder = write_random_brain(tmp_path / "b")
    with pytest.raises(BrainError, match="a brain for 'infierno', not for 'esgrima'"):
        load_brain(folder, system="esgrima")


def test_pickled_weights_are_refused(tmp_path: Path) -> None:
    folder = write_random_brain(tmp_path / "b")
    with np.load(folder / WEIGHTS) as data:
        arrays = dict(data)
    arrays["obs_mean"] = np.array([object()], dtype=object)
    np.savez(folder / WEIGHTS, **arrays)
    with pytest.raises(BrainError, match="'obs_mean' is object of shape .*, expected floats"):
        load_brain(folder)


def _drop_array(folder: Path, name: str) -> None:
    with np.load(folder / WEIGHTS) as data:
        arrays = {k: data[k] for k in data.files if k != name}
    np.savez(folder / WEIGHTS, **arrays)


@pytest.mark.parametrize(
    ("observation", "mask", "message"),
    [
        (np.zeros(3, np.float32), None, r"shape \(3,\) and dtype float32, expected a float vector"),
        (np.zeros(1, complex), None, "expected a float vector of shape"),
        ([0.0] * 4, None, "observation is a list"),
        ({"hp": np.zeros(2)}, None, "not a float vector"),
        (None, np.zeros(len(Action), bool), "the action mask allows no action"),
        (None, np.ones(3, bool), r"action mask of shape \(3,\), expected"),
    ],
)
def test_a_brain_refuses_what_it_cannot_read(
    tmp_path: Path, observation: object, mask: np.ndarray | None, message: str
) -> None:
    brain = load_brain(write_random_brain(tmp_path / "b"))
    ruleset = InfiernoRuleset()
    state = ruleset.new_duel(GeneratorDice(0))
    seat = ruleset.to_act(state)
    with pytest.raises(BrainError, match=message):
        brain.act(
            ruleset.observe(state, seat) if observation is None else observation,
            ruleset.legal_actions(state, seat) if mask is None else mask,
            np.random.default_rng(0),
        )


# --- brains from someone else (issue 12) ------------------------------------------------


def _set_array(folder: Path, name: str, value: np.ndarray) -> None:
    with np.load(folder / WEIGHTS) as data:
        arrays = dict(data)
    arrays[name] = value
    np.savez(folder / WEIGHTS, **arrays)


def _huge_unused_array(folder: Path) -> None:
    """An extra member whose header claims 20000 x 20000 floats (3.2 GB) it does not hold."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (20000, 20000)}
    )
    with zipfile.ZipFile(folder / WEIGHTS, "a") as archive:
        archive.writestr("unused.npy", b"\x93NUMPY\x01\x00" + header.getvalue()[8:])


def _big_int_manifest(folder: Path) -> None:
    text = (folder / MANIFEST).read_text(encoding="utf-8")
    text = re.sub(r'"env_version": \d+', '"env_version": ' + "9" * 5000, text)
    (folder / MANIFEST).write_text(text, encoding="utf-8")


def _deep_manifest(folder: Path) -> None:
    (folder / MANIFEST).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


def _fifo_manifest(folder: Path) -> None:
    (folder / MANIFEST).unlink()
    os.mkfifo(folder / MANIFEST)


def _zero_manifest(folder: Path) -> None:
    (folder / MANIFEST).unlink()
    (folder / MANIFEST).symlink_to("/dev/zero")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: _set_array(f, "layer_0_bias", np.full(16, np.nan)), "NaN or infinite"),
        (lambda f: _set_array(f, "action_weight", np.full((29, 8), np.inf)), "NaN or infinite"),
        (
            lambda f: _set_array(f, "obs_var", -np.ones(InfiernoRuleset.observation_spec.size)),
            "negative",
        ),
        (
            lambda f: _set_array(
                f, "obs_mean", np.zeros(InfiernoRuleset.observation_spec.size, complex)
            ),
            "complex128",
        ),
        (
            lambda f: _set_array(
                f, "obs_mean", np.zeros(InfiernoRuleset.observation_spec.size, "M8[s]")
            ),
            "datetime64",
        ),
        (
            lambda f: _set_array(f, "layer_0_weight", np.zeros((20, 20))),
            r"expected floats of shape \(16, ",
        ),
        (
            lambda f: edit_manifest(
                f, network={"hidden": [16, 8], "activation": "tanh", "clip": float("nan")}
            ),
            "NaN is not a JSON number",
        ),
        (
            lambda f: edit_manifest(
                f, network={"hidden": [16, 8], "activation": "tanh", "epsilon": -1}
            ),
            "network.epsilon must be a positive",
        ),
        (
            lambda f: edit_manifest(f, network={"hidden": [10**6], "activation": "tanh"}),
            "network.hidden must list",
        ),
        (lambda f: edit_manifest(f, name=["a", "list"]), "field 'name' is"),
        (lambda f: edit_manifest(f, network=[1, 2]), "field 'network' is"),
        (_big_int_manifest, "not JSON .an integer of 5000 digits"),
        (_deep_manifest, "nested deeper than 16 levels"),
        (_fifo_manifest, "not a regular file"),
        (_zero_manifest, "not a regular file"),
        (
            lambda f: np.save(f / "w.npy", np.zeros(3)) or (f / "w.npy").replace(f / WEIGHTS),
            "not a readable .npz",
        ),
    ],
)
def test_a_hostile_brain_is_refused_without_hanging_naming_the_file(
    tmp_path: Path,
    damage,
    message: str,  # noqa: ANN001
) -> None:
    folder = write_random_brain(tmp_path / "b")
    damage(folder)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            load_brain(folder)
        except BaseException as error:  # noqa: BLE001 - handed to the test's thread
            outcome.append(error)
        else:
            outcome.append(None)

    # A watchdog against a hang (a FIFO opened for reading blocks forever), not a
    # speed bound: a refusal takes milliseconds, far inside a minute on any machine.
    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert outcome, "load_brain hung on a hostile brain"
    assert isinstance(outcome[0], BrainError), outcome[0]
    assert re.search(message, str(outcome[0]))
    assert str(folder) in str(outcome[0])


def test_unused_arrays_are_never_read(tmp_path: Path) -> None:
    folder = write_random_brain(tmp_path / "b")
    _huge_unused_array(folder)
    tracemalloc.start()
    try:
        load_brain(folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # the member claims 3.2 GB; the brain's own arrays are small


def test_a_batch_runs_on_one_blas_thread(tmp_path: Path) -> None:
    """`act_batch`'s products run with BLAS held to one thread (`agents/blas.py`): each
    layer's activation sees every BLAS library at one thread, and the answers are the
    row-by-row ones."""
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="the fast extra")
    brain = load_brain(write_random_brain(tmp_path / "b", hidden=(64, 64)))
    seen: list[list[int]] = []
    activation = brain.activation

    def spy(x: np.ndarray) -> np.ndarray:
        info = threadpoolctl.threadpool_info()
        seen.append([lib["num_threads"] for lib in info if lib["user_api"] == "blas"])
        return activation(x)

    brain.activation = spy
    rows = np.random.default_rng(0).normal(size=(32, brain.spec.size))
    masks = np.ones((32, len(Action)), dtype=bool)
    batch = brain.act_batch(rows, masks)
    assert len(seen) == 2 and all(threads and set(threads) == {1} for threads in seen)
    rng = np.random.default_rng(0)
    assert batch.tolist() == [
        brain.act(row, mask, rng) for row, mask in zip(rows, masks, strict=True)
    ]
