"""The loops every system module compiles (`envs/fast/loops.py`): one source, compiled and
cached per system, and a cache dropped when a file shared by every system changes."""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")

from duelo.envs.fast import engine, loops  # noqa: E402
from duelo.envs.systems import SYSTEMS, batched_systems  # noqa: E402
from duelo.evaluation.tournament import default_suite  # noqa: E402

MODULES = list(dict.fromkeys(engine.compiled_module(name) for name in batched_systems()))
"""Each compiled module once (the Liminal duel's serves the mob too)."""
OFF_THE_SUITE: dict[str, list[dict[str, Any]]] = {
    "esgrima_duel": [{"options": {"deck_copies": 2}}, {"options": {"deck_copies": 20}}],
    "infierno": [{"options": {"round_cap": 3, "crit_choice": "agent"}}],
    "liminal": [{"scenario": "long_shot", "options": {"initiative_mode": "opposed"}}],
    "liminal_mob": [{"scenario": "street_gang", "hero": "doctor"}],
    "dunwich": [{"scenario": "crossfire", "fighters": ("hunter", "deputy")}],
    "vampiro": [{"scenario": "stakeout", "options": {"specialty_mode": "reroll"}}],
}
"""Setups beyond each suite whose options size or shape the rows, if anything does."""


def test_each_system_compiles_the_loops_on_its_own_kernels() -> None:
    for module in MODULES:
        for name in ("reset_rows", "step_rows", "start_rows", "play_rows"):
            loop = getattr(module, name)
            assert loop.py_func.__code__.co_filename == module.__file__
            assert loop.py_func.__globals__ is vars(module)  # its kernels, not another's
    assert len({id(module.step_rows) for module in MODULES}) == len(MODULES) == 5


@pytest.mark.parametrize("name", batched_systems())
def test_every_setup_of_a_system_shares_one_row_layout(name: str) -> None:
    """One rules dtype and one duel dtype whatever the setup, so that numba compiles each
    kernel for one signature. Processes compiling two signatures of a kernel at once
    (xdist workers, tournament workers on a fresh install) could number theirs alike in
    numba's cache index and load each other's machine code: the fencing duel, whose deck
    once sized its row, then played other duels than the reference (reproduced with the
    cache cleared and four workers, every time)."""
    module = engine.compiled_module(name)
    setups = [*default_suite(name, {}), *OFF_THE_SUITE.get(name, [])]
    rules = [module.rules_of(SYSTEMS[name].ruleset(**setup)) for setup in setups]
    assert len({r.dtype for r in rules}) == 1
    assert len({module.new_duels(1, r).dtype for r in rules}) == 1


def test_a_cache_made_before_a_shared_file_changed_is_dropped(tmp_path: Path) -> None:
    module = tmp_path / "system.py"
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    ours = [cache / "system.step_rows-106.py311.nbi", cache / "system.step_rows-106.py311.1.nbc"]
    theirs = cache / "other.step_rows-106.py311.nbi"
    for path in (*ours, theirs):
        path.write_bytes(b"machine code")
    loops.drop_stale_cache(module)  # no digest yet: made before any change we know of
    assert not any(path.exists() for path in ours) and theirs.exists()
    for path in ours:
        path.write_bytes(b"machine code")
    loops.drop_stale_cache(module)  # the digest matches: kept
    assert all(path.exists() for path in ours)
    (cache / "system.shared.sha256").write_text("0" * 64, encoding="ascii")  # files changed
    loops.drop_stale_cache(module)
    assert not any(path.exists() for path in ours)


def test_a_first_slow_call_says_the_engine_is_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba compiles silently for a minute or two: a call that outlasts the notice's
    delay prints one line, once a process; a call that returns in time marks the module
    compiled, after which the guard is a no-op."""
    monkeypatch.setattr(engine, "_compiled", set())
    monkeypatch.setattr(engine, "_told", set())
    stream = io.StringIO()
    for _ in range(2):
        with engine._noticed("toy", after=0.0, stream=stream):
            deadline = time.monotonic() + 60
            while not stream.getvalue() and time.monotonic() < deadline:
                time.sleep(0.01)
    assert stream.getvalue() == (
        "duelo: compiling the batched engine for toy (its first use on this machine takes a "
        "minute or two; later runs read the cache)\n"
    )
    assert "toy" not in engine._compiled
    with engine._noticed("toy", after=600.0, stream=stream):
        pass
    assert "toy" in engine._compiled
    assert isinstance(engine.compiling("toy"), contextlib.nullcontext)
