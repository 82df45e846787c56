"""A training run's starting point: resume or fine-tune or start afresh, prepare the data, and
build the model with this run's length method (`setup_run`, called by `fitsub.train.loop`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from fitsub.errors import InputError
from fitsub.nat.checkpoint import build_nat, checkpoint_arch, load_nat, nat_config
from fitsub.nat.levt import LevT
from fitsub.nat.model import CMLM
from fitsub.nmt.checkpoint import build_model, load_checkpoint
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import fit_thresholds
from fitsub.nmt.model import Transformer
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.config import TrainConfig
from fitsub.train.corpus import piece_lengths_in_chars
from fitsub.train.distributed import DistInfo, barrier
from fitsub.train.run_data import Prepared, prepare_data
from fitsub.train.state import TrainState, load_optimizer_state, recover

LOG_NAME = "train_log.jsonl"

Model = Transformer | CMLM | LevT


@dataclass
class Run:
    """What a run starts from: its data, tokenizer and model, and where a resumed run was."""

    prepared: Prepared
    tokenizer: Tokenizer
    mcfg: ModelConfig
    model: Model  # on the device, in training mode
    thresholds: tuple[float, float]  # length-token thresholds of this run's training data
    state: TrainState  # the resumed run's, or a fresh one
    opt_state: dict[str, Tensor] | None  # the resumed run's optimizer tensors
    resumed: bool


def setup_run(cfg: TrainConfig, info: DistInfo) -> Run:
    """Resume `OUT/last`, fine-tune `init_from`, or start afresh; every rank gets the same."""
    out = Path(cfg.out_dir)
    last = out / "last"
    if cfg.resume and info.is_main:
        recover(out, "last")
        recover(out, "best")
    barrier(info)
    resume_from = last if cfg.resume and (last / "config.json").is_file() else None
    if cfg.resume and resume_from is None:
        raise InputError(last, "nothing to resume: no checkpoint here (start without --resume)")
    if not cfg.resume and (out / LOG_NAME).exists():
        raise InputError(out, "already holds a training run; use --resume or a new --out")
    torch.manual_seed(cfg.seed)
    state, opt_state = TrainState(), None
    base: Model | None = None
    tok: Tokenizer | None = None
    mcfg: ModelConfig | None = None
    init_arch = checkpoint_arch(cfg.init_from) if cfg.init_from else None
    if resume_from is not None:
        load = load_nat if cfg.arch != "ar" else load_checkpoint
        base, tok, mcfg, meta = load(resume_from, info.device)
        state = TrainState.from_dict(meta["train"].get("state", {}))
        opt_state = load_optimizer_state(resume_from)
    elif cfg.init_from and init_arch not in (None, "ar"):
        if cfg.arch != init_arch:
            raise InputError(
                cfg.init_from, f"a {init_arch} checkpoint: fine-tune it with --arch {init_arch}"
            )
        base, tok, mcfg, _ = load_nat(cfg.init_from, info.device)
    elif cfg.init_from:
        base, tok, mcfg, _ = load_checkpoint(cfg.init_from, info.device)
    prepared = _data(cfg, tok, info)
    tok = prepared.tokenizer
    thresholds = fit_thresholds(torch.from_numpy(prepared.train.ratio))
    if resume_from is None:  # a fresh run or a fine-tune takes this run's length method
        mcfg = run_model_config(cfg, mcfg, tok, prepared, thresholds)
    assert mcfg is not None
    model: Model
    if cfg.arch != "ar":
        model = build_nat(mcfg, tok)
        if isinstance(base, Transformer):  # a student initialised from an AR model (a teacher)
            model.base.load_state_dict(base.state_dict())
        elif base is not None:
            model.load_state_dict(base.state_dict())
    else:
        model = build_model(mcfg, tok)
        if base is not None:
            model.load_state_dict(base.state_dict())
    model.to(info.device).train()
    return Run(
        prepared=prepared,
        tokenizer=tok,
        mcfg=mcfg,
        model=model,
        thresholds=thresholds,
        state=state,
        opt_state=opt_state,
        resumed=resume_from is not None,
    )


def _data(cfg: TrainConfig, tok: Tokenizer | None, info: DistInfo) -> Prepared:
    """The run's data: read from `cfg.prepared` (whose tokenizer must be the resumed or
    fine-tuned checkpoint's), or prepared from the text now."""
    if cfg.prepared is None:
        return prepare_data(cfg.data, tok, info)
    from fitsub.train.prepared import load_prepared

    prepared, _ = load_prepared(Path(cfg.prepared))
    if tok is not None and tok.to_bytes() != prepared.tokenizer.to_bytes():
        source = cfg.init_from if cfg.resume is False else str(Path(cfg.out_dir) / "last")
        raise InputError(
            cfg.prepared,
            f"was encoded with another tokenizer than {source}'s "
            "(prepare it with `fitsub prepare --tokenizer` from that model)",
        )
    return prepared


def run_model_config(
    cfg: TrainConfig,
    init: ModelConfig | None,
    tok: Tokenizer,
    prepared: Prepared,
    thresholds: tuple[float, float],
) -> ModelConfig:
    """The model config of a fresh run (`cfg.model` at the tokenizer's size) or of a fine-tune
    (`init`'s architecture), with this run's length method, the data's length-token thresholds
    and characters per piece (and, for a student, target per source pieces)."""
    run = cfg.model
    if init is None:
        init = replace(run, vocab_size=tok.vocab_size, extra={})
    mcfg = replace(
        init,
        src_lang=run.src_lang,
        tgt_lang=run.tgt_lang,
        tgt_langs=list(run.tgt_langs),
        length_thresholds=thresholds,
        method=run.method,
        length_unit=run.length_unit,
        noise=run.noise,
        noise_mode=run.noise_mode,
        length_dropout=run.length_dropout,
        token_dropout=run.token_dropout,
        dropout=run.dropout,
    )
    train = prepared.train
    chars = (
        train.tgt_units.sum()
        if run.length_unit == "char"
        else piece_lengths_in_chars(
            train.tgt_ids,
            train.tgt_off,
            np.asarray(tok.piece_chars()),
            np.asarray(tok.leading_space()),
        ).sum()
    )
    mcfg.extra["chars_per_piece"] = float(chars) / max(1, prepared.report.tgt_pieces)
    if cfg.arch != "ar":  # pieces per source piece: a student's unconstrained length
        mcfg = nat_config(mcfg, cfg.arch)
        mcfg.extra["length_ratio"] = float(train.tgt_lens.sum()) / max(1, int(train.src_lens.sum()))
    return mcfg
