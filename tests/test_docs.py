"""The docs hold: the site builds with warnings as errors, every "§" the code of a
system cites is a section (or a row of the gaps table) of its rules page, the README
names every env id, and every `duelo` command the README and the docs show parses."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from duelo.agents.registry import policy_names
from duelo.cli import build_parser
from duelo.envs.core.system import SUITE_BAND
from duelo.envs.systems import SYSTEM_PACKAGES, SYSTEMS, batched_systems

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
CITATION = re.compile(r"§(\d+)(?:\.(\d+))?((?:,?\s*#\d+)*)")
"""§N, §N.M, and §10 #K (a row of the gaps table), as the code writes them."""


def _package_dir(package: str) -> Path:
    return Path(inspect.getfile(importlib.import_module(package))).parent


def _sources(package: str) -> list[Path]:
    """The system's modules: rules, NPCs, batched kernels and solved models alike."""
    return sorted(_package_dir(package).glob("*.py"))


def _sections(rules: str) -> tuple[set[str], set[str]]:
    """The numbered sections of a rules page, and the numbered rows of its §10."""
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules, re.MULTILINE))
    gaps = rules.split("\n## 10.", 1)[1].split("\n## ", 1)[0]
    rows = set(re.findall(r"^(?:\| *#?(\d+) *\||(\d+)\. )", gaps, re.MULTILINE))
    return sections, {a or b for a, b in rows}


@pytest.mark.parametrize("package", SYSTEM_PACKAGES)
def test_every_citation_of_a_system_is_a_section_of_its_rules_page(package: str) -> None:
    sections, rows = _sections((_package_dir(package) / "rules.md").read_text(encoding="utf-8"))
    cited, missing = 0, []
    for source in _sources(package):
        for match in CITATION.finditer(source.read_text(encoding="utf-8")):
            cited += 1
            section = match.group(1) + (f".{match.group(2)}" if match.group(2) else "")
            if section not in sections:
                missing.append(f"{source.name}: §{section}")
            if section == "10":
                missing += [
                    f"{source.name}: §10 #{row}"
                    for row in re.findall(r"#(\d+)", match.group(3))
                    if row not in rows
                ]
    assert cited > 50, cited  # the pattern reads the code's citations
    assert not missing, missing


def test_a_citation_of_no_section_is_caught() -> None:
    sections, rows = _sections("## 1. One\n### 1.2 Two\n## 10. Gaps\n| 3 | a |\n4. b\n")
    assert sections == {"1", "1.2", "10"} and rows == {"3", "4"}


def test_the_readme_names_every_env_id() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ids = [env_id for entry in SYSTEMS.values() for env_id in entry.env_ids]
    assert [env_id for env_id in ids if f"`{env_id}`" not in readme] == []


def _documented_commands() -> list[tuple[str, str]]:
    """Every `duelo ...` line of a fenced block in the README and the docs."""
    commands = []
    for page in [ROOT / "README.md", *DOCS]:
        fenced = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                fenced = not fenced
                continue
            for part in line.split("&&") if fenced else ():
                command = part.split(" #", 1)[0].strip()
                if command.startswith("duelo "):
                    commands.append((page.name, command))
    return commands


def test_the_docs_show_commands_of_every_kind() -> None:
    shown = {shlex.split(command)[1] for _, command in _documented_commands()}
    assert {"tournament", "duel", "train", "exploit", "solve", "serve", "bench"} <= shown


@pytest.mark.parametrize("page, command", _documented_commands())
def test_every_documented_command_parses(page: str, command: str) -> None:
    """Parsed as `duelo` parses it: the subcommand, its flags and their choices (on the
    two cores the docs' `--workers 2` assumes)."""
    try:
        build_parser(cores=2).parse_args(shlex.split(command)[1:])
    except SystemExit as exit:
        pytest.fail(f"{page}: `{command}` does not parse (exit {exit.code})")


