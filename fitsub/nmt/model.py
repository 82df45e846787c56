"""Encoder–decoder Transformer with a length-aware decoder encoding and a KV cache.

Pre-norm layers (LayerNorm before each sub-layer, a final LayerNorm in encoder and decoder), GELU
feed-forward, `F.scaled_dot_product_attention`, and one embedding matrix tied across source
embedding, target embedding and output projection (Vaswani et al. 2017; Press & Wolf 2017).
Embeddings are scaled by sqrt(d_model). The encoder adds the ordinary sinusoidal encoding; the
decoder adds the encoding named by `ModelConfig.encoding` (formulas in `fitsub.nmt.length_encodings`):

    x_t = sqrt(d) * E[y_t] + [PE(t)] + LE(pos_t, len)

PE(t) (token index t, BOS at 0) is present for `sinusoidal`, the `+pe` variants and Lakew's
encodings; LE is LDPE / LRPE (Takase & Okazaki 2019, eq. 3-6) or Lakew et al.'s absolute /
relative length encoding (Lakew et al. 2019, eq. 3-6), zero for `sinusoidal`.

Off-by-one convention: `pos_t` is the number of units (`ModelConfig.length_unit`) already
emitted *including* the token fed at step t, i.e. the units of tgt_in[1..t] (BOS adds none), so
`len - pos_t` is the length still to produce and is 0 exactly when the next prediction should be
EOS. In subword units pos_t = t. In character units pos_t = sum of `piece_chars` of tgt_in[1..t]
minus the word-boundary space of the first piece (`leading_space[tgt_in[1]]`), which
detokenisation strips; `len` is then the requested length of the detokenised text in characters.

No length signal: `tgt_len=None`, or a row of `tgt_len` < 0, zeroes the LE term for that row.

The layers (attention, feed-forward, pre-norm encoder / decoder layers, fast dropout) are
`fitsub.nmt.layers`', the incremental decoding state `fitsub.nmt.cache.KVCache`.

`decode_hidden` (and `forward(..., hidden=True)`) return the decoder states before the tied
output projection, so the trainer can project only the non-pad target rows (`fitsub.nmt.loss`).

Converted models (`fitsub convert`, fitsub.convert.fairseq) may differ from this by config:
post-norm layers without the final LayerNorms (`norm_first`), ReLU (`activation`), their own
source embedding and output projection (`tie_embeddings`: `src_embed`, `out_weight`), fairseq's
sinusoid table offset by 2 (`positions`, `fitsub.nmt.length_encodings.fairseq_sinusoidal`), and a
target vocabulary smaller than the whole (`output_vocab`: the ids past it are never produced).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor, nn

from fitsub.nmt.cache import KVCache
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.layers import DecoderLayer, Dropout, EncoderLayer
from fitsub.nmt.length_encodings import (
    FAIRSEQ_POSITION_OFFSET,
    fairseq_sinusoidal,
    has_position_term,
    length_encoding,
    sinusoidal,
)


class Transformer(nn.Module):
    """The length-controlled encoder–decoder (see the module docstring for the encodings)."""

    def __init__(
        self,
        cfg: ModelConfig,
        piece_chars: Sequence[int] | None = None,
        leading_space: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        V, D = cfg.vocab_size, cfg.d_model
        if D % cfg.n_heads or D % 2:
            raise ValueError(f"d_model {D} must be even and divisible by n_heads {cfg.n_heads}")
        self.embed = nn.Embedding(V, D)  # the target embedding; also source / output when tied
        self.src_embed = None if cfg.tie_embeddings == "all" else nn.Embedding(V, D)
        self.out_weight = None  # (V, D) an untied output projection
        if cfg.tie_embeddings == "none":
            self.out_weight = nn.Parameter(torch.randn(V, D) * D**-0.5)
        self.enc_layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.enc_layers))
        self.dec_layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.dec_layers))
        self.enc_norm: nn.Module = nn.LayerNorm(D) if cfg.norm_first else nn.Identity()
        self.dec_norm: nn.Module = nn.LayerNorm(D) if cfg.norm_first else nn.Identity()
        self.drop = Dropout(cfg.dropout)
        pc = torch.ones(V, dtype=torch.long) if piece_chars is None else torch.tensor(piece_chars)
        lead = torch.zeros(V, dtype=torch.long)
        if leading_space is not None:
            lead = torch.tensor(leading_space, dtype=torch.long)
        if pc.numel() != V or lead.numel() != V:
            raise ValueError(f"piece_chars / leading_space must have vocab_size={V} entries")
        for special in (cfg.pad_id, cfg.bos_id, cfg.eos_id):
            pc[special], lead[special] = 0, 0
        # (V,) characters each piece adds, and 1 for pieces whose leading `▁` is stripped at the start
        self.piece_chars: Tensor
        self.leading_space: Tensor
        self.register_buffer("piece_chars", pc.to(torch.long), persistent=False)
        self.register_buffer("leading_space", lead.to(torch.long), persistent=False)
        self._pe: Tensor | None = None  # sinusoidal(arange(n)) (n, D), built on first use
        # int8 models (`fitsub.nmt.checkpoint.quantize_model`) project with a quantised copy of
        # the tied embedding; float models multiply by `embed.weight` itself
        self.out_proj: nn.Module | None = None
        self.apply(self._init)

    def position_table(self, n: int, device: torch.device) -> Tensor:
        """(n, D) the ordinary encodings PE(0..n-1): one table lookup per decoding step."""
        pe = self._pe
        if pe is None or pe.device != device or pe.size(0) < n:
            size = max(n, self.cfg.max_positions, 2 * (0 if pe is None else pe.size(0)))
            if self.cfg.positions == "fairseq":
                at = torch.arange(size, device=device) + FAIRSEQ_POSITION_OFFSET
                pe = fairseq_sinusoidal(at, self.cfg.d_model)
            else:
                pe = sinusoidal(torch.arange(size, device=device), self.cfg.d_model)
            self._pe = pe
        return pe[:n]

    def _init(self, m: nn.Module) -> None:
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=self.cfg.d_model**-0.5)

    # ---- encoder ------------------------------------------------------------------------------
    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """src (B, S) ids -> memory (B, S, D), src_pad (B, S) True at padding."""
        S = src.size(1)
        src_pad = src.eq(self.cfg.pad_id)  # (B, S)
        embed = self.embed if self.src_embed is None else self.src_embed
        x = embed(src) * math.sqrt(self.cfg.d_model) + self.position_table(S, src.device)
        x = self.drop(x)  # (B, S, D)
        mask = ~src_pad[:, None, None, :]  # (B, 1, 1, S)
        for layer in self.enc_layers:
            x = layer(x, mask)
        return self.enc_norm(x), src_pad

    # ---- decoder ------------------------------------------------------------------------------
    def unit_positions(
        self, tgt_in: Tensor, start_step: int = 0, start_units: Tensor | None = None
    ) -> Tensor:
        """(B, T) units emitted up to and including each input token (see module docstring)."""
        B, T = tgt_in.shape
        idx = start_step + torch.arange(T, device=tgt_in.device)  # (T,)
        if self.cfg.length_unit == "subword":
            return idx.expand(B, T)
        chars = self.piece_chars[tgt_in] - self.leading_space[tgt_in] * idx.eq(1)  # (B, T)
        pos = chars.cumsum(dim=1)
        if start_units is not None:
            pos = pos + start_units[:, None]
        return pos

    def decode(
        self,
        tgt_in: Tensor,
        memory: Tensor,
        src_pad: Tensor,
        tgt_len: Tensor | None,
        cache: KVCache | None = None,
    ) -> Tensor:
        """tgt_in (B, T) starting with BOS (or the next tokens, with a cache) -> logits (B, T, V).

        `tgt_len` (B,) is the requested length in `length_unit` (< 0 or None: no length signal).
        With a cache, `tgt_in` holds only the new tokens and the cache is updated in place.
        """
        x = self.decode_hidden(
            tgt_in=tgt_in, memory=memory, src_pad=src_pad, tgt_len=tgt_len, cache=cache
        )  # (B, T, D)
        return self.project(x)  # (B, T, V)

    @property
    def output_weight(self) -> Tensor:
        """(V, D) the output projection: the tied embedding, or `out_weight` when untied."""
        return self.embed.weight if self.out_weight is None else self.out_weight

    def project(self, x: Tensor) -> Tensor:
        """Decoder states (..., D) -> logits (..., V) through the (tied) output projection;
        -inf from `cfg.output_vocab` on, when it is set."""
        if self.out_proj is not None:
            result: Tensor = self.out_proj(x)
        else:
            result = x @ self.output_weight.t()
        if self.cfg.output_vocab:
            result[..., self.cfg.output_vocab :] = -math.inf
        return result

    def decode_hidden(
        self,
        tgt_in: Tensor,
        memory: Tensor,
        src_pad: Tensor,
        tgt_len: Tensor | None,
        cache: KVCache | None = None,
    ) -> Tensor:
        """`decode` without the tied output projection: final decoder states (B, T, D)."""
        cfg = self.cfg
        B, T = tgt_in.shape
        t0 = cache.steps if cache is not None else 0
        x = self.embed(tgt_in) * math.sqrt(cfg.d_model)  # (B, T, D)
        if has_position_term(cfg.encoding):
            x = x + self.position_table(t0 + T, tgt_in.device)[t0:]  # (T, D) broadcast
        start_units = cache.units if cache is not None else None
        pos = self.unit_positions(tgt_in, t0, start_units)  # (B, T)
        if cfg.encoding != "sinusoidal" and tgt_len is not None:
            length = tgt_len.to(torch.float32)[:, None]  # (B, 1)
            le = length_encoding(
                encoding=cfg.encoding,
                pos=pos,
                length=length.clamp(min=0),
                d_model=cfg.d_model,
                n_classes=cfg.rel_classes,
            )
            x = x + le * length.ge(0)[:, :, None]  # (B, T, D); rows without a length get 0
        x = self.drop(x)
        src_mask = ~src_pad[:, None, None, :]  # (B, 1, 1, S)
        self_mask: Tensor | None = None
        causal = T > 1 and t0 == 0
        if T > 1 and t0 > 0:
            q_idx = t0 + torch.arange(T, device=x.device)
            self_mask = (
                q_idx[:, None] >= torch.arange(t0 + T, device=x.device)[None, :]
            )  # (T, t0+T)
        for i, layer in enumerate(self.dec_layers):
            x = layer(
                x,
                memory=memory,
                src_mask=src_mask,
                self_mask=self_mask,
                causal=causal,
                cache=cache,
                layer=i,
            )
        if cache is not None:
            cache.steps = t0 + T
            cache.units = pos[:, -1]
        result: Tensor = self.dec_norm(x)  # (B, T, D)
        return result

    def forward(
        self, src: Tensor, tgt_in: Tensor, tgt_len: Tensor | None, hidden: bool = False
    ) -> Tensor:
        """Teacher-forced logits (B, T, V) for src (B, S), tgt_in (B, T) starting with BOS.

        `hidden`: the decoder states (B, T, D) instead, for a loss that applies the output
        projection (`embed.weight`) itself (`fitsub.nmt.loss.projected_nll`).
        """
        memory, src_pad = self.encode(src)
        if hidden:
            return self.decode_hidden(tgt_in, memory, src_pad, tgt_len)
        return self.decode(tgt_in, memory, src_pad, tgt_len)

    def new_cache(self, capacity: int = 64) -> KVCache:
        """An empty cache for incremental `decode` calls, preallocated for `capacity` steps."""
        return KVCache(len(self.dec_layers), capacity)

    # ---- accounting ---------------------------------------------------------------------------
    def num_parameters(self) -> int:
        """Number of parameters (the tied embedding counted once)."""
        return sum(p.numel() for p in self.parameters())

    def flops_per_token(self, seq_len: int = 64) -> float:
        """Training FLOPs per (source or target) token, forward + backward: an estimate.

        6 N + 12 L d T (the PaLM / nanoGPT estimate): N parameters, each used in one multiply-add
        per token forward and two backward, plus attention scores and values over a context of
        T = `seq_len` tokens in L = enc_layers + 2 * dec_layers attention blocks (the decoder has
        self- and cross-attention). It counts every parameter for every token although encoder
        weights see only source tokens and decoder weights only target tokens, so it is an
        upper-ish estimate for MFU, not a measurement.
        """
        n_attn = self.cfg.enc_layers + 2 * self.cfg.dec_layers
        return 6.0 * self.num_parameters() + 12.0 * n_attn * self.cfg.d_model * seq_len


def unwrap(model: nn.Module) -> nn.Module:
    """The plain module under `torch.compile` (`_orig_mod`) and DDP (`module`) wrappers."""
    while True:
        inner = getattr(model, "_orig_mod", None)
        if not isinstance(inner, nn.Module):
            inner = getattr(model, "module", None)
        if not isinstance(inner, nn.Module):
            return model
        model = inner


# The initialisers a module's constructor calls (nn.Linear, nn.Embedding, nn.LayerNorm, the
# model's own `_init`): skipped while building a model whose every weight is loaded next.
_INITIALISERS = (
    "normal_", "zeros_", "ones_", "uniform_", "constant_", "kaiming_uniform_", "xavier_uniform_",
    "xavier_normal_", "trunc_normal_",
)  # fmt: skip


@contextmanager
def uninitialised() -> Iterator[None]:
    """Modules built inside keep their freshly allocated (uninitialised) weights.

    Random initialisation costs 0.2-0.9 s for the shipped models on a 2-core AVX2 CPU, every
    start, only to be overwritten by `load_state_dict(strict=True)` (as transformers'
    `no_init_weights`). Not thread-safe: `torch.nn.init` is patched for the duration.
    """
    saved = {name: getattr(nn.init, name) for name in _INITIALISERS}
    try:
        for name in _INITIALISERS:
            setattr(nn.init, name, _keep)
        yield
    finally:
        for name, fn in saved.items():
            setattr(nn.init, name, fn)


def _keep(tensor: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    return tensor
