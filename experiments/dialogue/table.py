"""The baseline-and-after table of issue 54 from compare.py's JSON files (markdown to stdout).

python experiments/dialogue/table.py build/dialogue/compare runs/dialogue-model
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    folder, candidate = Path(sys.argv[1]), sys.argv[2]
    print(
        "| lang | set | setting | n | baseline BLEU / chrF / LC | after BLEU / chrF / LC | Δ BLEU (95 % CI of after) | p |"
    )
    print("|---|---|---|---:|---|---|---|---:|")
    for lang in ("it", "de", "fr", "es"):
        path = folder / f"compare-{lang}.json"
        if not path.exists():
            continue
        for row in json.loads(path.read_text(encoding="utf-8")):
            base = row[f"models/en-{lang}"]
            after = row.get(candidate)
            if after is None:
                continue
            cells = [
                f"{m['bleu']:.2f} / {m['chrf']:.2f} / {100 * m['lc']:.1f} %" for m in (base, after)
            ]
            delta = after["bleu"] - base["bleu"]
            ci = f"±{after['ci']:.2f}" if "ci" in after else ""
            p = f"{after['p']:.3f}" if "p" in after else ""
            print(
                f"| {lang} | {row['set']} | {row['setting']} | {row['n']} | {cells[0]} | {cells[1]} "
                f"| {delta:+.2f} ({ci}) | {p} |"
            )


if __name__ == "__main__":
    main()