def _docs_module(name: str) -> Any:
    """A module of docs/ (the site's tooling, not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_measured_brains_table_has_a_row_per_shipped_brain_and_setup() -> None:
    """What `docs/measure.py` measures now (each shipped brain in each setup it plays)
    is what its data holds, each row of the documented 2,000 duels."""
    rows = json.loads((ROOT / "docs" / "measured" / "brains.json").read_text(encoding="utf-8"))
    wanted = [(s, label, brain) for s, label, _, brain in _docs_module("measure").brain_setups()]
    assert [(row["system"], row["setup"], row["brain"]) for row in rows] == wanted
    assert {row["duels"] for row in rows} == {2000}
    assert all(row["low"] <= row["score"] <= row["high"] for row in rows)


def test_the_measured_splits_have_a_row_per_setup_and_agree_with_the_suites() -> None:
    """`docs/measure.py splits` played two experts in every setup of every system; each
    setup of a suite keeps side A within the suite's band (`SUITE_BAND`), by its interval."""
    rows = json.loads((ROOT / "docs" / "measured" / "splits.json").read_text(encoding="utf-8"))
    measure = _docs_module("measure")
    wanted = [(system, label) for system in SYSTEMS for label, _ in measure.setups(system)]
    assert [(row["system"], row["setup"]) for row in rows] == wanted
    low, high = SUITE_BAND
    for row in rows:
        assert row["low"] <= row["score"] <= row["high"]
        if row["suite"]:
            assert row["low"] <= high and row["high"] >= low, row


def test_the_exact_tables_have_a_row_per_scenario_of_todays_env_ids() -> None:
    """`docs/measure.py exact` covered every scenario of each system the solver may walk
    (a system that hides information has one row saying so) and each card duel the page
    shows, on the env id each plays today: a version bump asks for them to be measured
    again."""
    rows = json.loads((ROOT / "docs" / "measured" / "exact.json").read_text(encoding="utf-8"))
    measure = _docs_module("measure")
    setups = measure.exact_setups(list(SYSTEMS)) + [
        (name, label, SYSTEMS[name].env_id)
        for label, (name, _) in measure.solved_duels(list(SYSTEMS)).items()
    ]
    wanted = sorted(  # the order `land_row` keeps: by system, then scenario
        setups,
        key=lambda setup: (
            list(SYSTEMS).index(setup[0]),
            measure.scenario_order({"system": setup[0], "scenario": setup[1]}),
        ),
    )
    assert [(row["system"], row["scenario"], row["env_id"]) for row in rows] == wanted
    for row in rows:
        if "value" in row:
            assert 0 <= row["value"] <= 1
            assert set(row["policies"]) >= set(policy_names(row["system"]))


def test_the_measured_benchmark_is_a_whole_run_of_every_system() -> None:
    """The benchmarks page renders a full `duelo bench --out` (not a --quick smoke run)
    that timed every system, every batched env id and the tournaments of both engines."""
    bench = json.loads((ROOT / "docs" / "measured" / "bench.json").read_text(encoding="utf-8"))
    assert bench["quick"] is False
    assert list(bench["systems"]) == list(SYSTEMS)
    batched = [env_id for name in batched_systems() for env_id in SYSTEMS[name].env_ids]
    assert sorted(bench["batched"]) == sorted(batched)
    assert bench["batched_tournament"]
    several = [name for name, entry in SYSTEMS.items() if len(entry.ruleset().sides) > 2]
    assert sorted(bench["parties"]) == sorted(several)
    for name in several:
        assert list(bench["parties"][name]) == list(SYSTEMS[name].scenarios)


def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]')")
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    for package in SYSTEM_PACKAGES:
        page = (site / "systems" / package.rsplit(".", 1)[-1] / "index.html").read_text()
        for entry in importlib.import_module(f"{package}.system").SYSTEMS:
            assert all(env_id in page for env_id in entry.env_ids), entry.id
    brains = (site / "brains" / "index.html").read_text()
    assert "<!-- measured" not in brains and "infierno, formal_duel" in brains
