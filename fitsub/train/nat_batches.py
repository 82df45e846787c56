"""CMLM and LevT training pieces used by `fitsub.train.loop` when `--arch cmlm` / `--arch levt`.

The trainer builds its ordinary AR batches (`fitsub.train.batches`) and `cmlm_batch` turns each
into a CMLM batch (Ghazvininejad et al. 2019, sec. 2): for a target of n pieces, a number of
pieces k uniform in 1..n is drawn, then k positions uniformly at random; the decoder input has
those positions masked, and the loss (the trainer's label-smoothed NLL on non-pad targets) is taken
on the masked positions only. The length signal is the piece count n, perturbed with the model's
noise window (perturbed LDPE, Oka et al. 2021, eq. 1-2; their student uses [0, 2], positive),
and dropped for a share `length_dropout` of rows as in the AR trainer.

`levt_batch` turns an AR batch into a Levenshtein Transformer batch: the target with BOS and EOS,
its random-deletion roll-in and the (perturbed) piece count; the model's `forward` computes the
expert edits and its three losses (`fitsub.nat.levt`), which the trainer weights by the batch's
target tokens like the AR loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from fitsub.nat.decode import mask_predict
from fitsub.nat.levt import LevT
from fitsub.nat.levt_decode import levt_decode
from fitsub.nat.levt_oracle import random_deletion
from fitsub.nat.model import CMLM
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import perturb
from fitsub.train.batches import Batch


def length_signal(
    n: torch.Tensor,
    cfg: ModelConfig,
    gen: torch.Generator | None,
    *,
    train: bool,
    device: torch.device,
) -> torch.Tensor | None:
    """The decoder's length signal for target piece counts `n` (B,): None for a model without a
    length encoding; in training perturbed in the model's noise window (perturbed LDPE, Oka et
    al. 2021, eq. 1-2) and set to -1 (no length) for a share `length_dropout` of rows."""
    if cfg.encoding == "sinusoidal":
        return None
    tgt_len = n.clone()
    if train and cfg.noise > 0:
        tgt_len = perturb(tgt_len, cfg.noise, cfg.noise_mode, generator=gen)
    if train and cfg.length_dropout > 0:
        drop = torch.rand(len(n), generator=gen) < cfg.length_dropout
        tgt_len = torch.where(drop, torch.full_like(tgt_len, -1), tgt_len)
    return tgt_len.to(device)


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
    tgt_len = length_signal(n, cfg, gen, train=train, device=dev)
    return Batch(
        src=b.src,
        tgt_in=dec_in.to(dev),
        tgt_out=out.to(dev),
        tgt_len=tgt_len,
        n_tgt=int(masked.sum()),
        n_src=b.n_src,
    )


def oracle_decode(model: CMLM, b: Batch, iterations: int = 10) -> list[list[int]]:
    """Mask-predict each row of an AR batch with its reference piece count (dev BLEU)."""
    lengths = b.tgt_in[:, 1:].ne(model.cfg.pad_id).sum(dim=1).clamp(min=1)
    out = mask_predict(model, b.src, lengths, iterations)
    toks = out.tokens.tolist()
    return [row[: int(n)] for row, n in zip(toks, lengths.tolist(), strict=True)]


@dataclass
class LevTBatch:
    """One Levenshtein Transformer batch (`fitsub.nat.levt.LevT.forward`)."""

    src: torch.Tensor  # (B, S)
    tgt: torch.Tensor  # (B, T) BOS pieces EOS + pad
    prev: torch.Tensor  # (B, T') the insertion roll-in: tgt with random pieces dropped
    tgt_len: torch.Tensor | None  # (B,) the placeholder classifier's length signal (pieces)
    n_tgt: int  # target tokens (EOS included): the loss's normaliser, as the AR trainer's
    n_src: int


def levt_batch(
    b: Batch, cfg: ModelConfig, gen: torch.Generator | None, train: bool = True
) -> LevTBatch:
    """The LevT batch of an AR batch `b` (Gu et al. 2019 roll-in by random word dropping,
    `fitsub.nat.levt_oracle.random_deletion`); the length signal is the target's piece count,
    perturbed with the model's noise window (perLDPE, Oka et al. 2021) and dropped for a share
    `length_dropout` of rows when `train`; random draws from `gen`."""
    dev = b.tgt_in.device
    tgt = torch.cat((b.tgt_in[:, :1], b.tgt_out), dim=1)  # (B, T+1) BOS pieces EOS
    n = b.tgt_out.ne(cfg.pad_id).sum(dim=1).cpu() - 1  # (B,) pieces without EOS
    prev = random_deletion(y=tgt, pad=cfg.pad_id, bos=cfg.bos_id, eos=cfg.eos_id, gen=gen)
    tgt_len = length_signal(n, cfg, gen, train=train, device=dev)
    return LevTBatch(src=b.src, tgt=tgt, prev=prev, tgt_len=tgt_len, n_tgt=b.n_tgt, n_src=b.n_src)


def levt_oracle_decode(model: LevT, b: Batch, iterations: int = 10) -> list[list[int]]:
    """Decode each row of an AR batch with its reference piece count as the length (dev BLEU)."""
    n = b.tgt_in[:, 1:].ne(model.cfg.pad_id).sum(dim=1)
    out = levt_decode(model, b.src, n, iterations)
    toks = out.tokens.tolist()
    return [row[: int(k)] for row, k in zip(toks, out.lengths.tolist(), strict=True)]
