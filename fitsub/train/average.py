"""Checkpoint averaging: the element-wise mean of the weights of several checkpoints of one run.

Vaswani et al. 2017 (sec. 6.1) translate with the average of the last 5 (base) or 20 (big)
checkpoints, written at fixed intervals; Popel & Bojar 2018 ("Training tips for the
Transformer model", sec. 4.10) find the average of the last checkpoints better than any one of
them. The checkpoints must share the model config and the tokenizer (the same run, or a run
and its continuation); floating-point tensors are averaged in float32, the others (piece-length
tables) must be equal and are copied.

A run keeps its last N evaluated checkpoints with `fitsub train --keep-checkpoints N`
(`OUT/steps/step-NNNNNN`, weights only); `fitsub average OUT/steps/* --out AVG` averages them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

from fitsub.errors import InputError
from fitsub.nmt.checkpoint import SPM, WEIGHTS, load_checkpoint, read_config, save_checkpoint
from fitsub.nmt.model import unwrap


def average_checkpoints(
    paths: Sequence[str | Path], dest: str | Path, dtype: str = "float16"
) -> Path:
    """Write the average of the checkpoints `paths` to `dest` (replaced as a whole)."""
    if len(paths) < 2:
        raise InputError(None, f"averaging needs at least two checkpoints, got {len(paths)}")
    first = Path(paths[0])
    model, tokenizer, cfg, meta = load_checkpoint(first)
    spm = (first / SPM).read_bytes()
    state = {k: v.clone() for k, v in unwrap(model).state_dict().items()}
    for path in map(Path, paths[1:]):
        other = read_config(path)
        if other["model"] != meta["model"]:
            raise InputError(path, f"model config differs from {first}'s: cannot average")
        if (path / SPM).read_bytes() != spm:
            raise InputError(path, f"tokenizer differs from {first}'s: cannot average")
        try:
            weights = load_file(str(path / WEIGHTS))
        except (SafetensorError, OSError) as err:
            raise InputError(path / WEIGHTS, f"unreadable weights: {err}") from err
        if weights.keys() != state.keys():
            raise InputError(path / WEIGHTS, f"tensor names differ from {first}'s")
        for name, total in state.items():
            w = weights[name]
            if w.shape != total.shape:
                raise InputError(path / WEIGHTS, f"{name}: shape {tuple(w.shape)} differs")
            if total.is_floating_point():
                total += w.to(torch.float32)
            elif not torch.equal(w, total):
                raise InputError(path / WEIGHTS, f"{name}: differs from {first}'s")
    n = len(paths)
    for total in state.values():
        if total.is_floating_point():
            total /= n
    unwrap(model).load_state_dict(state, strict=True)
    train = dict(meta.get("train") or {})
    train["averaged_from"] = [str(p) for p in paths]
    return save_checkpoint(dest, model, cfg, tokenizer, train, dtype=dtype, keep_existing=False)
