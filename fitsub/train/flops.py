"""Model FLOPs utilisation (MFU): the training FLOPs a target token costs this model, and the
device's measured bf16 matmul peak, so the log can say what share of the peak training used.

Training FLOPs are 3× the forward pass's (backward twice the forward), and a forward matmul
costs 2 FLOPs per weight per token (Kaplan et al. 2020, sec. 2.1, C ≈ 6 N per token), counted
here for an encoder-decoder (Vaswani et al. 2017) per *target* token, with `r` source tokens per
target token:

    forward / target token = 2 [ r L_e (4 d² + 2 d d_ff)                       encoder layers
                               + L_d (4 d² + 2 d² + 2 d d_ff) + r L_d 2 d²      decoder (+ cross K/V)
                               + d V ]                                          output projection
                           + 2 [ r L_e 2 S d + L_d (2 T d + 2 S d) ]            attention scores

with S and T the mean source and target lengths (QKᵀ and AV, 2 × 2 FLOPs per pair and channel,
halved for the causal decoder self-attention). Padding and the embedding lookups are not counted:
MFU counts useful work only (Chowdhery et al. 2022, app. B).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import torch

from fitsub.nmt.config import ModelConfig

if TYPE_CHECKING:
    import numpy as np


def train_flops_per_target_token(
    cfg: ModelConfig, src_per_tgt: float, src_len: float, tgt_len: float
) -> float:
    """Training FLOPs (forward + backward) per target token of `cfg` (the formula above)."""
    d, ff, le, ld, v = cfg.d_model, cfg.d_ff, cfg.enc_layers, cfg.dec_layers, cfg.vocab_size
    r = src_per_tgt
    matmul = (
        r * le * (4 * d * d + 2 * d * ff)
        + ld * (6 * d * d + 2 * d * ff)
        + r * ld * 2 * d * d
        + d * v
    )
    attention = r * le * 2 * src_len * d + ld * (tgt_len * d + 2 * src_len * d)
    return 3.0 * 2.0 * (matmul + attention)


def measured_bf16_peak(device: torch.device, size: int = 8192, seconds: float = 1.0) -> float:
    """FLOP/s of back-to-back (size × size) bf16 matmuls on `device`, the best of a few timed
    rounds after a warm-up: the peak this device reaches in practice (not its data sheet's)."""
    a = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    b = torch.randn(size, size, device=device, dtype=torch.bfloat16)
    flops_per = 2.0 * size**3

    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    for _ in range(3):  # warm-up: kernels chosen, clocks up
        a @ b
    sync()
    best, deadline = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        n, t0 = 10, time.perf_counter()
        for _ in range(n):
            a @ b
        sync()
        best = max(best, n * flops_per / (time.perf_counter() - t0))
    return best


class Utilisation:
    """MFU of a run: its training FLOPs per target token over the device's measured peak."""

    def __init__(self, cfg: ModelConfig, src_lens: np.ndarray, tgt_lens: np.ndarray,
                 device: torch.device) -> None:  # fmt: skip
        src, tgt = float(src_lens.sum()) + len(src_lens), float(tgt_lens.sum()) + len(tgt_lens)
        n = max(len(tgt_lens), 1)
        self.per_token = train_flops_per_target_token(cfg, src / max(tgt, 1.0), src / n, tgt / n)
        self.peak = measured_bf16_peak(device)

    def of(self, target_tokens_per_s: float) -> float:
        """The share of the peak that `target_tokens_per_s` uses."""
        return target_tokens_per_s * self.per_token / max(self.peak, 1.0)
