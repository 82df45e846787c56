"""CMLM training pieces used by `fitsub.nmt.train` when `--arch cmlm`.

The trainer builds its ordinary AR batches (`fitsub.nmt.batching`) and `cmlm_batch` turns each
into a CMLM batch (Ghazvininejad et al. 2019, sec. 2): for a target of n pieces, a number of
pieces k uniform in 1..n is drawn, then k positions uniformly at random; the decoder input has
those positions masked, and the loss (the trainer's label-smoothed NLL on non-pad targets) is taken
on the masked positions only. The length signal is the piece count n, perturbed with the model's
noise window (perturbed LDPE, Oka et al. 2021, eq. 1-2; their student uses [0, 2], positive),
and dropped for a share `length_dropout` of rows as in the AR trainer.
"""

from __future__ import annotations

import torch

from fitsub.nat.decode import mask_predict
from fitsub.nat.model import CMLM
from fitsub.nmt.batching import Batch
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import perturb


def cmlm_batch(
    b: Batch, cfg: ModelConfig, gen: torch.Generator | None, train: bool = True
) -> Batch:
    """The CMLM batch of an AR batch `b` (BOS + pieces in `tgt_in`); random draws from `gen`."""
    dev = b.tgt_in.device
    pieces = b.tgt_in[:, 1:].cpu()  # (B, N) without BOS
    valid = pieces.ne(cfg.pad_id)
    B, N = pieces.shape
    n = valid.sum(dim=1).clamp(min=1)  # (B,)
    k = (torch.rand(B, generator=gen) * n).long().clamp(max=n - 1) + 1  # uniform in 1..n
    draw = torch.rand(B, N, generator=gen).masked_fill(~valid, 2.0)
    rank = draw.argsort(dim=1).argsort(dim=1)
    masked = (rank < k[:, None]) & valid
    dec_in = torch.where(masked, torch.full_like(pieces, cfg.bos_id), pieces)
    out = torch.where(masked, pieces, torch.full_like(pieces, cfg.pad_id))
    tgt_len: torch.Tensor | None = None
    if cfg.encoding != "sinusoidal":
        tgt_len = n.clone()
        if train and cfg.noise > 0:
            tgt_len = perturb(tgt_len, cfg.noise, cfg.noise_mode, generator=gen)
        if train and cfg.length_dropout > 0:
            drop = torch.rand(B, generator=gen) < cfg.length_dropout
            tgt_len = torch.where(drop, torch.full_like(tgt_len, -1), tgt_len)
        tgt_len = tgt_len.to(dev)
    return Batch(b.src, dec_in.to(dev), out.to(dev), tgt_len, int(masked.sum()), b.n_src)


def oracle_decode(model: CMLM, b: Batch, iterations: int = 10) -> list[list[int]]:
    """Mask-predict each row of an AR batch with its reference piece count (dev BLEU)."""
    lengths = b.tgt_in[:, 1:].ne(model.cfg.pad_id).sum(dim=1).clamp(min=1)
    out = mask_predict(model, b.src, lengths, iterations)
    toks = out.tokens.tolist()
    return [row[: int(n)] for row, n in zip(toks, lengths.tolist(), strict=True)]
