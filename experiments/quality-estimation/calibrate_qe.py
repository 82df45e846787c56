"""Calibrate fitsub's quality estimate (`fitsub.quality`) on dev data with references.

    python experiments/quality-estimation/calibrate_qe.py decode  --lang it [--mustc 200] [--pud 200]
    python experiments/quality-estimation/calibrate_qe.py signals --lang it
    python experiments/quality-estimation/calibrate_qe.py fit     [--write]

Three steps, each cached under `runs/qe/` (git-ignored), so that the one shared CPU core decodes
each dev line once:

* `decode`: the first `--mustc` lines of dev/mustc-tst-common-a and `--pud` lines of dev/ud-pud
  (never test/) translated as a `.txt` document with the shipped model `models/en-XX` and the
  CLI's defaults (`fitsub.pipeline.translate_document`, budget = the source's length), one
  thread; records the fitted and unconstrained texts, the flags of the time, the n-best lists
  and the seconds spent. Output: `runs/qe/en-XX.decode.jsonl`.
* `signals`: each line's quality signals (`fitsub.quality.segment_signals`: forced-decoding
  log-probability, Monte-Carlo dropout spread, agreement, length ratio, ...) plus the n-best
  agreement, the sentence chrF against the reference and the seconds spent scoring.
  Output: `runs/qe/en-XX.signals.jsonl`.
* `fit`: the label `wrong` (sentence chrF < `WRONG_CHRF`), a logistic regression of it on the
  standardised signals (`fitsub.quality.FEATURES`), the threshold, and the tables of
  docs/results/quality.md (recall / precision / share flagged of the old flags, each signal
  alone, the combined score; leave-one-language-out as well as pooled). `--write` stores the
  coefficients in `fitsub/quality_model.json`.
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

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FITSUB_DATA", ROOT.parent / "shared" / "data"))
CACHE = ROOT / "runs" / "qe"
LANGS = ("it", "de", "fr", "es")


def dev_lines(lang: str, n_mustc: int, n_pud: int) -> list[tuple[str, str, str]]:
    """(set, English source, reference) of the dev slices used."""
    out: list[tuple[str, str, str]] = []
    for name, n in (("mustc-tst-common-a", n_mustc), ("ud-pud", n_pud)):
        src = DATA / f"en-{lang}" / "dev" / f"{name}.en"
        if n <= 0 or not src.is_file():
            continue
        ref = src.with_suffix(f".{lang}")
        en = src.read_text(encoding="utf-8").splitlines()[:n]
        xx = ref.read_text(encoding="utf-8").splitlines()[:n]
        out += [(name, e.strip(), x.strip()) for e, x in zip(en, xx, strict=True)]
    return out


class Recorder:
    """A backend wrapper that keeps every request's n-best candidates (first call wins)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: dict[tuple[str, int | None], list[tuple[str, float]]] = {}

    def known_words(self) -> Any:
        return self.inner.known_words()

    def translate(self, requests: Sequence[Any], n_best: int = 1) -> Any:
        out = self.inner.translate(requests, n_best=n_best)
        for r, cands in zip(requests, out, strict=True):
            self.seen.setdefault((r.text, r.max_chars), [(c.text, c.score) for c in cands])
        return out


