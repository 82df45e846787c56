"""One length-predictor training run (`fitsub train-length`): the model it serves, the pairs
sampled, the head fitted on the frozen encoder's features (`fitsub.train.length_predictor`),
the dev set's scores; saved beside the model and loaded back (Oka et al. 2020, Sec. 3.2)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from fitsub.budget import check_positive
from fitsub.errors import InputError
from fitsub.io.outputs import check_output_path
from fitsub.lengthpred.encoder import Encoder, EncoderSpec
from fitsub.lengthpred.predictor import (
    LengthPredictor,
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


@dataclass(frozen=True, kw_only=True)
class LengthRun:
    """What one `fitsub train-length` trains: for which model, on which data, how."""

    model: Path | None  # the translation model served (None: the shipped one)
    src_lang: str
    lang: str
    data_dir: Path
    corpora: list[str]  # NAME or NAME:N (at most N pairs, sampled); empty: all
    out: Path | None  # None: MODEL/length-predictor
    encoder: Path | None  # None: the packaged MiniLM
    dev_size: int
    dev: str | None  # PREFIX of a dev set to report on
    cache: Path
    head: HeadOptions
    max_tokens: int
    threads: int | None


@dataclass(frozen=True)
class TrainedPredictor:
    """Where the predictor was written, its length unit and its training record."""

    target: Path
    unit: str
    info: dict[str, Any]


def train_length(run: LengthRun, log: Callable[[str], None]) -> TrainedPredictor:
    """Train, save and load back the length predictor of `run.model`; `log` tells the data."""
    if run.threads is not None:
        torch.set_num_threads(run.threads)
    check_positive("lr", run.head.lr)
    model_dir = resolve_model_dir(run.model, run.src_lang, run.lang)
    src, tgt, unit, per_unit = model_length_info(model_dir)
    if tgt != run.lang:  # a multilingual model's predictor serves its config's tgt_lang only
        raise InputError(model_dir, f"its length predictor serves {src}→{tgt}, not {run.lang}")
    target = run.out or default_predictor_dir(model_dir)
    check_output_path(target, "--out", [], directory=True)
    specs = parse_corpora(run.corpora)
    spec, enc = _encoder(run.encoder, run.max_tokens)
    t0 = time.perf_counter()
    srcs, tgts, sizes = sample_pairs(
        data_dir=run.data_dir, src_lang=src, tgt_lang=tgt, specs=specs, seed=run.head.seed
    )
    log(f"{len(srcs)} pairs: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))
    predictor, info = fit_predictor(
        enc,
        srcs,
        count_units(tgts, unit, model_dir),
        src_lang=src,
        tgt_lang=tgt,
        unit=unit,
        encoder_spec=spec,
        chars_per_unit=per_unit,
        options=run.head,
        dev_size=run.dev_size,
        cache_dir=run.cache,
        log=log,
    )
    info["data"] = {"data_dir": str(run.data_dir), "corpora": sizes, "seed": run.head.seed}
    info["model"] = str(model_dir)
    if run.dev is not None:
        info["dev"] = _dev_scores(
            predictor,
            dev=run.dev,
            langs=(src, tgt),
            unit=unit,
            model_dir=model_dir,
            per_unit=per_unit,
        )
    info["train_seconds"] = round(time.perf_counter() - t0, 1)
    predictor.cfg.train = info
    predictor.save(target)
    load_predictor(target, model_dir)  # what was written loads back and serves the model
    return TrainedPredictor(target, unit, info)


def _encoder(encoder: Path | None, max_tokens: int) -> tuple[EncoderSpec, Encoder]:
    """The frozen sentence encoder: `--encoder`'s directory, or the packaged MiniLM."""
    from fitsub.lengthpred.encoder import PACKAGE, encoder_path, require_extra

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
    *,
    dev: str,
    langs: tuple[str, str],
    unit: str,
    model_dir: Path,
    per_unit: float,
) -> dict[str, Any]:
    """The predictor against the source length on the dev set `dev` (PREFIX.SRC / PREFIX.TGT)."""
    from fitsub.metrics.length import accuracy
    from fitsub.train.corpus import read_prefix
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
