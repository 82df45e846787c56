"""Where the search's time goes: wall time per part of a step, by wrapping the parts in timers.

Parts: encoder; decoder self-attention (with the cache append), cross-attention, feed-forward
(each including its LayerNorm-free module call); output projection (`Transformer.project`);
log-softmax + budget / word masks (`bounds.step_scores` less the projection); cache reorder
(`KVCache.reorder`); the rest of the loop (embedding, LayerNorms, candidate layout, topk,
bookkeeping, Python). The shipped en-it model, unconstrained and with a 1.0x hard budget.
Times are CPU seconds of the process (`time.process_time`: steady on a shared machine, and
with one thread the time the search itself spends) unless `--clock wall`.
Run: `python bench/profile_search.py [--n 100] [--beam 5] [--batch 16] [--threads 1]`.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from fitsub.backend import Request
from fitsub.nmt import cache as C
from fitsub.nmt import layers as L
from fitsub.nmt import model as M
from fitsub.nmt import search as S
from fitsub.nmt.backend import NMTBackend, resolve_model_dir

ROOT = Path(__file__).resolve().parent.parent
SPENT: dict[str, float] = defaultdict(float)
OUTER: list[str] = []  # the timed part being run (an encoder's layers count as "encoder")
CLOCK: list[Callable[[], float]] = [time.process_time]


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` that adds its wall time to SPENT[name]."""

    def wrapper(*a: Any, **k: Any) -> Any:
        if "encoder" in OUTER:
            return fn(*a, **k)
        OUTER.append(name)
        start = CLOCK[0]()
        try:
            return fn(*a, **k)
        finally:
            SPENT[name] += CLOCK[0]() - start
            OUTER.pop()

    return wrapper


def main() -> None:
    """Profile the two modes and print the shares."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    args = ap.parse_args()
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    torch.set_num_threads(args.threads)
    import decode_vs_ct2

    texts = decode_vs_ct2.sentences(args.n)
    backend = NMTBackend(resolve_model_dir(None, "en", "it"), device="cpu", beam=args.beam,
                         batch_size=args.batch, int8=args.int8)  # fmt: skip
    L.SelfAttention.forward = timed("self-attention", L.SelfAttention.forward)  # type: ignore[method-assign]
    L.CrossAttention.forward = timed("cross-attention", L.CrossAttention.forward)  # type: ignore[method-assign]
    L.FeedForward.forward = timed("feed-forward", L.FeedForward.forward)  # type: ignore[method-assign]
    M.Transformer.project = timed("output projection", M.Transformer.project)  # type: ignore[method-assign]
    M.Transformer.encode = timed("encoder", M.Transformer.encode)  # type: ignore[method-assign]
    C.KVCache.reorder = timed("cache reorder", C.KVCache.reorder)  # type: ignore[method-assign]
    S.step_scores = timed("log-softmax + masks", S.step_scores)
    for mode in ("unconstrained", "budget-1.0"):
        reqs = [
            Request(t) if mode == "unconstrained" else Request(t, len(t), len(t)) for t in texts
        ]
        SPENT.clear()
        start = CLOCK[0]()
        backend.translate(reqs)
        total = CLOCK[0]() - start
        SPENT["log-softmax + masks"] -= SPENT["output projection"]
        rest = total - sum(SPENT.values())
        print(
            f"{mode}: {total:.2f} s ({args.clock}) for {len(texts)} sentences (beam {args.beam}, batch {args.batch})"
        )
        for part, secs in sorted(SPENT.items(), key=lambda kv: -kv[1]):
            print(f"  {part:22s} {secs:6.2f} s {100 * secs / total:5.1f} %")
        print(f"  {'rest of the loop':22s} {rest:6.2f} s {100 * rest / total:5.1f} %")


if __name__ == "__main__":
    main()
