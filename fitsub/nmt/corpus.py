"""Parallel corpora for training: reading, filtering, a dev split by source, encoding, and the
whole preparation of a run's data (`prepare_data`, from a `DataConfig`).

Sentences are read once and encoded once into flat numpy arrays (ids + offsets); batches of
them are `fitsub.nmt.batches`'. Nothing here runs Python per token.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from fitsub.errors import InputError
from fitsub.io import read_text_lines
from fitsub.nmt.distributed import DistInfo, barrier
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import char_length

if TYPE_CHECKING:
    from fitsub.nmt.train_config import DataConfig

_CORPUS_SPEC = re.compile(r"^([^:]+)(?::([0-9]*\.?[0-9]+))?$")


@dataclass
class Corpus:
    """Aligned source and target sentences (plain text, one pair per index)."""

    src: list[str] = field(default_factory=list)
    tgt: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.src)

    def extend(self, other: Corpus) -> None:
        """Append another corpus's pairs."""
        self.src.extend(other.src)
        self.tgt.extend(other.tgt)

    def take(self, indices: Sequence[int] | np.ndarray) -> Corpus:
        """The pairs at `indices`, in that order."""
        return Corpus([self.src[i] for i in indices], [self.tgt[i] for i in indices])


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
    data_dir: Path, src_lang: str, tgt_lang: str, specs: Sequence[str], seed: int
) -> tuple[Corpus, dict[str, int]]:
    """Read the corpora of `data_dir` (all, or those `specs` name, weighted); sizes by stem."""
    available = find_corpora(data_dir, src_lang, tgt_lang)
    chosen = [parse_corpus_spec(s) for s in specs] if specs else [(n, 1.0) for n in available]
    rng = np.random.default_rng(seed)
    out, sizes = Corpus(), {}
    for name, weight in chosen:
        if name not in available:
            raise InputError(data_dir, f"no corpus {name!r}; available: {', '.join(available)}")
        part = upsample(read_parallel(*available[name]), weight, rng)
        sizes[name] = len(part)
        out.extend(part)
    return out, sizes


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
    kept = Corpus([corpus.src[i].strip() for i in keep], [corpus.tgt[i].strip() for i in keep])
    return kept, counts


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
        return Encoded(src_ids, src_off, tgt_ids, tgt_off, self.tgt_units[idx], self.ratio[idx])


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
) -> Encoded:
    """Encode both sides once; target lengths in `length_unit` ("char" or "subword")."""
    src_rows: list[list[int]] = []
    tgt_rows: list[list[int]] = []
    for start in range(0, len(corpus), chunk):
        src_rows.extend(encoder.encode_pieces_batch(corpus.src[start : start + chunk]))
        tgt_rows.extend(encoder.encode_pieces_batch(corpus.tgt[start : start + chunk]))
    src_ids, src_off = _pack(src_rows)
    tgt_ids, tgt_off = _pack(tgt_rows)
    if length_unit == "subword":
        units = np.diff(tgt_off)
    else:
        units = piece_lengths_in_chars(tgt_ids, tgt_off, piece_chars, leading_space)
    s_chars = np.fromiter((char_length(s) for s in corpus.src), dtype=np.float64, count=len(corpus))
    t_chars = np.fromiter((char_length(t) for t in corpus.tgt), dtype=np.float64, count=len(corpus))
    ratio = t_chars / np.maximum(s_chars, 1.0)
    return Encoded(src_ids, src_off, tgt_ids, tgt_off, units.astype(np.int64), ratio)


def drop_long(enc: Encoded, max_pieces: int) -> tuple[Encoded, int]:
    """Drop pairs whose source or target has more than `max_pieces` pieces."""
    keep = np.flatnonzero((enc.src_lens <= max_pieces) & (enc.tgt_lens <= max_pieces))
    keep = keep[(enc.src_lens[keep] > 0) & (enc.tgt_lens[keep] > 0)]
    return enc.subset(keep), len(enc) - len(keep)


# ---- a run's data ---------------------------------------------------------------------------------


@dataclass
class DataReport:
    """What preparing the data did: pairs per corpus, pairs dropped by each filter, the sizes."""

    corpora: dict[str, int]  # training pairs per corpus (after weighting)
    filtered: dict[str, int]  # dropped: empty, too_long, ratio, too_many_pieces
    dev_from: str = ""  # "held out by source" or the --dev prefix
    char_length_mismatch: int | None = None  # char unit: targets whose pieces miscount
    train_pairs: int = 0
    dev_pairs: int = 0
    tgt_pieces: int = 0  # target pieces of the training pairs


