"""Encoder–decoder Transformer with a length-aware decoder encoding and a KV cache.

Pre-norm layers (LayerNorm before each sub-layer, a final LayerNorm in encoder and decoder), GELU
feed-forward, `F.scaled_dot_product_attention`, and one embedding matrix tied across source
embedding, target embedding and output projection (Vaswani et al. 2017; Press & Wolf 2017).
Embeddings are scaled by sqrt(d_model). The encoder adds the ordinary sinusoidal encoding; the
decoder adds the encoding named by `ModelConfig.encoding` (formulas in `fitsub.nmt.encodings`):

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

Training speed (inference computes exactly what it did before these): dropout masks come from 16
random bits per element, four per 64-bit draw (`dropout`), instead of one float draw each; while
training with attention dropout, attention is computed by `_attend` (the same product, masking,
softmax and dropout on the probabilities as SDPA's reference path), so that dropout uses the same
fast masks; `decode_hidden` (and `forward(..., hidden=True)`) return the decoder states before
the tied output projection, so the trainer can project only the non-pad target rows
(`fitsub.nmt.loss`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.encodings import has_position_term, length_encoding, sinusoidal


class KVCache:
    """Decoder state for incremental decoding, preallocated and reordered in place.

    Self-attention keys / values live in buffers (N, H, capacity, hd) per layer: a step writes
    its slice `[:, :, t0:t0+T]` and attends over `[:rows, :, :t0+T]` (no concatenation, no new
    tensor per step; the capacity doubles if a caller decodes past it). `reorder` gathers the
    surviving rows into a second set of buffers of the same size and swaps them (double
    buffering: no allocation per step). Cross-attention keys / values are computed once from the
    encoder memory. `steps` counts target tokens already decoded and `units` (B,) the length
    units they emitted (for the length encodings).
    """

    def __init__(self, n_layers: int, capacity: int = 64) -> None:
        self.n_layers, self.capacity = n_layers, max(1, capacity)
        self.self_k: list[Tensor | None] = [None] * n_layers  # (N, H, capacity, hd) buffers
        self.self_v: list[Tensor | None] = [None] * n_layers
        self._spare: list[tuple[Tensor, Tensor] | None] = [None] * n_layers
        self.cross_k: list[Tensor | None] = [None] * n_layers
        self.cross_v: list[Tensor | None] = [None] * n_layers
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
                    self.cross_k[i], self.cross_v[i] = ck[index], cv[index]
        if self.units is not None:
            self.units = self.units[index]


def keep_mask(shape: torch.Size | tuple[int, ...], p: float, device: torch.device) -> Tensor:
    """A bool mask of `shape`, each element True with probability 1 - round(p * 2**16) / 2**16.

    Four 16-bit uniforms per 64-bit draw of the default generator (torch.randint's CPU kernel
    makes one draw per element whatever the dtype, so this is 4× fewer draws than an int16 tensor
    and ~8× fewer than torch.rand + compare).
    """
    n = math.prod(shape)
    bits = torch.randint(-(2**63), 2**63 - 1, ((n + 3) // 4,), dtype=torch.int64, device=device)
    u16 = bits.view(torch.int16)[:n].view(shape)  # uniform on [-2**15, 2**15)
    return u16 >= -(2**15) + round(p * 2**16)


def dropout(x: Tensor, p: float, training: bool) -> Tensor:
    """Inverted dropout (Srivastava et al. 2014) with `keep_mask`: y = x * m / (1 - p'), where p'
    is p rounded to a multiple of 2**-16; the identity when not training or p = 0."""
    if not training or p <= 0.0:
        return x
    k = round(p * 2**16)
    if k >= 2**16:
        return torch.zeros_like(x)
    # bool -> uint8 view -> x.dtype is ~8x faster on CPU than converting the bool tensor directly
    m = keep_mask(x.shape, p, x.device).view(torch.uint8).to(x.dtype).mul_(2**16 / (2**16 - k))
    return x * m  # autograd saves m: the backward pass is grad * m


class Dropout(nn.Module):
    """`dropout` as a module (no parameters, so checkpoints are unchanged)."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        """x with elements zeroed with probability p (scaled to keep the mean) in training."""
        return dropout(x, self.p, self.training)


def _attend(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, causal: bool, p: float) -> Tensor:
    """softmax(q k^T / sqrt(hd) masked) with dropout p, times v: SDPA's reference computation.

    q (B, H, T, hd), k / v (B, H, S, hd), `mask` (B|1, 1, T|1, S) True = attend.
    """
    s = (q @ k.transpose(-2, -1)) * (q.size(-1) ** -0.5)  # (B, H, T, S)
    if causal:
        T, S = s.shape[-2:]
        s = s.masked_fill(torch.ones(T, S, dtype=torch.bool, device=s.device).triu(1), -math.inf)
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf)
    a = dropout(torch.softmax(s, dim=-1), p, True)
    return a @ v  # (B, H, T, hd)


def _heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, C) -> (B, H, T, C/H)."""
    B, T, C = x.shape
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def _merge(y: Tensor) -> Tensor:
    """(B, H, T, hd) -> (B, T, C)."""
    B, H, T, hd = y.shape
    return y.transpose(1, 2).reshape(B, T, H * hd)


class SelfAttention(nn.Module):
    """Multi-head self-attention; causal and cached in the decoder."""

    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.n_heads, self.dropout = n_heads, dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(
        self,
        x: Tensor,
        mask: Tensor | None = None,
        causal: bool = False,
        cache: KVCache | None = None,
        layer: int = 0,
    ) -> Tensor:
        """`mask` (B|1, 1, T|1, S) True = attend; `causal` without a cache prefix."""
        C = x.size(-1)
        q, k, v = self.qkv(x).split(C, dim=2)  # (B, T, C) each
        q, k, v = _heads(q, self.n_heads), _heads(k, self.n_heads), _heads(v, self.n_heads)
        if cache is not None:
            k, v = cache.append(layer, k, v)  # (B, H, t0+T, hd) views of the cache's buffers
        if self.training and self.dropout > 0:
            y = _attend(q, k, v, mask, causal, self.dropout)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        return self.proj(_merge(y))  # (B, T, C)


class CrossAttention(nn.Module):
    """Multi-head attention from the decoder to the encoder memory (K/V cached once)."""

    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.n_heads, self.dropout = n_heads, dropout
        self.q = nn.Linear(d_model, d_model)
        self.kv = nn.Linear(d_model, 2 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(
        self, x: Tensor, memory: Tensor, mask: Tensor, cache: KVCache | None = None, layer: int = 0
    ) -> Tensor:
        """`mask` (B, 1, 1, S) True where the source is not padding."""
        q = _heads(self.q(x), self.n_heads)  # (B, H, T, hd)
        if cache is not None and cache.cross_k[layer] is not None:
            k, v = cache.cross_k[layer], cache.cross_v[layer]
        else:
            k, v = self.kv(memory).split(memory.size(-1), dim=2)  # (B, S, C) each
            k, v = _heads(k, self.n_heads), _heads(v, self.n_heads)  # (B, H, S, hd)
            if cache is not None:
                cache.cross_k[layer], cache.cross_v[layer] = k, v
        assert k is not None and v is not None
        if self.training and self.dropout > 0:
            y = _attend(q, k, v, mask, False, self.dropout)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.proj(_merge(y))  # (B, T, C)


class FeedForward(nn.Module):
    """Position-wise Linear–GELU–Linear."""

    def __init__(self, d_model: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.up, self.down = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.drop = Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """(B, T, C) -> (B, T, C)."""
        return self.down(self.drop(F.gelu(self.up(x))))


class EncoderLayer(nn.Module):
    """Pre-norm self-attention + feed-forward."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d_model), nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(cfg.d_model, cfg.d_ff, cfg.dropout)
        self.drop = Dropout(cfg.dropout)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        """(B, S, C) -> (B, S, C)."""
        x = x + self.drop(self.attn(self.ln1(x), mask=mask))
        return x + self.drop(self.ff(self.ln2(x)))


class DecoderLayer(nn.Module):
    """Pre-norm causal self-attention + cross-attention + feed-forward."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_attn = SelfAttention(d, cfg.n_heads, cfg.dropout)
        self.cross_attn = CrossAttention(d, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(d, cfg.d_ff, cfg.dropout)
        self.drop = Dropout(cfg.dropout)

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        src_mask: Tensor,
        self_mask: Tensor | None,
        causal: bool,
        cache: KVCache | None,
        layer: int,
    ) -> Tensor:
        """(B, T, C) -> (B, T, C)."""
        x = x + self.drop(self.self_attn(self.ln1(x), self_mask, causal, cache, layer))
        x = x + self.drop(self.cross_attn(self.ln2(x), memory, src_mask, cache, layer))
        return x + self.drop(self.ff(self.ln3(x)))


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
        self.embed = nn.Embedding(V, D)
        self.enc_layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.enc_layers))
        self.dec_layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.dec_layers))
        self.enc_norm, self.dec_norm = nn.LayerNorm(D), nn.LayerNorm(D)
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
        x = self.embed(src) * math.sqrt(self.cfg.d_model) + self.position_table(S, src.device)
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
        x = self.decode_hidden(tgt_in, memory, src_pad, tgt_len, cache)  # (B, T, D)
        return self.project(x)  # (B, T, V)

    def project(self, x: Tensor) -> Tensor:
        """Decoder states (..., D) -> logits (..., V) through the tied output projection."""
        if self.out_proj is not None:
            return self.out_proj(x)
        return x @ self.embed.weight.t()

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
                cfg.encoding, pos, length.clamp(min=0), cfg.d_model, cfg.rel_classes
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
            x = layer(x, memory, src_mask, self_mask, causal, cache, i)
        if cache is not None:
            cache.steps = t0 + T
            cache.units = pos[:, -1]
        return self.dec_norm(x)  # (B, T, D)

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
