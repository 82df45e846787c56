"""The Transformer's layers: multi-head self- and cross-attention, the GELU feed-forward, and
the pre-norm encoder and decoder layers (Vaswani et al. 2017), assembled by `fitsub.nmt.model`.

Pre-norm: LayerNorm before each sub-layer (post-norm, LayerNorm after each residual sum, for
models converted from fairseq: `ModelConfig.norm_first`), `F.scaled_dot_product_attention` for
attention.

Training speed (inference computes exactly what it did before these): dropout masks come from 16
random bits per element, four per 64-bit draw (`dropout`), instead of one float draw each; while
training with attention dropout, attention is computed by `_attend` (the same product, masking,
softmax and dropout on the probabilities as SDPA's reference path), so that dropout uses the same
fast masks. Both are CPU measures: on CUDA, dropout is PyTorch's fused kernel and attention with
dropout stays in SDPA's fused kernels (`dropout_p`), where a masked product built by hand would
cost more than it saves.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from fitsub.nmt.cache import KVCache
from fitsub.nmt.config import ModelConfig


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
    if x.device.type != "cpu":  # GPUs draw masks in the fused kernel, faster than by hand
        return F.dropout(x, p, training=True)
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


def split_heads(x: Tensor, n_heads: int) -> Tensor:
    """(B, T, C) -> (B, H, T, C/H)."""
    B, T, C = x.shape
    return x.view(B, T, n_heads, C // n_heads).transpose(1, 2)


def merge_heads(y: Tensor) -> Tensor:
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
        q, k, v = (
            split_heads(q, self.n_heads),
            split_heads(k, self.n_heads),
            split_heads(v, self.n_heads),
        )
        if cache is not None:
            k, v = cache.append(layer, k, v)  # (B, H, t0+T, hd) views of the cache's buffers
        if self.training and self.dropout > 0 and q.device.type == "cpu":
            y = _attend(q=q, k=k, v=v, mask=mask, causal=causal, p=self.dropout)
        else:
            p = self.dropout if self.training else 0.0  # fused kernels drop out on the GPU
            y = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=causal, dropout_p=p
            )
        result: Tensor = self.proj(merge_heads(y))  # (B, T, C)
        return result


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
        q = split_heads(self.q(x), self.n_heads)  # (B, H, T, hd)
        if cache is not None and cache.cross_k[layer] is not None:
            k, v = cache.cross_k[layer], cache.cross_v[layer]
        else:
            k, v = self.kv(memory).split(memory.size(-1), dim=2)  # (B, S, C) each
            k, v = split_heads(k, self.n_heads), split_heads(v, self.n_heads)  # (B, H, S, hd)
            if cache is not None:
                cache.cross_k[layer], cache.cross_v[layer] = k, v
        assert k is not None and v is not None
        if self.training and self.dropout > 0 and q.device.type == "cpu":
            y = _attend(q=q, k=k, v=v, mask=mask, causal=False, p=self.dropout)
        else:
            p = self.dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        result: Tensor = self.proj(merge_heads(y))  # (B, T, C)
        return result


class FeedForward(nn.Module):
    """Position-wise Linear–GELU–Linear (ReLU for `activation="relu"`, converted models)."""

    def __init__(self, d_model: int, d_ff: int, dropout: float, activation: str = "gelu") -> None:
        super().__init__()
        self.up, self.down = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.drop = Dropout(dropout)
        self.act = F.relu if activation == "relu" else F.gelu

    def forward(self, x: Tensor) -> Tensor:
        """(B, T, C) -> (B, T, C)."""
        result: Tensor = self.down(self.drop(self.act(self.up(x))))
        return result


class EncoderLayer(nn.Module):
    """Pre-norm self-attention + feed-forward (post-norm when `cfg.norm_first` is False)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d_model), nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(cfg.d_model, cfg.d_ff, cfg.dropout, cfg.activation)
        self.drop = Dropout(cfg.dropout)
        self.norm_first = cfg.norm_first

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        """(B, S, C) -> (B, S, C)."""
        if not self.norm_first:  # post-norm: x = LN(x + sublayer(x))
            x = self.ln1(x + self.drop(self.attn(x, mask=mask)))
            post: Tensor = self.ln2(x + self.drop(self.ff(x)))
            return post
        x = x + self.drop(self.attn(self.ln1(x), mask=mask))
        result: Tensor = x + self.drop(self.ff(self.ln2(x)))
        return result


class DecoderLayer(nn.Module):
    """Pre-norm causal self-attention + cross-attention + feed-forward (post-norm when
    `cfg.norm_first` is False)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.self_attn = SelfAttention(d, cfg.n_heads, cfg.dropout)
        self.cross_attn = CrossAttention(d, cfg.n_heads, cfg.dropout)
        self.ff = FeedForward(d, cfg.d_ff, cfg.dropout, cfg.activation)
        self.drop = Dropout(cfg.dropout)
        self.norm_first = cfg.norm_first

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
        if not self.norm_first:  # post-norm: x = LN(x + sublayer(x))
            a = self.self_attn(x, mask=self_mask, causal=causal, cache=cache, layer=layer)
            x = self.ln1(x + self.drop(a))
            a = self.cross_attn(x, memory=memory, mask=src_mask, cache=cache, layer=layer)
            x = self.ln2(x + self.drop(a))
            post: Tensor = self.ln3(x + self.drop(self.ff(x)))
            return post
        a = self.self_attn(self.ln1(x), mask=self_mask, causal=causal, cache=cache, layer=layer)
        x = x + self.drop(a)
        a = self.cross_attn(self.ln2(x), memory=memory, mask=src_mask, cache=cache, layer=layer)
        x = x + self.drop(a)
        result: Tensor = x + self.drop(self.ff(self.ln3(x)))
        return result