@dataclass
class Prepared:
    """The encoded training and dev data, the tokenizer, and what filtering did."""

    tokenizer: Tokenizer
    train: Encoded
    dev: Encoded
    dev_text: Corpus
    report: DataReport


def read_corpora(cfg: DataConfig) -> tuple[Corpus, Corpus | None, dict[str, int]]:
    """Training pairs (all sources together), the dev pairs when given, pairs per corpus."""
    train, sizes = Corpus(), dict[str, int]()
    if cfg.data_dir:
        part, sizes = load_data_dir(
            Path(cfg.data_dir), cfg.src_lang, cfg.tgt_lang, cfg.corpora, cfg.seed
        )
        train.extend(part)
    for prefix in cfg.train_prefixes:
        part = read_prefix(prefix, cfg.src_lang, cfg.tgt_lang)
        sizes[Path(prefix).name] = len(part)
        train.extend(part)
    dev = read_prefix(cfg.dev_prefix, cfg.src_lang, cfg.tgt_lang) if cfg.dev_prefix else None
    return train, dev, sizes


def prepare_data(cfg: DataConfig, tokenizer: Tokenizer | None, info: DistInfo) -> Prepared:
    """Read, filter, split, (train a tokenizer,) encode. Every rank gets the same result."""
    raw, dev, sizes = read_corpora(cfg)
    train, dropped = filter_pairs(raw, cfg.min_ratio, cfg.max_ratio, max_chars=20 * cfg.max_pieces)
    report = DataReport(sizes, dropped)
    if dev is None:
        train, dev = split_by_source(train, cfg.dev_size, cfg.seed)
        report.dev_from = "held out by source"
    else:
        dev, _ = filter_pairs(dev, 0.0, math.inf, max_chars=20 * cfg.max_pieces)
        report.dev_from = str(cfg.dev_prefix)
    if len(train) == 0:
        raise InputError(cfg.data_dir or cfg.train_prefixes[0], "no usable training pairs left")
    if tokenizer is None:
        tokenizer = _shared_tokenizer(cfg, train, info)
    pc = np.asarray(tokenizer.piece_chars(), dtype=np.int64)
    lead = np.asarray(tokenizer.leading_space(), dtype=np.int64)
    enc = encode_corpus(tokenizer, train, cfg.length_unit, pc, lead)
    if cfg.length_unit == "char":  # pieces' characters vs the text's (SentencePiece normalises)
        text_chars = np.fromiter((char_length(t) for t in train.tgt), np.int64, len(train))
        report.char_length_mismatch = int((text_chars != enc.tgt_units).sum())
    enc, n_long = drop_long(enc, cfg.max_pieces)
    dev_enc = encode_corpus(tokenizer, dev, cfg.length_unit, pc, lead)
    keep = np.flatnonzero(
        (dev_enc.src_lens <= cfg.max_pieces) & (dev_enc.tgt_lens <= cfg.max_pieces)
    )
    dev_enc, dev_text = dev_enc.subset(keep), dev.take(keep)
    report.filtered["too_many_pieces"] = n_long
    report.train_pairs, report.dev_pairs = len(enc), len(dev_enc)
    report.tgt_pieces = int(enc.tgt_lens.sum())
    return Prepared(tokenizer, enc, dev_enc, dev_text, report)


def _shared_tokenizer(cfg: DataConfig, train: Corpus, info: DistInfo) -> Tokenizer:
    """Rank 0 trains SentencePiece on a sample of the training pairs; the others load its file."""
    out = Path(cfg.out_dir)
    path = out / "spm.model"
    if info.is_main:
        rng = np.random.default_rng(cfg.seed)
        n = min(len(train), cfg.spm_sentences)
        pick = np.sort(rng.choice(len(train), size=n, replace=False))
        texts = [train.src[i] for i in pick] + [train.tgt[i] for i in pick]
        tok = Tokenizer.train(
            texts, cfg.vocab_size, langs=(cfg.src_lang, cfg.tgt_lang), seed=cfg.seed
        )
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / ".spm.model.tmp"
        tok.save(tmp)
        os.replace(tmp, path)
    barrier(info)
    return Tokenizer.load(path)
