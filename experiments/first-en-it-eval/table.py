"""The condensed results table (docs/results/en-it.md) from `fitsub eval --json` reports.

Usage: python experiments/first-en-it-eval/table.py build/eval/conversational.json build/eval/wiki.json
Prints one markdown row per test set and setting (the unconstrained rows once: they do not
depend on the ratio) with BLEU, BLEU*, chrF, LR src (characters), LC and fit
(`fitsub.eval.report.condensed_rows`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fitsub.eval.report import CONDENSED_HEADERS, condensed_rows, markdown_table


def main(paths: list[str]) -> None:
    """Print the condensed table of every report in `paths`."""
    rows = [row for p in paths for row in condensed_rows(json.loads(Path(p).read_text("utf-8")))]
    print(markdown_table(CONDENSED_HEADERS, rows))


if __name__ == "__main__":
    main(sys.argv[1:])
