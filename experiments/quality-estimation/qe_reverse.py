"""A reverse model's signals (target language → English) for the quality score: measured on dev
data, not shipped (docs/results/quality.md, the fifth calibration).

    experiments/quality-estimation/reverse.sh it      # the reverse model (runs/reverse-it-en)
    python experiments/quality-estimation/qe_reverse.py signals --lang it --model runs/reverse-it-en/export
    python experiments/quality-estimation/qe_reverse.py measure

A translation that lost a name, a number or a clause, or that is fluent nonsense, explains its
source badly: a model translating the other way gives the source a low probability given it
(the reverse half of the dual conditional cross-entropy of Junczys-Dowmunt 2018, "Dual
Conditional Cross-Entropy Filtering of Noisy Parallel Corpora", eq. 2).

* `signals`: scores each cached line's source given its fitted text (forced decoding, the
  source's own length asked; one thread) and stores in `runs/qe/en-XX.signals.jsonl`:
  `reverse_logprob` (mean log-probability of the source's tokens), `reverse_min_logprob` (the
  least likely one), `reverse_uncovered` (the share of the fitted text's pieces the reverse
  pass attends to less than 0.5 in all), `reverse_pmi` (`reverse_logprob` minus the same score
  given "." for a translation: how much the translation, not the source alone, explains it),
  `roundtrip` (sentence chrF / 100 of the reverse model's greedy translation of the fitted text
  against the source) and the CPU seconds in the first line.
* `measure`: each signal's AUC against the reader's marks (qe_marks.py) and the held-out AUC
  of the shipped signals with each added, on the languages that have them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_qe import CACHE, read_jsonl  # noqa: E402
from qe_fit import auc, is_short  # noqa: E402
from qe_marks import MARK_SIGNALS, held_out, marked  # noqa: E402

SIGNALS = ("reverse_logprob", "reverse_min_logprob", "reverse_uncovered", "reverse_pmi",
           "roundtrip")  # fmt: skip
HIGH_IS_WRONG = {"reverse_uncovered"}


def mean_logprobs(scores: Sequence[Any]) -> list[float | None]:
    return [fmean(s.token_logprobs) if s.token_logprobs else None for s in scores]


def signals(lang: str, model: Path) -> None:
    from fitsub.backend import Request
    from fitsub.nmt.backend import NMTBackend
    from fitsub.quality.score import sentence_chrf
    from fitsub.units import char_length

    path = CACHE / f"en-{lang}.signals.jsonl"
    head, rows = read_jsonl(path)
    scorer = NMTBackend(model, device="cpu", threads=1, beam=1, lexicon="off")
    live = [r for r in rows if r["fitted"].strip()]
    srcs = [r["source"] for r in live]
    asked = [Request(r["fitted"], target_chars=max(1, char_length(r["source"]))) for r in live]
    t0 = time.process_time()
    scores = scorer.score_outputs(asked, srcs)
    cpu = time.process_time() - t0
    null = mean_logprobs(scorer.score_outputs([Request(".", target_chars=q.target_chars)
                                               for q in asked], srcs))  # fmt: skip
    back = [c[0].text for c in scorer.translate(asked)]
    for r, sc, nl, bt in zip(live, scores, null, back, strict=True):
        lp = sc.token_logprobs
        cover = [sum(col) for col in zip(*sc.attention, strict=True)] if sc.attention else []
        r["signals"].update(
            reverse_logprob=fmean(lp) if lp else None,
            reverse_min_logprob=min(lp) if lp else None,
            reverse_uncovered=fmean(c < 0.5 for c in cover) if cover else None,
            reverse_pmi=fmean(lp) - nl if lp and nl is not None else None,
            roundtrip=sentence_chrf(bt, r["source"]) / 100,
        )
    head = {**head, "reverse_cpu_s": cpu, "reverse_model": str(model)}
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(head) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")
    print(f"{path}: {len(rows)} lines, reverse scoring {cpu:.1f} s CPU")


def measure() -> None:
    rows, marks = marked()
    rows = {k: v for k, v in rows.items() if v[0]["signals"].get("reverse_logprob") is not None}
    marks = {k: marks[k] for k in rows}
    print(f"languages with reverse signals: {', '.join(rows)}\n")
    print("| signal | " + " | ".join(f"{k} AUC (all / ≤ 40)" for k in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for name in (*SIGNALS, "logprob", "entropy"):
        cells = []
        for lang, rs in rows.items():
            x = np.array([np.nan if r["signals"].get(name) is None else r["signals"][name]
                          for r in rs], dtype=float)  # fmt: skip
            x = np.where(np.isnan(x), np.nanmean(x), x)
            bad = x if name in HIGH_IS_WRONG | {"entropy"} else -x
            y, short = marks[lang], np.array([is_short(r) for r in rs])
            cells.append(f"{auc(bad, y):.2f} / {auc(bad[short], y[short]):.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\n| signals | held-out AUC, all | ≤ 40 |")
    print("|---|---|---|")
    for extra in ((), *((s,) for s in SIGNALS)):
        feats = (*MARK_SIGNALS, *extra)
        qs = held_out(rows, marks, feats)
        shorts = {k: np.array([is_short(r) for r in rs]) for k, rs in rows.items()}
        a = fmean(auc(-qs[k], marks[k]) for k in rows)
        s = fmean(auc(-qs[k][shorts[k]], marks[k][shorts[k]]) for k in rows)
        print(f"| shipped{' + ' + extra[0] if extra else ''} | {a:.3f} | {s:.3f} |")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    g = sub.add_parser("signals")
    g.add_argument("--lang", required=True)
    g.add_argument("--model", type=Path, required=True, help="the reverse model (xx → en)")
    sub.add_parser("measure")
    args = ap.parse_args(argv)
    if args.step == "signals":
        signals(args.lang, args.model)
    else:
        measure()


if __name__ == "__main__":
    main()
