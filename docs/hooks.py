"""MkDocs hook (`mkdocs.yml`, `hooks:`): a page per combat system, read from its package.

A system's rules page lives beside its code (`envs/<system>/rules.md`, the page its
"§" citations point to), so a system stays one folder; this hook adds it to the site
as `systems/<system>.md`, followed by what the code says of each of its env ids (the
env class's documentation, its scenarios and its options), and lists the pages in the
navigation. The systems are those of `SYSTEM_PACKAGES`: a new system's page comes with
its line there.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from duelo.envs.core.system import System
from duelo.envs.systems import SYSTEM_PACKAGES

SECTION = "Combat systems"
MEASURED = Path(__file__).parent / "measured"
"""The figures `docs/measure.py` measured, one JSON file of rows per table."""


def _short(package: str) -> str:
    return package.rsplit(".", 1)[-1]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    pages = [{_short(p).capitalize(): f"systems/{_short(p)}.md"} for p in SYSTEM_PACKAGES]
    config.nav = [*(config.nav or []), {SECTION: pages}]
    return config


def on_page_markdown(markdown: str, **_: Any) -> str:
    """A page's measured tables, from the data `docs/measure.py` wrote."""
    return rendered(markdown)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for package in SYSTEM_PACKAGES:
        page = File.generated(config, f"systems/{_short(package)}.md", content=system_page(package))
        files.append(page)
    return files


def system_page(package: str) -> str:
    """The package's rules page, then each of its env ids as the code declares it."""
    module = importlib.import_module(package)
    rules = (Path(inspect.getfile(module)).parent / "rules.md").read_text(encoding="utf-8")
    entries = importlib.import_module(f"{package}.system").SYSTEMS
    parts = [rules.rstrip(), "", "## In duelo", ""]
    for entry in entries:
        parts += _entry(entry)
    return "\n".join(parts) + "\n"


def _entry(entry: System) -> list[str]:
    ids = ", ".join(f"`{env_id}`" for env_id in entry.env_ids)
    lines = [f"### `{entry.id}`: {ids}", ""]
    if entry.scenarios:
        lines += [f"Scenarios: {', '.join(f'`{s}`' for s in entry.scenarios)}.", ""]
    if entry.suite:
        lines += [f"The default tournament's suite: {_suite(entry.suite)}.", ""]
    lines += ["Rules options (`options={...}`, `--option KEY=VALUE`):", ""]
    lines += [f"- `{line}`" for line in entry.option_lines()]
    ruleset = entry.ruleset()
    lines += ["", "Actions:", ""]
    lines += [
        f"- `{a.value}` `{a.name}`: {ruleset.action_meanings[a.value]}" for a in ruleset.actions
    ]
    lines += ["", "Observation (the flat vector's keys, in order):", ""]
    lines += [ruleset.observation_spec.markdown_table()]
    lines += ["", *_demoted(inspect.getdoc(entry.env) or ""), ""]
    return lines


def _suite(suite: tuple[dict[str, Any], ...]) -> str:
    return ", ".join(f"`{setup}`" for setup in suite)


def _demoted(doc: str) -> list[str]:
    """The docstring's `## Heading`s as the page's fourth level, under its env id."""
    return [re.sub(r"^## ", "#### ", line) for line in doc.splitlines()]


def brains_table(rows: list[dict[str, Any]]) -> str:
    """The rows as the page's markdown table."""
    lines = ["| system, scenario | brain vs expert | as A / as B |", "|---|---|---|"]
    for row in rows:
        label = f"{row['system']}, {row['setup']}"
        if row["brain"] != f"brain:{row['system']}":
            label += f": {row['brain']}"
        score = f"{row['score']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"
        lines.append(f"| {label} | {score} | {row['as_a']:.3f} / {row['as_b']:.3f} |")
    return "\n".join(lines)


def splits_table(rows: list[dict[str, Any]]) -> str:
    """Two experts in every setup: side A's score, its interval, the share of fights won,
    and whether the setup is in its system's suite."""
    lines = [
        "| system, setup | side A's score (two experts) | fights won | in the suite |",
        "|---|---|---|---|",
    ]
    for row in rows:
        score = f"{row['score']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"
        suite = "yes" if row["suite"] else "no"
        lines.append(f"| {row['system']}, {row['setup']} | {score} | {row['won']:.0%} | {suite} |")
    fights = {row["fights"] for row in rows}
    return "\n".join(lines) + f"\n\nEach row {', '.join(f'{n:,}' for n in fights)} fights."


