"""A 1,000-cue SRT translated with the comparison, timed end to end (issue 31's target: <= 15 s
on two idle threads).

Builds a 1,000-cue file from the cues of `samples/talk.srt` (cycled, timings shifted), then
runs the same code path as `fitsub translate` (read, plan budgets, fitted + unconstrained
translation, reflow, write). Reports wall time, the process's CPU seconds, cues/s and the share within budget. `--ratio 0`
is slot mode (what `fitsub translate file.srt` does without `--ratio`); `--no-quality` and
`--lexicon off` take out quality estimation and the lexicon constraint, to see what they cost.
Each pass's share of the process's CPU time is printed: the backend's calls timed by kind
(unconstrained translation, fitted translation, forced scoring of fitted / unconstrained
outputs), with the segments each pass was asked for and its CPU milliseconds per segment (the
fitted pass's segments are those re-translated under a budget); $FITSUB_CT2=off runs every pass on fitsub's own search (the "before" of issue 45).
Run: `python bench/translate_srt.py [--model DIR] [--beam 5] [--cues 1000] [--threads 2]
[--ratio 0] [--no-quality] [--lexicon off]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from fitsub.budget import limits_for
from fitsub.formats import read_document, write_document
from fitsub.nmt.backend import NMTBackend, resolve_model_dir
from fitsub.pipeline import TranslateOptions, summarize_results, translate_document

ROOT = Path(__file__).resolve().parent.parent


def build_srt(n_cues: int) -> str:
    """`n_cues` cues cycled from samples/talk.srt, each 2.5 s long, in order."""
    sample = read_document(ROOT / "samples" / "talk.srt")
    texts = [s.text for s in sample.segments]
    blocks = []
    for i in range(n_cues):
        start = i * 3000
        end = start + 2500

        def ts(ms: int) -> str:
            return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

        blocks.append(f"{i + 1}\n{ts(start)} --> {ts(end)}\n{texts[i % len(texts)]}\n")
    return "\n".join(blocks)


def time_passes(backend: NMTBackend) -> dict[str, float]:
    """Wrap the backend's `translate` / `score_outputs` to add up CPU seconds per pass kind."""
    spent: dict[str, float] = {}

    def kind(requests: Any, scoring: bool) -> str:
        free = all(r.target_chars is None and r.max_chars is None for r in requests)
        name = "unconstrained" if free else "fitted"
        return f"forced scoring of {name} outputs" if scoring else f"{name} translation"

    def wrap(fn: Callable[..., Any], scoring: bool) -> Callable[..., Any]:
        def timed(requests: Any, *a: Any, **kw: Any) -> Any:
            start = time.process_time()
            try:
                return fn(requests, *a, **kw)
            finally:
                key = kind(requests, scoring)
                spent[key] = spent.get(key, 0.0) + time.process_time() - start
                count = f"{key} (segments)"
                spent[count] = spent.get(count, 0) + len(requests)

        return timed

    backend.translate = wrap(backend.translate, False)  # type: ignore[method-assign]
    backend.score_outputs = wrap(backend.score_outputs, True)  # type: ignore[method-assign]
    return spent


def main() -> None:
    """Time one translation of the generated file and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--cues", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ratio", type=float, default=1.0, help="0: slot mode (the SRT default)")
    ap.add_argument("--no-quality", action="store_true", help="skip quality estimation")
    ap.add_argument("--lexicon", default="auto", help="'off': no lexicon constraint")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cpu0 = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "long.srt"
        src.write_text(build_srt(args.cues), encoding="utf-8")
        start = time.perf_counter()
        backend = NMTBackend(
            resolve_model_dir(args.model, "en", "it"),
            device="cpu",
            beam=args.beam,
            lexicon=args.lexicon,
        )
        loaded = time.perf_counter()
        spent = time_passes(backend)
        doc = read_document(src)
        opts = TranslateOptions(
            lang="it",
            limits=limits_for("it"),
            ratio=args.ratio or None,
            compare=True,
            quality=not args.no_quality,
        )
        result = translate_document(doc, backend, opts)
        write_document(result.document, Path(tmp) / "long.it.srt")
        end = time.perf_counter()
    cpu = time.process_time() - cpu0
    summary = summarize_results(result.segments)
    mode = f"ratio {args.ratio}" if args.ratio else "slot mode"
    print(
        f"cues: {args.cues}, beam {args.beam}, threads {args.threads}, {mode}, quality "
        f"{'off' if args.no_quality else 'on'}, lexicon {args.lexicon}"
    )
    print(f"model load: {loaded - start:.1f} s; translate with comparison: {end - loaded:.1f} s")
    print(f"total: {end - start:.1f} s ({args.cues / (end - start):.1f} cues/s), CPU {cpu:.1f} s")
    engine = "CTranslate2" if getattr(backend, "ct2", None) else "fitsub's search"
    print(f"CPU by pass (unconstrained on {engine}; the rest: reading, planning, signals):")
    for name, secs in sorted(spent.items(), key=lambda kv: -kv[1]):
        if name.endswith("(segments)"):
            continue
        n = int(spent.get(f"{name} (segments)", 0))
        each = f", {n} segments, {1000 * secs / max(n, 1):.1f} ms each"
        print(f"  {name}: {secs:.1f} s ({100 * secs / cpu:.0f} %){each}")
    print(
        f"within budget: fitted {100 * summary.fitted_within:.1f} %, unconstrained "
        f"{100 * (summary.unconstrained_within or 0):.1f} %; flagged {summary.flagged}"
    )


if __name__ == "__main__":
    main()
