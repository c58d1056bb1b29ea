"""`duelo export` of a run folder someone else touched: every defect a clear error naming
the file and key, never a brain `load_brain` refuses, never a file from outside the run."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from duelo.agents.brain import load_brain  # noqa: E402
from duelo.cli import main  # noqa: E402
from duelo.training import train as training  # noqa: E402
from duelo.training.export import MAX_POLICY_BYTES  # noqa: E402
from tests.test_brain import write_random_brain  # noqa: E402
from tests.test_training import short  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("run")
    training.train(short(n_timesteps=512, eval_every=512, checkpoint_every=512), run)
    return run


def _state(run: Path, change: Callable[[dict], None]) -> None:
    path = run / training.STATE
    state = json.loads(path.read_text(encoding="utf-8"))
    change(state)
    path.write_text(json.dumps(state), encoding="utf-8")


def _policy(run: Path, change: Callable[[dict], None] | None = None, raw: bytes = b"") -> None:
    """Rewrite the checkpoint's policy.pth: its state dict changed, or `raw` bytes."""
    checkpoint = run / training.CHECKPOINT
    with zipfile.ZipFile(checkpoint) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    if change is not None:
        state = torch.load(io.BytesIO(members["policy.pth"]), weights_only=True)
        change(state)
        buffer = io.BytesIO()
        torch.save(state, buffer)
        raw = buffer.getvalue()
    members["policy.pth"] = raw
    with zipfile.ZipFile(checkpoint, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _bomb(run: Path) -> None:
    """policy.pth inflating to past the bound (a zip bomb: a few hundred kB on disk)."""
    _policy(run, raw=bytes(MAX_POLICY_BYTES + 1))


def _outside_brain(run: Path) -> None:
    write_random_brain(run.parent / "brains" / "overflow")
    _state(run, lambda s: s["best"].update(snapshot="../../brains/overflow"))


CASES: dict[str, tuple[Callable[[Path], None], str, bool]] = {
    # case: (damage, message, with --best)
    "no last_evaluation": (
        lambda r: _state(r, lambda s: s.pop("last_evaluation")),
        "last_evaluation is not a recorded evaluation",
        False,
    ),
    "a non-tensor entry": (
        lambda r: _policy(r, lambda s: s.update({"action_net.bias": 3})),
        "action_net.bias holds an object of type int, not a tensor",
        False,
    ),
    "a missing entry": (
        lambda r: _policy(r, lambda s: s.pop("action_net.weight")),
        "action_net.weight is missing",
        False,
    ),
    "a zip bomb": (_bomb, f"more than the {MAX_POLICY_BYTES} bytes", False),
    "wrong shapes": (
        lambda r: _policy(r, lambda s: s.update({"action_net.weight": torch.zeros(3, 3)})),
        "not exported, the brain would be refused: array 'action_weight'",
        False,
    ),
    "mismatched net_arch": (
        lambda r: (r / "settings.yaml").write_text(
            (r / "settings.yaml").read_text(encoding="utf-8").replace("- 32\n", "- 16\n", 1),
            encoding="utf-8",
        ),
        "not exported, the brain would be refused",
        False,
    ),
    "best.snapshot an int": (
        lambda r: _state(r, lambda s: s["best"].update(snapshot=7)),
        "snapshot 7 is not the name of a snapshot folder",
        True,
    ),
    "best.snapshot outside the run": (
        _outside_brain,
        "is not the name of a snapshot folder",
        True,
    ),
    "best without its evaluation": (
        lambda r: _state(r, lambda s: s["best"].pop("evaluation")),
        "best is not a recorded evaluation",
        True,
    ),
    "a state nested deep": (
        lambda r: (r / training.STATE).write_text("[" * 100_000 + "]" * 100_000),
        "nested deeper than",
        False,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_damaged_run_is_a_clear_error_and_exports_nothing(
    trained: Path, tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    damage, message, best = CASES[case]
    run = tmp_path / "runs" / "run"
    shutil.copytree(trained, run)
    damage(run)
    out = tmp_path / "exported"
    argv = ["export", str(run), "--out", str(out), *(["--best"] if best else [])]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith("duelo: error: ") and str(run) in error
    assert message in error, error
    assert not out.exists()


def test_an_undamaged_run_still_exports_both_ways(trained: Path, tmp_path: Path) -> None:
    for best in (False, True):
        out = tmp_path / f"brain_{best}"
        assert main(["export", str(trained), "--out", str(out), *(["--best"] * best)]) == 0
        assert load_brain(out).system == "infierno"
