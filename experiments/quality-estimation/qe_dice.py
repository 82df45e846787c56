"""Word-association signals for the quality score (issue 28): is each output word explained by a
word of the source, and each source word by one of the output?

    python experiments/quality-estimation/qe_dice.py build --lang it      # runs/qe/dice-it.npz
    python experiments/quality-estimation/qe_dice.py measure              # AUC against the marks

`build` counts, over the pair's training text (train/*), in how many sentence pairs each English
word, each target word and each (English, target) pair of words occur, and keeps the Dice
coefficient 2 c(e, f) / (c(e) + c(f)) of the pairs seen at least twice (Smadja et al. 1996, the
association measure of early bilingual lexicon extraction). `measure` adds to each marked dev
line (qe_marks.py) the signals

* `unsupported`: the share of the output's content words that no source word explains (best
  Dice under `SUPPORTED`; copied words are explained): fluent words of a wrong sentence
  ("Un americano per un cacciatore" for "A dangerous quest for a lone hunter");
* `support_mean`: the mean best Dice of the output's content words;
* `src_uncovered`: the share of the source's content words that no output word explains;

and prints each alone (AUC against the reading) and the held-out AUC of the shipped signals with
and without them. Content words: words outside the `FUNCTION` most frequent of their side.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_qe import CACHE, DATA  # noqa: E402

WORD = re.compile(r"[^\W_]+", re.UNICODE)
MIN_COUNT = 3  # a word seen in fewer sentence pairs is not in the table
MIN_PAIR = 2  # nor a pair of words seen together fewer times
FUNCTION = 150  # the most frequent words of each side: not content words
SUPPORTED = 0.05  # a best Dice under this: the word is not explained


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def build(lang: str) -> None:
    en_lines: list[str] = []
    xx_lines: list[str] = []
    for src in sorted((DATA / f"en-{lang}" / "train").glob("*.en")):
        en_lines += src.read_text(encoding="utf-8").splitlines()
        xx_lines += src.with_suffix(f".{lang}").read_text(encoding="utf-8").splitlines()
    en_sets = [set(words(x)) for x in en_lines]
    xx_sets = [set(words(x)) for x in xx_lines]
    ce = Counter(w for s in en_sets for w in s)
    cx = Counter(w for s in xx_sets for w in s)
    ev = [w for w, c in ce.most_common() if c >= MIN_COUNT]
    xv = [w for w, c in cx.most_common() if c >= MIN_COUNT]
    ei = {w: i for i, w in enumerate(ev)}
    xi = {w: i for i, w in enumerate(xv)}
    chunks = []
    buf: list[Any] = []
    for a, b in zip(en_sets, xx_sets, strict=True):
        ea = np.array([ei[w] for w in a if w in ei], dtype=np.int64)
        xb = np.array([xi[w] for w in b if w in xi], dtype=np.int64)
        if len(ea) and len(xb):
            buf.append((ea[:, None] * len(xv) + xb[None, :]).ravel())
        if len(buf) >= 20000:
            chunks.append(np.unique(np.concatenate(buf), return_counts=True))
            buf = []
    if buf:
        chunks.append(np.unique(np.concatenate(buf), return_counts=True))
    keys = np.concatenate([k for k, _ in chunks])
    counts = np.concatenate([c for _, c in chunks])
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    uniq, start = np.unique(keys, return_index=True)
    total = np.add.reduceat(counts, start)
    keep = total >= MIN_PAIR
    uniq, total = uniq[keep], total[keep]
    e_idx, x_idx = uniq // len(xv), uniq % len(xv)
    ecount = np.array([ce[w] for w in ev])
    xcount = np.array([cx[w] for w in xv])
    dice = 2 * total / (ecount[e_idx] + xcount[x_idx])
    out = CACHE / f"dice-{lang}.npz"
    np.savez_compressed(
        out, en=np.array(ev), xx=np.array(xv), key=uniq, dice=dice.astype(np.float32)
    )
    print(f"{out}: {len(en_lines)} pairs, {len(ev)} / {len(xv)} words, {len(uniq)} word pairs")


class Table:
    def __init__(self, lang: str) -> None:
        z = np.load(CACHE / f"dice-{lang}.npz")
        self.en = {w: i for i, w in enumerate(z["en"].tolist())}
        self.xx = {w: i for i, w in enumerate(z["xx"].tolist())}
        self.n_xx = len(self.xx)
        self.key, self.dice = z["key"], z["dice"]

    def pair(self, e: int, x: int) -> float:
        k = e * self.n_xx + x
        i = int(np.searchsorted(self.key, k))
        return float(self.dice[i]) if i < len(self.key) and self.key[i] == k else 0.0

    def best(self, word: str, others: Sequence[str], word_is_en: bool) -> float:
        """The best Dice of `word` with any of `others` (1.0 when copied)."""
        if word in others:
            return 1.0
        best = 0.0
        for o in others:
            e, x = (word, o) if word_is_en else (o, word)
            if e in self.en and x in self.xx:
                best = max(best, self.pair(self.en[e], self.xx[x]))
        return best

    def content(self, ws: Sequence[str], en: bool) -> list[str]:
        table = self.en if en else self.xx
        return [w for w in ws if table.get(w, FUNCTION) >= FUNCTION and not w.isdigit()]

    def signals(self, source: str, fitted: str) -> dict[str, float | None]:
        src, out = words(source), words(fitted)
        out_c, src_c = self.content(out, False), self.content(src, True)
        sup = [self.best(w, src, False) for w in out_c]
        cov = [self.best(w, out, True) for w in src_c]
        return {
            "unsupported": float(np.mean([s < SUPPORTED for s in sup])) if sup else 0.0,
            "support_mean": float(np.mean(sup)) if sup else 1.0,
            "support_min": float(min(sup)) if sup else 1.0,
            "src_uncovered": float(np.mean([c < SUPPORTED for c in cov])) if cov else 0.0,
            "cover_mean": float(np.mean(cov)) if cov else 1.0,
        }


NEW = ("unsupported", "support_mean", "support_min", "src_uncovered", "cover_mean")


def measure() -> None:
    from qe_fit import auc, is_short
    from qe_marks import MARK_SIGNALS, held_out, marked

    rows, marks = marked()
    for lang, rs in rows.items():
        table = Table(lang)
        for r in rs:
            r["signals"].update(table.signals(r["source"], r["fitted"]))
    print("| signal | " + " | ".join(rows) + " | short lines, pooled |")
    for s in NEW:
        cells = []
        for lang, rs in rows.items():
            v = np.array([r["signals"][s] for r in rs])
            sign = 1 if s in ("unsupported", "src_uncovered") else -1
            cells.append(f"{auc(sign * v, marks[lang]):.3f}")
        sh = [(r["signals"][s], m) for lang in rows for r, m in zip(rows[lang], marks[lang], strict=True)
              if is_short(r)]  # fmt: skip
        v = np.array([a for a, _ in sh])
        sign = 1 if s in ("unsupported", "src_uncovered") else -1
        cells.append(f"{auc(sign * v, np.array([m for _, m in sh])):.3f}")
        print(f"| {s} | " + " | ".join(cells) + " |")

    def report(name: str, feats: Sequence[str]) -> None:
        qs = held_out(rows, marks, feats)
        per = [auc(-qs[lang], marks[lang]) for lang in rows]
        short = [
            auc(-qs[lang][np.array([is_short(r) for r in rows[lang]])],
                marks[lang][np.array([is_short(r) for r in rows[lang]])])
            for lang in rows
        ]  # fmt: skip
        print(f"{name}: held-out AUC " + " ".join(f"{a:.3f}" for a in per)
              + f" mean {np.mean(per):.3f}; short {np.mean(short):.3f}")  # fmt: skip

    report("shipped signals", MARK_SIGNALS)
    for s in NEW:
        report(f"+ {s}", (*MARK_SIGNALS, s))
    report("+ unsupported, src_uncovered", (*MARK_SIGNALS, "unsupported", "src_uncovered"))


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    sub.add_parser("build").add_argument("--lang", required=True)
    sub.add_parser("measure")
    args = ap.parse_args(argv)
    if args.step == "build":
        build(args.lang)
    else:
        measure()


if __name__ == "__main__":
    main()
