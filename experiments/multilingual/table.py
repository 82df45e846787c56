"""The multilingual-vs-per-language study's table (experiments/multilingual/run.sh): per target
language, dev/ud-pud BLEU, chrF and (iso@1) LC of the per-language model and of the multilingual
one, and per run the updates, target tokens and wall-clock minutes it had.

    .venv/bin/python experiments/multilingual/table.py runs/ml-study
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LANGS = ("it", "de", "fr", "es")


def run_summary(run: Path) -> str:
    """Updates, target tokens seen and training minutes of a run (its train_log.jsonl)."""
    steps = [
        e
        for e in map(json.loads, (run / "train_log.jsonl").open(encoding="utf-8"))
        if e["event"] == "step"
    ]
    if not steps:
        return f"{run.name}: no updates logged"
    last = steps[-1]
    tokens = sum(e["tokens"] for e in steps) / 1e6  # padded tokens of each logging window
    return f"{run.name}: {last['step']:,} updates, {tokens:.1f} M tokens, {last['elapsed'] / 60:.1f} min"


def scores(path: Path) -> dict[str, tuple[float, float, float]]:
    """(BLEU, chrF, LC %) per setting of one `fitsub eval --json` file."""
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    return {
        r["mode"]: (r["metrics"]["bleu"]["score"], r["metrics"]["chrf"]["score"],
                    100 * r["metrics"]["lc"]["rate"])
        for r in rows
    }  # fmt: skip


def main(out: Path) -> None:
    """Print the markdown table and the runs' sizes."""
    print("| language | model | BLEU | chrF | iso@1 BLEU | iso@1 chrF | iso@1 LC % |")
    print("|---|---|---|---|---|---|---|")
    means: dict[str, list[float]] = {"per-language": [], "multilingual": []}
    for lang in LANGS:
        for name, run in (("per-language", lang), ("multilingual", "multi")):
            path = out / f"eval-{run}-{lang}.json"
            if not path.is_file():
                continue
            s = scores(path)
            u, iso = s["unconstrained"], s["iso"]
            means[name].append(u[0])
            print(f"| {lang} | {name} | {u[0]:.2f} | {u[1]:.1f} | {iso[0]:.2f} | {iso[1]:.1f} "
                  f"| {iso[2]:.1f} |")  # fmt: skip
    for name, values in means.items():
        if values:
            print(f"\nmean unconstrained BLEU, {name}: {sum(values) / len(values):.2f}")
    print()
    for run in (*LANGS, "multi"):
        if (out / run / "train_log.jsonl").is_file():
            print(run_summary(out / run))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "runs/ml-study"))
