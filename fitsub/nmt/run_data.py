"""A training run's data, from a `DataConfig`: the corpora read (and deduplicated), filtered,
split, the tokenizer trained (rank 0) or loaded, everything encoded (`prepare_data`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fitsub.errors import InputError
from fitsub.nmt.corpus import (
    Corpus,
    Encoded,
    count_into,
    dedupe,
    drop_long,
    encode_corpus,
    filter_pairs,
    load_data_dir,
    read_prefix,
    split_by_source,
)
from fitsub.nmt.distributed import DistInfo, barrier
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import char_length

if TYPE_CHECKING:
    from fitsub.nmt.train_config import DataConfig


@dataclass
class DataReport:
    """What preparing the data did: pairs per corpus, pairs dropped by each filter, the sizes."""

    corpora: dict[str, int]  # training pairs per corpus (after weighting)
    # dropped: duplicate, same_length (when deduplicating), empty, too_long, ratio, too_many_pieces
    filtered: dict[str, int]
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


def read_corpora(
    cfg: DataConfig,
) -> tuple[Corpus, Corpus | None, dict[str, int], dict[str, int]]:
    """Training pairs (all sources together), the dev pairs when given, pairs per corpus, and
    the pairs deduplication dropped (`duplicate`, `same_length`; empty when `cfg.dedupe` is off).
    """
    train, sizes = Corpus(), dict[str, int]()
    dropped: dict[str, int] | None = {"duplicate": 0, "same_length": 0} if cfg.dedupe else None
    if cfg.data_dir:
        part, sizes = load_data_dir(
            Path(cfg.data_dir), cfg.src_lang, cfg.tgt_lang, cfg.corpora, cfg.seed, dropped
        )
        train.extend(part)
    for prefix in cfg.train_prefixes:
        part = read_prefix(prefix, cfg.src_lang, cfg.tgt_lang)
        if dropped is not None:
            part = count_into(dedupe(part), dropped)
        sizes[Path(prefix).name] = len(part)
        train.extend(part)
    dev = read_prefix(cfg.dev_prefix, cfg.src_lang, cfg.tgt_lang) if cfg.dev_prefix else None
    return train, dev, sizes, dropped or {}


def prepare_data(cfg: DataConfig, tokenizer: Tokenizer | None, info: DistInfo) -> Prepared:
    """Read, filter, split, (train a tokenizer,) encode. Every rank gets the same result."""
    raw, dev, sizes, deduped = read_corpora(cfg)
    train, dropped = filter_pairs(raw, cfg.min_ratio, cfg.max_ratio, max_chars=20 * cfg.max_pieces)
    report = DataReport(sizes, {**deduped, **dropped})
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
