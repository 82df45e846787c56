"""`fitsub train`'s flags as given (`TrainFlags`), and the config the core takes from them: a
`TrainConfig` for a new, fine-tuned or resumed run, or a `FinetuneConfig` for a Hugging Face
model (`fitsub.train.hf_finetune`)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.cli.finetune import init_method
from fitsub.cli.options import data_settings
from fitsub.errors import InputError
from fitsub.train.config import TrainConfig

# --size presets: (d_model, heads, encoder layers, decoder layers, feed-forward size)
SIZES: dict[str, tuple[int, int, int, int, int]] = {
    "tiny": (64, 2, 1, 1, 128),
    "small": (256, 4, 3, 3, 1024),
    "base": (512, 8, 6, 6, 2048),
}
_LAYERS = re.compile(r"^\s*([0-9]+)\s*(?:\+\s*([0-9]+))?\s*$")
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DEFAULT_LR = TrainConfig(out_dir="").lr
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


@dataclass(frozen=True, kw_only=True)
class TrainFlags:
    """`fitsub train`'s options as given (`fitsub.cli.train`), and which the command line named."""

    out: Path
    data: Path | None
    corpus: list[str]
    train_prefix: list[str]
    dev: str | None
    dev_size: int
    src: str
    tgt: str
    method: str
    arch: str
    noise: int
    noise_mode: str
    length_unit: str
    length_dropout: float
    token_dropout: float
    size: str
    d_model: int | None
    layers: str | None
    dropout: float
    vocab_size: int
    prepared: Path | None
    export: Path | None
    init_from: Path | None
    max_tokens: int
    update_freq: int
    lr: float
    warmup: int
    lr_schedule: str
    max_steps: int | None
    max_time: str | None
    max_epochs: int | None
    eval_every: int
    eval_time: str | None
    log_every: int
    patience: int
    keep_checkpoints: int
    dedupe: bool
    bleu_sentences: int
    seed: int
    precision: str
    compile: bool | None  # None: on CUDA only (TrainConfig)
    threads: int | None
    device: str
    resume: bool
    force: bool
    quiet: bool
    given: frozenset[str]  # the parameters the command line named (not left at their defaults)

    @classmethod
    def parse(cls, params: dict[str, Any]) -> TrainFlags:
        """The command's parameters (its `typer.Context` as `ctx` among them) as flags."""
        values = dict(params)
        ctx = values.pop("ctx")
        given = set()
        for name in values:
            source = ctx.get_parameter_source(name)
            if source is not None and source.name == "COMMANDLINE":
                given.add(name)
        return cls(**values, given=frozenset(given))


def parse_duration(text: str, flag: str = "--max-time") -> float:
    """`90`, `90s`, `45m`, `2h`, `1.5d` → seconds."""
    m = _DURATION.match(text)
    if m is None:
        raise InputError(None, f"{flag} {text!r}: expected seconds or a number with s, m, h or d")
    return float(m.group(1)) * _UNIT_SECONDS[m.group(2)]


def _seconds(text: str | None, flag: str = "--max-time") -> float | None:
    return None if text is None else parse_duration(text, flag)


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


def check_outputs(flags: TrainFlags) -> None:
    """--out must be new or empty, or the run being resumed, unless --force; --export new, and
    for an autoregressive model."""
    _check_out(flags.out, flags.resume, flags.force)
    if flags.export is not None:
        from fitsub.train.finish import check_export_dir

        check_export_dir(flags.export)
        if flags.arch != "ar":
            raise InputError(flags.export, "--export writes autoregressive models (--arch ar)")


def _check_out(out: Path, resume: bool, force: bool) -> None:
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


def finetune_hf(flags: TrainFlags, targets: list[str]) -> Path:
    """Fine-tune the Hugging Face model --init-from names (`fitsub.train.hf_finetune`); its best
    checkpoint's directory."""
    if len(targets) > 1:
        raise InputError(flags.init_from, "fine-tuning a Hugging Face model takes one --tgt")
    from fitsub.train.hf_finetune import FinetuneConfig, read_pairs, run_from_cli

    hf = FinetuneConfig(
        base=str(flags.init_from),
        out_dir=str(flags.out),
        method=flags.method,
        src_lang=flags.src,
        tgt_lang=targets[0],
        lr=flags.lr,
        warmup=flags.warmup,
        max_tokens=flags.max_tokens,
        max_steps=flags.max_steps,
        max_epochs=flags.max_epochs,
        max_time=_seconds(flags.max_time),
        seed=flags.seed,
        device=flags.device,
        threads=flags.threads,
        precision=flags.precision,
    )
    pairs = read_pairs(
        data=flags.data,
        corpus=list(flags.corpus),
        prefixes=list(flags.train_prefix),
        src=flags.src,
        tgt=targets[0],
        seed=flags.seed,
    )
    return run_from_cli(hf, pairs, flags.quiet, lr_given=flags.lr != _DEFAULT_LR)


