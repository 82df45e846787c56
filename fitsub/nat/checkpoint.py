"""Non-autoregressive checkpoints (CMLM, LevT): fitsub's checkpoint directory format, unchanged.

A student is saved with `fitsub.nmt.checkpoint.save_checkpoint` (config.json + model.safetensors +
spm.model, never pickled); its `ModelConfig.arch` is "cmlm" or "levt" (`extra["arch"]` in checkpoints
written before the field), which is how loaders tell it from an autoregressive model
(`checkpoint_arch`). Loading reads JSON and
safetensors only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from fitsub.errors import InputError
from fitsub.nat.levt import LEVT_ARCH, LevT
from fitsub.nat.model import CMLM, CMLM_ARCH
from fitsub.nmt.checkpoint import check_vocab, load_model
from fitsub.nmt.config import Arch, ModelConfig
from fitsub.nmt.model_files import checkpoint_arch as checkpoint_arch  # (its home; re-exported)
from fitsub.nmt.tokenizer import Tokenizer

NAT_ARCHS: tuple[Arch, ...] = (CMLM_ARCH, LEVT_ARCH)
NATModel = CMLM | LevT


def nat_config(cfg: ModelConfig, arch: Arch) -> ModelConfig:
    """`cfg` as a student's config: arch marked, length encodings counted in pieces."""
    if arch not in NAT_ARCHS:
        raise ValueError(f"not a non-autoregressive arch: {arch!r}")
    return replace(cfg, length_unit="subword", arch=arch)


def cmlm_config(cfg: ModelConfig) -> ModelConfig:
    """`cfg` as a CMLM's config."""
    return nat_config(cfg, CMLM_ARCH)


def levt_config(cfg: ModelConfig) -> ModelConfig:
    """`cfg` as a Levenshtein Transformer's config."""
    return nat_config(cfg, LEVT_ARCH)


def build_nat(cfg: ModelConfig, tokenizer: Tokenizer) -> NATModel:
    """A fresh CMLM or LevT (by `cfg.arch`) whose character tables come from
    `tokenizer`."""
    check_vocab(cfg, tokenizer)
    cls = LevT if cfg.arch == LEVT_ARCH else CMLM
    return cls(cfg, tokenizer.piece_chars(), tokenizer.leading_space())


def build_cmlm(cfg: ModelConfig, tokenizer: Tokenizer) -> CMLM:
    """A fresh CMLM whose character tables come from `tokenizer`."""
    check_vocab(cfg, tokenizer)
    return CMLM(cfg, tokenizer.piece_chars(), tokenizer.leading_space())


def load_nat(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[NATModel, Tokenizer, ModelConfig, dict[str, Any]]:
    """(CMLM or LevT in eval mode, float32, on `device`; tokenizer; config; config.json): the
    shared steps of `fitsub.nmt.checkpoint.load_model`."""
    model, tokenizer, cfg, meta, _ = load_model(
        path,
        device,
        archs=NAT_ARCHS,
        wrong_arch="not a non-autoregressive checkpoint (an autoregressive model)",
        build=build_nat,
    )
    return model, tokenizer, cfg, meta


def load_cmlm(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[CMLM, Tokenizer, ModelConfig, dict[str, Any]]:
    """(CMLM in eval mode, float32, on `device`; tokenizer; config; the whole config.json)."""
    model, tokenizer, cfg, meta = load_nat(path, device)
    if not isinstance(model, CMLM):
        raise InputError(path, f"not a CMLM checkpoint (a {cfg.arch} model)")
    return model, tokenizer, cfg, meta


def load_levt(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[LevT, Tokenizer, ModelConfig, dict[str, Any]]:
    """(LevT in eval mode, float32, on `device`; tokenizer; config; the whole config.json)."""
    model, tokenizer, cfg, meta = load_nat(path, device)
    if not isinstance(model, LevT):
        raise InputError(path, f"not a LevT checkpoint (a {cfg.arch} model)")
    return model, tokenizer, cfg, meta
