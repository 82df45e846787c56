"""Two models' `fitsub eval --json` reports on the same test sets, side by side (docs/results/en-it.md).

    .venv/bin/python experiments/published-eval/compare.py OLD.json NEW.json [OLD2.json NEW2.json ...]

One row per test set and setting: n, BLEU old → new (and the difference), chrF old → new,
LC % and fit % old → new.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _rows(path: str) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for row in json.loads(Path(path).read_text(encoding="utf-8"))["rows"]:
        name = row["mode"] if row["mode"] == "unconstrained" else f"{row['mode']}@{row['ratio']:g}"
        out[(row["testset"], name)] = row["metrics"]
    return out


def _pct(m: dict[str, Any], key: str) -> str:
    r = m.get(key)
    return "–" if r is None or r.get("rate") is None else f"{100 * r['rate']:.1f}"


def main(paths: list[str]) -> None:
    """Print the table for each (old, new) pair of reports."""
    print("| test set | setting | n | BLEU | Δ BLEU | chrF | LC % | fit % |")
    print("|---|---|---|---|---|---|---|---|")
    for old_path, new_path in zip(paths[::2], paths[1::2], strict=True):
        old, new = _rows(old_path), _rows(new_path)
        for key, b in new.items():
            a = old.get(key)
            if a is None:
                continue
            bleu_a, bleu_b = a["bleu"]["score"], b["bleu"]["score"]
            print(
                f"| {key[0]} | {key[1]} | {b['n']} | {bleu_a:.2f} → **{bleu_b:.2f}** "
                f"| {bleu_b - bleu_a:+.2f} | {a['chrf']['score']:.1f} → {b['chrf']['score']:.1f} "
                f"| {_pct(a, 'lc')} → {_pct(b, 'lc')} | {_pct(a, 'fit')} → {_pct(b, 'fit')} |"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
