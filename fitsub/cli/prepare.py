"""`fitsub prepare`: the data step of `fitsub train` as its own command (any CPU, all cores)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import typer

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
    data: Path | None = typer.Option(None, "--data", help="Directory of NAME.SRC / NAME.TGT."),
    corpus: list[str] = typer.Option(
        [], "--corpus", help="Use only this stem of --data, NAME[:WEIGHT] (repeatable)."
    ),
    train_prefix: list[str] = typer.Option(
        [], "--train", help="Training files PREFIX.SRC / PREFIX.TGT (repeatable)."
    ),
    dev: str | None = typer.Option(None, "--dev", help="Dev files PREFIX (default: held out)."),
    dev_size: int = typer.Option(_D.dev_size, "--dev-size", min=1, help="Dev pairs held out."),
    src: str = typer.Option(_D.model.src_lang, "--src", help="Source language code."),
    tgt: str = typer.Option(
        _D.model.tgt_lang, "--tgt", help="Target language(s), comma-separated (as for train)."
    ),
    length_unit: str = typer.Option(_D.model.length_unit, "--length-unit", help="char or subword."),
    vocab_size: int = typer.Option(_D.model.vocab_size, "--vocab-size", help="SentencePiece size."),
    tokenizer: Path | None = typer.Option(
        None,
        "--tokenizer",
        help="Encode with this model's tokenizer (a model directory or spm.model) instead of "
        "training one: for a run that continues that model (--init-from).",
    ),
    dedupe: bool = typer.Option(
        _D.dedupe, "--dedupe/--no-dedupe", help="Drop repeated pairs (as for train)."
    ),
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
    targets = [t.strip() for t in tgt.split(",") if t.strip()]
    if not targets:
        raise InputError(None, "no target language", setting="tgt")
    cfg = TrainConfig.from_options(
        out_dir=str(out),
        src_lang=src,
        tgt_lang=targets[0],
        tgt_langs=targets if len(targets) > 1 else [],
        data_dir=None if data is None else str(data),
        corpora=list(corpus),
        train_prefixes=list(train_prefix),
        dev_prefix=dev,
        dev_size=dev_size,
        length_unit=length_unit,
        vocab_size=vocab_size,
        dedupe=dedupe,
        seed=seed,
    )
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
