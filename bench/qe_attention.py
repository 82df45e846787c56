"""The CPU cost of the quality signals read off the forced pass: forced decoding with and
without recording the cross-attention (`fitsub.nmt.attention.CrossAttentionRecorder`), A B A B
rounds; then the target-side signals (`fitsub.quality.target`: grouping the output pieces into
words, the lexicon, numbers and names), median of `--pairs` rounds.

Scores the cached fitted outputs of `runs/qe/en-XX.decode.jsonl` (written by
experiments/quality-estimation/calibrate_qe.py decode; dev lines) with the shipped model, in
the batches `score_outputs` uses, and prints the median CPU seconds of each way and the share
added. Run: `python bench/qe_attention.py [--lang it] [--n 300] [--pairs 3] [--threads 1]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from fitsub.backend import OutputScore
from fitsub.nmt.attention import output_word_index
from fitsub.nmt.backend import NMTBackend
from fitsub.quality.score import scoring_request
from fitsub.quality.target import target_signals

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default="it")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    lines = (ROOT / "runs" / "qe" / f"en-{args.lang}.decode.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines[1:]]
    recs = [r for r in recs if r["fitted"].strip()][: args.n]
    backend = NMTBackend(ROOT / "models" / f"en-{args.lang}", device="cpu", threads=args.threads)
    rows = []
    for r in recs:
        ids, units, _ = backend._prepare(scoring_request(r["source"], r["fitted"]))
        rows.append((ids, units, [*backend.tokenizer.encode(r["fitted"]), backend.cfg.eos_id]))
    rows.sort(key=lambda r: len(r[0]) + len(r[2]))
    batches = [rows[i : i + backend.batch_size] for i in range(0, len(rows), backend.batch_size)]
    times: dict[bool, list[float]] = {False: [], True: []}
    with torch.inference_mode():
        for _ in range(args.pairs):
            for attention in (False, True):
                t0 = time.process_time()
                for b in batches:
                    backend.decoder.forced(b, attention=attention)
                times[attention].append(time.process_time() - t0)
    plain, hooked = statistics.median(times[False]), statistics.median(times[True])
    print(
        f"en-{args.lang}, {len(rows)} dev lines, {args.threads} thread(s): forced decoding "
        f"{plain:.2f} s CPU, with the attention recorded {hooked:.2f} s "
        f"(+{100 * (hooked - plain) / plain:.0f} %)"
    )
    spent = []
    for _ in range(args.pairs):
        t0 = time.process_time()
        for r in recs:
            ids = [*backend.tokenizer.encode(r["fitted"]), backend.cfg.eos_id]
            words = output_word_index(backend.tokenizer, ids)
            score = OutputScore((-1.0,) * len(ids), (), output_words=words)
            target_signals(r["source"], r["fitted"], score, backend.lexicon, args.lang)
        spent.append(time.process_time() - t0)
    print(f"target-side signals: {statistics.median(spent):.3f} s CPU")


if __name__ == "__main__":
    main()
