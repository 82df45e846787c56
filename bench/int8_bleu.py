"""BLEU cost of int8 on CPU: the shipped en-it model, float32 against dynamic int8, same search.

Translates the first `--n` lines of each en-it test set (`../shared/data/en-it/test`, read at run
time) unconstrained and with a hard budget of 1.0x the source (beam 5), with
`NMTBackend(int8=False)` and `NMTBackend(int8=True)`, and prints corpus BLEU (sacrebleu, 13a) of
each, their difference, and the time each took. The default (`fitsub.nmt.backend.INT8_DEFAULT`)
may be int8 only if it costs <= 0.3 BLEU.
Run: `python bench/int8_bleu.py [--n 200] [--sets tatoeba-test-unseen flores200-devtest ...]`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from fitsub.backend import Request
from fitsub.metrics import bleu
from fitsub.nmt.backend import NMTBackend, resolve_model_dir

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT.parent / "shared" / "data" / "en-it" / "test"
SETS = ["tatoeba-test-unseen", "cocoa-topical-chat", "flores200-devtest", "ntrex128"]


def main() -> None:
    """Print BLEU float32 / int8 per test set and mode."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sets", nargs="+", default=SETS)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model = resolve_model_dir(args.model, "en", "it")
    engines = {
        kind: NMTBackend(model, device="cpu", int8=kind == "int8") for kind in ("fp32", "int8")
    }
    print(
        "| test set (first n) | mode | BLEU fp32 | BLEU int8 | int8 - fp32 | time fp32 s | time int8 s |"
    )
    print("|---|---|---|---|---|---|---|")
    deltas = []
    for name in args.sets:
        src = (TEST / f"{name}.en").read_text("utf-8").splitlines()[: args.n]
        ref = (TEST / f"{name}.it").read_text("utf-8").splitlines()[: args.n]
        for mode in ("unconstrained", "budget-1.0"):
            reqs = [
                Request(s) if mode == "unconstrained" else Request(s, len(s), len(s)) for s in src
            ]
            score, secs = {}, {}
            for kind, backend in engines.items():
                start = time.perf_counter()
                hyps = [c[0].text if c else "" for c in backend.translate(reqs)]
                secs[kind] = time.perf_counter() - start
                score[kind] = bleu(hyps, ref).score
            deltas.append(score["int8"] - score["fp32"])
            print(f"| {name} ({len(src)}) | {mode} | {score['fp32']:.2f} | {score['int8']:.2f} | "
                  f"{deltas[-1]:+.2f} | {secs['fp32']:.1f} | {secs['int8']:.1f} |", flush=True)  # fmt: skip
    print(f"mean int8 - fp32: {sum(deltas) / len(deltas):+.2f} BLEU")


if __name__ == "__main__":
    main()