def decode(lang: str, n_mustc: int, n_pud: int) -> None:
    from fitsub.budget import LANGUAGE_LIMITS
    from fitsub.formats import parse_document
    from fitsub.nmt.backend import NMTBackend
    from fitsub.pipeline import TranslateOptions, translate_document

    rows = dev_lines(lang, n_mustc, n_pud)
    backend = Recorder(NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", threads=1))
    opts = TranslateOptions(lang=lang, limits=LANGUAGE_LIMITS[lang])
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


WRONG_CHRF = 30.0  # sentence chrF under this against the reference: the line is wrong
MAX_FLAGGED = 0.35  # the most lines the low-quality flag may flag, in every language
L2 = 1.0  # ridge penalty of the logistic regression (standardised signals)


def nbest_agreement(top: str, cands: Sequence[Sequence[Any]]) -> float | None:
    """Mean sentence chrF (/100) of the kept fitted text against the other n-best candidates."""
    from fitsub.quality import sentence_chrf

    others = [c[0] for c in cands if c[0] != top]
    if not others:
        return None
    return sum(sentence_chrf(top, o) for o in others) / (100 * len(others))


def signals(lang: str, dropout_passes: int) -> None:
    from statistics import fmean

    from fitsub.nmt.backend import NMTBackend
    from fitsub.quality import score_texts, segment_signals, sentence_chrf

    head, rows = read_jsonl(CACHE / f"en-{lang}.decode.jsonl")
    backend = NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu", threads=1)
    live = [r for r in rows if r["fitted"].strip()]
    sents = [(r["source"], r["fitted"], r["unconstrained"]) for r in live]
    t0 = time.process_time()
    plain = score_texts(backend, sents, 0)
    t1 = time.process_time()
    scores = score_texts(backend, sents, dropout_passes) if dropout_passes else plain
    t2 = time.process_time()
    assert plain is not None and scores is not None
    by_id = {id(r): sc for r, sc in zip(live, scores, strict=True)}
    path = CACHE / f"en-{lang}.signals.jsonl"
    with path.open("w", encoding="utf-8") as f:
        meta = {**head, "score_cpu_s": t1 - t0, "dropout_cpu_s": t2 - t1}
        meta["dropout_passes"] = dropout_passes
        f.write(json.dumps(meta) + "\n")
        for r in rows:
            sc, free = by_id.get(id(r), (None, None))
            sig = segment_signals(r["source"], r["fitted"], r["unconstrained"], sc, free)
            sig["dropout_mean"] = fmean(sc.dropout_means) if sc and sc.dropout_means else None
            sig["nbest_agreement"] = nbest_agreement(r["fitted"], r["nbest"])
            out = {
                "set": r["set"],
                "chrf": sentence_chrf(r["fitted"], r["ref"]),
                "chrf_free": sentence_chrf(r["unconstrained"] or "", r["ref"]),
                "old_flags": r["old_flags"],
                "signals": sig,
            }
            f.write(json.dumps(out) + "\n")
    print(f"{path}: {len(rows)} lines; scoring {t1 - t0:.1f} s CPU, dropout {t2 - t1:.1f} s CPU")


FIT_SIGNALS = (
    "logprob",
    "min_logprob",
    "entropy",
    "free_logprob",
    "agreement",
    "length_ratio",
    "source_length",
    "copied",
)
ALONE = (*FIT_SIGNALS, "dropout_std", "dropout_mean", "nbest_agreement")
HIGH_IS_WRONG = {"entropy", "dropout_std", "length_ratio"}  # the rest: low is wrong


def load_all() -> dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]:
    out = {}
    for lang in LANGS:
        path = CACHE / f"en-{lang}.signals.jsonl"
        if path.is_file():
            out[lang] = read_jsonl(path)
    return out


def logistic(x: Any, y: Any, l2: float) -> tuple[Any, float]:
    """Ridge logistic regression by Newton's method: (weights, intercept) of P(y = 1)."""
    import numpy as np

    n, k = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(k + 1)
    reg = np.full(k + 1, l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-a @ w))
        grad = a.T @ (p - y) + reg * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def matrix(rows: list[dict[str, Any]], feats: Sequence[str], mean: Any) -> Any:
    import numpy as np

    x = np.array(
        [[np.nan if r["signals"][f] is None else r["signals"][f] for f in feats] for r in rows],
        dtype=float,
    )
    return np.where(np.isnan(x), mean, x)


def prf(flagged: Any, wrong: Any) -> tuple[float, float, float]:
    """(recall of wrong lines, precision, share of lines flagged), in %."""
    tp = float((flagged & wrong).sum())
    recall = 100 * tp / max(1, wrong.sum())
    precision = 100 * tp / max(1, flagged.sum())
    return recall, precision, 100 * float(flagged.mean())


