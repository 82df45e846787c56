"""The study's table: BLEU / chrF / names copied against CPU minutes, per arm, from
runs/pretrained-encoder/ARM/{header.json,log.jsonl} (written by run.py). Markdown on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETS = ("mustc-tst-common-a", "ud-pud")


def cell(r: dict[str, object], key: str, fmt: str) -> str:
    value = r.get(key)
    return "" if value is None else format(value, fmt)


def rows(run: Path) -> list[str]:
    head = json.loads((run / "header.json").read_text())
    out = []
    for line in (run / "log.jsonl").read_text().splitlines():
        r = json.loads(line)
        cells = [head["arm"], f"{r['cpu_min']:.2f}", str(r["step"]), f"{r['tgt_tokens']:,}"]
        cells += [f"{r['train_tok_s']:.0f}", f"{r['loss']:.2f}"]
        cells += [cell(r, f"nll:{s}", ".3f") for s in SETS]
        cells += [f"{cell(r, f'bleu:{s}', '.2f')} / {cell(r, f'chrf:{s}', '.1f')}" for s in SETS]
        copied = [r[f"names:{s}"] for s in SETS if f"names:{s}" in r]
        names = f"{sum(c for c, _ in copied)} / {sum(n for _, n in copied)}" if copied else ""
        cells.append(names)
        out.append("| " + " | ".join(c.strip(" /") for c in cells) + " |")
    return out


def main() -> None:
    base = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "runs" / "pretrained-encoder"
    print(
        "| arm | CPU min | updates | target tokens | train tgt tok/s | train loss | "
        "dev NLL MuST-C | dev NLL UD-PUD | MuST-C BLEU / chrF | UD-PUD BLEU / chrF | names copied |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for arm in ("scratch", "bert2rnd"):
        if (base / arm / "log.jsonl").is_file():
            print("\n".join(rows(base / arm)))
    for arm in ("scratch", "bert2rnd"):
        if (base / arm / "header.json").is_file():
            print(f"\n{arm}: {(base / arm / 'header.json').read_text()}")


if __name__ == "__main__":
    main()
