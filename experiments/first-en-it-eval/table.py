"""The condensed results table (docs/results/en-it.md) from `fitsub eval --json` reports.

Usage: python experiments/first-en-it-eval/table.py build/eval/conversational.json build/eval/wiki.json
Prints one markdown row per test set and setting (the unconstrained rows once: they do not
depend on the ratio) with BLEU, BLEU*, chrF, LR src (characters), LC and fit
(`condensed_rows`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fitsub.eval.report import markdown_table

CONDENSED_HEADERS = ["test set", "setting", "n", "BLEU", "BLEU*", "chrF", "LR src", "LC %", "fit %"]


def condensed_rows(report: dict[str, Any]) -> list[list[str]]:
    """The README's condensed cells from a saved report (`EvalReport.to_dict`): one row per test
    set and setting, the unconstrained rows once (they do not depend on the ratio)."""
    out: list[list[str]] = []
    seen: set[tuple[str, str | None, str]] = set()
    several = len({r.get("model") for r in report["rows"]}) > 1
    for row in report["rows"]:
        m = row["metrics"]
        name = row["mode"] if row["mode"] == "unconstrained" else f"{row['mode']}@{row['ratio']:g}"
        if several:  # several models: name the run
            name = f"{Path(row['model']).parent.name} {name}"
        key = (row["testset"], row.get("model"), name)
        if key in seen:
            continue
        seen.add(key)
        lr = m["lr_src_chars"]
        out.append(
            [
                row["testset"],
                name,
                str(m["n"]),
                f"{m['bleu']['score']:.2f}",
                f"{m['bleu']['bleu_star']:.2f}",
                f"{m['chrf']['score']:.2f}",
                f"{lr['mean']:.3f} ± {lr['std']:.3f}",
                f"{100 * m['lc']['rate']:.1f}",
                f"{100 * m['fit']['rate']:.1f}",
            ]
        )
    return out


def main(paths: list[str]) -> None:
    """Print the condensed table of every report in `paths`."""
    rows = [row for p in paths for row in condensed_rows(json.loads(Path(p).read_text("utf-8")))]
    print(markdown_table(CONDENSED_HEADERS, rows))


if __name__ == "__main__":
    main(sys.argv[1:])
