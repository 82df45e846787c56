"""`fitsub prepare`: the data step of `fitsub train` as its own command (any CPU, all cores)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import typer

from fitsub.cli.options import (
    CorpusSpec,
    DataDir,
    Dedupe,
    DevPrefix,
    DevSize,
    LengthUnitFlag,
    SrcLang,
    TgtLangs,
    TrainPrefix,
    VocabSize,
    data_settings,
)
from fitsub.errors import InputError
from fitsub.train.config import TrainConfig

_D = TrainConfig(out_dir="")
EPILOG = (
    "Then: fitsub train --prepared DIR --out RUN … (the data flags come from DIR's manifest; a "
    "data flag that contradicts it is refused). Example: fitsub prepare --data "
    "../shared/data/en-it/train --corpus tatoeba --corpus cocoa-spoken:4 --dev "
    "../shared/data/en-it/dev/ud-pud --tgt it --vocab-size 8000 --out build/prep-en-it"
)


def prepare_cmd(
    out: Path = typer.Option(..., "--out", "-o", help="The prepared-set directory to write."),
    data: DataDir = None,
    corpus: CorpusSpec = [],  # noqa: B006 - typer copies list defaults
    train_prefix: TrainPrefix = [],  # noqa: B006
    dev: DevPrefix = None,
    dev_size: DevSize = _D.dev_size,
    src: SrcLang = _D.model.src_lang,
    tgt: TgtLangs = _D.model.tgt_lang,
    length_unit: LengthUnitFlag = _D.model.length_unit,
    vocab_size: VocabSize = _D.model.vocab_size,
    tokenizer: Path | None = typer.Option(
        None,
        "--tokenizer",
        help="Encode with this model's tokenizer (a model directory or spm.model) instead of "
        "training one: for a run that continues that model (--init-from).",
    ),
    dedupe: Dedupe = _D.dedupe,
    seed: int = typer.Option(_D.seed, "--seed", help="Random seed (sampling, dev split)."),
    threads: int | None = typer.Option(
        None, "--threads", min=1, help="SentencePiece trainer threads (default: every core)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace OUT if it exists."),
) -> None:
    """Prepare training data once: read, weight, deduplicate, filter, tokenize, encode."""
    from fitsub.nmt.tokenizer import Tokenizer
    from fitsub.train.prepared import prepare_to

    if out.exists() and not force:
        raise InputError(out, "already exists; pass --force to replace it")
    settings = data_settings(
        data=data,
        corpus=corpus,
        train_prefix=train_prefix,
        dev=dev,
        dev_size=dev_size,
        src=src,
        tgt=tgt,
        length_unit=length_unit,
        vocab_size=vocab_size,
        dedupe=dedupe,
    )
    cfg = TrainConfig.from_options(out_dir=str(out), seed=seed, **settings)
    cfg.validate()
    tok = None
    if tokenizer is not None:
        tok = Tokenizer.load(tokenizer / "spm.model" if tokenizer.is_dir() else tokenizer)
    spm_threads = threads or os.cpu_count() or 1
    start = time.perf_counter()
    from dataclasses import replace

    prepared = prepare_to(replace(cfg.data, spm_threads=spm_threads), out, tok)
    size = sum(p.stat().st_size for p in out.iterdir())
    r = prepared.report
    print(
        f"wrote {out}: {r.train_pairs:,} training pairs ({r.tgt_pieces:,} target pieces), "
        f"{r.dev_pairs:,} dev pairs, vocabulary {prepared.tokenizer.vocab_size:,}, "
        f"{size / 1e6:.1f} MB, {time.perf_counter() - start:.0f} s"
    )
