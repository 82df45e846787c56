"""`fitsub train`: build a TrainConfig from the options, run the core trainer, show its progress."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.text import Text

from fitsub.cli.finetune import init_method
from fitsub.cli.options import (
    CorpusSpec,
    DataDir,
    Dedupe,
    Device,
    DevPrefix,
    DevSize,
    LengthUnitFlag,
    Quiet,
    SrcLang,
    TgtLangs,
    TrainPrefix,
    VocabSize,
    data_settings,
    target_languages,
)
from fitsub.cli.train_display import TrainDisplay
from fitsub.errors import InputError
from fitsub.nmt.config import METHODS

if TYPE_CHECKING:
    pass

# TrainConfig's defaults are the flags' defaults (a torch-free module); the trainer itself is
# imported when a run starts.
from fitsub.train.config import TrainConfig

_D = TrainConfig(out_dir="")
# --size presets: (d_model, heads, encoder layers, decoder layers, feed-forward size)
SIZES: dict[str, tuple[int, int, int, int, int]] = {
    "tiny": (64, 2, 1, 1, 128),
    "small": (256, 4, 3, 3, 1024),
    "base": (512, 8, 6, 6, 2048),
}
_LAYERS = re.compile(r"^\s*([0-9]+)\s*(?:\+\s*([0-9]+))?\s*$")
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str, flag: str = "--max-time") -> float:
    """`90`, `90s`, `45m`, `2h`, `1.5d` → seconds."""
    m = _DURATION.match(text)
    if m is None:
        raise InputError(None, f"{flag} {text!r}: expected seconds or a number with s, m, h or d")
    return float(m.group(1)) * _UNIT_SECONDS[m.group(2)]


def _saved_config(out: Path) -> dict[str, Any]:
    path = out / "last" / "config.json"
    try:
        return dict(json.loads(path.read_text("utf-8"))["train"]["config"])
    except (OSError, KeyError, ValueError, TypeError):
        raise InputError(path, "cannot resume: no readable training checkpoint here") from None


def _check_out(out: Path, resume: bool, force: bool) -> None:
    """--out must be new or empty, or the run being resumed, unless --force."""
    if os.environ.get("RANK", "0") != "0":  # under torchrun rank 0 checks (before it writes)
        return
    if out.exists() and not out.is_dir():
        raise InputError(out, "--out is a file; it names the run directory")
    if force or not out.is_dir() or not any(out.iterdir()):
        return
    if resume and (out / "last" / "config.json").is_file():
        return
    what = "a training run; pass --resume to continue it" if (out / "last").is_dir() else "files"
    raise InputError(
        out, f"--out is not empty (holds {what}); pass --force to train into it anyway"
    )


def train_cmd(
    ctx: typer.Context,
    out: Path = typer.Option(
        ..., "--out", "-o", help="Run directory: OUT/best, OUT/last, OUT/train_log.jsonl."
    ),
    data: DataDir = None,
    corpus: CorpusSpec = [],  # noqa: B006 - typer copies list defaults
    train_prefix: TrainPrefix = [],  # noqa: B006
    dev: DevPrefix = None,
    dev_size: DevSize = _D.dev_size,
    src: SrcLang = _D.model.src_lang,
    tgt: TgtLangs = _D.model.tgt_lang,
    method: str = typer.Option(
        _D.model.method, "--method", help=f"Length method: {', '.join(METHODS)}."
    ),
    arch: str = typer.Option(
        _D.arch,
        "--arch",
        help="ar (autoregressive), or non-autoregressive: cmlm (mask-predict) or levt "
        "(Levenshtein Transformer, perLDPE in its placeholder classifier).",
    ),
    noise: int = typer.Option(
        _D.model.noise, "--noise", min=0, help="Length perturbation window k."
    ),
    noise_mode: str = typer.Option(
        _D.model.noise_mode, "--noise-mode", help="symmetric [-k,k] or positive [0,k]."
    ),
    length_unit: LengthUnitFlag = _D.model.length_unit,
    length_dropout: float = typer.Option(
        _D.model.length_dropout, "--length-dropout", help="Share of rows trained without a length."
    ),
    size: str = typer.Option("small", "--size", help=f"Model size preset: {', '.join(SIZES)}."),
    d_model: int | None = typer.Option(
        None, "--d-model", help="Override the preset's model width."
    ),
    layers: str | None = typer.Option(
        None,
        "--layers",
        help="Override the preset's layers: N (encoder and decoder), or ENC+DEC (e.g. 6+2).",
    ),
    dropout: float = typer.Option(_D.model.dropout, "--dropout", help="Dropout."),
    vocab_size: VocabSize = _D.model.vocab_size,
    prepared: Path | None = typer.Option(
        None,
        "--prepared",
        help="Train from a `fitsub prepare` directory (its data settings; no text is read).",
    ),
    export: Path | None = typer.Option(
        None, "--export", help="At the end, write the averaged float16 model here (a new DIR)."
    ),
    init_from: Path | None = typer.Option(
        None,
        "--init-from",
        help="Fine-tune this checkpoint, or a Hugging Face model directory / hub id "
        "(--method tok, ldpe+pe or lrpe+pe; keeps its tokenizer).",
    ),
    max_tokens: int = typer.Option(
        _D.max_tokens, "--max-tokens", help="Padded src+tgt tokens per batch."
    ),
    update_freq: int = typer.Option(
        _D.update_freq, "--update-freq", min=1, help="Batches per update."
    ),
    lr: float = typer.Option(_D.lr, "--lr", help="Peak learning rate."),
    warmup: int = typer.Option(_D.warmup, "--warmup", min=0, help="Warm-up updates."),
    lr_schedule: str = typer.Option(
        _D.lr_schedule,
        "--lr-schedule",
        help="inverse-sqrt, or deadline: cosine decay to 10 % of --lr when --max-time ends.",
    ),
    max_steps: int | None = typer.Option(
        None, "--max-steps", min=1, help="Stop after this many updates."
    ),
    max_time: str | None = typer.Option(
        None, "--max-time", help="Stop after this long (e.g. 90m, 2h)."
    ),
    max_epochs: int | None = typer.Option(
        None, "--max-epochs", min=1, help="Stop after this many epochs."
    ),
    eval_every: int = typer.Option(
        _D.eval_every, "--eval-every", min=1, help="Evaluate and save every N updates."
    ),
    eval_time: str | None = typer.Option(
        None, "--eval-time", help="Also evaluate and save once this long (e.g. 45s) has passed."
    ),
    log_every: int = typer.Option(_D.log_every, "--log-every", min=1, help="Log every N updates."),
    patience: int = typer.Option(
        _D.patience,
        "--patience",
        min=0,
        help="Evaluations without improvement before stopping (0: never).",
    ),
    keep_checkpoints: int = typer.Option(
        _D.keep_checkpoints,
        "--keep-checkpoints",
        min=0,
        help="Keep the last N evaluated weights in OUT/steps for `fitsub average` (0: none).",
    ),
    dedupe: Dedupe = _D.dedupe,
    bleu_sentences: int = typer.Option(
        _D.bleu_sentences,
        "--bleu-sentences",
        min=0,
        help="Dev sentences decoded for BLEU (0: loss only).",
    ),
    seed: int = typer.Option(_D.seed, "--seed", help="Random seed."),
    precision: str = typer.Option(_D.precision, "--precision", help="auto, bf16 or fp32."),
    compile: bool = typer.Option(
        _D.compile, "--compile/--no-compile", help="torch.compile the model."
    ),
    threads: int | None = typer.Option(None, "--threads", min=1, help="CPU threads per process."),
    device: Device = _D.device,
    resume: bool = typer.Option(False, "--resume", help="Continue the run in --out from OUT/last."),
    force: bool = typer.Option(
        False, "--force", help="Train into a non-empty --out that is not a run being resumed."
    ),
    quiet: Quiet = False,
) -> None:
    """Train a length-controlled translation model on parallel text (runs under torchrun too)."""
    _check_out(out, resume, force)
    if export is not None:
        from fitsub.train.finish import check_export_dir

        check_export_dir(export)
        if arch != "ar":
            raise InputError(export, "--export writes autoregressive models (--arch ar)")
    targets = target_languages(tgt)
    if init_from is not None and not resume:
        from fitsub.hf.loading import is_hf_model

        if is_hf_model(init_from):  # a Hugging Face model directory or hub id: fitsub.hf
            if len(targets) > 1:
                raise InputError(init_from, "fine-tuning a Hugging Face model takes one --tgt")
            from fitsub.train.hf_finetune import FinetuneConfig, read_pairs, run_from_cli

            hf = FinetuneConfig(
                base=str(init_from),
                out_dir=str(out),
                method=method,
                src_lang=src,
                tgt_lang=targets[0],
                lr=lr,
                warmup=warmup,
                max_tokens=max_tokens,
                max_steps=max_steps,
                max_epochs=max_epochs,
                max_time=None if max_time is None else parse_duration(max_time),
                seed=seed,
                device=device,
                threads=threads,
                precision=precision,
            )
            pairs = read_pairs(
                data=data,
                corpus=list(corpus),
                prefixes=list(train_prefix),
                src=src,
                tgt=targets[0],
                seed=seed,
            )
            best = run_from_cli(hf, pairs, quiet, lr_given=lr != _D.lr)
            Console(stderr=True, quiet=quiet).print(Text(f"best checkpoint: {best}"))
            return
    d, heads, enc, dec, ff = model_shape(size, d_model, layers)
    if resume and data is None and not train_prefix and prepared is None:
        cfg = _resumed(
            out=out,
            max_steps=max_steps,
            max_epochs=max_epochs,
            max_time=max_time,
            threads=threads,
            device=device,
        )
    else:
        if init_from is not None and not resume:
            method, noise, noise_mode, length_dropout = init_method(
                ctx, init_from, (method, noise, noise_mode, length_dropout), quiet
            )
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
        cfg = TrainConfig.from_options(
            out_dir=str(out),
            **settings,
            method=method,
            arch=arch,
            noise=noise,
            noise_mode=noise_mode,
            length_dropout=length_dropout,
            d_model=d,
            n_heads=heads,
            enc_layers=enc,
            dec_layers=dec,
            d_ff=ff,
            dropout=dropout,
            init_from=None if init_from is None else str(init_from),
            max_tokens=max_tokens,
            update_freq=update_freq,
            lr=lr,
            warmup=warmup,
            lr_schedule=lr_schedule,
            max_steps=max_steps,
            max_epochs=max_epochs,
            max_time=None if max_time is None else parse_duration(max_time),
            log_every=log_every,
            eval_every=eval_every,
            eval_seconds=None if eval_time is None else parse_duration(eval_time, "--eval-time"),
            patience=patience,
            keep_checkpoints=keep_checkpoints,
            bleu_sentences=bleu_sentences,
            seed=seed,
            precision=precision,
            compile=compile,
            threads=threads,
            device=device,
            resume=resume,
        )
        if prepared is not None:
            from fitsub.train.prepared import with_prepared

            cfg = with_prepared(cfg, prepared, given=_given(ctx, _DATA_FLAGS))
    cfg.export_dir = None if export is None else str(export)
    from fitsub.cli import command_started
    from fitsub.train.loop import train

    console = Console(stderr=True, quiet=quiet)
    with TrainDisplay(console, cfg) as show:
        best = train(cfg, show, started=command_started() or None)
    console.print(Text(f"best checkpoint: {best}"))


# train's flags that a prepared set fixes: flag parameter → the data setting it sets
_DATA_FLAGS = {
    "data": "data_dir",
    "corpus": "corpora",
    "train_prefix": "train_prefixes",
    "dev": "dev_prefix",
    "dev_size": "dev_size",
    "src": "src_lang",
    "tgt": "tgt",
    "length_unit": "length_unit",
    "vocab_size": "vocab_size",
    "dedupe": "dedupe",
}


def _given(ctx: typer.Context, flags: dict[str, str]) -> dict[str, Any]:
    """The data settings given on the command line (not left at their defaults)."""
    out: dict[str, Any] = {}
    for param, setting in flags.items():
        source = ctx.get_parameter_source(param)
        if source is not None and source.name == "COMMANDLINE":
            value = ctx.params[param]
            out[setting] = str(value) if isinstance(value, Path) else value
    return out


def model_shape(
    size: str, d_model: int | None, layers: str | None
) -> tuple[int, int, int, int, int]:
    """(d_model, heads, encoder layers, decoder layers, feed-forward size) of `--size`, with
    `--d-model` (feed-forward 4 × d_model, 64 dimensions per head) and `--layers` (N, or ENC+DEC:
    a deep encoder and a shallow decoder, Kasai et al. 2021) over the preset."""
    if size not in SIZES:
        raise InputError(None, f"unknown --size {size!r}; choose from {', '.join(SIZES)}")
    d, heads, enc, dec, ff = SIZES[size]
    if d_model is not None:
        if d_model < 64 or d_model % 64:
            raise InputError(None, f"must be a multiple of 64, got {d_model}", setting="d_model")
        d, heads, ff = d_model, d_model // 64, 4 * d_model
    if layers is not None:
        m = _LAYERS.match(layers)
        if m is None or int(m.group(1)) < 1 or int(m.group(2) or m.group(1)) < 1:
            raise InputError(
                None, f"must be N or ENC+DEC (e.g. 6+2), got {layers!r}", setting="layers"
            )
        enc, dec = int(m.group(1)), int(m.group(2) or m.group(1))
    return d, heads, enc, dec, ff


def _resumed(
    out: Path,
    max_steps: int | None,
    max_epochs: int | None,
    max_time: str | None,
    threads: int | None,
    device: str,
) -> TrainConfig:
    """The saved run's config, with the new stopping rules and machine settings: how a resumed
    run uses the machine may change; what it learns may not."""
    cfg = TrainConfig.from_dict(_saved_config(out))
    cfg.out_dir, cfg.resume = str(out), True
    cfg.max_steps, cfg.max_epochs = max_steps, max_epochs
    cfg.max_time = None if max_time is None else parse_duration(max_time)
    if threads is not None:
        cfg.threads = threads
    cfg.device = device
    return cfg
