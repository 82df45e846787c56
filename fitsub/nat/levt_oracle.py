"""The Levenshtein Transformer's expert: the edits that turn a sequence into the target.

Gu et al. 2019 ("Levenshtein Transformer", sec. 3.2, "Expert policy") train the model to imitate
an oracle that, given the current sequence y and the target y*, returns the optimal edits under
the Levenshtein distance with insertions and deletions only (a substitution is a deletion plus an
insertion):

    (d*, p*, t*) = argmin over edits of  D(y*, E(E(E(y, d), p), t))

d* deletes every token of y outside a longest common subsequence (LCS) with y*, p* counts the
target tokens to insert into each slot between two consecutive kept tokens, and t* are those
tokens. The distance is |y| + |y*| - 2 LCS(y, y*). fairseq computes the same alignment in C++
(`libnat.suggested_ed2_path`); here the LCS table is filled row by row in numpy, vectorised over
the batch and over j with a running maximum:

    L[i, j] = max(L[i, j-1], L[i-1, j], L[i-1, j-1] + [y_i == y*_j])
            = max over j' <= j of max(L[i-1, j'], L[i-1, j'-1] + [y_i == y*_j'])

and the back-trace (match when possible, else delete y_i when that keeps the optimum, else insert
y*_j) runs for all rows at once. Both sequences carry BOS and EOS, which every LCS matches (each
appears once, at the same end of both), so the slots are those the model's placeholder
classifier sees: slot s lies between kept tokens s and s+1.

`random_deletion` is the roll-in for the insertion classifiers (fairseq's `random_delete` noise,
the paper's random word dropping): each target keeps a uniformly drawn number of its pieces,
chosen uniformly, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor


@dataclass(frozen=True)
class Edits:
    """Expert edits from sequences x (B, Tx) to targets y (B, Ty), both BOS ... EOS + pad.

    `delete` (B, Tx): tokens of x the expert deletes. `insert` (B, Tx - 1): placeholders to insert
    into slot s of x *after* the deletions (between its kept tokens s and s+1; 0 past the last
    slot). `placeholder` (B, Ty): target positions that are inserted (not kept from x).
    `distance` (B,): insertions plus deletions.
    """

    delete: Tensor
    insert: Tensor
    placeholder: Tensor
    distance: Tensor


def lcs_table(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(B, Tx+1, Ty+1) LCS lengths of every prefix pair of x (B, Tx) and y (B, Ty).

    Pad must already be replaced by values that match nothing (see `edits`)."""
    B, Tx = x.shape
    Ty = y.shape[1]
    L = np.zeros((B, Tx + 1, Ty + 1), dtype=np.int32)
    for i in range(1, Tx + 1):
        eq = x[:, i - 1 : i] == y  # (B, Ty)
        best = np.maximum(L[:, i - 1, 1:], L[:, i - 1, :-1] + eq)  # (B, Ty)
        L[:, i, 1:] = np.maximum.accumulate(best, axis=1)
    return L


def edits(x: Tensor, y: Tensor, pad: int) -> Edits:
    """The expert's deletions and insertions from x (B, Tx) to y (B, Ty) (module docstring)."""
    dev = x.device
    xs, ys = x.cpu().numpy(), y.cpu().numpy()
    nx, ny = (xs != pad).sum(1), (ys != pad).sum(1)  # (B,)
    B, Tx = xs.shape
    Ty = ys.shape[1]
    xm = np.where(xs == pad, -1, xs)  # pads match nothing
    ym = np.where(ys == pad, -2, ys)
    L = lcs_table(xm, ym)
    rows = np.arange(B)
    i, j = nx.copy(), ny.copy()
    delete = np.zeros((B, Tx), dtype=bool)
    inserted = np.zeros((B, Ty), dtype=bool)
    for _ in range(int((nx + ny).max())):
        live = (i > 0) | (j > 0)
        if not live.any():
            break
        ii, jj = np.maximum(i - 1, 0), np.maximum(j - 1, 0)
        here = L[rows, i, j]
        match = (i > 0) & (j > 0) & (xm[rows, ii] == ym[rows, jj]) & (L[rows, ii, jj] + 1 == here)
        drop = ~match & (i > 0) & (L[rows, ii, j] == here)
        add = live & ~match & ~drop  # then j > 0: the only move left
        delete[rows[drop], ii[drop]] = True
        inserted[rows[add], jj[add]] = True
        i = i - (match | drop)
        j = j - (match | add)
    # slot of an inserted target token: kept (matched) target tokens before it, minus one
    matched = ~inserted & (np.arange(Ty)[None, :] < ny[:, None])
    slot = np.cumsum(matched, axis=1) - 1  # (B, Ty)
    insert = np.zeros((B, max(Tx - 1, 1)), dtype=np.int64)
    rb, tb = np.nonzero(inserted)
    np.add.at(insert, (rb, slot[rb, tb]), 1)
    distance = delete.sum(1) + inserted.sum(1)
    return Edits(
        torch.from_numpy(delete).to(dev),
        torch.from_numpy(insert[:, : Tx - 1]).to(dev),
        torch.from_numpy(inserted).to(dev),
        torch.from_numpy(distance).to(dev),
    )


def random_deletion(
    y: Tensor, pad: int, bos: int, eos: int, gen: torch.Generator | None = None
) -> Tensor:
    """Each row of y (B, T) (BOS ... EOS + pad) keeping floor(u * n) of its n inner pieces, u
    uniform in [0, 1), chosen uniformly, order kept; BOS and EOS always kept (fairseq's
    `random_delete`). Returns (B, T') trimmed to the longest row."""
    B, T = y.shape
    cpu = y.cpu()
    inner = cpu.ne(pad) & cpu.ne(bos) & cpu.ne(eos)  # (B, T)
    n = inner.sum(1)  # (B,)
    keep_n = (torch.rand(B, generator=gen) * n).long()  # (B,) in 0 .. n-1 (0 when n = 0)
    score = torch.rand(B, T, generator=gen).masked_fill(~inner, 2.0)
    rank = score.argsort(dim=1).argsort(dim=1)  # inner pieces ranked at random
    keep = cpu.ne(pad) & (~inner | (rank < keep_n[:, None]))
    order = (~keep).to(torch.int8).argsort(dim=1, stable=True)  # kept tokens first, in order
    out = cpu.gather(1, order).masked_fill(~keep.gather(1, order), pad)
    width = int(keep.sum(1).max())
    return out[:, :width].to(y.device)
