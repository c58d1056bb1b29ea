"""`duelo tournament --backend ray`: the same records, byte for byte, as the local backend,
and an interrupted Ray run resumes like a local one. Ray runs on this machine (2 CPUs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from duelo.cli import main  # noqa: E402
from duelo.envs.core.runner import DiceKind  # noqa: E402
from duelo.evaluation.tournament import (  # noqa: E402
    RESULTS_FILE,
    TournamentSpec,
    read_records,
    run_tournament,
)


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray for the module (starting one costs seconds); the backend uses it."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def spec(duels: int = 40, dice: DiceKind = "keyed") -> TournamentSpec:
    return TournamentSpec(
        system="infierno",
        policies=("infierno:random", "infierno:aggressive", "infierno:expert"),
        duels=duels,
        seed=5,
        variant={"scenario": "brawl"},
        dice=dice,
    )


def test_ray_and_local_write_the_same_bytes(tmp_path: Path) -> None:
    run_tournament(spec(), tmp_path / "local", workers=2)
    run_tournament(spec(), tmp_path / "ray", workers=2, backend="ray")
    local = (tmp_path / "local" / RESULTS_FILE).read_bytes()
    assert local == (tmp_path / "ray" / RESULTS_FILE).read_bytes()
    assert len(read_records(tmp_path / "ray" / RESULTS_FILE)) == 3 * 40


def test_an_interrupted_ray_run_resumes_to_the_same_bytes(tmp_path: Path) -> None:
    run_tournament(spec(), tmp_path / "full")

    def stop_after_30(done: int, total: int) -> None:
        if done == 30:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(spec(), tmp_path / "cut", backend="ray", progress=stop_after_30)
    path = tmp_path / "cut" / RESULTS_FILE
    assert len(read_records(path)) == 30
    run_tournament(spec(), tmp_path / "cut", resume=True, backend="ray")
    assert path.read_bytes() == (tmp_path / "full" / RESULTS_FILE).read_bytes()


def test_the_command_line_backend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--system", "esgrima_duel", "--duels", "20", "--quiet"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    local = (tmp_path / "local" / "esgrima_duel" / RESULTS_FILE).read_bytes()
    assert local == (tmp_path / "ray" / "esgrima_duel" / RESULTS_FILE).read_bytes()
    capsys.readouterr()
    assert main([*args, "--out", str(tmp_path / "x"), "--address", "10.0.0.1:6379"]) == 2
    assert "needs --backend ray" in capsys.readouterr().err
    ray_args = [*args, "--out", str(tmp_path / "y"), "--backend", "ray"]
    assert main([*ray_args, "--address", "127.0.0.1:1"]) == 2  # nothing listens on port 1
    assert "no Ray cluster answers there" in capsys.readouterr().err
    assert main([*ray_args, "--address", "head-without-port"]) == 2
    assert "is not HOST:PORT" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()  # refused before any duel


def test_the_fast_engine_on_ray_writes_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    streamed = spec(dice="stream")  # the batched engine's dice
    run_tournament(streamed, tmp_path / "local")
    run_tournament(streamed, tmp_path / "ray", workers=2, backend="ray", engine="fast")
    local = (tmp_path / "local" / RESULTS_FILE).read_bytes()
    assert local == (tmp_path / "ray" / RESULTS_FILE).read_bytes()
