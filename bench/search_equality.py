"""Same n-best before and after a change to the search: the shipped model on a fixed test set.

300 English sentences (the first 150 of `tatoeba-test-unseen` and of `cocoa-*` in
`../shared/data/en-it/test`, read at run time, never copied into the repository; plus the
sample cues), each translated by `NMTBackend` (beam 5, 5-best) under five settings:
unconstrained; a hard budget of 1.0x and of 0.7x the source's characters (target = budget); a
lower bound too (0.9x-1.0x); no-space bounds (0.8x). `--save FILE` writes every candidate (text,
score, fits); `--check FILE` compares with a saved run and prints each difference. `--dev`:
lines of the dev sets (`mustc-tst-common-a`, `ud-pud`) instead; `--threads N`: torch's threads
(two runs with different N check that the thread count does not change the output).
Run: `python bench/search_equality.py --save /tmp/before.json` on the old code, then
`python bench/search_equality.py --check /tmp/before.json` on the new one.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from fitsub.backend import Request
from fitsub.formats import read_document
from fitsub.nmt.backend import NMTBackend, resolve_model_dir

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT.parent / "shared" / "data" / "en-it" / "test"
DEV = ROOT.parent / "shared" / "data" / "en-it" / "dev"


def sentences(n: int = 300, dev: bool = False) -> list[str]:
    """The sample cues, then test-set (`dev`: dev-set) English lines (../shared, at run time)."""
    out = [s.text.replace("\n", " ") for s in read_document(ROOT / "samples" / "talk.srt").segments]
    names = ["tatoeba-test-unseen", "cocoa-call-center", "cocoa-telephony", "cocoa-topical-chat"]
    folder = DEV if dev else TEST
    if dev:
        names = ["mustc-tst-common-a", "ud-pud"]
    per = (n - len(out)) // len(names) + 1
    for name in names:
        path = folder / f"{name}.en"
        if path.is_file():
            out += path.read_text("utf-8").splitlines()[:per]
    return [s for s in out if s.strip()][:n]


def settings(texts: list[str]) -> dict[str, list[Request]]:
    """The request lists compared: one per search mode."""
    n = [len(t) for t in texts]
    return {
        "unconstrained": [Request(t) for t in texts],
        "budget-1.0": [Request(t, c, c) for t, c in zip(texts, n, strict=True)],
        "budget-0.7": [
            Request(t, int(0.7 * c), int(0.7 * c)) for t, c in zip(texts, n, strict=True)
        ],
        "bounds-0.9-1.0": [Request(t, c, c, int(0.9 * c)) for t, c in zip(texts, n, strict=True)],
        "no-space-0.8": [
            Request(t, int(0.8 * c), int(0.8 * c), None, bound_unit="char_no_space")
            for t, c in zip(texts, n, strict=True)
        ],
    }


def run(
    model: Path | None, n: int, int8: bool, dev: bool = False
) -> dict[str, list[list[list[object]]]]:
    """Every candidate of every setting: [text, score, fits]."""
    kwargs = {"int8": int8}
    backend = NMTBackend(resolve_model_dir(model, "en", "it"), device="cpu", beam=5, **kwargs)
    out: dict[str, list[list[list[object]]]] = {}
    for name, reqs in settings(sentences(n, dev)).items():
        start = time.perf_counter()
        res = backend.translate(reqs, n_best=5)
        print(f"{name}: {time.perf_counter() - start:.1f} s")
        out[name] = [[[c.text, round(c.score, 4), c.fits] for c in cands] for cands in res]
    return out


def compare(old: dict, new: dict) -> int:
    """Print the differences; return how many segments differ in any candidate."""
    differ = 0
    for name, rows in old.items():
        for i, (a, b) in enumerate(zip(rows, new[name], strict=True)):
            same_text = [c[0] for c in a] == [c[0] for c in b]
            close = same_text and all(
                abs(x[1] - y[1]) <= 1e-3 and x[2] == y[2] for x, y in zip(a, b, strict=True)
            )
            if not close:
                differ += 1
                print(f"[{name} #{i}]\n  before: {a}\n  after:  {b}")
        total = len(rows)
        same = sum(1 for a, b in zip(rows, new[name], strict=True) if a == b)
        print(f"{name}: {same}/{total} n-best lists identical (text, score to 1e-4, fits)")
    return differ


def main() -> None:
    """Save or check the n-best lists."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--dev", action="store_true", help="dev sets' lines instead of test sets'")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--check", type=Path)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    out = run(args.model, args.n, args.int8, args.dev)
    if args.save:
        args.save.write_text(json.dumps(out, ensure_ascii=False), "utf-8")
    if args.check:
        differ = compare(json.loads(args.check.read_text("utf-8")), out)
        print(f"segments with any difference (text, or score beyond 1e-3): {differ}")


if __name__ == "__main__":
    main()