def train_config(flags: TrainFlags) -> TrainConfig:
    """The run the flags ask for: the saved run's when resuming without data flags, else a new
    one (a fine-tune's length method from its model, a prepared set's data settings)."""
    shape = model_shape(flags.size, flags.d_model, flags.layers)
    if flags.resume and flags.data is None and not flags.train_prefix and flags.prepared is None:
        cfg = _resumed(flags)
    else:
        cfg = _new_run(flags, shape)
        if flags.prepared is not None:
            from fitsub.train.prepared import with_prepared

            cfg = with_prepared(cfg, flags.prepared, given=_given_data(flags))
    cfg.export_dir = None if flags.export is None else str(flags.export)
    return cfg


def _new_run(flags: TrainFlags, shape: tuple[int, int, int, int, int]) -> TrainConfig:
    """A new run's config from the flags, the model's shape `shape` (`model_shape`)."""
    length = (
        flags.method,
        flags.noise,
        flags.noise_mode,
        flags.length_dropout,
        flags.token_dropout,
    )
    if flags.init_from is not None and not flags.resume:
        length = init_method(flags.given, flags.init_from, length, flags.quiet)
    method, noise, noise_mode, length_dropout, token_dropout = length
    d, heads, enc, dec, ff = shape
    settings = data_settings(
        data=flags.data,
        corpus=flags.corpus,
        train_prefix=flags.train_prefix,
        dev=flags.dev,
        dev_size=flags.dev_size,
        src=flags.src,
        tgt=flags.tgt,
        length_unit=flags.length_unit,
        vocab_size=flags.vocab_size,
        dedupe=flags.dedupe,
    )
    return TrainConfig.from_options(
        out_dir=str(flags.out),
        **settings,
        method=method,
        arch=flags.arch,
        noise=noise,
        noise_mode=noise_mode,
        length_dropout=length_dropout,
        token_dropout=token_dropout,
        d_model=d,
        n_heads=heads,
        enc_layers=enc,
        dec_layers=dec,
        d_ff=ff,
        dropout=flags.dropout,
        init_from=None if flags.init_from is None else str(flags.init_from),
        max_tokens=flags.max_tokens,
        update_freq=flags.update_freq,
        lr=flags.lr,
        warmup=flags.warmup,
        lr_schedule=flags.lr_schedule,
        max_steps=flags.max_steps,
        max_epochs=flags.max_epochs,
        max_time=_seconds(flags.max_time),
        log_every=flags.log_every,
        eval_every=flags.eval_every,
        eval_seconds=_seconds(flags.eval_time, "--eval-time"),
        patience=flags.patience,
        keep_checkpoints=flags.keep_checkpoints,
        bleu_sentences=flags.bleu_sentences,
        seed=flags.seed,
        precision=flags.precision,
        compile=flags.compile,
        threads=flags.threads,
        device=flags.device,
        resume=flags.resume,
    )


def _given_data(flags: TrainFlags) -> dict[str, Any]:
    """The data settings given on the command line (not left at their defaults)."""
    out: dict[str, Any] = {}
    for param, setting in _DATA_FLAGS.items():
        if param in flags.given:
            value = getattr(flags, param)
            out[setting] = str(value) if isinstance(value, Path) else value
    return out


def _resumed(flags: TrainFlags) -> TrainConfig:
    """The saved run's config, with the new stopping rules and machine settings: how a resumed
    run uses the machine may change; what it learns may not."""
    cfg = TrainConfig.from_dict(_saved_config(flags.out))
    cfg.out_dir, cfg.resume = str(flags.out), True
    cfg.max_steps, cfg.max_epochs = flags.max_steps, flags.max_epochs
    cfg.max_time = _seconds(flags.max_time)
    if flags.threads is not None:
        cfg.threads = flags.threads
    cfg.device = flags.device
    return cfg


def _saved_config(out: Path) -> dict[str, Any]:
    path = out / "last" / "config.json"
    try:
        return dict(json.loads(path.read_text("utf-8"))["train"]["config"])
    except (OSError, KeyError, ValueError, TypeError):
        raise InputError(path, "cannot resume: no readable training checkpoint here") from None
