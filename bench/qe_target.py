"""The CPU cost of the target-side quality signals (`fitsub.quality_target`): grouping the
forced output's pieces into words (`fitsub.nmt.attention.output_word_index`) and the text and
lexicon signals, against the forced decoding they ride on.

Uses the cached dev outputs of `runs/qe/en-XX.decode.jsonl` (written by
experiments/quality-estimation/calibrate_qe.py decode) and the shipped model and lexicon; prints
the median CPU seconds of `--rounds` rounds over `--n` lines of each step.
Run: `python bench/qe_target.py [--lang it] [--n 300] [--rounds 3] [--threads 1]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from fitsub.backend import OutputScore
from fitsub.nmt.attention import output_word_index
from fitsub.nmt.backend import NMTBackend
from fitsub.quality import score_texts
from fitsub.quality_target import target_signals

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="it")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    lines = (ROOT / "runs" / "qe" / f"en-{args.lang}.decode.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines[1:]]
    recs = [r for r in recs if r["fitted"].strip()][: args.n]
    backend = NMTBackend(ROOT / "models" / f"en-{args.lang}", device="cpu", threads=args.threads)
    tok = backend.tokenizer
    outputs = [[*tok.encode(r["fitted"]), backend.cfg.eos_id] for r in recs]
    sents = [(r["source"], r["fitted"], r["unconstrained"]) for r in recs]

    def forced() -> None:
        score_texts(backend, sents, 0)

    def grouping() -> None:
        for ids in outputs:
            output_word_index(tok, ids)

    def signals() -> None:
        for r, ids in zip(recs, outputs, strict=True):
            score = OutputScore((-1.0,) * len(ids), (), output_words=output_word_index(tok, ids))
            target_signals(r["source"], r["fitted"], score, backend.lexicon, args.lang)

    for name, step in (("forced decoding (fitted + unconstrained)", forced),
                       ("piece-to-word grouping", grouping),
                       ("grouping + every target signal", signals)):  # fmt: skip
        times = []
        for _ in range(args.rounds):
            t0 = time.process_time()
            step()
            times.append(time.process_time() - t0)
        print(f"{name}: {statistics.median(times):.3f} s CPU ({len(recs)} lines)")


if __name__ == "__main__":
    main()
