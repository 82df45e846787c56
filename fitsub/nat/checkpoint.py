"""CMLM checkpoints: fitsub's checkpoint directory format, unchanged.

A CMLM is saved with `fitsub.nmt.checkpoint.save_checkpoint` (config.json + model.safetensors +
spm.model, never pickled); its `ModelConfig.extra["arch"]` is "cmlm", which is how loaders tell it
from an autoregressive model (`is_cmlm_checkpoint`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from fitsub.errors import InputError
from fitsub.nat.model import ARCH_KEY, CMLM, CMLM_ARCH, is_cmlm
from fitsub.nmt.checkpoint import CONFIG, SPM, WEIGHTS, read_config
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.tokenizer import Tokenizer


def cmlm_config(cfg: ModelConfig) -> ModelConfig:
    """`cfg` as a CMLM's config: arch marked, length encodings counted in pieces."""
    extra = {**cfg.extra, ARCH_KEY: CMLM_ARCH}
    return replace(cfg, length_unit="subword", extra=extra)


def build_cmlm(cfg: ModelConfig, tokenizer: Tokenizer) -> CMLM:
    """A fresh CMLM whose character tables come from `tokenizer`."""
    if cfg.vocab_size != tokenizer.vocab_size:
        raise ValueError(
            f"config vocab_size {cfg.vocab_size} != tokenizer's {tokenizer.vocab_size}"
        )
    return CMLM(cfg, tokenizer.piece_chars(), tokenizer.leading_space())


def is_cmlm_checkpoint(path: str | Path) -> bool:
    """Whether the checkpoint directory `path` holds a CMLM (False for anything else)."""
    try:
        meta = read_config(path)
    except InputError:
        return False
    extra = meta["model"].get("extra")
    return isinstance(extra, dict) and extra.get(ARCH_KEY) == CMLM_ARCH


def load_cmlm(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[CMLM, Tokenizer, ModelConfig, dict[str, Any]]:
    """(CMLM in eval mode, float32, on `device`; tokenizer; config; the whole config.json)."""
    d = Path(path)
    meta = read_config(d)
    try:
        cfg = ModelConfig.from_dict(meta["model"])
    except (TypeError, ValueError) as err:
        raise InputError(d / CONFIG, f"bad model config: {err}") from err
    if not is_cmlm(cfg):
        raise InputError(d, "not a CMLM checkpoint (an autoregressive model)")
    tokenizer = Tokenizer.load(d / SPM)
    try:
        model = build_cmlm(cfg, tokenizer)
    except ValueError as err:
        raise InputError(d, f"checkpoint does not match its tokenizer: {err}") from err
    try:
        state = load_file(str(d / WEIGHTS))
    except (SafetensorError, OSError) as err:
        raise InputError(d / WEIGHTS, f"unreadable weights: {err}") from err
    state = {k: v.to(torch.float32) if v.is_floating_point() else v for k, v in state.items()}
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(d / WEIGHTS, f"weights do not match the config: {first}") from err
    model.to(device).eval()
    return model, tokenizer, cfg, meta
