"""Where a model runs: the one place that turns `--device auto|cpu|cuda` into a torch device.

Shared by every backend (fitsub checkpoints, Hugging Face models, non-autoregressive students)
and by training, so that none of them imports another backend's module for it. `known_cpu`
answers "cpu" without importing torch where that answer is certain, so that a backend whose work
needs no torch (the unconstrained pass on CTranslate2, `fitsub.nmt.backend`) never loads it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fitsub.errors import InputError

if TYPE_CHECKING:
    import torch

# what a GPU torch can use leaves on Linux: NVIDIA's driver, its control device, ROCm's kernel
# driver, WSL2's GPU bridge; with none of them `torch.cuda.is_available()` is False
GPU_MARKERS = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/kfd", "/dev/dxg")


def known_cpu(device: str = "auto") -> bool:
    """Whether `resolve_device(device)` is the CPU, known without importing torch: `cpu`, or
    `auto` on macOS (no CUDA build) or on Linux without any of `GPU_MARKERS`. False: only torch
    can tell (a GPU driver is there, another system, another device name)."""
    if device == "cpu":
        return True
    if device != "auto":
        return False
    if sys.platform == "darwin":
        return True
    return sys.platform.startswith("linux") and not any(Path(m).exists() for m in GPU_MARKERS)


def resolve_device(device: str = "auto") -> torch.device:
    """`auto` -> cuda when available, else cpu; anything else as torch spells it."""
    import torch

    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError as err:
        raise InputError(None, f"unknown device {device!r}") from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError(None, f"device {device!r} asked for but CUDA is not available")
    if dev.type == "cuda":
        no_cudnn_attention()
    return dev


def no_cudnn_attention() -> None:
    """Takes cuDNN out of `F.scaled_dot_product_attention`'s backends (the memory-efficient
    and math kernels remain), unless FITSUB_CUDNN_ATTENTION=1.

    With a padding mask, PyTorch 2.11 on Hopper (and later chips) sends attention to cuDNN first,
    which builds an execution plan for every new (batch, length) shape, reported at about 0.4 s
    forward and 0.5 s backward each. Training batches come in hundreds of shapes that repeat from
    the second epoch on: both GPU runs of docs/results/gpu-run.md took 0.4-0.7 s per update for
    exactly their first epoch (305 and 664 batches) and 33-45 ms after. A translation on the GPU
    meets a new shape at every beam step. (The fix is not yet timed on a GPU.)
    """
    if os.environ.get("FITSUB_CUDNN_ATTENTION") == "1":
        return
    import torch

    if hasattr(torch.backends.cuda, "enable_cudnn_sdp"):
        torch.backends.cuda.enable_cudnn_sdp(False)