def dice_table(rows: list[dict[str, Any]]) -> str:
    """The expert against the aggressive NPC with each kind of dice: the interval's width
    by game, its ratio, and how the seat orders' results correlate."""
    lines = [
        "| system | width by game, stream | keyed | keyed / stream "
        "| seat orders' correlation, stream | keyed | Wilson width |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        stream, keyed = row["stream"], row["keyed"]
        lines.append(
            f"| {row['system']} | {stream['width']:.3f} | {keyed['width']:.3f} "
            f"| {row['ratio']:.2f} | {stream['correlation']:+.2f} "
            f"| {keyed['correlation']:+.2f} | {keyed['wilson']:.3f} |"
        )
    games = {row["games"] for row in rows}
    return "\n".join(lines) + (
        f"\n\nEach row {', '.join(f'{n:,}' for n in games)} games (twice as many duels) "
        "a kind of dice, the same seeds."
    )


def bench_systems_table(bench: dict[str, Any]) -> str:
    """`duelo bench`'s figures per system, each against CartPole-v1's in the same run."""
    reference = bench["reference"]
    lines = [
        "| system | flat step | Dict step | ruleset decision | scripted duels/s | numpy brain "
        "(torch) | MaskablePPO frames/s (env share) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in bench["systems"].items():
        brain = row.get("brain")
        training = row["training"]
        lines.append(
            f"| {name} | {row['flat_step_us']:.1f} us (x{row['flat_step_ratio_to_reference']:.1f})"
            f" | {row['step_us']:.1f} us (x{row['step_ratio_to_reference']:.1f})"
            f" | {row['ruleset_decision_us']:.1f} us | {row['tournament_duels_per_second']:,.0f}"
            f" | {_brain_cell(brain)} | {training['frames_per_second']:,.0f}"
            f" (x{training['ratio_to_reference']:.2f} of PPO, {training['env_share']:.0%}) |"
        )
    serve = bench["serve"]
    lines += [
        "",
        f"CartPole-v1 in the same run: a step {reference['step_us']:.1f} us, PPO "
        f"{reference['training']['frames_per_second']:,.0f} frames/s (env "
        f"{reference['training']['env_share']:.0%}). A brain's decision over `duelo serve` on "
        f"loopback: {serve['p50_us']:,.0f} us at the median, {serve['p99_us']:,.0f} us at the "
        f"99th percentile (in process {serve['in_process_us']:.1f} us). {_machine(bench)}",
    ]
    return "\n".join(lines)


def _brain_cell(brain: dict[str, float] | None) -> str:
    if brain is None:
        return "-"
    return f"{brain['numpy_us']:.1f} us ({brain['torch_us']:,.0f} us)"


def _machine(bench: dict[str, Any]) -> str:
    machine = bench["machine"]
    return f"Python {machine['python']}, numpy {machine['numpy']}, on {machine['processor']}."


def bench_batched_table(bench: dict[str, Any]) -> str:
    """The batched engine's decisions a second by batch size, against the scalar env and
    CartPole-v1's vector env at the same size, with the share of its kernels' speed the
    vector env keeps; one env's step against CartPole's; and MaskablePPO's frames a
    second on the batch, with the env's share of the time."""
    batched = bench["batched"]
    sizes = list(next(iter(batched.values()))["by_size"])
    head = "| | " + " | ".join(f"N={int(n):,}" for n in sizes)
    lines = [head + " | scalar env | one step | MaskablePPO frames/s |"]
    lines.append("|---" * (len(sizes) + 4) + "|")
    for env_id, row in batched.items():
        cells = [_rate_kept(row["by_size"][n]) for n in sizes]
        step = f"{row['single_step_us']:.1f} us (x{row['single_step_ratio_to_cartpole']:.2f})"
        training = row["training"]
        learned = f"{training['frames_per_second']:,.0f} (env {training['env_share']:.0%})"
        scalar = _rate(row["scalar_decisions_per_second"])
        lines.append(f"| {env_id} | {' | '.join(cells)} | {scalar} | {step} | {learned} |")
    first = next(iter(batched.values()))["by_size"]
    cartpole = [_rate(first[n]["cartpole_vector_per_second"]) for n in sizes]
    lines.append(f"| CartPole-v1 vector env | {' | '.join(cartpole)} | | | |")
    return "\n".join(lines)


def bench_parties_table(bench: dict[str, Any]) -> str:
    """A skirmish step by scenario and party size, against CartPole-v1's step."""
    lines = ["| system, scenario | fighters | step | x CartPole-v1 |", "|---|---|---|---|"]
    for name, scenarios in bench["parties"].items():
        for scenario, row in scenarios.items():
            lines.append(
                f"| {name}, {scenario} | {row['fighters']} | {row['step_us']:.1f} us | "
                f"x{row['step_ratio_to_reference']:.1f} |"
            )
    return "\n".join(lines)


def _rate_kept(size: dict[str, float]) -> str:
    """A batch size's decisions a second, and the share of its kernels' speed the vector
    env keeps where the bench measured it."""
    rate = _rate(size["decisions_per_second"])
    return f"{rate} ({size['layer_share']:.2f})" if "layer_share" in size else rate


def _rate(per_second: float) -> str:
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if per_second >= size:
            return f"{per_second / size:.1f}{suffix}"
    return f"{per_second:.0f}"


def bench_tournaments_table(bench: dict[str, Any]) -> str:
    """Tournament duels a second on each engine, the records of both compared in the run."""
    lines = ["| pairing | `--engine fast` | `--engine python` | ratio |", "|---|---|---|---|"]
    for pairing, row in bench["batched_tournament"].items():
        lines.append(
            f"| {pairing} | {row['fast_duels_per_second']:,.0f} duels/s | "
            f"{row['python_duels_per_second']:,.0f} | {row['ratio']:.1f}x |"
        )
    return "\n".join(lines)


def exact_table(rows: list[dict[str, Any]]) -> str:
    """The solved scenarios: states, side A's exact value, each policy's score against
    an optimal opponent / its exploitability, and the Monte Carlo check of the value."""
    solved = [row for row in rows if "value" in row]
    names = list(dict.fromkeys(_column(p) for row in solved for p in row["policies"]))
    lines = [
        f"| system, scenario | states | optimal, side A | {' | '.join(names)} | check |",
        "|---" * (len(names) + 4) + "|",
    ]
    for row in solved:
        cells = dict.fromkeys(names, "")
        for policy, (against, exploitability) in row["policies"].items():
            cells[_column(policy)] = f"{against:.3f} / {exploitability:.3f}"
        duels, mean, half = row["check"]
        inside = "inside" if abs(mean - row["value"]) <= half + 1e-9 else "OUTSIDE"
        lines.append(
            f"| {row['system']}, {row['scenario']} | {row['states']:,} | {row['value']:.4f} | "
            f"{' | '.join(cells.values())} | {mean:.4f} ± {half:.4f}, {inside} |"
        )
    env_ids = ", ".join(sorted({f"`{row['env_id']}`" for row in solved}))
    seconds = ", ".join(f"{row['scenario']} {row['seconds']} s" for row in solved)
    return "\n".join(lines) + f"\n\nMeasured on {env_ids}; walk, solve and scores took {seconds}."


def _column(policy: str) -> str:
    """A policy's column: the scripted NPCs by name, the brains under one heading."""
    return "shipped brain" if policy.startswith("brain:") else policy.split(":", 1)[1]


def exact_unsolved_table(rows: list[dict[str, Any]]) -> str:
    """The scenarios the walk did not finish within its bounds, and the systems it does
    not apply to."""
    lines = ["| system, scenario | walked before the limit | env id |", "|---|---|---|"]
    for row in rows:
        if "walked" in row:
            reached = (
                f"over {row['walked']:,} states, still in round {row['round']} "
                f"({row['limit']} after {row['seconds']} s)"
            )
            lines.append(f"| {row['system']}, {row['scenario']} | {reached} | `{row['env_id']}` |")
        elif "why" in row:
            lines.append(f"| {row['system']} | - ({row['why']}) | `{row['env_id']}` |")
    return "\n".join(lines)


def exact_solved_table(rows: list[dict[str, Any]]) -> str:
    """The duels solved under their system's own models: each `duelo solve` command as
    it was run, and what it printed."""
    return "\n\n".join(
        f"{row['scenario'].capitalize()}:\n\n"
        f"```text\n$ {row['command']}\n{row['printed'].rstrip()}\n```"
        for row in rows
        if "printed" in row
    )


Table = Callable[[Any], str]
TABLES: dict[str, tuple[str, Table]] = {
    "brains": ("brains", brains_table),
    "splits": ("splits", splits_table),
    "dice": ("dice", dice_table),
    "bench_systems": ("bench", bench_systems_table),
    "bench_batched": ("bench", bench_batched_table),
    "bench_tournaments": ("bench", bench_tournaments_table),
    "bench_parties": ("bench", bench_parties_table),
    "exact": ("exact", exact_table),
    "exact_unsolved": ("exact", exact_unsolved_table),
    "exact_solved": ("exact", exact_solved_table),
}
"""What a page's `<!-- measured: NAME -->` becomes: a table of the data in
`measured/FILE.json` (written by `docs/measure.py`, or for `bench` by `duelo bench
--out docs/measured/bench.json`; never by hand)."""


def rendered(markdown: str) -> str:
    """`markdown` with each marker replaced by its table."""
    for name, (file, table) in TABLES.items():
        marker = f"<!-- measured: {name} -->"
        if marker in markdown:
            rows = json.loads((MEASURED / f"{file}.json").read_text(encoding="utf-8"))
            markdown = markdown.replace(marker, table(rows))
    return markdown
