"""CTranslate2 against fitsub's own search on the unconstrained pass: identical 1-best and BLEU.

Translates a dev set's English side through `NMTBackend` (requests without a length: the
unconstrained pass) with fitsub's search ($FITSUB_CT2=off) and on CTranslate2
(`fitsub.nmt.ct2`), greedy and beam 5, and prints the share of identical 1-best outputs and
each engine's BLEU against the reference (targets: >= 99 % identical, BLEU within 0.1); then
the first `--alone` sentences on CTranslate2 one at a time against the batched run.
`--rule` adds fitsub's beam as it searched requests without a bound before they were searched
as CTranslate2 does (`NMTBackend.free_as_ct2 = False`: `fitsub.nmt.search`'s beam with the
whole-words rule of `fitsub.nmt.bounds`). `--out DIR` writes each
engine's outputs, one line per sentence, for a diff.
Data is read at run time from ../shared (never committed).
Run: `python bench/ct2_agreement.py [--lang it] [--set ud-pud] [--beams 1 5] [--threads 1]`
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fitsub.backend import Request  # noqa: E402
from fitsub.nmt.backend import NMTBackend  # noqa: E402


def main() -> None:
    """Translate with both engines and print the agreement and BLEU."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lang", default="it")
    ap.add_argument("--set", default="ud-pud")
    ap.add_argument("--beams", type=int, nargs="+", default=[1, 5])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n", type=int, default=0, help="first N lines (0: all)")
    ap.add_argument("--alone", type=int, default=50)
    ap.add_argument("--rule", action="store_true", help="also fitsub's beam as before")
    ap.add_argument("--out", type=Path, default=None, help="write each engine's outputs here")
    args = ap.parse_args()
    import sacrebleu

    dev = ROOT.parent / "shared" / "data" / f"en-{args.lang}" / "dev"
    src = (dev / f"{args.set}.en").read_text("utf-8").splitlines()
    ref = (dev / f"{args.set}.{args.lang}").read_text("utf-8").splitlines()
    if args.n:
        src, ref = src[: args.n], ref[: args.n]
    model = ROOT / "models" / f"en-{args.lang}"
    reqs = [Request(t) for t in src]
    engines = (["rule"] if args.rule else []) + ["off", "on"]
    names = {"rule": "fitsub's beam + rule", "off": "fitsub", "on": "CTranslate2"}
    for beam in args.beams:
        outs = {}
        for engine in engines:
            os.environ["FITSUB_CT2"] = "on" if engine == "on" else "off"
            b = NMTBackend(model, device="cpu", beam=beam, threads=args.threads)
            assert (b.ct2 is not None) == (engine == "on"), "CTranslate2 did not load"
            if engine == "rule":
                b.free_as_ct2 = False
            start = time.perf_counter()
            outs[engine] = [c[0].text if c else "" for c in b.translate(reqs)]
            secs = time.perf_counter() - start
            bleu = sacrebleu.corpus_bleu(outs[engine], [ref]).score
            print(f"beam {beam} {names[engine]}: BLEU {bleu:.2f}, {secs:.1f} s", flush=True)
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"beam{beam}-{engine}.txt").write_text(
                    "".join(o + "\n" for o in outs[engine]), "utf-8"
                )
            if engine == "on" and args.alone:
                alone = [b.translate([r])[0][0].text for r in reqs[: args.alone]]
                same = sum(a == o for a, o in zip(alone, outs["on"], strict=False))
                print(f"  alone vs batched (CTranslate2): {same}/{len(alone)} identical")
        for x in engines[:-1]:
            same = sum(a == c for a, c in zip(outs[x], outs["on"], strict=True))
            pct = 100 * same / len(src)
            print(f"beam {beam}: {names[x]} = CTranslate2: {same}/{len(src)} ({pct:.1f} %)")
        if args.rule:
            same = sum(a == c for a, c in zip(outs["rule"], outs["off"], strict=True))
            print(f"beam {beam}: fitsub's beam + rule = fitsub: {same}/{len(src)}")
        for a, b2, s in zip(outs["off"], outs["on"], src, strict=True):
            if a != b2:
                print(f"  src: {s}\n  fitsub: {a}\n  ct2:    {b2}")
                break


if __name__ == "__main__":
    main()
