"""Optimisation pieces of the trainer: the learning-rate schedule, AdamW, bf16 autocast, and the
per-update random streams that make a resumed run repeat an uninterrupted one exactly."""

from __future__ import annotations

import math
from contextlib import nullcontext
from typing import Any

import torch
from torch import nn


def inverse_sqrt_lr(step: int, lr: float, warmup: int) -> float:
    """Linear warm-up then inverse square root decay (Vaswani et al. 2017, eq. 3, rescaled):
    lr(s) = lr * min(s / warmup, sqrt(warmup / s)), peaking at `lr` when s = warmup."""
    s = max(step, 1)
    w = max(warmup, 1)
    return lr * min(s / w, math.sqrt(w / s))


def deadline_lr(step: int, lr: float, warmup: int, done: float, floor: float = 0.1) -> float:
    """Linear warm-up, then a cosine decay (Loshchilov & Hutter 2017, eq. 5, one cycle) from
    `lr` to `floor * lr` over the time to the run's deadline: `done` in [0, 1] is the share of
    that time spent, so the rate reaches its floor when the deadline stops the updates.

    lr(s, f) = lr * min(1, s / warmup) * (floor + (1 - floor) (1 + cos(pi f)) / 2)."""
    f = min(max(done, 0.0), 1.0)
    warm = min(1.0, max(step, 1) / max(warmup, 1))
    return lr * warm * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * f)))


def scheduled_lr(schedule: str, step: int, lr: float, warmup: int, done: float) -> float:
    """The learning rate of update `step` under `schedule` ("inverse-sqrt" or "deadline")."""
    if schedule == "deadline":
        return deadline_lr(step, lr, warmup, done)
    return inverse_sqrt_lr(step, lr, warmup)


def stream_seed(seed: int, rank: int, step: int) -> int:
    """The seed of the dropout and length-noise streams of update `step` on `rank`."""
    return (seed * 1_000_003 + rank * 7919 + step) % (2**63 - 1)


def make_optimizer(model: nn.Module, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW (betas 0.9, 0.98), the fused kernel where this PyTorch has it, else foreach."""
    params = [p for p in model.parameters() if p.requires_grad]
    kw: dict[str, Any] = {"lr": lr, "betas": (0.9, 0.98), "eps": 1e-8}
    kw["weight_decay"] = weight_decay
    try:
        return torch.optim.AdamW(params, fused=True, **kw)
    except (RuntimeError, TypeError):
        return torch.optim.AdamW(params, foreach=True, **kw)


def autocast(device: torch.device, bf16: bool) -> Any:
    """bf16 autocast on `device`, or nothing."""
    return torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else nullcontext()


def choose_bf16(precision: str, device: torch.device) -> bool:
    """bf16 autocast for "bf16"; for "auto", on CUDA with bf16 and on CPUs with native bf16."""
    if precision == "fp32":
        return False
    if precision == "bf16":
        return True
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    mkldnn: Any = torch.backends.mkldnn  # untyped in torch's stubs
    return bool(mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