def auc(score: Any, wrong: Any) -> float:
    """P(a wrong line scores higher than a right one) (ties count half)."""

    pos, neg = score[wrong], score[~wrong]
    if not len(pos) or not len(neg):
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def fit_model(rows: list[dict[str, Any]], feats: Sequence[str]) -> dict[str, Any]:
    import numpy as np

    raw = np.array(
        [[np.nan if r["signals"][f] is None else r["signals"][f] for f in feats] for r in rows],
        dtype=float,
    )
    mean = np.nanmean(raw, axis=0)
    scale = np.nanstd(raw, axis=0)
    scale[scale == 0] = 1.0
    x = (np.where(np.isnan(raw), mean, raw) - mean) / scale
    y = np.array([r["chrf"] < WRONG_CHRF for r in rows], dtype=float)
    coef, intercept = logistic(x, y, L2)
    return {"features": list(feats), "mean": mean.tolist(), "scale": scale.tolist(),
            "coef": coef.tolist(), "intercept": intercept}  # fmt: skip


def quality_of(model: dict[str, Any], rows: list[dict[str, Any]]) -> Any:
    import numpy as np

    x = (matrix(rows, model["features"], np.array(model["mean"])) - model["mean"]) / model["scale"]
    z = x @ np.array(model["coef"]) + model["intercept"]
    return 1 - 1 / (1 + np.exp(-z))


def pick_threshold(q_by_lang: dict[str, Any]) -> float:
    """The highest threshold flagging at most MAX_FLAGGED of the lines in every language."""
    import numpy as np

    cands = np.unique(np.round(np.concatenate(list(q_by_lang.values())), 3))
    best = 0.0
    for t in cands:
        if all(float((q < t).mean()) <= MAX_FLAGGED for q in q_by_lang.values()):
            best = max(best, float(t))
    return best


def flag_precision(rows: dict[str, list[dict[str, Any]]]) -> None:
    """Each flag's count and precision for the wrong label, before this issue (recorded at
    decode time) and with today's `fitsub.quality_flags` (recomputed on the cached texts)."""
    from collections import Counter

    from fitsub.nmt.backend import NMTBackend
    from fitsub.quality_flags import FLAG_NAMES, segment_flags, words

    print("\nflags: lines flagged / precision for the wrong label (%), before -> after\n")
    print("| lang | " + " | ".join(FLAG_NAMES[:-1]) + " | any |")
    print("|---|" + "---|" * len(FLAG_NAMES))
    for lang, rs in rows.items():
        _, dec = read_jsonl(CACHE / f"en-{lang}.decode.jsonl")
        known = set(NMTBackend(ROOT / "models" / f"en-{lang}", device="cpu").known_words())
        for d in dec:
            known.update(words(d["unconstrained"] or ""))
        before: Counter[str] = Counter()
        after: Counter[str] = Counter()
        hit_b: Counter[str] = Counter()
        hit_a: Counter[str] = Counter()
        for r, d in zip(rs, dec, strict=True):
            wrong = r["chrf"] < WRONG_CHRF
            new = segment_flags(d["source"], d["fitted"], d["unconstrained"], d["budget"],
                                d["model_fits"], known, tgt_lang=lang)  # fmt: skip
            for names, count, hit in ((set(d["old_flags"]), before, hit_b),
                                      ({f.name for f in new}, after, hit_a)):  # fmt: skip
                for n in names | ({"any"} if names else set()):
                    count[n] += 1
                    hit[n] += wrong
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


