"""The decoder's key / value cache for incremental decoding (`fitsub.nmt.search`)."""

from __future__ import annotations

import torch
from torch import Tensor


class KVCache:
    """Decoder state for incremental decoding, preallocated and reordered in place.

    Self-attention keys / values live in buffers (N, H, capacity, hd) per layer: a step writes
    its slice `[:, :, t0:t0+T]` and attends over `[:rows, :, :t0+T]` (no concatenation, no new
    tensor per step; the capacity doubles if a caller decodes past it). `reorder` gathers the
    surviving rows into a second set of buffers of the same size and swaps them (double
    buffering: no allocation per step). Cross-attention keys / values are computed once from the
    encoder memory, and gathered the same way (`cross=True`) when the rows' sources change.
    `steps` counts target tokens already decoded and `units` (B,) the length units they emitted
    (for the length encodings).
    """

    def __init__(self, n_layers: int, capacity: int = 64) -> None:
        self.n_layers, self.capacity = n_layers, max(1, capacity)
        self.self_k: list[Tensor | None] = [None] * n_layers  # (N, H, capacity, hd) buffers
        self.self_v: list[Tensor | None] = [None] * n_layers
        self._spare: list[tuple[Tensor, Tensor] | None] = [None] * n_layers
        self.cross_k: list[Tensor | None] = [None] * n_layers
        self.cross_v: list[Tensor | None] = [None] * n_layers
        # two sets of (N, H, S, hd) buffers per layer that `reorder(cross=True)` gathers into in turn
        self._cross_bufs: list[list[tuple[Tensor, Tensor]]] = [[] for _ in range(n_layers)]
        self.rows = 0  # rows in use of the buffers
        self.steps = 0
        self.units: Tensor | None = None

    def append(self, layer: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Write k / v (B, H, T, hd) at steps [t0, t0+T); the keys / values (B, H, t0+T, hd) so far."""
        B, H, T, hd = k.shape
        t0 = self.steps
        buf_k, buf_v = self.self_k[layer], self.self_v[layer]
        if buf_k is None or buf_v is None or buf_k.size(0) < B or buf_k.size(2) < t0 + T:
            cap = max(self.capacity, t0 + T)
            if buf_k is not None and buf_k.size(2) < t0 + T:
                cap = max(cap, 2 * buf_k.size(2))
            new_k = k.new_empty(max(B, 0 if buf_k is None else buf_k.size(0)), H, cap, hd)
            new_v = torch.empty_like(new_k)
            if buf_k is not None and buf_v is not None and t0 > 0:
                new_k[: self.rows, :, :t0] = buf_k[: self.rows, :, :t0]
                new_v[: self.rows, :, :t0] = buf_v[: self.rows, :, :t0]
            buf_k, buf_v = new_k, new_v
            self.self_k[layer], self.self_v[layer], self._spare[layer] = buf_k, buf_v, None
            self.capacity = cap
        buf_k[:B, :, t0 : t0 + T] = k
        buf_v[:B, :, t0 : t0 + T] = v
        self.rows = B
        return buf_k[:B, :, : t0 + T], buf_v[:B, :, : t0 + T]

    def reorder(self, index: Tensor, cross: bool = False) -> None:
        """Keep rows `index` (B',) of the self-attention state (beam search's survivors).

        Gathered into the spare buffers, which are then swapped in: no allocation after the first
        call. Cross-attention K/V are left as they are unless `cross` (beam search moving rows
        among the beams of one source, whose cross K/V are identical, does not need them).
        """
        n, t = index.numel(), self.steps
        for i in range(self.n_layers):
            k, v = self.self_k[i], self.self_v[i]
            if k is None or v is None:
                continue
            spare = self._spare[i]
            if spare is None or spare[0].size(0) < n or spare[0].shape[1:] != k.shape[1:]:
                size = (max(n, k.size(0)), *k.shape[1:])
                spare = (k.new_empty(size), v.new_empty(size))
            torch.index_select(k[: self.rows, :, :t], 0, index, out=spare[0][:n, :, :t])
            torch.index_select(v[: self.rows, :, :t], 0, index, out=spare[1][:n, :, :t])
            self.self_k[i], self.self_v[i], self._spare[i] = spare[0], spare[1], (k, v)
        self.rows = n
        if cross:
            for i, (ck, cv) in enumerate(zip(self.cross_k, self.cross_v, strict=True)):
                if ck is not None and cv is not None:
                    self.cross_k[i], self.cross_v[i] = self._gather_cross(i, ck, cv, index)
        if self.units is not None:
            self.units = self.units[index]

    def _gather_cross(self, i: int, k: Tensor, v: Tensor, index: Tensor) -> tuple[Tensor, Tensor]:
        """Rows `index` of layer i's cross K/V, gathered into whichever of its two buffers does
        not hold them (allocated on the first call; a new (N, H, S, hd) tensor per layer and
        step cost more than the gather itself)."""
        bufs, n = self._cross_bufs[i], index.numel()
        if not bufs or bufs[0][0].shape[1:] != k.shape[1:] or bufs[0][0].size(0) < n:
            size = (max(n, k.size(0)), *k.shape[1:])
            bufs[:] = [(k.new_empty(size), v.new_empty(size)) for _ in range(2)]
        dst = bufs[1] if k.data_ptr() == bufs[0][0].data_ptr() else bufs[0]
        torch.index_select(k, 0, index, out=dst[0][:n])
        torch.index_select(v, 0, index, out=dst[1][:n])
        return dst[0][:n], dst[1][:n]
