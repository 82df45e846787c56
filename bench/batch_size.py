"""Beam-search speed and peak memory by batch size: A B A B runs of the same sentences.

Translates the first N lines of a text file with the shipped en-it model (beam 5, a hard
budget of each source's length, n-best 5 as `fitsub translate` asks) at each batch size in
turn, `--pairs` rounds, and prints the median seconds, sentences/s and the peak of memory in
use during the batch (glibc `mallinfo2`: what the tensors hold, not RSS). `fitsub translate`
uses batch 16 (fitsub/cli/registry.py, CHECKPOINT_BATCH): this is the measurement behind that choice.
Run: `python bench/batch_size.py [--src FILE] [--n 128] [--sizes 16 32] [--threads 1]`.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import threading
import time
from pathlib import Path

import torch

from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend, resolve_model_dir

ROOT = Path(__file__).resolve().parent.parent


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_size_t)
        for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                  "uordblks", "fordblks", "keepcost")
    ]  # fmt: skip


def _in_use() -> float:
    """MB of memory malloc has handed out (heap + mmapped blocks); 0 where not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
    except (OSError, AttributeError):
        return 0.0
    return float(m.uordblks + m.hblkhd) / 2**20


def run(backend: NMTBackend, requests: list[Request]) -> tuple[float, float]:
    """Seconds for the batch and the peak MB in use above the level before it."""
    base, peak, stop = _in_use(), [0.0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _in_use())
            time.sleep(0.001)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    start = time.perf_counter()
    backend.translate(requests, n_best=5)
    seconds = time.perf_counter() - start
    stop.set()
    th.join()
    return seconds, peak[0] - base


def main() -> None:
    """Alternate the batch sizes and print the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--src", type=Path, default=ROOT.parent / "shared/data/en-it/dev/ud-pud.en")
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 32])
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    if not args.src.exists():
        sys.exit(f"{args.src}: not found (give --src FILE, one English sentence a line)")
    lines = [x for x in args.src.read_text(encoding="utf-8").splitlines() if x.strip()][: args.n]
    requests = [Request(t, target_chars=len(t), max_chars=len(t)) for t in lines]
    torch.set_num_threads(args.threads)
    model = resolve_model_dir(None, "en", "it")
    backends = {b: NMTBackend(model, threads=args.threads, batch_size=b) for b in args.sizes}
    seconds: dict[int, list[float]] = {b: [] for b in args.sizes}
    memory: dict[int, list[float]] = {b: [] for b in args.sizes}
    for _ in range(args.pairs):
        for b in args.sizes:
            s, m = run(backends[b], requests)
            seconds[b].append(s)
            memory[b].append(m)
    print(
        f"{len(lines)} sentences, beam 5, hard budget, {args.threads} thread(s), {args.pairs} rounds"
    )
    print("| batch | seconds (median) | sentences/s | peak MB in use (max) |")
    print("|---|---|---|---|")
    for b in args.sizes:
        med = statistics.median(seconds[b])
        print(f"| {b} | {med:.2f} | {len(lines) / med:.1f} | {max(memory[b]):.0f} |")


if __name__ == "__main__":
    main()
