"""Quality flags of a `fitsub translate --report` JSON, recomputed with today's `fitsub.quality.flags`.

    python experiments/quality-flags/measure_flags.py REPORT.json [REPORT.json ...] [--model models/en-it]

Reports written before the flags existed have none; this script computes them the same way the
pipeline does (`fitsub.pipeline.flag_segments`: the model's vocabulary plus every word of the
document's unconstrained translations are the known words), so that old and new runs compare on
one rule. Prints, per report, the share of translated segments carrying each flag, and the share
of multi-cue sentences kept whole (segments sharing a group index, when the report says so).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from fitsub.nmt.backend import NMTBackend
from fitsub.quality.flags import segment_flags, words
from fitsub.quality.registry import FLAG_NAMES


def measure(path: Path, known: frozenset[str]) -> str:
    segs = [s for s in json.loads(path.read_text(encoding="utf-8"))["segments"] if s["budget"]]
    vocab = set(known)
    for s in segs:
        vocab.update(words(s.get("unconstrained") or ""))
    counts: Counter[str] = Counter()
    flagged = 0
    for s in segs:
        names = {
            f.name
            for f in segment_flags(
                s["source"],
                s["fitted"],
                s.get("unconstrained"),
                s["budget"]["chars"],
                s.get("model_fits", True),
                vocab,
            )
        }
        counts.update(names)
        flagged += bool(names)
    n = max(len(segs), 1)
    parts = [f"{path}: {len(segs)} segments, flagged {100 * flagged / n:.1f} %"]
    parts += [f"  {name}: {counts[name]} ({100 * counts[name] / n:.1f} %)" for name in FLAG_NAMES]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=Path)
    ap.add_argument("--model", type=Path, default=Path("models/en-it"))
    args = ap.parse_args()
    known = NMTBackend(args.model, device="cpu", threads=1).known_words()
    for report in args.reports:
        print(measure(report, known))


if __name__ == "__main__":
    main()
