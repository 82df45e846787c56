"""Parallel corpora for training: reading, deduplication, filtering, a dev split by source,
encoding (a run's whole preparation of them is `fitsub.train.run_data.prepare_data`).

Sentences are read once and encoded once into flat numpy arrays (ids + offsets); batches of
them are `fitsub.train.batches`'. Nothing here runs Python per token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from fitsub.errors import InputError
from fitsub.io.text import read_text_lines
from fitsub.units import char_length

_CORPUS_SPEC = re.compile(r"^([^:]+)(?::([0-9]*\.?[0-9]+))?$")


@dataclass
class Corpus:
    """Aligned source and target sentences (plain text, one pair per index)."""

    src: list[str] = field(default_factory=list)
    tgt: list[str] = field(default_factory=list)
    # each pair's target language, for a multilingual model (None: one target language)
    lang: list[str] | None = None

    def __len__(self) -> int:
        return len(self.src)

    def extend(self, other: Corpus) -> None:
        """Append another corpus's pairs (both tagged with languages, or neither)."""
        if len(self) and len(other) and (self.lang is None) != (other.lang is None):
            raise ValueError("cannot mix pairs with and without a target language")
        if other.lang is not None:
            self.lang = [*(self.lang or []), *other.lang]
        self.src.extend(other.src)
        self.tgt.extend(other.tgt)

    def take(self, indices: Sequence[int] | np.ndarray) -> Corpus:
        """The pairs at `indices`, in that order."""
        lang = None if self.lang is None else [self.lang[i] for i in indices]
        return Corpus([self.src[i] for i in indices], [self.tgt[i] for i in indices], lang)

    def tagged(self, lang: str) -> Corpus:
        """These pairs, each marked as translating into `lang`."""
        return Corpus(self.src, self.tgt, [lang] * len(self))


def read_parallel(src_path: Path, tgt_path: Path) -> Corpus:
    """Read a line-aligned pair of files; their line counts must match."""
    src, tgt = read_text_lines(src_path), read_text_lines(tgt_path)
    if len(src) != len(tgt):
        raise InputError(
            tgt_path, f"has {len(tgt)} lines but {src_path.name} has {len(src)}; not line-aligned"
        )
    return Corpus(src, tgt)


def find_corpora(data_dir: Path, src_lang: str, tgt_lang: str) -> dict[str, tuple[Path, Path]]:
    """Every `STEM.{src_lang}` in `data_dir` that has a `STEM.{tgt_lang}` beside it, by stem."""
    if not data_dir.is_dir():
        raise InputError(data_dir, "not a directory")
    found: dict[str, tuple[Path, Path]] = {}
    for src_path in sorted(data_dir.glob(f"*.{src_lang}")):
        tgt_path = src_path.with_suffix(f".{tgt_lang}")
        if tgt_path.is_file():
            found[src_path.stem] = (src_path, tgt_path)
    if not found:
        raise InputError(data_dir, f"holds no *.{src_lang} file with a matching *.{tgt_lang}")
    return found


def parse_corpus_spec(spec: str) -> tuple[str, float]:
    """`NAME` or `NAME:WEIGHT` (a non-negative number; 2 = use twice, 0.5 = a random half)."""
    match = _CORPUS_SPEC.match(spec.strip())
    if match is None:
        raise InputError(None, f"bad corpus spec {spec!r}: expected NAME or NAME:WEIGHT")
    return match.group(1), float(match.group(2)) if match.group(2) else 1.0


def upsample(corpus: Corpus, weight: float, rng: np.random.Generator) -> Corpus:
    """The corpus repeated `floor(weight)` times plus a random `frac(weight)` share of it."""
    whole = int(math.floor(weight))
    idx = np.tile(np.arange(len(corpus)), whole)
    part = round((weight - whole) * len(corpus))
    if part:
        idx = np.concatenate([idx, rng.choice(len(corpus), size=part, replace=False)])
    return corpus.take(idx)


def load_data_dir(
    data_dir: Path,
    src_lang: str,
    tgt_lang: str,
    specs: Sequence[str],
    seed: int,
    dropped: dict[str, int] | None = None,
) -> tuple[Corpus, dict[str, int]]:
    """Read the corpora of `data_dir` (all, or those `specs` name, weighted); sizes by stem.

    With `dropped` (a dict of counts to add to), each corpus is deduplicated (`dedupe`) before
    its weight repeats it."""
    available = find_corpora(data_dir, src_lang, tgt_lang)
    chosen = [parse_corpus_spec(s) for s in specs] if specs else [(n, 1.0) for n in available]
    rng = np.random.default_rng(seed)
    out, sizes = Corpus(), {}
    for name, weight in chosen:
        if name not in available:
            raise InputError(data_dir, f"no corpus {name!r}; available: {', '.join(available)}")
        part = read_parallel(*available[name])
        if dropped is not None:
            part = count_into(dedupe(part), dropped)
        part = upsample(part, weight, rng)
        sizes[name] = len(part)
        out.extend(part)
    return out, sizes


