"""A training run's data, from a `DataConfig`: the corpora read (and deduplicated), filtered,
split, the tokenizer trained (rank 0) or loaded, everything encoded (`prepare_data`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from fitsub.errors import InputError
from fitsub.nmt.tokenizer import Tokenizer, language_tag
from fitsub.train.corpus import (
    Corpus,
    Encoded,
    count_into,
    dedupe,
    drop_long,
    encode_corpus,
    filter_pairs,
    find_corpora,
    load_data_dir,
    parse_corpus_spec,
    read_prefix,
    split_by_source,
)
from fitsub.train.distributed import DistInfo, barrier
from fitsub.units import char_length

if TYPE_CHECKING:
    from fitsub.train.config import DataConfig


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

    A multilingual run (`cfg.tgt_langs`) reads each target language's data (`{tgt}` in the
    paths stands for it), marks every pair with its language and interleaves the dev pairs
    (one of each language in turn, so the first N dev pairs cover every language)."""
    train, sizes = Corpus(), dict[str, int]()
    dropped: dict[str, int] | None = {"duplicate": 0, "same_length": 0} if cfg.dedupe else None
    multi = bool(cfg.tgt_langs)
    devs: list[Corpus] = []
    for lang in cfg.tgt_langs or (cfg.tgt_lang,):
        name = f"{lang}/" if multi else ""
        if cfg.data_dir:
            data_dir = Path(_for(cfg.data_dir, lang))
            specs = language_specs(cfg.corpora, lang, data_dir, cfg.src_lang) if multi else None
            part, part_sizes = load_data_dir(
                data_dir,
                src_lang=cfg.src_lang,
                tgt_lang=lang,
                specs=cfg.corpora if specs is None else specs,
                seed=cfg.seed,
                dropped=dropped,
            )
            sizes.update({name + k: n for k, n in part_sizes.items()})
            train.extend(part.tagged(lang) if multi else part)
        for prefix in cfg.train_prefixes:
            part = read_prefix(_for(prefix, lang), cfg.src_lang, lang)
            if dropped is not None:
                part = count_into(dedupe(part), dropped)
            sizes[name + Path(prefix).name] = len(part)
            train.extend(part.tagged(lang) if multi else part)
        if cfg.dev_prefix:
            dev = read_prefix(_for(cfg.dev_prefix, lang), cfg.src_lang, lang)
            devs.append(dev.tagged(lang) if multi else dev)
    if multi and cfg.data_dir and cfg.corpora:
        _check_specs_used(cfg.corpora, sizes, cfg.data_dir)
    return train, interleave(devs) if devs else None, sizes, dropped or {}


def _for(path: str, lang: str) -> str:
    """`path` with `{tgt}` standing for `lang`."""
    return path.replace("{tgt}", lang)


def language_specs(specs: list[str], lang: str, data_dir: Path, src_lang: str) -> list[str]:
    """The `--corpus` specs of a multilingual run that apply to `lang`: `LANG/NAME[:WEIGHT]`
    for this language, and `NAME[:WEIGHT]` where this language's data has NAME (no spec: every
    corpus). InputError when specs are given and none applies to `lang`."""
    if not specs:
        return []
    available = find_corpora(data_dir, src_lang, lang)
    mine = []
    for spec in specs:
        scope, _, rest = spec.rpartition("/")
        if scope == lang or (not scope and parse_corpus_spec(rest)[0] in available):
            mine.append(rest)
    if not mine:
        raise InputError(data_dir, f"no --corpus names a corpus of the {lang} data")
    return mine


def _check_specs_used(specs: list[str], sizes: dict[str, int], data_dir: str) -> None:
    """InputError for an unscoped `--corpus NAME` that no target language's data has."""
    used = {key.split("/", 1)[1] for key in sizes}
    for spec in specs:
        scope, _, rest = spec.rpartition("/")
        if not scope and parse_corpus_spec(rest)[0] not in used:
            raise InputError(data_dir, f"no target language's data has a corpus {rest!r}")


def interleave(parts: list[Corpus]) -> Corpus:
    """The pairs of `parts` taken in turn (first of each, then second of each, ...)."""
    out = Corpus()
    for part in parts:
        out.extend(part)
    starts = np.cumsum([0, *(len(p) for p in parts)])
    order = sorted((k, j) for j, p in enumerate(parts) for k in range(len(p)))
    return out.take([int(starts[j]) + k for k, j in order])


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
    tags = _tag_ids(tokenizer, cfg)
    encode = partial(
        encode_corpus,
        encoder=tokenizer,
        length_unit=cfg.length_unit,
        piece_chars=pc,
        leading_space=lead,
        tag_ids=tags,
    )
    enc = encode(corpus=train)
    if cfg.length_unit == "char":  # pieces' characters vs the text's (SentencePiece normalises)
        text_chars = np.fromiter((char_length(t) for t in train.tgt), np.int64, len(train))
        report.char_length_mismatch = int((text_chars != enc.tgt_units).sum())
    enc, n_long = drop_long(enc, cfg.max_pieces)
    dev_enc = encode(corpus=dev)
    keep = np.flatnonzero(
        (dev_enc.src_lens <= cfg.max_pieces) & (dev_enc.tgt_lens <= cfg.max_pieces)
    )
    dev_enc, dev_text = dev_enc.subset(keep), dev.take(keep)
    report.filtered["too_many_pieces"] = n_long
    report.train_pairs, report.dev_pairs = len(enc), len(dev_enc)
    report.tgt_pieces = int(enc.tgt_lens.sum())
    return Prepared(tokenizer=tokenizer, train=enc, dev=dev_enc, dev_text=dev_text, report=report)


def _tag_ids(tokenizer: Tokenizer, cfg: DataConfig) -> dict[str, int] | None:
    """The `<2xx>` piece id of each target language of a multilingual run (None: bilingual)."""
    if not cfg.tgt_langs:
        return None
    try:
        return {lang: tokenizer.token_id(language_tag(lang)) for lang in cfg.tgt_langs}
    except ValueError as err:  # a tokenizer from --init-from made for other languages
        raise InputError(None, f"the tokenizer has no target-language tag: {err}") from err


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
            texts,
            cfg.vocab_size,
            langs=(cfg.src_lang, *(cfg.tgt_langs or (cfg.tgt_lang,))),
            seed=cfg.seed,
            threads=cfg.spm_threads,
        )
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / ".spm.model.tmp"
        tok.save(tmp)
        os.replace(tmp, path)
    barrier(info)
    return Tokenizer.load(path)
