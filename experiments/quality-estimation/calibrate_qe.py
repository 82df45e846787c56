"""Calibrate fitsub's quality estimate (`fitsub.quality.score`) on dev data with references.

    python experiments/quality-estimation/calibrate_qe.py decode  --lang it --mustc 150 --pud 150 --short 120
    python experiments/quality-estimation/calibrate_qe.py signals --lang it
    python experiments/quality-estimation/calibrate_qe.py fit     [--write] [--flags]
    python experiments/quality-estimation/calibrate_qe.py read    [--agree]
    python experiments/quality-estimation/calibrate_qe.py misses  --lang it [--n 30]

Steps, each cached under `runs/qe/` (git-ignored), so that the one shared CPU core decodes
each dev line once:

* `decode`: the first `--mustc` lines of dev/mustc-tst-common-a and `--pud` lines of dev/ud-pud,
  plus up to `--short` short lines (source of at most 40 characters, each once) from each of the
  rest of those sets and dev/multi30k-val (never test/), translated as a `.txt` document with
  the shipped model `models/en-XX` and the CLI's defaults (`fitsub.pipeline.translate_document`,
  budget = the source's length), one thread; records the fitted and unconstrained texts, the
  flags of the time, the n-best lists and the seconds spent. Output: `runs/qe/en-XX.decode.jsonl`.
* `signals`: each line's quality signals (`fitsub.quality.score.segment_signals`: forced-decoding
  log-probability, Monte-Carlo dropout spread, agreement, length ratio, ...) plus the n-best
  agreement, the sentence chrF against the reference and the seconds spent scoring.
  Output: `runs/qe/en-XX.signals.jsonl`.
* `fit` (`qe_fit.py`): the label `wrong` (the same rule at every length: chrF, content dropped,
  untranslated), a logistic regression of it on the standardised, clipped signals and their
  interactions, the thresholds, and the tables of docs/results/quality.md split by source
  length (old flags, the model shipped now, a copy in `runs/qe/shipped_model.json`, the new score,
  leave-one-language-out, each signal alone). `--write` stores `runs/qe/chrf_model.json` (the shipped
  `fitsub/quality/model.json` is written by `qe_marks.py fit --write` alone).
* `read`: 60 short lines to read and mark (`runs/qe/reading.tsv`); `--agree`: how often
  chrF thresholds and the label agree with the marks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("FITSUB_DATA", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "runs" / "qe"
LANGS = ("it", "de", "fr", "es")


def dev_lines(lang: str, n_mustc: int, n_pud: int) -> list[tuple[str, str, str]]:
    """(set, English source, reference) of the dev slices used: the first lines of each set."""
    out: list[tuple[str, str, str]] = []
    for name, n in (("mustc-tst-common-a", n_mustc), ("ud-pud", n_pud)):
        out += [(name, e, x) for e, x in read_pairs(lang, name)[:n]]
    return out


def read_pairs(lang: str, name: str) -> list[tuple[str, str]]:
    """(English, reference) lines of dev set `name` (empty when the pair lacks it)."""
    src = DATA / f"en-{lang}" / "dev" / f"{name}.en"
    if not src.is_file():
        return []
    en = src.read_text(encoding="utf-8").splitlines()
    xx = src.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()
    return [(e.strip(), x.strip()) for e, x in zip(en, xx, strict=True)]


def short_lines(lang: str, n: int, skip: dict[str, int]) -> list[tuple[str, str, str]]:
    """Up to `n` short lines (source of at most SHORT_CHARS characters, each source once) of
    every dev set of the pair, after the first `skip[set]` lines (those of `dev_lines`):
    subtitle-length lines. Sets `<name>-short`."""
    from fitsub.quality.score import SHORT_CHARS

    out: list[tuple[str, str, str]] = []
    for name in ("mustc-tst-common-a", "ud-pud", "multi30k-val"):
        seen: set[str] = set()
        for e, x in read_pairs(lang, name)[skip.get(name, 0) :]:
            if len(e) <= SHORT_CHARS and e not in seen and len(seen) < n:
                seen.add(e)
                out.append((f"{name}-short", e, x))
    return out


class Recorder:
    """A backend wrapper that keeps every request's n-best candidates (first call wins)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.lexicon = inner.lexicon  # the word resources the pipeline reads (and the dictionary)
        self.links = inner.links
        self.seen: dict[tuple[str, int | None], list[tuple[str, float]]] = {}

    def known_words(self) -> Any:
        return self.inner.known_words()

    def translate(self, requests: Sequence[Any], n_best: int = 1) -> Any:
        out = self.inner.translate(requests, n_best=n_best)
        for r, cands in zip(requests, out, strict=True):
            self.seen.setdefault((r.text, r.max_chars), [(c.text, c.score) for c in cands])
        return out


