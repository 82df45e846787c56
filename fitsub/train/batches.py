"""Batches of an encoded corpus (`fitsub.train.corpus.Encoded`): length-bucketed index batches
of at most `max_tokens` padded source + target tokens, shuffled per epoch with the seed and
sharded per rank (`make_batches`, `shard`), and the padded tensor batches with their length
signals that the trainer feeds the model (`BatchMaker`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import LENGTH_TOKENS, perturb
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.corpus import Encoded


@dataclass
class Batch:
    """One padded batch as tensors on the training device."""

    src: Tensor  # (B, S) [length token?] pieces EOS
    tgt_in: Tensor  # (B, T) BOS pieces
    tgt_out: Tensor  # (B, T) pieces EOS
    tgt_len: Tensor | None  # (B,) requested length in the model's unit; -1: none
    n_tgt: int  # target tokens (EOS included)
    n_src: int


class BatchMaker:
    """Turns rows of an `Encoded` corpus into model inputs with their length signals."""

    def __init__(
        self, enc: Encoded, mcfg: ModelConfig, tok: Tokenizer, device: torch.device
    ) -> None:
        self.enc, self.mcfg, self.device = enc, mcfg, device
        self.class_ids: np.ndarray | None = None
        if mcfg.length_token:
            if mcfg.length_thresholds is None:
                raise ValueError("a length-token method needs length_thresholds")
            self.class_ids = np.array([tok.token_id(t) for t in LENGTH_TOKENS], dtype=np.int64)

    @property
    def extra_src(self) -> int:
        """Specials added to each source row (EOS, and the length token)."""
        return 1 + int(self.class_ids is not None)

    def _to_device(self, t: Tensor) -> Tensor:
        """`t` on the training device; to a GPU from pinned memory without waiting, so the next
        batch is made while the GPU still runs this update (no host sync per batch)."""
        if self.device.type != "cuda":
            return t.to(self.device)
        return t.pin_memory().to(self.device, non_blocking=True)

    def make(self, idx: np.ndarray, gen: torch.Generator | None, train: bool = True) -> Batch:
        """The batch of rows `idx`; noise and length dropout only when `train`."""
        e, m = self.enc, self.mcfg
        prefix = None
        if self.class_ids is not None:
            assert m.length_thresholds is not None
            t_short, t_long = m.length_thresholds
            r = e.ratio[idx]
            prefix = self.class_ids[np.where(r < t_short, 0, np.where(r > t_long, 2, 1))]
            if train and m.token_dropout > 0:
                no_token = torch.rand(len(idx), generator=gen).numpy() < m.token_dropout
                prefix = np.where(no_token, -1, prefix)  # -1: this row gets no token
        src = pad_rows(e.src_ids, e.src_off, idx, m.pad_id, prefix=prefix, suffix=m.eos_id)
        tgt_in = pad_rows(
            e.tgt_ids, e.tgt_off, idx, m.pad_id, prefix=np.full(len(idx), m.bos_id, dtype=np.int64)
        )
        tgt_out = pad_rows(e.tgt_ids, e.tgt_off, idx, m.pad_id, suffix=m.eos_id)
        tgt_len: Tensor | None = None
        if m.encoding != "sinusoidal":
            tgt_len = torch.from_numpy(e.tgt_units[idx].copy())
            if train and m.noise > 0:
                tgt_len = perturb(tgt_len, m.noise, m.noise_mode, generator=gen)
            if train and m.length_dropout > 0:
                drop = torch.rand(len(idx), generator=gen) < m.length_dropout
                tgt_len = torch.where(drop, torch.full_like(tgt_len, -1), tgt_len)
            tgt_len = self._to_device(tgt_len)
        n_tgt = int((e.tgt_lens[idx] + 1).sum())
        return Batch(
            src=self._to_device(torch.from_numpy(src)),
            tgt_in=self._to_device(torch.from_numpy(tgt_in)),
            tgt_out=self._to_device(torch.from_numpy(tgt_out)),
            tgt_len=tgt_len,
            n_tgt=n_tgt,
            n_src=int(src.shape[0] * src.shape[1]),
        )


def make_batches(
    src_lens: np.ndarray,
    tgt_lens: np.ndarray,
    max_tokens: int,
    rng: np.random.Generator,
    extra_src: int = 1,
    extra_tgt: int = 1,
) -> list[np.ndarray]:
    """Length-bucketed batches of indices, each at most `max_tokens` padded src + tgt tokens.

    Pairs are sorted by (source length, target length) with random tie-breaking, so a batch holds
    near-equal lengths and little padding; `extra_*` count the specials added per row (EOS, BOS,
    length token). The batch order is shuffled.
    """
    n = len(src_lens)
    s = src_lens.astype(np.int64) + extra_src
    t = tgt_lens.astype(np.int64) + extra_tgt
    order = np.lexsort((rng.random(n), t, s))
    batches: list[np.ndarray] = []
    start, max_s, max_t = 0, 0, 0
    for pos in range(n):
        i = order[pos]
        ns, nt = max(max_s, int(s[i])), max(max_t, int(t[i]))
        if pos > start and (pos - start + 1) * (ns + nt) > max_tokens:
            batches.append(order[start:pos])
            start, ns, nt = pos, int(s[i]), int(t[i])
        max_s, max_t = ns, nt
    if start < n:
        batches.append(order[start:n])
    perm = rng.permutation(len(batches))
    return [batches[k] for k in perm]


def shard(batches: list[np.ndarray], rank: int, world: int) -> list[np.ndarray]:
    """This rank's share: the batch list cut to a multiple of `world`, then every world-th."""
    usable = len(batches) - len(batches) % world
    return batches[:usable][rank::world]


def pad_rows(
    ids: np.ndarray,
    off: np.ndarray,
    idx: np.ndarray,
    pad: int,
    prefix: np.ndarray | None = None,
    suffix: int | None = None,
) -> np.ndarray:
    """Rows `idx` as a padded (B, L) int64 matrix: [prefix?] pieces [suffix?] pad…

    A prefix entry of -1 leaves that row without one (its pieces start the row)."""
    lens = off[idx + 1] - off[idx]
    lead = np.zeros(len(idx), dtype=np.int64) if prefix is None else (prefix >= 0).astype(np.int64)
    tail = 0 if suffix is None else 1
    width = int((lens + lead).max()) + tail
    out = np.full((len(idx), width), pad, dtype=np.int64)
    rows = np.arange(len(idx))
    if prefix is not None:
        out[rows[lead == 1], 0] = prefix[lead == 1]
    cols = np.arange(int(lens.max()))
    mask = cols[None, :] < lens[:, None]  # (B, L')
    src_pos = off[idx][:, None] + cols[None, :]
    dst_col = lead[:, None] + cols[None, :]
    out[np.broadcast_to(rows[:, None], mask.shape)[mask], dst_col[mask]] = ids[src_pos[mask]]
    if suffix is not None:
        out[rows, lens + lead] = suffix
    return out
