"""Where a model runs: the one place that turns `--device auto|cpu|cuda` into a torch device.

Shared by every backend (fitsub checkpoints, Hugging Face models, non-autoregressive students)
and by training, so that none of them imports another backend's module for it.
"""

from __future__ import annotations

import torch

from fitsub.errors import InputError


def resolve_device(device: str = "auto") -> torch.device:
    """`auto` -> cuda when available, else cpu; anything else as torch spells it."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as err:
        raise InputError(None, f"unknown device {device!r}") from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError(None, f"device {device!r} asked for but CUDA is not available")
    return dev
