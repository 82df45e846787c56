"""Source-side signals of a forced decode for `fitsub.quality.score`: coverage and rarity.

* **Coverage** (Tu et al. 2016, "Modeling Coverage for Neural Machine Translation", ACL: the
  coverage of source word j after the whole output is C_j = sum_t a_tj, eq. 5 with Phi = 1):
  `CrossAttentionRecorder` hooks the decoder's cross-attention modules during a teacher-forced
  pass and recomputes their attention probabilities a = softmax(q k^T / sqrt(d_head)) (the
  layers use `F.scaled_dot_product_attention`, which does not return them), averaged over heads
  and layers. Each output step is renormalised each output step over the source's own pieces (the
  end-of-source token and length / language tags, where attention often rests, are left out)
  (`source_attention`); the sum over the output steps is C_j (`fitsub.quality.score.source_signals`):
  a source piece that the output translated has C_j near 1 or more, one it dropped near 0.
* **Rarity** and **output words** (`word_rarity`, `output_word_index`, `source_positions`):
  the tokenizer's alone, in `fitsub.nmt.word_pieces` (torch-free), named here for the callers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor, nn

from fitsub.nmt.layers import CrossAttention
from fitsub.nmt.word_pieces import output_word_index, source_positions, word_rarity


class CrossAttentionRecorder:
    """While active (`record`), the mean over heads and cross-attention layers (`layers`:
    those decoder layers only) of the attention probabilities of a forward pass: `probs`
    (B, T, S)."""

    def __init__(self, layers: Sequence[int] | None = None) -> None:
        self.only = None if layers is None else frozenset(layers)  # decoder layers kept (all)
        self.total: Tensor | None = None
        self.layers = 0

    def _hook(
        self, module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], _: Any
    ) -> None:
        assert isinstance(module, CrossAttention)
        if self.only is not None and kwargs.get("layer") not in self.only:
            return
        x = args[0] if args else kwargs["x"]
        memory, mask = kwargs.get("memory", args[1] if len(args) > 1 else None), kwargs.get("mask")
        if mask is None and len(args) > 2:
            mask = args[2]
        assert isinstance(memory, Tensor) and isinstance(mask, Tensor)
        B, T, C = x.shape
        H = module.n_heads
        q = module.q(x).view(B, T, H, C // H).transpose(1, 2)  # (B, H, T, hd)
        k = module.kv(memory).split(memory.size(-1), dim=2)[0]
        k = k.view(B, memory.size(1), H, C // H).transpose(1, 2)  # (B, H, S, hd)
        s = (q @ k.transpose(-2, -1)) * (C // H) ** -0.5  # (B, H, T, S)
        probs = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1).mean(1)  # (B, T, S)
        self.total = probs if self.total is None else self.total + probs
        self.layers += 1

    @property
    def probs(self) -> Tensor | None:
        """(B, T, S) the recorded attention, averaged over layers (None: nothing recorded)."""
        return None if self.total is None else self.total / max(1, self.layers)

    @contextmanager
    def record(self, model: nn.Module) -> Iterator[CrossAttentionRecorder]:
        """Hook every `CrossAttention` of `model` for the duration of the block."""
        handles = [
            m.register_forward_hook(self._hook, with_kwargs=True)
            for m in model.modules()
            if isinstance(m, CrossAttention)
        ]
        try:
            yield self
        finally:
            for h in handles:
                h.remove()


def source_attention(
    probs: Tensor, steps: int, keep: Sequence[bool]
) -> tuple[tuple[float, ...], ...]:
    """One row's attention `probs` (T, S) over its first `steps` output steps, restricted to
    the kept source positions (`keep`: True for the source's own pieces) and each step
    renormalised over them: a (steps, kept) matrix whose rows sum to 1 (empty when nothing is
    kept). Tu et al.'s coverage of source piece j is its column sum."""
    cols = [j for j, k in enumerate(keep) if k]
    if not cols or steps <= 0:
        return ()
    a = probs[:steps, cols].float()  # (steps, kept)
    a = a / a.sum(-1, keepdim=True).clamp(min=1e-9)
    return tuple(tuple(float(x) for x in row) for row in a.tolist())


__all__ = [
    "CrossAttentionRecorder",
    "output_word_index",
    "source_attention",
    "source_positions",
    "word_rarity",
]
