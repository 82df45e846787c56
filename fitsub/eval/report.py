"""The report of an evaluation: rows of metrics (test set × setting), and every table built
from it (the main table, the per-length table, markdown, rich).

The tables are built here only: `fitsub eval` prints them, `EvalReport.to_markdown` writes them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table
from rich.text import Text

from fitsub.eval.settings import Setting
from fitsub.metrics import RateResult, RatioStats, SettingMetrics


@dataclass(frozen=True)
class Row:
    """One test set × setting: its metrics and per-sentence out/src char ratios (for plots)."""

    testset: str
    setting: Setting
    metrics: SettingMetrics
    src_ratios: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the per-sentence ratios are left out)."""
        s = self.setting
        return {
            "testset": self.testset,
            "setting": s.name,
            "mode": s.mode,
            "policy": s.policy,
            "ratio": s.ratio,
            "model": None if s.model_dir is None else str(s.model_dir),
            "metrics": self.metrics.to_dict(),
        }


@dataclass
class EvalReport:
    """Rows of metrics (test set × setting) with run information; tables, JSON and markdown."""

    rows: list[Row]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"meta": self.meta, "rows": [r.to_dict() for r in self.rows]}

    def to_json(self) -> str:
        """The report as indented JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    def signatures(self) -> list[str]:
        """The distinct sacrebleu signatures of the scores in the report."""
        sigs: dict[str, None] = {}
        for r in self.rows:
            if r.metrics.bleu is not None:
                sigs[f"BLEU: {r.metrics.bleu.signature}"] = None
            if r.metrics.chrf is not None:
                sigs[f"chrF: {r.metrics.chrf.signature}"] = None
        return list(sigs)

    def to_markdown(self) -> str:
        """GitHub-flavoured markdown: the main table, the bucket table and the signatures."""
        parts = [markdown_table(*main_cells(self))]
        buckets = bucket_cells(self)
        if buckets[1]:
            parts.append("BLEU (LR) by reference length in 13a tokens (Oka et al. 2020, Table 3):")
            parts.append(markdown_table(*buckets))
        notes = sorted({n for r in self.rows for n in r.metrics.notes})
        lines = [f"- {LEGEND}"] + [f"- {s}" for s in self.signatures()]
        lines += [f"- {n}" for n in notes]
        if lines:
            parts.append("\n".join(lines))
        return "\n\n".join(parts) + "\n"


LEGEND = (
    "LR src / LR ref: mean ± std of per-sentence output/source and output/reference lengths "
    "in characters; VAR req / VAR ref: mean squared difference (chars²) between the output "
    "length and the requested length floor(ratio × source chars) (or, under a length "
    "policy, the length it asked for) / the reference length; "
    "LC: IWSLT 2022 length compliance (chars without spaces within ±10 % of the source; "
    "sources of ≤ 10 chars comply); fit: output chars ≤ floor(ratio × source chars); "
    "LC syl. / LC s (--unit): syllables / estimated speaking time within ±10 % of the source's."
)


def _pct(r: RateResult | None) -> str | None:
    return None if r is None or r.rate is None else f"{100 * r.rate:.1f}"


def _lr(r: RatioStats | None) -> str | None:
    if r is None or r.mean is None or r.std is None:
        return None
    return f"{r.mean:.3f} ± {r.std:.3f}"


def _num(x: float | None, digits: int = 2) -> str | None:
    return None if x is None else f"{x:.{digits}f}"


# Main table: header -> cell of one row (None: not computed). Columns empty in every row are
# dropped. LR are means ± std of per-sentence ratios; VAR in chars²; LC, fit and subtitle
# compliance in percent.
_COLUMNS: list[tuple[str, Callable[[SettingMetrics], str | None]]] = [
    ("n", lambda m: str(m.n)),
    ("BLEU", lambda m: _num(m.bleu.score) if m.bleu else None),
    ("BLEU*", lambda m: _num(m.bleu.bleu_star) if m.bleu else None),
    ("chrF", lambda m: _num(m.chrf.score) if m.chrf else None),
    ("LR src", lambda m: _lr(m.lr_src_chars)),
    ("LR ref", lambda m: _lr(m.lr_ref_chars)),
    ("LR src (subw.)", lambda m: _lr(m.lr_src_subwords)),
    ("LR ref (subw.)", lambda m: _lr(m.lr_ref_subwords)),
    ("VAR req", lambda m: _num(m.var_requested.value, 1) if m.var_requested else None),
    ("VAR ref", lambda m: _num(m.var_ref.value, 1) if m.var_ref else None),
    ("LC %", lambda m: _pct(m.lc)),
    ("LC syl. %", lambda m: _pct(m.speech_lc) if m.speech_unit == "syllables" else None),
    ("LC s %", lambda m: _pct(m.speech_lc) if m.speech_unit == "seconds" else None),
    ("fit %", lambda m: _pct(m.fit)),
    ("CPL %", lambda m: _pct(m.subtitle.cpl) if m.subtitle else None),
    ("lines %", lambda m: _pct(m.subtitle.lines) if m.subtitle else None),
    ("CPS %", lambda m: _pct(m.subtitle.cps) if m.subtitle else None),
    ("seg/s", lambda m: _num(m.segments_per_s, 1)),
]


def _lead(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    several = len({r.testset for r in report.rows}) > 1
    headers = (["test set"] if several else []) + ["setting"]
    lead = [([r.testset] if several else []) + [r.setting.name] for r in report.rows]
    return headers, lead


def main_cells(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the main table (one row per test set × setting)."""
    headers, rows = _lead(report)
    for header, cell in _COLUMNS:
        cells = [cell(r.metrics) for r in report.rows]
        if any(c is not None for c in cells):
            headers.append(header)
            for row, c in zip(rows, cells, strict=True):
                row.append("–" if c is None else c)
    return headers, rows


def bucket_cells(report: EvalReport) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the per-length table: `BLEU (LR)` per reference-length bucket."""
    scored = [r for r in report.rows if r.metrics.buckets is not None]
    if not scored:
        return [], []
    headers, rows = _lead(EvalReport(scored))
    several = len({r.testset for r in scored}) > 1
    first = scored[0].metrics.buckets or ()
    for b in first:
        headers.append(f"{b.label}" if several else f"{b.label} ({b.n})")
    for row, r in zip(rows, scored, strict=True):
        for b in r.metrics.buckets or ():
            cell = "–" if b.bleu is None else f"{b.bleu:.2f} ({_num(b.lr, 3) or '–'})"
            row.append(f"{cell} n={b.n}" if several else cell)
    return headers, rows


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(out)


def rich_table(headers: list[str], rows: list[list[str]], title: str) -> Table:
    """A table for the terminal: names left-aligned, figures right-aligned, cells as plain text
    (test set names come from file names)."""
    table = Table(title=title)
    for h in headers:
        table.add_column(h, justify="left" if h in ("test set", "setting") else "right")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table
