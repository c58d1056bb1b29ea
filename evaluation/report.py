"""Tables from tournament records: pairings with Wilson intervals, ratings, matrix.

Everything here is a pure function of the records, so an interrupted and
resumed tournament reports exactly what an uninterrupted one does.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import math
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from duelo.envs.systems import system
from duelo.evaluation.stats import (
    ALPHA,
    POPULATION,
    PRIOR,
    adjacent_gaps,
    alpha_rank,
    bootstrap_elo,
    bradley_terry,
    elo,
    game_interval,
    holm,
    payoff_table,
    resampled_tables,
    sign_test,
    wilson_interval,
)

ANCHOR_RATING = 1000.0
"""The Elo rating of the anchor policy (random, when it plays)."""
BOOTSTRAP_SAMPLES = 200
SIGNIFICANCE = 0.05
"""The family-wise level of a report's head-to-head marks (Holm over its pairings)."""


@dataclass(frozen=True)
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def duels(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Wins plus half the draws, per duel."""
        return (self.wins + 0.5 * self.draws) / self.duels if self.duels else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.duels)

    def add(self, result: float) -> Tally:
        return Tally(
            self.wins + (result == 1.0), self.draws + (result == 0.5), self.losses + (result == 0.0)
        )


@dataclass(frozen=True)
class Pairing:
    a: str
    b: str
    total: Tally
    a_as_seat: tuple[Tally, Tally]
    """a's results when a held seat 0 (side A) and seat 1 (side B)."""
    forfeits: int
    mean_decisions: float
    mean_rounds: float
    p_value: float = 1.0
    """The exact sign test of a's wins against its losses (`stats.sign_test`)."""
    p_holm: float = 1.0
    """`p_value` Holm-adjusted over the report's pairings: below `SIGNIFICANCE`, one of
    the two is the stronger, whatever the number of pairings compared."""
    by_game: tuple[float, float] = (0.0, 1.0)
    """The 95 % interval of a's score with a game (both seat orders of one seed) as the
    sample (`stats.game_interval`): what a tournament's keyed dice narrow."""

    @property
    def decided(self) -> bool:
        """Whether the head-to-head difference is significant (Holm, `SIGNIFICANCE`)."""
        return self.p_holm < SIGNIFICANCE


@dataclass(frozen=True)
class Rating:
    policy: str
    elo: float
    low: float
    high: float
    mass: float = 0.0
    """Its alpha-Rank mass (`stats.alpha_rank`): where a cycle beats a ranking, the
    cycle's policies share it."""
    mass_low: float = 0.0
    mass_high: float = 0.0
    lead_low: float = math.nan
    """The bootstrap interval of its lead over the next rating down (`stats.adjacent_gaps`,
    Bonferroni over the table's gaps); NaN for the last."""
    lead_high: float = math.nan

    @property
    def leads(self) -> bool:
        """Whether it is significantly ahead of the next rating down."""
        return self.lead_low > 0


@dataclass(frozen=True)
class Report:
    system: str
    policies: list[str]
    pairings: list[Pairing]
    ratings: list[Rating]
    anchor: str
    matrix: list[list[float | None]]
    """matrix[i][j]: policy i's score against policy j."""
    duels: int
    mean_decisions: float
    prior: float = PRIOR
    """Bradley-Terry's prior the ratings were fitted with."""
    gap_to_optimal: dict[str, float] = field(default_factory=dict)
    """Each policy's exploitability, where the exact solver gave one (`--exact`)."""
    exact_scores: dict[str, float] = field(default_factory=dict)
    """The exact score of each pairing's first policy, keyed "A vs B", where solved."""
    by_setup: dict[str, dict[str, float]] = field(default_factory=dict)
    """In a suite: each setup's scores of each pairing's first policy, keyed by the
    setup's label, then "A vs B" (empty when every duel played one setup)."""


def score_of_a(record: dict[str, Any]) -> float:
    return {"a": 1.0, "b": 0.0, None: 0.5}[record["winner"]]


def build_report(
    records: list[dict[str, Any]], policies: list[str], seed: int = 0, prior: float = PRIOR
) -> Report:
    """The report of one system's records; `policies` fixes the row order; `prior` is
    Bradley-Terry's (`stats.bradley_terry`)."""
    if not records:
        raise ValueError("no duel records to report on")
    index = {name: i for i, name in enumerate(policies)}
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in records:
        by_pair.setdefault((record["a"], record["b"]), []).append(record)
    pairings = []
    pair_scores: dict[tuple[int, int], list[float]] = {}
    matrix: list[list[float | None]] = [[None] * len(policies) for _ in policies]
    for (a, b), group in sorted(by_pair.items(), key=lambda kv: (index[kv[0][0]], index[kv[0][1]])):
        total = Tally()
        seats = [Tally(), Tally()]
        games: dict[int, list[float]] = {}
        for record in group:
            result = score_of_a(record)
            total = total.add(result)
            seats[record["seat_of_a"]] = seats[record["seat_of_a"]].add(result)
            games.setdefault(record["game"], []).append(result)
        pairings.append(
            Pairing(
                a,
                b,
                total,
                (seats[0], seats[1]),
                sum(r["forfeit"] is not None for r in group),
                float(np.mean([r["decisions"] for r in group])),
                float(np.mean([r["rounds"] for r in group])),
                sign_test(total.wins, total.losses),
                by_game=game_interval([float(np.mean(g)) for g in games.values()]),
            )
        )
        pair_scores[(index[a], index[b])] = [score_of_a(r) for r in group]
        matrix[index[a]][index[b]] = total.score
        matrix[index[b]][index[a]] = 1 - total.score
    adjusted = holm([p.p_value for p in pairings])
    pairings = [replace(p, p_holm=q) for p, q in zip(pairings, adjusted, strict=True)]
    scores = np.zeros((len(policies), len(policies)))
    for (i, j), values in pair_scores.items():
        scores[i, j] += sum(values)
        scores[j, i] += len(values) - sum(values)
    anchor = next((i for i, name in enumerate(policies) if name.endswith(":random")), 0)
    ratings_now = elo(bradley_terry(scores, prior), anchor, ANCHOR_RATING)
    tables = resampled_tables(
        pair_scores, len(policies), np.random.default_rng(seed), BOOTSTRAP_SAMPLES
    )
    low, high, draws = bootstrap_elo(tables, anchor, ANCHOR_RATING, prior)
    order = sorted(range(len(policies)), key=lambda i: -ratings_now[i])
    gaps = dict(zip(order, adjacent_gaps(draws, order), strict=False))
    masses = alpha_rank(payoff_table(scores))
    mass_low, mass_high = np.percentile(alpha_rank(payoff_table(tables)), [2.5, 97.5], axis=0)
    ratings = sorted(
        (
            Rating(
                name,
                float(ratings_now[i]),
                float(low[i]),
                float(high[i]),
                float(masses[i]),
                float(mass_low[i]),
                float(mass_high[i]),
                *(float(x) for x in gaps.get(i, (math.nan, math.nan))),
            )
            for i, name in enumerate(policies)
        ),
        key=lambda r: -r.elo,
    )
    return Report(
        system=records[0]["system"],
        policies=policies,
        pairings=pairings,
        ratings=ratings,
        anchor=policies[anchor],
        matrix=matrix,
        duels=len(records),
        mean_decisions=float(np.mean([r["decisions"] for r in records])),
        prior=prior,
        by_setup=_by_setup(records, pairings),
    )


def setup_label(variant: dict[str, Any]) -> str:
    """A setup's name in a report: its scenario, fighters and options, or "default"."""
    parts = [str(variant["scenario"])] if "scenario" in variant else []
    if "fighters" in variant:
        parts.append(" vs ".join(map(str, variant["fighters"])))
    parts += [f"{k}={v}" for k, v in sorted(variant.get("options", {}).items())]
    return ", ".join(parts) or "default"


def _by_setup(
    records: list[dict[str, Any]], pairings: list[Pairing]
) -> dict[str, dict[str, float]]:
    tallies: dict[str, dict[str, Tally]] = {}
    for record in records:
        setup = tallies.setdefault(setup_label(record["variant"]), {})
        key = f"{record['a']} vs {record['b']}"
        setup[key] = setup.get(key, Tally()).add(score_of_a(record))
    if len(tallies) < 2:
        return {}
    order = [f"{p.a} vs {p.b}" for p in pairings]
    return {
        label: {key: by_pair[key].score for key in order if key in by_pair}
        for label, by_pair in tallies.items()
    }


# --- renderings ------------------------------------------------------------------


def _short(name: str) -> str:
    """ "infierno:expert" -> "expert"; "brain:path/to/duelist" -> "brain:duelist"."""
    if name.startswith("brain:"):
        return f"brain:{Path(name.removeprefix('brain:')).name}"
    return name.split(":", 1)[-1]


def _table(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(
        [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
        + [fmt.format(*row) for row in rows]
    )


def render(report: Report, markdown: bool = False) -> str:
    """Matrix, pairings and ratings as text (aligned columns, or markdown)."""
    names = [_short(p) for p in report.policies]
    matrix_rows = [
        [names[i]] + ["-" if v is None else f"{v:.3f}" for v in row]
        for i, row in enumerate(report.matrix)
    ]
    pair_rows = []
    for p in report.pairings:
        low, high = p.total.interval
        pair_rows.append(
            [
                f"{_short(p.a)} vs {_short(p.b)}",
                f"{p.total.wins}/{p.total.draws}/{p.total.losses}",
                f"{p.total.score:.3f}",
                f"[{low:.3f}, {high:.3f}]",
                f"[{p.by_game[0]:.3f}, {p.by_game[1]:.3f}]",
                f"{p.a_as_seat[0].score:.3f}",
                f"{p.a_as_seat[1].score:.3f}",
                _p_cell(p),
                str(p.forfeits),
                f"{p.mean_decisions:.1f}",
                *_exact_cell(report.exact_scores, f"{p.a} vs {p.b}"),
            ]
        )
    rating_rows = [
        [
            _short(r.policy),
            f"{r.elo:.0f}",
            f"[{r.low:.0f}, {r.high:.0f}]",
            f"{r.mass:.3f}",
            f"[{r.mass_low:.3f}, {r.mass_high:.3f}]",
            _lead_cell(r),
            *_exact_cell(report.gap_to_optimal, r.policy),
        ]
        for r in report.ratings
    ]
    title = "## " if markdown else ""
    headline = (
        f"{title}{report.system}: {report.duels} duels, "
        f"{report.mean_decisions:.1f} decisions each on average"
    )
    pair_header = [
        "pairing",
        "W/D/L",
        "score",
        "95 % interval",
        "by game",
        "as A",
        "as B",
        "p (Holm)",
        "forfeits",
        "decisions",
        *(["exact score"] if report.exact_scores else []),
    ]
    rating_header = ["policy", "Elo", "95 % interval", "alpha-Rank", "95 % interval", "lead"]
    rating_header += ["gap to optimal"] if report.gap_to_optimal else []
    sections = [
        headline,
        "Score of the row against the column (wins + half draws):",
        _table(["", *names], matrix_rows, markdown),
        "Pairings (W/D/L of the first; Wilson 95 % interval of its score; by game: its "
        "95 % interval with a game, both seat orders of one seed, as the sample; "
        "its score as side A and as side B; p: the exact sign test of its wins against "
        f"its losses, Holm-adjusted over the {len(report.pairings)} pairings, "
        f"* where one of the two is the stronger at {SIGNIFICANCE:g}):",
        _table(pair_header, pair_rows, markdown),
        f"Bradley-Terry ratings, Elo scale, {_short(report.anchor)} = {ANCHOR_RATING:.0f} "
        f"(bootstrap 95 % interval; a prior of {report.prior:g} virtual win each way a "
        f"pairing), and alpha-Rank masses (alpha {ALPHA:g}, population {POPULATION}: "
        "where policies beat each other in a cycle, the cycle shares the mass; lead: the "
        "bootstrap interval of its lead over the next rating down, Bonferroni over the "
        f"{max(len(report.ratings) - 1, 1)} gaps, * where it excludes 0):",
        _table(rating_header, rating_rows, markdown),
    ]
    if report.by_setup:
        labels = list(report.by_setup)
        setup_rows = [
            [f"{_short(p.a)} vs {_short(p.b)}"]
            + [
                f"{report.by_setup[label].get(f'{p.a} vs {p.b}', float('nan')):.3f}"
                for label in labels
            ]
            for p in report.pairings
        ]
        sections += [
            "Per setup of the suite (the pairing's score there; each setup plays an equal "
            "share of its games):",
            _table(["pairing", *labels], setup_rows, markdown),
        ]
    if report.gap_to_optimal:
        sections.append(
            "Exact figures from the solver: each pairing's exact score, and each policy's gap "
            "to optimal (what a best response takes from it beyond an even split)."
        )
    return "\n\n".join(sections) + "\n"


def _p_cell(pairing: Pairing) -> str:
    """The Holm-adjusted p-value, starred where the pairing is decided."""
    shown = "<0.001" if pairing.p_holm < 0.001 else f"{pairing.p_holm:.3f}"
    return f"{shown} *" if pairing.decided else shown


def _lead_cell(rating: Rating) -> str:
    """Its lead over the next rating down, starred where significant ("-" for the last)."""
    if math.isnan(rating.lead_low):
        return "-"
    star = "*" if rating.leads else ""
    return f"[{rating.lead_low:+.0f}, {rating.lead_high:+.0f}]{star}"


def _exact_cell(exact: dict[str, float], key: str) -> list[str]:
    """The exact figure's cell, when the report has such a column ("-" where unknown)."""
    if not exact:
        return []
    return [f"{exact[key]:.4f}" if key in exact else "-"]


def write_outputs(reports: list[Report], out: Path) -> list[Path]:
    """report.md, pairings.csv, ratings.csv, summary.json and heatmaps (with matplotlib)."""
    written = [out / "report.md", out / "pairings.csv", out / "ratings.csv", out / "summary.json"]
    body = "\n".join(render(r, markdown=True) for r in reports)
    written[0].write_text(report_header(reports) + body, encoding="utf-8")
    pairing_csv = io.StringIO()
    writer = csv.writer(pairing_csv)
    writer.writerow(
        [
            "system",
            "a",
            "b",
            "wins",
            "draws",
            "losses",
            "score",
            "low",
            "high",
            "score_as_A",
            "score_as_B",
            "forfeits",
            "mean_decisions",
            "mean_rounds",
            "exact_score",
            "p_value",
            "p_holm",
            "game_low",
            "game_high",
        ]
    )
    rating_csv = io.StringIO()
    rating_writer = csv.writer(rating_csv)
    rating_writer.writerow(
        [
            "system",
            "policy",
            "elo",
            "low",
            "high",
            "gap_to_optimal",
            "alpha_rank",
            "alpha_rank_low",
            "alpha_rank_high",
            "lead_low",
            "lead_high",
        ]
    )
    for report in reports:
        for p in report.pairings:
            low, high = p.total.interval
            writer.writerow(
                [
                    report.system,
                    p.a,
                    p.b,
                    p.total.wins,
                    p.total.draws,
                    p.total.losses,
                    f"{p.total.score:.4f}",
                    f"{low:.4f}",
                    f"{high:.4f}",
                    f"{p.a_as_seat[0].score:.4f}",
                    f"{p.a_as_seat[1].score:.4f}",
                    p.forfeits,
                    f"{p.mean_decisions:.2f}",
                    f"{p.mean_rounds:.2f}",
                    _csv_figure(report.exact_scores.get(f"{p.a} vs {p.b}")),
                    f"{p.p_value:.6g}",
                    f"{p.p_holm:.6g}",
                    f"{p.by_game[0]:.4f}",
                    f"{p.by_game[1]:.4f}",
                ]
            )
        for r in report.ratings:
            rating_writer.writerow(
                [
                    report.system,
                    r.policy,
                    f"{r.elo:.1f}",
                    f"{r.low:.1f}",
                    f"{r.high:.1f}",
                    _csv_figure(report.gap_to_optimal.get(r.policy)),
                    f"{r.mass:.4f}",
                    f"{r.mass_low:.4f}",
                    f"{r.mass_high:.4f}",
                    _csv_figure(None if math.isnan(r.lead_low) else r.lead_low),
                    _csv_figure(None if math.isnan(r.lead_high) else r.lead_high),
                ]
            )
    written[1].write_text(pairing_csv.getvalue(), encoding="utf-8")
    written[2].write_text(rating_csv.getvalue(), encoding="utf-8")
    written[3].write_text(
        json.dumps([asdict(r) for r in reports], indent=2) + "\n", encoding="utf-8"
    )
    written += _heatmaps(reports, out)
    return written


def report_header(reports: list[Report]) -> str:
    """What report.md is of: duelo's version, and each system's env id (its rules'
    version), duels and policies."""
    lines = [f"# duelo {metadata.version('duelo')}: tournament report", ""]
    for report in reports:
        env_id = system(report.system).env_id
        policies = ", ".join(_short(p) for p in report.policies)
        lines.append(f"- {report.system} (`{env_id}`): {report.duels:,} duels among {policies}")
    return "\n".join(lines) + "\n\n"


def _csv_figure(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def plots_available() -> bool:
    """Whether the `plots` extra (matplotlib) is installed, so heatmaps are drawn."""
    return importlib.util.find_spec("matplotlib") is not None


def heatmap_cells(report: Report) -> dict[tuple[int, int], str]:
    """Each played cell's text: the row's score against the column, its 95% Wilson
    interval and the duels it rests on (a score alone hides how sure it is)."""
    index = {name: k for k, name in enumerate(report.policies)}
    cells = {}
    for p in report.pairings:
        i, j = index[p.a], index[p.b]
        low, high = p.total.interval
        duels = f"n={p.total.duels:,}"
        cells[i, j] = f"{p.total.score:.2f}\n[{low:.2f}, {high:.2f}]\n{duels}"
        cells[j, i] = f"{1 - p.total.score:.2f}\n[{1 - high:.2f}, {1 - low:.2f}]\n{duels}"
    return cells


def _heatmaps(reports: list[Report], out: Path) -> list[Path]:
    """One win-rate heatmap PNG per system, when the `plots` extra is installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    paths = []
    for report in reports:
        names = [_short(p) for p in report.policies]
        values = np.array([[np.nan if v is None else v for v in row] for row in report.matrix])
        figure, axes = plt.subplots(figsize=(1.5 * len(names) + 2, 1.2 * len(names) + 1.5))
        image = axes.imshow(values, vmin=0, vmax=1, cmap="RdYlGn")
        axes.set_xticks(range(len(names)), names, rotation=30, ha="right")
        axes.set_yticks(range(len(names)), names)
        for (i, j), text in heatmap_cells(report).items():
            axes.text(j, i, text, ha="center", va="center", fontsize=8)
        axes.set_title(f"{report.system}: score of row vs column, 95% interval, duels")
        figure.colorbar(image, ax=axes)
        figure.tight_layout()
        path = out / f"heatmap_{report.system}.png"
        figure.savefig(path, dpi=100)
        plt.close(figure)
        paths.append(path)
    return paths