def fit(write: bool, features: Sequence[str] | None) -> None:
    import numpy as np

    data = load_all()
    feats = tuple(features or FIT_SIGNALS)
    rows = {lang: r for lang, (_, r) in data.items()}
    pooled = [r for rs in rows.values() for r in rs]
    model = fit_model(pooled, feats)
    q_all = {lang: quality_of(model, rs) for lang, rs in rows.items()}
    threshold = pick_threshold(q_all)
    # each language's own threshold: the highest that flags at most MAX_FLAGGED of its lines
    own = {lang: pick_threshold({lang: q}) for lang, q in q_all.items()}
    wrong = {lang: np.array([r["chrf"] < WRONG_CHRF for r in rs]) for lang, rs in rows.items()}
    print(f"label: sentence chrF < {WRONG_CHRF}; shared threshold {threshold:.3f}\n")
    print(
        "| lang | lines | wrong % | (a) old flags R / P / flagged | own threshold "
        "| (c) score R / P / flagged | (c) shared threshold R / P / flagged "
        "| (c) held-out language R / P / flagged | AUC |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for lang, rs in rows.items():
        w = wrong[lang]
        old = np.array([bool(r["old_flags"]) for r in rs])
        others = [r for other, o in rows.items() if other != lang for r in o]
        held = fit_model(others, feats)
        q_train = {o: quality_of(held, rr) for o, rr in rows.items() if o != lang}
        t_held = pick_threshold(q_train)
        qh = quality_of(held, rs)
        a, c, h = prf(old, w), prf(q_all[lang] < threshold, w), prf(qh < t_held, w)
        o = prf(q_all[lang] < own[lang], w)
        print(f"| {lang} | {len(rs)} | {100 * w.mean():.1f} | "
              f"{a[0]:.0f} / {a[1]:.0f} / {a[2]:.0f} | {own[lang]:.3f} | "
              f"{o[0]:.0f} / {o[1]:.0f} / {o[2]:.0f} | {c[0]:.0f} / {c[1]:.0f} / {c[2]:.0f} | "
              f"{h[0]:.0f} / {h[1]:.0f} / {h[2]:.0f} | {auc(-q_all[lang], w):.3f} |")  # fmt: skip
    print(
        "\n(b) each signal alone, flagging the same share of lines as the score does in each "
        "language (recall / precision; AUC pooled)\n"
    )
    print("| signal | " + " | ".join(rows) + " | AUC |")
    print("|---|" + "---|" * (len(rows) + 1))
    for name in ALONE:
        cells = []
        allx, allw = [], []
        for lang, rs in rows.items():
            x = np.array([np.nan if r["signals"].get(name) is None else r["signals"][name]
                          for r in rs], dtype=float)  # fmt: skip
            if np.isnan(x).all():
                cells.append("-")
                continue
            bad = x if name in HIGH_IS_WRONG else -x
            bad = np.where(np.isnan(bad), np.nanmedian(bad), bad)
            share = float((q_all[lang] < own[lang]).mean())
            cut = np.quantile(bad, 1 - share) if share > 0 else np.inf
            r_, p_, _ = prf(bad >= cut, wrong[lang])
            cells.append(f"{r_:.0f} / {p_:.0f}")
            allx.append(bad)
            allw.append(wrong[lang])
        total = auc(np.concatenate(allx), np.concatenate(allw)) if allx else float("nan")
        print(f"| {name} | " + " | ".join(cells) + f" | {total:.3f} |")
    flag_precision(rows)
    speed(data)
    print("\ncoefficients (P(wrong), standardised signals):")
    for f_, m_, s_, c_ in zip(feats, model["mean"], model["scale"], model["coef"], strict=True):
        print(f"  {f_:14s} mean {m_:8.3f} sd {s_:7.3f} coef {c_:+.3f}")
    print(f"  intercept {model['intercept']:+.3f}")
    if write:
        from fitsub.quality import MODEL_FILE

        about = (
            f"logistic regression of sentence chrF < {WRONG_CHRF} on dev data "
            f"({', '.join(f'{k} {len(v)}' for k, v in rows.items())} lines of "
            "dev/mustc-tst-common-a and dev/ud-pud, shipped models), experiments/quality-estimation/calibrate_qe.py"
        )
        out = {**model, "threshold": round(threshold, 3), "dropout_passes": 0,
               "wrong_chrf": WRONG_CHRF, "about": about,
               "thresholds": {k: round(v, 3) for k, v in own.items()}}  # fmt: skip
        MODEL_FILE.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("decode")
    d.add_argument("--lang", required=True, choices=LANGS)
    d.add_argument("--mustc", type=int, default=200)
    d.add_argument("--pud", type=int, default=200)
    g = sub.add_parser("signals")
    g.add_argument("--lang", required=True, choices=LANGS)
    g.add_argument("--dropout", type=int, default=0, help="Monte-Carlo dropout passes")
    f = sub.add_parser("fit")
    f.add_argument("--write", action="store_true", help="store fitsub/quality_model.json")
    f.add_argument("--features", nargs="*", default=None)
    args = ap.parse_args(argv)
    if args.step == "decode":
        decode(args.lang, args.mustc, args.pud)
    elif args.step == "signals":
        signals(args.lang, args.dropout)
    else:
        fit(args.write, args.features)


if __name__ == "__main__":
    main()
