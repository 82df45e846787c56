"""The size study's table: per run, parameters, updates, target tokens seen, and dev loss and
BLEU at each evaluation against wall-clock minutes (from each run's train_log.jsonl).

    .venv/bin/python experiments/size-study/table.py runs/size-small runs/size-mid runs/size-wide
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def parameters(weights: Path) -> int:
    """Parameters stored in a safetensors file (shapes read from its header, nothing loaded)."""
    with weights.open("rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    total = 0
    for name, info in header.items():
        if name != "__metadata__":
            n = 1
            for dim in info["shape"]:
                n *= dim
            total += n
    return total


def summary(run: Path) -> list[str]:
    """One markdown row: the shape, its size, and dev BLEU by minute."""
    events = [json.loads(line) for line in (run / "train_log.jsonl").open(encoding="utf-8")]
    start = next(e for e in events if e["event"] == "start")
    cfg = start["config"]
    steps = [e for e in events if e["event"] == "step"]
    evals = [e for e in events if e["event"] == "eval"]
    if not steps or not evals:
        return [run.name, "–", "–", "–", "–", "–", "no evaluation yet"]

    def minute(step: int) -> float:
        done = [s for s in steps if s["step"] <= step] or steps[:1]
        return float(done[-1]["elapsed"]) / 60

    curve = ", ".join(
        f"{minute(e['step']):.1f} min: {e['dev_loss']:.2f} / {e['dev_bleu']:.2f}" for e in evals
    )
    shape = f"d {cfg['d_model']}, {cfg['enc_layers']} + {cfg['dec_layers']}"
    weights = run / "last" / "model.safetensors"
    size = "–" if not weights.exists() else f"{parameters(weights) / 1e6:.1f} M"
    tokens = sum(s["tokens"] for s in steps) if "tokens" in steps[0] else None
    seen = "–" if tokens is None else f"{tokens / 1e6:.2f} M"
    best = max(e["dev_bleu"] for e in evals)
    last = evals[-1]
    return [
        f"{run.name} ({shape})", size, str(last["step"]), seen,
        f"{last['dev_loss']:.3f}", f"{best:.2f}", curve,
    ]  # fmt: skip


def main(argv: list[str]) -> None:
    """Print the table of the runs in `argv`."""
    head = [
        "run (shape)",
        "parameters",
        "updates",
        "target tokens",
        "last dev loss",
        "best dev BLEU",
        "dev loss / BLEU by minute",
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for arg in argv:
        print("| " + " | ".join(summary(Path(arg))) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
