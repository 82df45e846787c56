"""Decoder position / length encodings as pure functions of (pos, len, d_model) tensors.

Every function returns a tensor of shape `pos.shape + (d_model,)`: even dimensions `2i` hold a
sine, odd dimensions `2i+1` the cosine of the same argument (the interleaving of Vaswani et al.
2017, eq. 1-2, with the exponent `2i/d` for both members of a pair).

* `sinusoidal` (Vaswani et al. 2017):      PE(pos, 2i)    = sin(pos / 10000^(2i/d))
* `ldpe` (Takase & Okazaki 2019, eq. 3-4):  LDPE(pos, len, 2i) = sin((len - pos) / 10000^(2i/d))
* `lrpe` (Takase & Okazaki 2019, eq. 5-6):  LRPE(pos, len, 2i) = sin(pos / len^(2i/d))
* `lakew_abs` (Lakew et al. 2019, eq. 3-4): LE_abs(len, pos, 2i) = sin((len - pos) / 10000^(2i/d))
* `lakew_rel` (Lakew et al. 2019, eq. 5-6): LE_rel(len, pos, 2i) = sin(q_N(pos / len) / 10000^(2i/d)),
  with q_N(x) = floor(x * N), clamped to {0, ..., N}
(and the cosine of the same argument at `2i+1`). Lakew's text writes the exponent of the odd
members as (2i+1)/d; we use 2i/d as Vaswani and Takase do, so that LE_abs equals LDPE.

Converted models only (`ModelConfig.positions`): `fairseq_sinusoidal` (tensor2tensor / fairseq)
is the sine of pos / 10000^(i/(d/2-1)) at dimension i < d/2 and the cosine at i + d/2 (halves,
not interleaved), fairseq counting positions from padding_idx + 1 = 2 (`FAIRSEQ_POSITION_OFFSET`).

`pos` and `len` are counted in the model's length unit (`fitsub.units.LengthUnit`): subwords, or
characters, where the position of a subword is the number of characters of the pieces before it
and `len` is the requested length in characters (Lakew). The decoder input at step t (BOS first)
encodes the units already emitted, so `len - pos` is the remaining length and reaches 0 exactly
where the model should predict EOS (see `fitsub.nmt.model.Transformer.unit_positions`).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from fitsub.nmt.config import has_position_term as has_position_term  # (its home: no torch)

BASE = 10000.0


def _exponents(d_model: int, device: torch.device) -> Tensor:
    """(d_model/2,) the exponents 2i/d for i = 0 .. d/2 - 1."""
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    return torch.arange(0, d_model, 2, device=device, dtype=torch.float32) / d_model


def _interleave(angle: Tensor) -> Tensor:
    """(..., d/2) angles -> (..., d) with sin at even and cos at odd dimensions."""
    return torch.stack((torch.sin(angle), torch.cos(angle)), dim=-1).flatten(-2)


def sinusoid(x: Tensor, d_model: int, base: float | Tensor = BASE) -> Tensor:
    """sin / cos of `x / base^(2i/d)`; `base` may be a tensor broadcastable to `x`."""
    x = x.to(torch.float32)
    expo = _exponents(d_model, x.device)  # (d/2,)
    if isinstance(base, Tensor):
        denom = base.to(torch.float32).unsqueeze(-1) ** expo  # (..., d/2)
    else:
        denom = torch.tensor(base, device=x.device) ** expo  # (d/2,)
    return _interleave(x.unsqueeze(-1) / denom)  # (..., d)


def sinusoidal(pos: Tensor, d_model: int) -> Tensor:
    """The ordinary position encoding PE(pos) (Vaswani et al. 2017, eq. 1-2)."""
    return sinusoid(pos, d_model)


FAIRSEQ_POSITION_OFFSET = 2  # fairseq's first position: its dictionaries' padding_idx (1) + 1


def fairseq_sinusoidal(pos: Tensor, d_model: int) -> Tensor:
    """fairseq's `SinusoidalPositionalEmbedding` table at `pos` (already offset): sin / cos
    halves of pos * exp(-i ln(10000) / (d/2 - 1)), i = 0 .. d/2 - 1."""
    half = d_model // 2
    if d_model % 2 or half < 2:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    freq = torch.exp(
        torch.arange(half, dtype=torch.float32, device=pos.device) * -(math.log(BASE) / (half - 1))
    )
    angle = pos.to(torch.float32).unsqueeze(-1) * freq  # (..., d/2)
    return torch.cat((torch.sin(angle), torch.cos(angle)), dim=-1)  # (..., d)


def ldpe(pos: Tensor, length: Tensor, d_model: int) -> Tensor:
    """Length-difference encoding: sin/cos of (len - pos) / 10000^(2i/d) (Takase & Okazaki, eq. 3-4)."""
    return sinusoid(length - pos, d_model)


def lrpe(pos: Tensor, length: Tensor, d_model: int) -> Tensor:
    """Length-ratio encoding: sin/cos of pos / len^(2i/d) (Takase & Okazaki, eq. 5-6); len >= 1."""
    base = length.to(torch.float32).clamp(min=1.0).expand_as(pos)
    return sinusoid(pos, d_model, base=base)


def lakew_abs(pos: Tensor, length: Tensor, d_model: int) -> Tensor:
    """Lakew et al.'s absolute length encoding (eq. 3-4): the remaining length len - pos."""
    return sinusoid(length - pos, d_model)


def quantise(pos: Tensor, length: Tensor, n_classes: int) -> Tensor:
    """Lakew's q_N(pos / len) = floor(pos / len * N), clamped to {0, ..., N}; len >= 1."""
    ratio = pos.to(torch.float32) / length.to(torch.float32).clamp(min=1.0)
    return torch.floor(ratio * n_classes).clamp(0, n_classes)


def lakew_rel(pos: Tensor, length: Tensor, d_model: int, n_classes: int = 5) -> Tensor:
    """Lakew et al.'s relative length encoding (eq. 5-6): the sinusoid of q_N(pos / len)."""
    return sinusoid(quantise(pos, length, n_classes), d_model)


def length_encoding(
    encoding: str, pos: Tensor, length: Tensor, d_model: int, n_classes: int = 5
) -> Tensor:
    """The length term of a decoder `encoding` (a name in `fitsub.nmt.config.ENCODINGS`).

    `sinusoidal` has no length term (zeros). The `+pe` variants and Lakew's encodings are the
    length term *added to* the ordinary encoding of the token index, which the model adds itself
    (see `has_position_term`).
    """
    if encoding == "sinusoidal":
        return torch.zeros(*pos.shape, d_model, device=pos.device)
    if encoding in ("ldpe", "ldpe+pe"):
        return ldpe(pos, length, d_model)
    if encoding in ("lrpe", "lrpe+pe"):
        return lrpe(pos, length, d_model)
    if encoding == "lakew-abs":
        return lakew_abs(pos, length, d_model)
    if encoding == "lakew-rel":
        return lakew_rel(pos, length, d_model, n_classes)
    raise ValueError(f"unknown encoding {encoding!r}")