def decode(lang: str, n_mustc: int, n_pud: int, n_short: int) -> None:
    from fitsub.budget import LANGUAGE_LIMITS
    from fitsub.formats import parse_document
    from fitsub.nmt.backend import NMTBackend
    from fitsub.pipeline import TranslateOptions, translate_document

    rows = dev_lines(lang, n_mustc, n_pud)
    rows += short_lines(lang, n_short, {"mustc-tst-common-a": n_mustc, "ud-pud": n_pud})
    backend = Recorder(
        NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", threads=1, lang=lang)
    )
    opts = TranslateOptions(lang=lang, limits=LANGUAGE_LIMITS[lang], quality=False)
    doc = parse_document("\n".join(r[1] for r in rows) + "\n", "slides")
    t0 = time.process_time()
    res = translate_document(doc, backend, opts)
    cpu = time.process_time() - t0
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"en-{lang}.decode.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"cpu_s": cpu, "lines": len(rows)}) + "\n")
        for (name, en, ref), seg in zip(rows, res.segments, strict=True):
            budget = None if seg.budget is None else seg.budget.chars
            rec = {
                "set": name,
                "source": en,
                "ref": ref,
                "fitted": seg.fitted,
                "unconstrained": seg.unconstrained,
                "budget": budget,
                "model_fits": seg.model_fits,
                "old_flags": [fl.name for fl in seg.flags],
                "nbest": backend.seen.get((seg.source, budget), []),
                "nbest_free": backend.seen.get((seg.source, None), []),
            }
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"{path}: {len(rows)} lines, {cpu:.0f} s CPU", file=sys.stderr)


def read_jsonl(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(x) for x in lines[1:]]


def nbest_agreement(top: str, cands: Sequence[Sequence[Any]]) -> float | None:
    """Mean sentence chrF (/100) of the kept fitted text against the other n-best candidates."""
    from fitsub.quality.score import sentence_chrf

    others = [c[0] for c in cands if c[0] != top]
    if not others:
        return None
    return sum(sentence_chrf(top, o) for o in others) / (100 * len(others))


def length_variants(source: str, fitted: str, free: str | None, sc: Any) -> dict[str, Any]:
    """Variants measured, not in the pipeline: signed length ratios (fitted / source,
    unconstrained / source), the attention entropy over log(source pieces) and
    the share of output tokens under probability 0.1."""
    import math

    from fitsub.units import char_length

    def ratio(a: str, b: str) -> float:
        return math.log((char_length(a) + 10) / (char_length(b) + 10))

    ent = None
    if sc is not None and sc.attention and len(sc.attention[0]) > 1:
        rows = sc.attention
        ent = sum(-sum(a * math.log(a) for a in row if a > 0) for row in rows) / len(rows)
        ent /= math.log(len(rows[0]))
    lps = sc.token_logprobs if sc is not None else ()
    return {
        "signed_ratio": ratio(fitted, source),
        "free_source_ratio": None if free is None else ratio(free, source),
        "attention_entropy_norm": ent,
        "low_token_share": sum(x < math.log(0.1) for x in lps) / len(lps) if lps else None,
    }


