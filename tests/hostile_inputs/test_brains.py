"""Brains anyone may send: refused unless their logits stay finite for every observation,
their network fits the memory budget and their archive and manifest are plain."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from duelo.agents.brain import MANIFEST, MAX_PARAMETERS, WEIGHTS, BrainError, load_brain
from duelo.cli import main
from tests.test_brain import edit_manifest, write_random_brain


def _scaled_weights(folder: Path) -> None:
    """Every weight 3e38: finite in the file, infinite (then NaN) once multiplied."""
    with np.load(folder / WEIGHTS) as data:
        arrays = {
            name: np.full_like(a, 3e38) if "weight" in name else a for name, a in data.items()
        }
    np.savez(folder / WEIGHTS, **arrays)


def _network(folder: Path, **changes: object) -> None:
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest["network"].update(changes)
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


def _zip_patched(folder: Path, flags: int = 0, method: int | None = None) -> None:
    """Every member's flags or compression method rewritten, in its local header and in
    the central directory (zipfile then raises RuntimeError or NotImplementedError)."""
    data = bytearray((folder / WEIGHTS).read_bytes())
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            old_flags, old_method = struct.unpack_from("<HH", data, start + flag_at)
            new_method = old_method if method is None else method
            struct.pack_into("<HH", data, start + flag_at, old_flags | flags, new_method)
            start += 4
    (folder / WEIGHTS).write_bytes(bytes(data))


def _largest_network(folder: Path) -> None:
    """The widest, deepest network the manifest may name (8 x 4096): a small file of
    zeros that would inflate to over a GB."""
    _network(folder, hidden=[4096] * 8)


CASES = {
    "weights of 3e38": (_scaled_weights, "logits may reach 5.28e"),
    "clip 1e308, epsilon 5e-324": (
        lambda f: _network(f, clip=1e308, epsilon=5e-324),
        "logits may reach",
    ),
    "8 x 4096 network": (_largest_network, f"more than the {MAX_PARAMETERS:,}"),
    "compression method 99": (lambda f: _zip_patched(f, method=99), "unreadable"),
    "encrypted flag": (lambda f: _zip_patched(f, flags=0x1), "unreadable"),
    "activation a list": (lambda f: _network(f, activation=["tanh"]), "unknown activation"),
    "activation a dict": (lambda f: _network(f, activation={"tanh": 1}), "unknown activation"),
    "escape codes in the name": (
        lambda f: edit_manifest(f, name="\x1b[2J\x1b[31mpwned"),
        "'name' holds control characters",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_brain_is_refused_naming_the_file(tmp_path: Path, case: str) -> None:
    damage, message = CASES[case]
    folder = write_random_brain(tmp_path / "b")
    damage(folder)
    with pytest.raises(BrainError, match=message) as error:
        load_brain(folder)
    assert str(folder) in str(error.value)


@pytest.mark.parametrize("case", CASES)
def test_duelo_onnx_refuses_a_hostile_brain_without_a_traceback(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    damage, message = CASES[case]
    folder = write_random_brain(tmp_path / "b")
    damage(folder)
    assert main(["onnx", str(folder), "--out", str(tmp_path / "b.onnx")]) == 2
    assert "duelo: error:" in capsys.readouterr().err
    assert not (tmp_path / "b.onnx").exists()


def test_a_brain_at_the_bound_gives_finite_logits_everywhere(tmp_path: Path) -> None:
    """What load_brain accepts computes finite logits for any observation, even far out
    of the observation space (the clip bounds the normalised input)."""
    folder = write_random_brain(tmp_path / "b")
    brain = load_brain(folder)
    rng = np.random.default_rng(0)
    wild = rng.normal(scale=1e30, size=(256, brain.spec.size))
    assert np.all(np.isfinite(brain.logits(wild)))


def test_a_network_over_the_budget_is_refused_before_its_weights_are_read(
    tmp_path: Path,
) -> None:
    folder = write_random_brain(tmp_path / "b")
    _largest_network(folder)
    (folder / WEIGHTS).unlink()  # not even looked for
    with pytest.raises(BrainError, match="parameters"):
        load_brain(folder)


def test_serve_loads_a_brain_whose_manifest_has_no_name(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx2")
    from fastapi.testclient import TestClient

    from duelo.serve import create_app

    folder = write_random_brain(tmp_path / "nameless")
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    del manifest["name"]
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    client = TestClient(create_app([str(folder)]), base_url="http://localhost")
    assert [b["name"] for b in client.get("/brains").json()] == ["nameless"]