def dedupe(corpus: Corpus, min_gap: float = 0.1) -> tuple[Corpus, dict[str, int]]:
    """Drop repeated pairs, and the further translations of a source that add no length variety.

    A source's first translation is kept; another one only when its length differs from each
    kept translation's by more than `min_gap` of the longer and more than 2 characters (Tatoeba
    has up to a dozen translations of one sentence, many differing only in gender or a pronoun:
    they repeat the sentence without teaching the length control that it can be said shorter or
    longer). Pairs are compared with their outer spaces stripped. Returns the kept pairs (in
    their order) and the counts dropped: `duplicate`, `same_length`.
    """
    seen: set[tuple[str, str]] = set()
    lengths: dict[str, list[int]] = {}
    keep: list[int] = []
    counts = {"duplicate": 0, "same_length": 0}
    for i, (s, t) in enumerate(zip(corpus.src, corpus.tgt, strict=True)):
        key = (s.strip(), t.strip())
        if key in seen:
            counts["duplicate"] += 1
            continue
        seen.add(key)
        n = char_length(key[1])
        kept = lengths.setdefault(key[0], [])
        if any(abs(n - m) <= max(2.0, min_gap * max(n, m)) for m in kept):
            counts["same_length"] += 1
            continue
        kept.append(n)
        keep.append(i)
    return corpus.take(keep), counts


def count_into(result: tuple[Corpus, dict[str, int]], into: dict[str, int]) -> Corpus:
    """The corpus of a (corpus, counts) result, its counts added to `into`."""
    corpus, counts = result
    for key, n in counts.items():
        into[key] = into.get(key, 0) + n
    return corpus


def read_prefix(prefix: str, src_lang: str, tgt_lang: str) -> Corpus:
    """Read `PREFIX.{src_lang}` and `PREFIX.{tgt_lang}`."""
    return read_parallel(Path(f"{prefix}.{src_lang}"), Path(f"{prefix}.{tgt_lang}"))


def filter_pairs(
    corpus: Corpus, min_ratio: float = 1 / 3, max_ratio: float = 3.0, max_chars: int = 1000
) -> tuple[Corpus, dict[str, int]]:
    """Drop empty pairs, pairs over `max_chars` and extreme target/source character ratios.

    Ratios are only checked when both sides have more than 10 characters (short pairs such as
    "Hi." / "Ciao!" vary widely and are fine). Returns the kept pairs and the counts dropped.
    """
    keep: list[int] = []
    counts = {"empty": 0, "too_long": 0, "ratio": 0}
    for i, (s, t) in enumerate(zip(corpus.src, corpus.tgt, strict=True)):
        s_len, t_len = char_length(s.strip()), char_length(t.strip())
        if s_len == 0 or t_len == 0:
            counts["empty"] += 1
        elif s_len > max_chars or t_len > max_chars:
            counts["too_long"] += 1
        elif min(s_len, t_len) > 10 and not (min_ratio <= t_len / s_len <= max_ratio):
            counts["ratio"] += 1
        else:
            keep.append(i)
    kept = corpus.take(keep)
    return Corpus([s.strip() for s in kept.src], [t.strip() for t in kept.tgt], kept.lang), counts


