"""Non-words, BLEU / chrF and speed with and without the lexicon constraint (issue 28).

For each dev set (`LANG:NAME:N`: the first N lines of ../shared/data/en-LANG/dev/NAME), each
setting (`hard@R`: the budget floor(R × source characters) asked and enforced, as `fitsub eval`
does; `unconstrained`) and the constraint off / on: the share of output words that are neither in
the model's lexicon nor in the source (`fitsub.quality.lexicon.unknown_words`, counted per occurrence),
BLEU and chrF (sacrebleu) against the reference, and the seconds the backend took.

    OMP_NUM_THREADS=1 python bench/lexicon_words.py it:mustc-tst-common-a:300 it:ud-pud:200 \
        --ratios 0.8 1.0 --out build/lexicon_it.json

Dev data only (never test/): the choices of docs/lexicon.md were made on these figures.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import sacrebleu

from fitsub.backend import Request
from fitsub.eval.settings import Setting
from fitsub.nmt.backend import NMTBackend
from fitsub.quality.lexicon import _WORD, Lexicon, normalize, words_of

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def non_words(src: str, out: str, lex: Lexicon) -> tuple[int, int, list[str]]:
    """(non-words, words, the non-words) of one output, counted per occurrence."""
    allowed = set(words_of(src))
    ws = _WORD.findall(normalize(out))
    bad = [w for w in ws if not lex.knows(w) and w not in allowed]
    return len(bad), len(ws), bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="LANG:NAME:N (dev sets)")
    ap.add_argument("--ratios", type=float, nargs="+", default=[0.8, 1.0])
    ap.add_argument("--beam", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = []
    backends: dict[tuple[str, str], NMTBackend] = {}
    for spec in args.sets:
        lang, name, n = spec.split(":")
        src = (DATA / f"en-{lang}" / "dev" / f"{name}.en").read_text("utf-8").splitlines()[: int(n)]
        ref = (
            (DATA / f"en-{lang}" / "dev" / f"{name}.{lang}")
            .read_text("utf-8")
            .splitlines()[: int(n)]
        )
        model = Path(__file__).resolve().parents[1] / "models" / f"en-{lang}"
        for choice in ("off", "auto"):
            key = (lang, choice)
            if key not in backends:
                backends[key] = NMTBackend(
                    model, device="cpu", beam=args.beam, batch_size=16, threads=args.threads,
                    lexicon=choice,
                )  # fmt: skip
        lexicon = backends[(lang, "auto")].lexicon
        if lexicon is None:
            raise SystemExit(f"{model}: no lexicon to measure against")
        settings = [Setting("unconstrained", "unconstrained", 1.0)]
        settings += [Setting(f"hard@{r:g}", "hard", r) for r in args.ratios]
        for st in settings:
            # every setting keeps to the lexicon here, the unconstrained one too
            reqs: list[Request] = [replace(st.request(s), lexicon=True) for s in src]
            for choice in ("off", "auto"):
                be = backends[(lang, choice)]
                t0, c0 = time.perf_counter(), time.process_time()
                outs = [c[0].text if c else "" for c in be.translate(reqs)]
                secs, cpu = time.perf_counter() - t0, time.process_time() - c0
                bad = tot = 0
                examples: list[str] = []
                for s, o in zip(src, outs, strict=True):
                    b, w, ws = non_words(s, o, lexicon)
                    bad, tot = bad + b, tot + w
                    examples += ws
                fits = sum(
                    1 for r, o in zip(reqs, outs, strict=True)
                    if r.max_chars is None or len(o) <= r.max_chars
                )  # fmt: skip
                row = {
                    "lang": lang, "set": name, "n": len(src), "setting": st.name,
                    "lexicon": choice == "auto", "non_words_pct": 100 * bad / max(tot, 1),
                    "words": tot, "bleu": sacrebleu.corpus_bleu(outs, [ref]).score,
                    "chrf": sacrebleu.corpus_chrf(outs, [ref]).score, "seconds": secs, "cpu_seconds": cpu,
                    "fit_pct": 100 * fits / len(src), "examples": examples[:12],
                }  # fmt: skip
                rows.append(row)
                print(
                    f"{lang} {name:20s} {st.name:14s} lexicon={'on ' if row['lexicon'] else 'off'} "
                    f"non-words {row['non_words_pct']:5.2f}% BLEU {row['bleu']:5.2f} "
                    f"chrF {row['chrf']:5.2f} fit {row['fit_pct']:5.1f}% cpu {cpu:6.1f}s "
                    f"{' '.join(examples[:6])}",
                    flush=True,
                )
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
