"""The benchmark stays runnable: a tiny run produces every figure (no timing is asserted)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from duelo.agents.brain import shipped_brains
from duelo.benchmarks.suite import TARGETS
from duelo.cli import main


def test_quick_bench_reports_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--out", str(out)]) == 0
    results = json.loads(out.read_text())
    assert results["machine"]["numpy"] and results["reference"]["step_us"] > 0
    assert results["reference"]["training"]["frames_per_second"] > 0
    for name, figures in results["systems"].items():
        for key in (
            "step_us",
            "step_ratio_to_reference",
            "flat_step_us",
            "flat_step_ratio_to_reference",
            "ruleset_decision_us",
            "tournament_duels_per_second",
        ):
            assert math.isfinite(figures[key]) and figures[key] > 0
        if shipped_brains(name):
            assert figures["brain"]["numpy_us"] > 0 and figures["brain"]["torch_us"] > 0
        else:
            assert figures["brain"] is None
        assert 0 < figures["training"]["env_share"] < 1
        assert figures["training"]["ratio_to_reference"] > 0
    assert set(results["targets"]) == set(TARGETS)
    try:
        import fastapi  # noqa: F401
    except ImportError:
        assert results["serve"] is None
    else:  # the loopback latency of duelo serve's /act
        serve = results["serve"]
        assert 0 < serve["p50_us"] <= serve["p99_us"] and serve["in_process_us"] > 0
    batched = results["batched"]
    try:
        import numba  # noqa: F401
    except ImportError:
        assert batched is None
    else:  # the batched engine's decisions/s at each N, beside CartPole's vector env
        for figures in batched.values():
            for size in figures["by_size"].values():
                assert size["decisions_per_second"] > 0 and size["ratio_to_cartpole"] > 0
                assert size["layer_share"] > 0  # the vector env against its kernels alone
            assert 0 < figures["training"]["env_share"] < 1
        for figures in results["batched_tournament"].values():  # the records compared too
            assert figures["fast_duels_per_second"] > 0 and figures["python_duels_per_second"] > 0
    table = capsys.readouterr().out
    assert "CartPole-v1 step" in table and "MaskablePPO frames/s" in table
    verdicts = [line for line in table.splitlines() if " met (" in line or " missed (" in line]
    # per system: the step, the brain (if shipped) and training; plus Infierno's tournament;
    # per batched env id: the N=1 step and training; the Infierno goal at N = 1,024 (full run)
    brains = sum(bool(shipped_brains(name)) for name in results["systems"])
    fast = 0 if batched is None else 2 * len(batched)
    assert len(verdicts) == 2 * len(results["systems"]) + brains + 1 + fast