def split_by_source(corpus: Corpus, n_dev: int, seed: int) -> tuple[Corpus, Corpus]:
    """Hold out about `n_dev` pairs as dev, never splitting pairs that share a source sentence."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(corpus.src):
        groups.setdefault(s, []).append(i)
    keys = list(groups)
    order = np.random.default_rng(seed).permutation(len(keys))
    dev_idx: list[int] = []
    taken: set[int] = set()
    for k in order:
        if len(dev_idx) >= n_dev:
            break
        dev_idx.extend(groups[keys[k]])
        taken.add(int(k))
    if len(taken) == len(keys):
        raise InputError(
            None, f"too little data to hold out {n_dev} dev pairs ({len(corpus)} in all)"
        )
    train_idx = [i for k, key in enumerate(keys) if k not in taken for i in groups[key]]
    return corpus.take(sorted(train_idx)), corpus.take(dev_idx)


class PieceEncoder(Protocol):
    """What `encode_corpus` needs of a tokenizer: texts to piece ids (no BOS / EOS)."""

    def encode_pieces_batch(self, texts: list[str]) -> list[list[int]]:
        """Piece ids of each text."""
        ...


@dataclass
class Encoded:
    """A corpus encoded once: flat piece ids with offsets per side, and character lengths.

    `tgt_units` is the target length in the model's length unit (the value the model is trained
    to produce); `ratio` is the true target/source character ratio (for length tokens).
    """

    src_ids: np.ndarray  # (total_src_pieces,) int32
    src_off: np.ndarray  # (N + 1,) int64
    tgt_ids: np.ndarray
    tgt_off: np.ndarray
    tgt_units: np.ndarray  # (N,) int64
    ratio: np.ndarray  # (N,) float64

    def __len__(self) -> int:
        return len(self.src_off) - 1

    @property
    def src_lens(self) -> np.ndarray:
        """Pieces per source sentence (no specials)."""
        return np.diff(self.src_off)

    @property
    def tgt_lens(self) -> np.ndarray:
        """Pieces per target sentence (no specials)."""
        return np.diff(self.tgt_off)

    def subset(self, idx: np.ndarray) -> Encoded:
        """The rows at `idx`, re-packed."""
        src_ids, src_off = _gather(self.src_ids, self.src_off, idx)
        tgt_ids, tgt_off = _gather(self.tgt_ids, self.tgt_off, idx)
        return Encoded(
            src_ids=src_ids,
            src_off=src_off,
            tgt_ids=tgt_ids,
            tgt_off=tgt_off,
            tgt_units=self.tgt_units[idx],
            ratio=self.ratio[idx],
        )


def _pack(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    lens = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    flat = np.fromiter((t for r in rows for t in r), dtype=np.int32, count=int(off[-1]))
    return flat, off


def _gather(ids: np.ndarray, off: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lens = off[idx + 1] - off[idx]
    new_off = np.zeros(len(idx) + 1, dtype=np.int64)
    np.cumsum(lens, out=new_off[1:])
    starts = np.repeat(off[idx] - new_off[:-1], lens)
    return ids[np.arange(int(new_off[-1])) + starts], new_off


def piece_lengths_in_chars(
    ids: np.ndarray, off: np.ndarray, piece_chars: np.ndarray, leading: np.ndarray
) -> np.ndarray:
    """Characters of each detokenised row: sum of `piece_chars`, minus 1 when its first piece
    carries the word-boundary space that detokenisation strips (`leading[id]`)."""
    n = len(off) - 1
    totals = np.zeros(n, dtype=np.int64)
    if len(ids):
        row = np.repeat(np.arange(n), np.diff(off))
        np.add.at(totals, row, piece_chars[ids])
    nonempty = np.diff(off) > 0
    first = ids[off[:-1][nonempty]]
    totals[nonempty] -= leading[first].astype(np.int64)
    return totals


def encode_corpus(
    encoder: PieceEncoder,
    corpus: Corpus,
    length_unit: str,
    piece_chars: np.ndarray,
    leading_space: np.ndarray,
    chunk: int = 50_000,
    tag_ids: Mapping[str, int] | None = None,
) -> Encoded:
    """Encode both sides once; target lengths in `length_unit` ("char" or "subword").

    A corpus with target languages (`Corpus.lang`) has each source start with its language's
    tag id from `tag_ids` (the `<2xx>` piece of a multilingual model)."""
    src_rows: list[list[int]] = []
    tgt_rows: list[list[int]] = []
    for start in range(0, len(corpus), chunk):
        src_rows.extend(encoder.encode_pieces_batch(corpus.src[start : start + chunk]))
        tgt_rows.extend(encoder.encode_pieces_batch(corpus.tgt[start : start + chunk]))
    if corpus.lang is not None:
        if tag_ids is None:
            raise ValueError("a corpus with target languages needs their tag ids")
        src_rows = [[tag_ids[lang], *row] for lang, row in zip(corpus.lang, src_rows, strict=True)]
    src_ids, src_off = _pack(src_rows)
    tgt_ids, tgt_off = _pack(tgt_rows)
    if length_unit == "subword":
        units = np.diff(tgt_off)
    else:
        units = piece_lengths_in_chars(tgt_ids, tgt_off, piece_chars, leading_space)
    s_chars = np.fromiter((char_length(s) for s in corpus.src), dtype=np.float64, count=len(corpus))
    t_chars = np.fromiter((char_length(t) for t in corpus.tgt), dtype=np.float64, count=len(corpus))
    ratio = t_chars / np.maximum(s_chars, 1.0)
    return Encoded(
        src_ids=src_ids,
        src_off=src_off,
        tgt_ids=tgt_ids,
        tgt_off=tgt_off,
        tgt_units=units.astype(np.int64),
        ratio=ratio,
    )


def drop_long(enc: Encoded, max_pieces: int) -> tuple[Encoded, int]:
    """Drop pairs whose source or target has more than `max_pieces` pieces."""
    keep = np.flatnonzero((enc.src_lens <= max_pieces) & (enc.tgt_lens <= max_pieces))
    keep = keep[(enc.src_lens[keep] > 0) & (enc.tgt_lens[keep] > 0)]
    return enc.subset(keep), len(enc) - len(keep)
