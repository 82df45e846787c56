"""The comparison of fitted against unconstrained translations: rich tables, TSV and JSON.

The per-segment table has one definition (`comparison_rows`: a header and plain cells) and three
layouts: a rich table for a terminal (`fitsub.cli.results_table`: the columns that fit its width),
tab-separated values when the output is not a terminal (stable: one line per segment,
the same columns always, tabs and newlines inside a cell escaped), and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from fitsub.budget import Budget, BudgetSummary, SpeechUnit, SpeechWindow, fitting_mode
from fitsub.io.atomic import atomic_write_text
from fitsub.pipeline import SegmentResult, Summary
from fitsub.pipeline.alternatives import Alternative
from fitsub.quality.registry import TOO_SHORT, TOO_SMALL


def plural(n: int, noun: str) -> str:
    """`n` and `noun`, in the plural unless `n` is 1: `1 segment`, `20 segments`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def summary_table(summary: Summary) -> Table:
    """Share within budget and mean length ratio, unconstrained against fitted."""
    table = Table(title="summary")
    table.add_column("")
    table.add_column("unconstrained", justify="right")
    table.add_column("fitted", justify="right")

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f} %"

    def ratio(x: float | None) -> str:
        return "–" if x is None else f"{x:.3f}"

    # the quality flags lead: "100 % within budget" says nothing of cut words or changed numbers
    table.add_row("flagged segments", "", f"{summary.flagged} of {summary.translated}")
    for name, count in summary.flag_counts.items():
        table.add_row(f"  {name}", "", f"[yellow]{count}[/]" if count else "0")
    for name, count in (
        ("too-small (budget)", summary.too_small),
        ("too-short (timing)", summary.too_short),
    ):
        table.add_row(f"  {name}", "", f"[yellow]{count}[/]" if count else "0")
    table.add_row("within budget", pct(summary.unconstrained_within), pct(summary.fitted_within))
    table.add_row(
        "mean length / source", ratio(summary.unconstrained_ratio), ratio(summary.fitted_ratio)
    )
    table.add_row("segments translated", str(summary.translated), str(summary.translated))
    kept = summary.translated - summary.refitted
    table.add_row("kept as translated / fitted again", "", f"{kept} / {summary.refitted}")
    if summary.multi_cue_sentences:
        paths = ", ".join(f"{name} {n}" for name, n in summary.group_paths.items() if n)
        table.add_row(
            "multi-cue sentences kept whole",
            "",
            f"{summary.kept_whole}/{summary.multi_cue_sentences} ({paths})",
        )
    return table


def result_to_dict(r: SegmentResult) -> dict[str, Any]:
    """One segment's comparison row as a JSON-ready dict."""
    return {
        "index": r.index,
        "id": r.id,
        "source": r.source,
        "translated": r.translated,
        "budget": None if r.budget is None else r.budget.to_dict(),
        "requested": None if r.requested is None else r.requested.to_dict(),
        "unconstrained": r.unconstrained,
        "unconstrained_chars": r.unconstrained_chars,
        "unconstrained_fits": r.unconstrained_fits,
        "fitted": r.fitted,
        "fitted_chars": r.fitted_chars,
        "fits": r.fits,
        "model_fits": r.model_fits,
        "refitted": r.refitted,
        "quality": None if r.quality is None else round(r.quality, 4),
        "flags": [f.to_dict() for f in r.flags],
        "group": r.group,
        "group_path": r.group_path,
        "markup_lost": list(r.markup_lost),
        "markup_moved": list(r.markup_moved),
        "terms_lost": list(r.terms_lost),
        "alternatives": [a.to_dict() for a in r.alternatives],
        **_speech_fields(r),
    }


def alternatives_of(row: Mapping[str, Any]) -> tuple[Alternative, ...]:
    """The alternatives of one segment of a JSON report (none in a report written before
    they were kept)."""
    return tuple(Alternative.from_dict(a) for a in row.get("alternatives") or ())


def _speech_fields(r: SegmentResult) -> dict[str, Any]:
    """A dubbing budget's window and the fitted text's syllables (nothing otherwise)."""
    if r.window is None:
        return {}
    return {"window": r.window.to_dict(), "syllables": r.syllables}


