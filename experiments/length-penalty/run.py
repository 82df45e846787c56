"""Length-normalised ranking of the unconstrained translation (GNMT's lp, Wu et al. 2016 eq. 14).

    python experiments/length-penalty/run.py decode it de    # 5-best of the dev sets, cached
    python experiments/length-penalty/run.py score it de     # BLEU / chrF per alpha

`decode` translates the first N (300) lines of dev/mustc-tst-common-a and dev/ud-pud with the
shipped model (beam 5, 5-best, no length signal, one thread) and caches every candidate's text,
score and piece count under runs/length-penalty/; `score` picks, per alpha, the candidate with
the highest score / ((5 + pieces) / 6) ** alpha and prints corpus BLEU, chrF, the brevity
penalty and the output / reference characters. alpha 0 is the plain summed log-probability.
Dev sets only: the choice of `fitsub.nmt.search.LENGTH_PENALTY` was made here.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("DATA_ROOT", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "runs" / "length-penalty"
SETS = ("mustc-tst-common-a", "ud-pud")
ALPHAS = (0.0, 0.6, 1.0, 1.3, 1.6, 2.0)


def decode(lang: str, n: int) -> None:
    import torch

    from fitsub.backend import Request
    from fitsub.nmt.backend import NMTBackend

    torch.set_num_threads(1)
    model = NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", beam=5, threads=1)
    out = {}
    for name in SETS:
        prefix = DATA / f"en-{lang}" / "dev" / name
        if not prefix.with_suffix(".en").exists():
            continue
        src = prefix.with_suffix(".en").read_text(encoding="utf-8").splitlines()[:n]
        ref = prefix.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()[:n]
        start = time.perf_counter()
        cands = model.translate([Request(s) for s in src], n_best=5)
        nbest = [
            [(c.text, c.score, len(model.tokenizer.encode(c.text))) for c in cs] for cs in cands
        ]
        out[name] = {"ref": ref, "nbest": nbest}
        print(
            f"en-{lang} {name}: {len(src)} lines, {time.perf_counter() - start:.0f} s", flush=True
        )
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / f"nbest-{lang}.json").write_text(json.dumps(out), encoding="utf-8")


def score(lang: str) -> None:
    import sacrebleu

    data = json.loads((CACHE / f"nbest-{lang}.json").read_text(encoding="utf-8"))
    print(f"| en-{lang} set | alpha | BLEU | chrF | BP | chars / ref |")
    print("|---|---|---|---|---|---|")
    for name, v in data.items():
        ref = v["ref"]
        for alpha in ALPHAS:
            hyps = [
                max(nb, key=lambda c: c[1] / ((5 + c[2]) / 6) ** alpha)[0] if nb else ""
                for nb in v["nbest"]
            ]
            bleu = sacrebleu.corpus_bleu(hyps, [ref])
            chrf = sacrebleu.corpus_chrf(hyps, [ref])
            ratio = sum(len(h) for h in hyps) / sum(len(r) for r in ref)
            print(
                f"| {name} | {alpha} | {bleu.score:.2f} | {chrf.score:.2f} | {bleu.bp:.3f} | {ratio:.3f} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=["decode", "score"])
    ap.add_argument("langs", nargs="+")
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    for lang in args.langs:
        decode(lang, args.n) if args.step == "decode" else score(lang)


if __name__ == "__main__":
    main()
