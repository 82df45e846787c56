"""LDPE / LRPE added to a Marian decoder's sinusoidal position encoding (the `+pe` methods).

Takase & Okazaki 2019 (sec. 3.2-3.3, "+PE"): the decoder input at position pos gets the
ordinary position encoding PE(pos) plus a length encoding of the remaining or relative length,
    LDPE(pos, len, 2i) = sin((len - pos) / 10000^(2i/d))      (eq. 3-4)
    LRPE(pos, len, 2i) = sin(pos / len^(2i/d))                (eq. 5-6)
(cosines at 2i+1; the formulas live in `fitsub.nmt.length_encodings`). Marian's decoder positions are
the fixed sinusoids of Vaswani et al., so the length term is added to them without new
parameters: `LengthPositions` wraps `model.model.decoder.embed_positions` and adds the term for
the lengths set in `lengths` (one per decoder row; `None`: no length, the plain encoding).
Positions and lengths count subwords: the decoder input at position t (start token first) comes
after t generated pieces, so `len - pos` is 0 where the model should predict EOS.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from fitsub.nmt.length_encodings import length_encoding

PE_METHODS = ("ldpe+pe", "lrpe+pe")


class LengthPositions(nn.Module):
    """Marian's sinusoidal positions plus a length encoding (module doc); no parameters."""

    def __init__(self, base: nn.Module, encoding: str, d_model: int) -> None:
        super().__init__()
        if encoding not in PE_METHODS:
            raise ValueError(f"unknown length encoding {encoding!r}")
        self.base, self.encoding, self.d_model = base, encoding, d_model
        self.lengths: Tensor | None = None  # (rows,) requested length in pieces

    def forward(
        self, input_ids_shape: Any, past_key_values_length: int = 0, position_ids: Any = None
    ) -> Tensor:
        pe: Tensor = self.base(input_ids_shape, past_key_values_length, position_ids=position_ids)
        if self.lengths is None:
            return pe
        seq = int(input_ids_shape[1])
        if position_ids is None:
            pos = torch.arange(
                past_key_values_length, past_key_values_length + seq, device=pe.device
            )
            pos = pos[None, :].expand(self.lengths.numel(), seq)
        else:
            pos = position_ids.to(pe.device).expand(self.lengths.numel(), -1)
        lens = self.lengths.to(pe.device)[:, None].expand_as(pos)
        term = length_encoding(self.encoding, pos, lens, self.d_model)  # (rows, seq, d)
        return pe + term.to(pe.dtype)


def attach(model: Any, encoding: str) -> LengthPositions:
    """Wrap a Marian model's decoder positions with `encoding`; returns the wrapper."""
    decoder = model.get_decoder()
    current = decoder.embed_positions
    if isinstance(current, LengthPositions):
        return current
    wrapper = LengthPositions(current, encoding, int(model.config.d_model))
    decoder.embed_positions = wrapper
    return wrapper


def detach(model: Any) -> None:
    """Put the plain position module back (before `save_pretrained`: same weights as the base)."""
    decoder = model.get_decoder()
    if isinstance(decoder.embed_positions, LengthPositions):
        decoder.embed_positions = decoder.embed_positions.base
