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


TABLES = {"brains": brains_table}
"""What a page's `<!-- measured: NAME -->` becomes: NAME's rows in `measured/NAME.json`
(written by `docs/measure.py`, never by hand)."""


def rendered(markdown: str) -> str:
    """`markdown` with each marker replaced by its table."""
    for name, table in TABLES.items():
        marker = f"<!-- measured: {name} -->"
        if marker in markdown:
            rows = json.loads((MEASURED / f"{name}.json").read_text(encoding="utf-8"))
            markdown = markdown.replace(marker, table(rows))
    return markdown
