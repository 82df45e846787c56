"""Which new signals to add to the shipped ones (dev data only): each candidate added alone to
the set shipped before the target signals (`qe_fit.SOURCE_FIT`; `--base old`: the set before
the source signals, `qe_fit.OLD_SIGNALS`), then a greedy forward selection.

    python experiments/quality-estimation/qe_select.py [--greedy] [--only A B ...] [--base old]

For each feature set: per language, the recall of the wrong lines at the language's own
threshold (the lowest reaching 75 % recall, capped at 35 % flagged) and with the coefficients
and threshold fitted on the other languages (held out), and the pooled AUC. The criterion of
the greedy step is the mean of the two recall columns over the languages.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_qe import load_all  # noqa: E402
from qe_fit import (  # noqa: E402
    OLD_SIGNALS,
    SOURCE_FIT,
    VARIANTS,
    auc,
    fit_model,
    pick_threshold,
    quality_of,
    wrong,
)

from fitsub.quality.target import TARGET_SIGNALS  # noqa: E402

CANDIDATES = (
    *TARGET_SIGNALS,
    *VARIANTS,
    "lexicon_min*short",
    "word_min_logprob*short",
    "mismatch*short",
    "source_pieces",
    "source_rarest",
    "mean_rarity",
    "max_pieces",
    "uncovered",
    "coverage_penalty",
    "coverage_deviation",
    "attention_entropy",
    "attention_entropy_norm",
    "last_uncovered",
    "last_coverage_penalty",
    "last_coverage_deviation",
    "last_attention_entropy",
    "free_uncovered",
    "signed_ratio",
    "free_length_ratio",
    "free_source_ratio",
    "low_token_share",
    "nbest_agreement",
    "uncovered*short",
    "attention_entropy*short",
    "source_pieces*short",
)


def evaluate(rows: dict[str, list[dict[str, Any]]], feats: Sequence[str]) -> dict[str, Any]:
    """Recall (own threshold, held out) per language and the pooled AUC of feature set `feats`."""
    pooled = [r for rs in rows.values() for r in rs]
    model = fit_model(pooled, feats)
    own, held, flagged = {}, {}, {}
    for lang, rs in rows.items():
        w = wrong(rs)
        q = quality_of(model, rs)
        t = pick_threshold(q, w)
        own[lang] = float((q < t)[w].mean())
        flagged[lang] = float((q < t).mean())
        others = [r for o, rr in rows.items() if o != lang for r in rr]
        m = fit_model(others, feats)
        th = pick_threshold(quality_of(m, others), wrong(others))
        held[lang] = float((quality_of(m, rs) < th)[w].mean())
    a = auc(-quality_of(model, pooled), wrong(pooled))
    crit = float(np.mean([*own.values(), *held.values()]))
    return {"own": own, "held": held, "flagged": flagged, "auc": a, "crit": crit}


def line(name: str, ev: dict[str, Any]) -> str:
    cells = " | ".join(f"{100 * ev['own'][k]:.0f} / {100 * ev['held'][k]:.0f}" for k in ev["own"])
    return f"| {name} | {cells} | {ev['auc']:.3f} | {100 * ev['crit']:.1f} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--only", nargs="*", default=None, help="candidates (default: all)")
    ap.add_argument("--base", choices=("shipped", "old"), default="shipped")
    args = ap.parse_args()
    candidates = tuple(args.only or CANDIDATES)
    start = SOURCE_FIT if args.base == "shipped" else OLD_SIGNALS
    rows = {lang: r for lang, (_, r) in load_all().items()}
    base = evaluate(rows, start)
    print("recall % at own threshold / language held out; AUC pooled; mean recall\n")
    print("| signals | " + " | ".join(rows) + " | AUC | mean |")
    print("|---|" + "---|" * (len(rows) + 2))
    print(line("shipped signals", base))
    if not args.greedy:
        for c in candidates:
            print(line(f"+ {c}", evaluate(rows, (*start, c))))
        return
    chosen: list[str] = []
    best = base
    while True:
        trials = {c: evaluate(rows, (*start, *chosen, c)) for c in candidates}
        c, ev = max(trials.items(), key=lambda kv: kv[1]["crit"])
        if c in chosen or ev["crit"] <= best["crit"] + 0.002:
            break
        chosen.append(c)
        best = ev
        print(line("+ " + " + ".join(chosen), ev))


if __name__ == "__main__":
    main()
