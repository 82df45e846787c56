"""The README's condensed results table from `fitsub eval --json` reports.

Usage: python scripts/results_table.py build/eval/conversational.json build/eval/wiki.json
Prints one markdown row per test set and setting (the unconstrained rows once: they do not
depend on the ratio) with BLEU, BLEU*, chrF, LR src (characters), LC and fit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def rows(report: dict) -> list[str]:
    out, seen = [], set()
    for row in report["rows"]:
        m = row["metrics"]
        name = row["mode"] if row["mode"] == "unconstrained" else f"{row['mode']}@{row['ratio']:g}"
        if len({r.get("model") for r in report["rows"]}) > 1:  # several models: name the run
            name = f"{Path(row['model']).parent.name} {name}"
        key = (row["testset"], row.get("model"), name)
        if key in seen:
            continue
        seen.add(key)
        lr = m["lr_src_chars"]
        cells = [
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
        out.append("| " + " | ".join(cells) + " |")
    return out


def main(paths: list[str]) -> None:
    print("| test set | setting | n | BLEU | BLEU* | chrF | LR src | LC % | fit % |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for line in rows(json.loads(Path(path).read_text("utf-8"))):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