def signals(lang: str, dropout_passes: int, layer_variants: bool, lengthpred: bool) -> None:
    from statistics import fmean

    from qe_target import predicted_lengths, variants

    from fitsub.nmt.backend import NMTBackend
    from fitsub.quality.score import score_texts, segment_signals, sentence_chrf, source_signals

    head, rows = read_jsonl(CACHE / f"en-{lang}.decode.jsonl")
    backend = NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", threads=1, lang=lang)
    live = [r for r in rows if r["fitted"].strip()]
    sents = [(r["source"], r["fitted"], r["unconstrained"]) for r in live]
    t0 = time.process_time()
    plain = score_texts(backend, sents, 0)
    t1 = time.process_time()
    scores = score_texts(backend, sents, dropout_passes) if dropout_passes else plain
    t2 = time.process_time()
    assert plain is not None and scores is not None
    by_id = {id(r): sc for r, sc in zip(live, scores, strict=True)}
    last_of: dict[int, Any] = {}
    if layer_variants:  # the last layer only (measured in the second calibration)
        backend.score_on_ct2 = False  # the coverage signals: fitsub's decoder's cross-attention
        backend.attention_layers = (backend.cfg.dec_layers - 1,)
        last = score_texts(backend, sents, 0)
        assert last is not None
        last_of = {id(r): sc for r, sc in zip(live, last, strict=True)}
    predicted: list[int | None] = [None] * len(rows)
    pred_cpu = None
    if lengthpred:
        got, pred_cpu = predicted_lengths(
            ROOT / "models" / f"en-{lang}", [r["source"] for r in rows]
        )
        predicted = list(got)
    path = CACHE / f"en-{lang}.signals.jsonl"
    with path.open("w", encoding="utf-8") as f:
        meta = {**head, "score_cpu_s": t1 - t0, "dropout_cpu_s": t2 - t1}
        meta["dropout_passes"] = dropout_passes
        meta["lengthpred_cpu_s"] = pred_cpu
        f.write(json.dumps(meta) + "\n")
        for r, pred in zip(rows, predicted, strict=True):
            sc, free = by_id.get(id(r), (None, None))
            sig = segment_signals(
                source=r["source"],
                fitted=r["fitted"],
                unconstrained=r["unconstrained"],
                score=sc,
                free_score=free,
                lexicon=backend.lexicon,
                tgt_lang=lang,
                links=backend.links,
            )
            assert backend.lexicon is not None
            sig.update(variants(r["source"], r["fitted"], backend.lexicon))
            sig["dropout_mean"] = fmean(sc.dropout_means) if sc and sc.dropout_means else None
            sig["nbest_agreement"] = nbest_agreement(r["fitted"], r["nbest"])
            # variants measured, not in the pipeline: the most pieces of a source word, the
            # coverage of the unconstrained output
            sig["max_pieces"] = max(sc.word_pieces) if sc and sc.word_pieces else None
            sig["mean_rarity"] = fmean(sc.word_logprobs) if sc and sc.word_logprobs else None
            free_src = source_signals(free) if free else {}
            sig["free_uncovered"] = free_src.get("uncovered")
            sig["free_coverage_penalty"] = free_src.get("coverage_penalty")
            last_sc = last_of.get(id(r), (None, None))[0]
            last_src = source_signals(last_sc) if last_sc else {}
            for k in ("uncovered", "coverage_penalty", "coverage_deviation", "attention_entropy"):
                sig[f"last_{k}"] = last_src.get(k)
            sig.update(length_variants(r["source"], r["fitted"], r["unconstrained"], sc))
            out = {
                "set": r["set"],
                "source": r["source"],
                "fitted": r["fitted"],
                "unconstrained": r["unconstrained"],
                "predicted": pred,
                "ref": r["ref"],
                "chrf": sentence_chrf(r["fitted"], r["ref"]),
                "chrf_free": sentence_chrf(r["unconstrained"] or "", r["ref"]),
                "old_flags": r["old_flags"],
                "signals": sig,
            }
            f.write(json.dumps(out) + "\n")
    print(f"{path}: {len(rows)} lines; scoring {t1 - t0:.1f} s CPU, dropout {t2 - t1:.1f} s CPU")


def load_all() -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each language's cached signals, each distinct source once (TED's "(Applause)" and
    "Thank you." would otherwise vote a dozen times)."""
    from qe_target import refresh

    from fitsub.quality.lexicon import model_lexicon

    out = {}
    for lang in LANGS:
        path = CACHE / f"en-{lang}.signals.jsonl"
        if path.is_file():
            head, rows = read_jsonl(path)
            seen: set[str] = set()
            kept = [r for r in rows if not (r["source"] in seen or seen.add(r["source"]))]
            refresh(lang, kept, model_lexicon(ROOT / "models" / f"en-{lang}"))
            out[lang] = (head, kept)
    return out


def flag_precision(rows: dict[str, list[dict[str, Any]]]) -> None:
    """Each flag's count and precision for the wrong label, before this issue (recorded at
    decode time) and with today's `fitsub.quality.flags` (recomputed on the cached texts)."""
    from collections import Counter

    from qe_fit import wrong

    from fitsub.nmt.backend import NMTBackend
    from fitsub.quality.flags import segment_flags, words
    from fitsub.quality.registry import FLAG_NAMES

    print("\nflags: lines flagged / precision for the wrong label (%), before -> after\n")
    print("| lang | " + " | ".join(FLAG_NAMES[:-1]) + " | any |")
    print("|---|" + "---|" * len(FLAG_NAMES))
    for lang, rs in rows.items():
        _, every = read_jsonl(CACHE / f"en-{lang}.decode.jsonl")
        seen: set[str] = set()  # each source once, as load_all keeps them
        dec = [d for d in every if not (d["source"] in seen or seen.add(d["source"]))]
        known = set(
            NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", lang=lang).known_words()
        )
        for d in dec:
            known.update(words(d["unconstrained"] or ""))
        before: Counter[str] = Counter()
        after: Counter[str] = Counter()
        hit_b: Counter[str] = Counter()
        hit_a: Counter[str] = Counter()
        for d, is_wrong in zip(dec, wrong(rs), strict=True):
            new = segment_flags(d["source"], d["fitted"], d["unconstrained"], d["budget"],
                                d["model_fits"], known, tgt_lang=lang)  # fmt: skip
            for names, count, hit in ((set(d["old_flags"]), before, hit_b),
                                      ({f.name for f in new}, after, hit_a)):  # fmt: skip
                for n in names | ({"any"} if names else set()):
                    count[n] += 1
                    hit[n] += bool(is_wrong)
        cells = []
        for n in (*FLAG_NAMES[:-1], "any"):

            def cell(c: Counter[str], h: Counter[str], n: str = n) -> str:
                return f"{c[n]}" + (f" / {100 * h[n] / c[n]:.0f}" if c[n] else "")

            cells.append(f"{cell(before, hit_b)} → {cell(after, hit_a)}")
        print(f"| {lang} | " + " | ".join(cells) + " |")


