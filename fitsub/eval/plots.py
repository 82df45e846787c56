"""PNG plots of an evaluation (`fitsub eval --plot DIR`), drawn with matplotlib's Agg backend
(an extra: `fitsub.io.plotting`).

- `ratios.png`: per setting, the histogram of per-sentence output/source length ratios (chars);
  the tighter around the requested ratio, the better the length control.
- `bleu_vs_lc.png`: per setting, BLEU against IWSLT 2022 length compliance: the cost of length
  control in quality.
"""

from __future__ import annotations

from pathlib import Path

from fitsub.eval.report import EvalReport, Row
from fitsub.io.plotting import pyplot, save_png

RATIOS_PNG = "ratios.png"
BLEU_LC_PNG = "bleu_vs_lc.png"


def _label(row: Row, several_sets: bool) -> str:
    return f"{row.testset}: {row.setting.name}" if several_sets else row.setting.name


def plot_ratio_histograms(report: EvalReport, out_dir: Path) -> Path:
    """Histograms of output/source char ratios, one panel per row; writes `ratios.png`."""
    rows = [r for r in report.rows if r.src_ratios]
    if not rows:
        raise ValueError("no row has output/source ratios (a source is needed)")
    several = len({r.testset for r in rows}) > 1
    hi = max(2.0, max(max(r.src_ratios) for r in rows))
    bins = [i * hi / 40 for i in range(41)]
    fig, axes = pyplot().subplots(len(rows), 1, figsize=(7, 1.8 * len(rows) + 0.6), squeeze=False)
    for ax, row in zip(axes[:, 0], rows, strict=True):
        ax.hist(row.src_ratios, bins=bins, color="tab:blue", alpha=0.8)
        if row.setting.mode != "unconstrained":
            ax.axvline(row.setting.ratio, color="tab:red", linestyle="--", label="requested")
            ax.legend(loc="upper right", fontsize="small")
        ax.set_title(_label(row, several), fontsize="small")
        ax.set_ylabel("segments")
    axes[-1, 0].set_xlabel("output / source length (characters)")
    fig.tight_layout()
    return save_png(fig, Path(out_dir) / RATIOS_PNG)


def plot_bleu_vs_lc(report: EvalReport, out_dir: Path) -> Path:
    """BLEU against length compliance (%), one labelled point per row; writes `bleu_vs_lc.png`."""
    points = [
        (r, r.metrics.bleu.score, 100 * r.metrics.lc.rate)
        for r in report.rows
        if r.metrics.bleu is not None and r.metrics.lc is not None and r.metrics.lc.rate is not None
    ]
    if not points:
        raise ValueError("no row has both BLEU and LC (a source and a reference are needed)")
    several = len({r.testset for r, _, _ in points}) > 1
    fig, ax = pyplot().subplots(figsize=(7, 5))
    for row, bleu, lc in points:
        ax.scatter([lc], [bleu])
        ax.annotate(
            _label(row, several),
            (lc, bleu),
            fontsize="small",
            xytext=(4, 4),
            textcoords="offset points",
        )
    ax.set_xlabel("length compliance LC (%, IWSLT 2022)")
    ax.set_ylabel("BLEU")
    ax.set_xlim(0, 105)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_png(fig, Path(out_dir) / BLEU_LC_PNG)


def write_plots(report: EvalReport, out_dir: Path) -> list[Path]:
    """Every plot the report has data for, written into `out_dir` (created if missing)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if any(r.src_ratios for r in report.rows):
        written.append(plot_ratio_histograms(report, out_dir))
    if any(r.metrics.bleu is not None and r.metrics.lc is not None for r in report.rows):
        written.append(plot_bleu_vs_lc(report, out_dir))
    return written