def write_report(
    path: Path,
    results: Sequence[SegmentResult],
    summary: Summary,
    meta: dict[str, Any],
) -> None:
    """Write the comparison as JSON (atomically)."""
    doc = report_dict(results, summary, meta)
    atomic_write_text(path, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")


BudgetRow = tuple[int, str | None, str, Budget | None, SpeechWindow | None]


def budget_table(budgets: Sequence[BudgetRow], unit: SpeechUnit | None = None) -> Table:
    """`fitsub budget`: per segment the source length, every limit and the binding one; under
    a dubbing budget (`unit`), first its speaking window in that unit (seconds or syllables)
    and the characters it implies as the ratio limit."""
    title = "budgets (characters)" if unit is None else f"budgets (speaking time, in {unit})"
    table = Table(title=title)
    names = ("#", "id", "src") + (() if unit is None else ("window",))
    for name in (*names, "ratio", "layout", "speed", "budget"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("mode", no_wrap=True)
    table.add_column("binds", no_wrap=True)
    table.add_column("flag", no_wrap=True, min_width=9)
    table.add_column("text", no_wrap=True, overflow="ellipsis", max_width=24)

    def cell(x: int | None) -> str:
        return "–" if x is None else str(x)

    for index, seg_id, text, b, window in budgets:
        if b is None:
            continue
        spoken = [] if unit is None else ["–" if window is None else window.describe(unit)]
        table.add_row(
            str(index + 1),
            Text(seg_id or ""),
            str(b.source_chars),
            *spoken,
            cell(b.ratio_limit),
            cell(b.layout_limit),
            cell(b.speed_limit),
            str(b.chars),
            b.mode,
            b.binding,
            " ".join(
                flag
                for flag, on in (
                    ("[red]TOO SMALL[/]", b.too_small),
                    ("[red]TOO SHORT[/]", b.too_short),
                )
                if on
            ),
            Text(text),
        )
    return table


def budget_summary_table(summary: BudgetSummary) -> Table:
    """`fitsub budget`'s summary: counts by binding limit and the flagged segments."""
    table = Table(title="summary")
    table.add_column("")
    table.add_column("value", justify="right")
    for key, value in summary.to_dict().items():
        if isinstance(value, dict):
            shown = json.dumps(value)
        elif isinstance(value, float):
            shown = f"{value:.3f}"
        else:
            shown = str(value)
        table.add_row(str(key), shown)
    return table


COMPARISON_HEADER = (
    "index", "id", "source_chars", "budget", "asked", "limit", "unconstrained_chars",
    "unconstrained_fits", "fitted_chars", "fits", "quality", "flags", "fitted",
)  # fmt: skip


def comparison_rows(results: Sequence[SegmentResult]) -> list[list[str]]:
    """The per-segment table as plain cells (`COMPARISON_HEADER` order), translated segments only."""
    rows = []
    for r in results:
        if r.budget is None:
            continue
        b = r.budget
        limit = [f"{b.mode}:{b.binding}"] + [
            name
            for name, on in (
                (TOO_SMALL, b.too_small),
                (TOO_SHORT, b.too_short),
                ("markup-dropped", bool(r.markup_lost)),
                ("markup-moved", bool(r.markup_moved)),
                ("term-lost", bool(r.terms_lost)),
            )
            if on
        ]
        rows.append(
            [
                str(r.index + 1),
                r.id or "",
                str(b.source_chars),
                str(b.chars),
                "" if r.requested is None else str(r.requested.chars),
                ",".join(limit),
                "" if r.unconstrained_chars is None else str(r.unconstrained_chars),
                _yes_no(r.unconstrained_fits),
                str(r.fitted_chars),
                _yes_no(r.fits),
                "" if r.quality is None else f"{r.quality:.2f}",
                ",".join(f.name for f in r.flags),
                r.fitted,
            ]
        )
    return rows


def _yes_no(ok: bool | None) -> str:
    return "" if ok is None else ("yes" if ok else "no")


def tsv_cell(text: str) -> str:
    """A cell with backslash, tab, newline and carriage return escaped."""
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def comparison_tsv(results: Sequence[SegmentResult], summary: Summary) -> str:
    """The per-segment table, then the summary (``# summary`` lines), as tab-separated values."""
    lines = ["\t".join(COMPARISON_HEADER)]
    lines += ["\t".join(tsv_cell(c) for c in row) for row in comparison_rows(results)]
    lines += [
        f"# summary\t{key}\t{tsv_cell(json.dumps(value, ensure_ascii=False))}"
        for key, value in summary.to_dict().items()
    ]
    return "\n".join(lines) + "\n"


def comparison_json(results: Sequence[SegmentResult], summary: Summary) -> str:
    """The per-segment table and the summary as one JSON object."""
    rows = [dict(zip(COMPARISON_HEADER, row, strict=True)) for row in comparison_rows(results)]
    return (
        json.dumps({"segments": rows, "summary": summary.to_dict()}, ensure_ascii=False, indent=2)
        + "\n"
    )


def report_dict(
    results: Sequence[SegmentResult], summary: Summary, meta: dict[str, Any]
) -> dict[str, Any]:
    """What `write_report` writes for one file (its mode as the budgets applied it)."""
    if "mode" in meta:
        meta = {**meta, "mode": fitting_mode((r.budget for r in results), meta["mode"])}
    return {
        "meta": meta,
        "summary": summary.to_dict(),
        "segments": [result_to_dict(r) for r in results],
    }


def write_batch_report(path: Path, files: Sequence[dict[str, Any]]) -> None:
    """A batch run's report: one entry per file (`report_dict`, or its error) and the counts."""
    failed = [f for f in files if f.get("status") == "failed"]
    doc = {
        "files": list(files),
        "summary": {
            "files": len(files),
            "translated": len(files) - len(failed),
            "failed": len(failed),
            "segments": sum(f["summary"]["translated"] for f in files if "summary" in f),
        },
    }
    atomic_write_text(path, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