def speed(data: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    print(
        "\nCPU seconds (one thread, shared core): decode (fitted + unconstrained, n-best 5) / "
        "quality scoring / Monte-Carlo dropout (10 passes)\n"
    )
    for lang, (head, _) in data.items():
        extra = head["score_cpu_s"] / head["cpu_s"]
        drop = head.get("dropout_cpu_s", 0.0) if head.get("dropout_passes") else 0.0
        print(
            f"- {lang}: {head['cpu_s']:.0f} s / {head['score_cpu_s']:.1f} s (+{100 * extra:.0f} %)"
            + (f" / {drop:.0f} s (+{100 * drop / head['cpu_s']:.0f} %)" if drop else "")
        )


def fit(write: bool, features: Sequence[str] | None, flags: bool) -> None:
    from qe_fit import run_fit

    data = load_all()  # the shipped model is written by one recipe only: `qe_marks.py fit --write`
    run_fit(
        data, CACHE / "shipped_model.json", features, CACHE / "chrf_model.json" if write else None
    )
    if flags:
        flag_precision({lang: r for lang, (_, r) in data.items()})
    speed(data)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("decode")
    d.add_argument("--lang", required=True, choices=LANGS)
    d.add_argument("--mustc", type=int, default=200)
    d.add_argument("--pud", type=int, default=200)
    d.add_argument("--short", type=int, default=0, help="short lines per dev set, after those")
    g = sub.add_parser("signals")
    g.add_argument("--lang", required=True, choices=LANGS)
    g.add_argument("--dropout", type=int, default=0, help="Monte-Carlo dropout passes")
    g.add_argument("--layers", action="store_true", help="also the last-layer coverage variant")
    g.add_argument("--lengthpred", action="store_true", help="the length predictor's length")
    f = sub.add_parser("fit")
    f.add_argument("--write", action="store_true", help="store runs/qe/chrf_model.json")
    f.add_argument("--features", nargs="*", default=None)
    f.add_argument("--flags", action="store_true", help="each flag's precision, before / after")
    m = sub.add_parser("misses", help="wrong lines the shipped model does not flag")
    m.add_argument("--lang", required=True, choices=LANGS)
    m.add_argument("--n", type=int, default=30)
    r = sub.add_parser("read", help="a sample of short lines to read, or (--agree) the agreement")
    r.add_argument("--n", type=int, default=60)
    r.add_argument("--agree", action="store_true", help="the label vs the marked sample")
    args = ap.parse_args(argv)
    if args.step == "decode":
        decode(args.lang, args.mustc, args.pud, args.short)
    elif args.step == "signals":
        signals(args.lang, args.dropout, args.layers, args.lengthpred)
    elif args.step == "misses":
        from qe_target import misses

        misses(load_all()[args.lang][1], CACHE / "shipped_model.json", args.lang, args.n)
    elif args.step == "read":
        from qe_fit import reading_agreement, reading_sample

        path = CACHE / "reading.tsv"
        if args.agree:
            reading_agreement(path)
        else:
            reading_sample({lang: r for lang, (_, r) in load_all().items()}, args.n, path)
    else:
        fit(args.write, args.features, args.flags)


if __name__ == "__main__":
    main()
