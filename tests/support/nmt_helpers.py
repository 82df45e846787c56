"""The synthetic task of the NMT tests (its tokenizers and trained models: `factories`).

The synthetic task ("cyclic copy"): the source is n space-separated digits; the target is the
source read cyclically for L = n + d digits, d uniform in [-3, 3] (L >= 1). The output length
cannot be read off the source, only off the length signal, so a model that lands on the asked
length has learnt to use its length encoding (or its length token).
"""

from __future__ import annotations

import random

import torch

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.tokenizer import Tokenizer

DIGITS = "0123456789"
MIN_N, MAX_N, DELTA = 3, 10, 3


def digit_ids(tok: Tokenizer) -> list[int]:
    """Ids of the pieces `▁0` … `▁9`."""
    return [tok.token_id("\u2581" + d) for d in DIGITS]


def cyclic_target(src: list[int], length: int) -> list[int]:
    """The source read cyclically for `length` tokens."""
    return [src[i % len(src)] for i in range(length)]


def make_batch(
    tok: Tokenizer, cfg: ModelConfig, batch: int, rng: random.Random
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src, tgt_in, tgt_out, tgt_len) for one batch of the cyclic-copy task."""
    digits = digit_ids(tok)
    srcs, tgts = [], []
    for _ in range(batch):
        n = rng.randint(MIN_N, MAX_N)
        s = [rng.choice(digits) for _ in range(n)]
        srcs.append(s)
        tgts.append(cyclic_target(s, max(1, n + rng.randint(-DELTA, DELTA))))
    S = max(len(s) for s in srcs) + 2
    T = max(len(t) for t in tgts) + 1
    src = torch.full((batch, S), tok.pad_id)
    tgt_in = torch.full((batch, T), tok.pad_id)
    tgt_out = torch.full((batch, T), -100)
    lens = torch.zeros(batch, dtype=torch.long)
    for b, (s, t) in enumerate(zip(srcs, tgts, strict=True)):
        if cfg.length_token and rng.random() >= cfg.token_dropout:
            ratio = len(t) / len(s)
            cls = "<short>" if ratio < 0.85 else "<long>" if ratio > 1.15 else "<normal>"
            ids = [tok.token_id(cls), *s, tok.eos_id]
        else:
            ids = [*s, tok.eos_id]
        src[b, : len(ids)] = torch.tensor(ids)
        tgt_in[b, : len(t) + 1] = torch.tensor([tok.bos_id, *t])
        tgt_out[b, : len(t) + 1] = torch.tensor([*t, tok.eos_id])
        lens[b] = len(t) if cfg.length_unit == "subword" else tok.chars_of(t)
    return src, tgt_in, tgt_out, lens
