"""The AT / CMLM / LevT comparison (docs/results/nat.md) from `experiments/nat-comparison/run.sh`'s report.

    .venv/bin/python experiments/nat-comparison/table.py runs/nat/table.json

One row per model and test set: unconstrained BLEU / chrF / LR (output / source characters),
hard@1 BLEU / fit / segments per second, iso@1 BLEU / LC.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _name(model: str) -> str:
    """`runs/nat/levt-skd/best` → `LevT, skd`; the teacher's directory → `AR teacher`."""
    run = Path(model).parent.name if Path(model).name == "best" else Path(model).name
    if "-" not in run or run.startswith("en-"):
        return "AR teacher (models/en-it)"
    arch, data = run.split("-", 1)
    return f"{'CMLM' if arch == 'cmlm' else 'LevT'}, {data}"


def main(path: str) -> None:
    """Print the condensed table."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]:
        rows.setdefault((row["testset"], row["model"]), {})[row["mode"]] = row["metrics"]
    head = ["test set", "model, training data", "BLEU / chrF / LR", "hard@1 BLEU / fit / seg/s",
            "iso@1 BLEU / LC"]  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for (testset, model), m in rows.items():
        u, h, i = m["unconstrained"], m["hard"], m["iso"]
        print(
            f"| {testset} | {_name(model)} "
            f"| {u['bleu']['score']:.2f} / {u['chrf']['score']:.1f} / {u['lr_src_chars']['mean']:.3f} "
            f"| {h['bleu']['score']:.2f} / {100 * h['fit']['rate']:.0f} % / {h['segments_per_s']:.1f} "
            f"| {i['bleu']['score']:.2f} / {100 * i['lc']['rate']:.0f} % |"
        )


if __name__ == "__main__":
    main(sys.argv[1])
