"""Issue 12's language-identification check: how many training pairs have a side in the wrong
language? A two-class character-trigram classifier per corpus, run over every corpus of
../shared/data (europarl-lowercased excepted: not used), printing per corpus the pairs flagged
at margins 0, 0.5, 1.0, 1.5 and a few flagged examples (docs/results/data.md).

    .venv/bin/python experiments/data-study/langid.py [../shared/data]

Misaligned pairs in crawled and software-string corpora are mostly an English sentence left
untranslated on the target side (gettext strings, web text), or the two sides swapped. A naive
Bayes classifier over character trigrams (Dunning 1994, "Statistical identification of
language"; Cavnar & Trenkle 1994) tells English from the target language almost perfectly on
sentences of a few words, and it is trained on the corpus itself: its English side against its
target side, both overwhelmingly in the right language. No model file, nothing downloaded.

Vectorised: every text of a list is lower-cased and joined, read as one array of code points,
its trigrams hashed into `BUCKETS` bins, and each text's score summed with `np.add.reduceat`;
no Python runs per character.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BUCKETS = 1 << 20  # hashed trigram bins (collisions are rare at this size and harmless)
MIN_CHARS = 20  # shorter texts (names, "OK", "Hello!") are too ambiguous to judge
_SEP = "\n"


def _trigrams(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The hashed trigrams of every text (with a space at each end), and each text's first
    index into them (texts of under 1 trigram get none)."""
    padded = [f" {t.lower().replace(_SEP, ' ')} " for t in texts]
    cps = np.frombuffer(_SEP.join(padded).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    if len(cps) < 3:
        return np.zeros(0, np.int64), np.zeros(len(texts), np.int64)
    h = ((cps[:-2] * 1_000_003 + cps[1:-1]) * 10_007 + cps[2:]) % BUCKETS
    ok = (cps[:-2] != ord(_SEP)) & (cps[1:-1] != ord(_SEP)) & (cps[2:] != ord(_SEP))
    # text i starts at code point `start[i]` of the joined string; its trigrams follow
    lens = np.fromiter((len(p) for p in padded), np.int64, len(padded))
    start = np.concatenate([[0], np.cumsum(lens + 1)[:-1]])
    kept = np.cumsum(ok) - ok  # trigrams kept before each position
    first = kept[np.minimum(start, len(kept) - 1)]
    return h[ok], first


def _per_text(values: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum and count of `values` per text (texts own `values[first[i]:first[i + 1]]`)."""
    counts = np.diff(np.append(first, len(values)))
    sums = np.zeros(len(first))
    has = counts > 0
    if has.any():
        sums[has] = np.add.reduceat(values, first[has])
    return sums, counts


@dataclass
class TwoLanguages:
    """Log-probabilities of hashed trigrams in two languages (add-one smoothed)."""

    logp_a: np.ndarray  # (BUCKETS,)
    logp_b: np.ndarray

    @classmethod
    def fit(cls, texts_a: Sequence[str], texts_b: Sequence[str]) -> TwoLanguages:
        """Trigram counts of each language's texts."""

        def logp(texts: Sequence[str]) -> np.ndarray:
            counts = np.bincount(_trigrams(texts)[0], minlength=BUCKETS).astype(np.float64)
            return np.log((counts + 1.0) / (counts.sum() + BUCKETS))

        return cls(logp(texts_a), logp(texts_b))

    def margin(self, texts: Sequence[str]) -> np.ndarray:
        """Per text, the mean per-trigram log-likelihood ratio of language b over a (> 0: reads
        as b); NaN for texts under `MIN_CHARS` characters."""
        grams, first = _trigrams(texts)
        sums, counts = _per_text(self.logp_b[grams] - self.logp_a[grams], first)
        out = sums / np.maximum(counts, 1)
        short = np.fromiter((len(t.strip()) < MIN_CHARS for t in texts), bool, len(texts))
        out[short] = np.nan
        return out


def own_words(text: str, other: str) -> str:
    """`text` without the words `other` also has (case-insensitive, punctuation stripped): names,
    numbers, URLs and code copied across a pair say nothing about its language."""
    shared = {w.strip(_PUNCT).lower() for w in other.split()}
    return " ".join(w for w in text.split() if w.strip(_PUNCT).lower() not in shared)


_PUNCT = ".,;:!?¡¿\"'“”„«»()[]{}"


def lines(path: Path) -> list[str]:
    """The file's lines (split at "\n" only: U+2028 inside a line must not shift the pairs)."""
    return path.read_text(encoding="utf-8").removesuffix("\n").split("\n")


def main(root: Path) -> None:
    """The table: corpus, pairs, pairs flagged at each margin; then 4 examples per language."""
    print("| pair | corpus | pairs | flagged at 0 | 0.5 | 1.0 | 1.5 |")
    print("|---|---|---|---|---|---|---|")
    for lang in ("it", "de", "fr", "es"):
        examples: list[tuple[str, str]] = []
        for src_path in sorted((root / f"en-{lang}" / "train").glob("*.en")):
            if src_path.stem == "europarl-lowercased":
                continue
            src, tgt = lines(src_path), lines(src_path.with_suffix(f".{lang}"))
            pick = np.random.default_rng(1).choice(
                len(src), size=min(len(src), 50_000), replace=False
            )
            lid = TwoLanguages.fit([src[i] for i in pick], [tgt[i] for i in pick])
            t_m = lid.margin([own_words(t, s) for s, t in zip(src, tgt, strict=True)])
            s_m = lid.margin([own_words(s, t) for s, t in zip(src, tgt, strict=True)])
            with np.errstate(invalid="ignore"):
                flagged = [int(((t_m < -th) | (s_m > th)).sum()) for th in (0.0, 0.5, 1.0, 1.5)]
                first = np.flatnonzero((t_m < 0) | (s_m > 0))[:2]
            examples += [(src[i], tgt[i]) for i in first]
            cells = " | ".join(f"{n:,}" for n in flagged)
            print(f"| en-{lang} | {src_path.stem} | {len(src):,} | {cells} |")
        for s, t in examples[:4]:
            print(f"    en: {s[:100]}\n    {lang}: {t[:100]}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data"))
