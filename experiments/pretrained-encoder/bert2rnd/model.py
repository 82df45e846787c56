"""The BERT2RND translation model (Rothe, Narayan & Severyn 2020, "Leveraging Pre-trained
Checkpoints for Sequence Generation Tasks", TACL: a pretrained BERT encoder under a randomly
initialised Transformer decoder).

The encoder is a BERT-like `transformers` model (all-MiniLM-L6-v2 in the study), frozen; what it
does not see, the source's casing, comes back as a learned case embedding per WordPiece token
(`bert2rnd.case`). The memory the decoder attends to is

    m_s = LayerNorm(W (h_s + C[case_s]) + b)

h_s the encoder's last layer (width H), C the (4, H) case embedding, W the H -> d_model bridge.
The decoder is fitsub's own (`fitsub.nmt.model.Transformer` with no encoder layers): the same
length encoding, target SentencePiece model and search, so only the encoder differs.

A source is one packed id per WordPiece token (`bert2rnd.case.pack`: id * 4 + case), so
`encode` takes the (B, S) id matrix that `fitsub.nmt.search.beam_search` passes, padding 0. With
a frozen encoder, training runs on states computed once (`bert2rnd.encoder`) through
`memory`, and the encoder is needed only to translate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import torch
from torch import Tensor, nn

from bert2rnd.case import N_CASES
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.model import Transformer


class Bert2Rnd(Transformer):
    """A frozen pretrained encoder, case embedding and bridge under fitsub's decoder."""

    def __init__(
        self,
        cfg: ModelConfig,
        encoder: nn.Module | None,
        encoder_dim: int,
        piece_chars: Sequence[int] | None = None,
        leading_space: Sequence[int] | None = None,
    ) -> None:
        super().__init__(replace(cfg, enc_layers=0), piece_chars, leading_space)
        self.encoder_dim = encoder_dim
        self.case_embed = nn.Embedding(N_CASES, encoder_dim)
        self.bridge = nn.Linear(encoder_dim, cfg.d_model)
        self.bridge_norm = nn.LayerNorm(cfg.d_model)
        nn.init.zeros_(self.case_embed.weight)  # starts as the plain encoder states
        nn.init.normal_(self.bridge.weight, std=encoder_dim**-0.5)
        nn.init.zeros_(self.bridge.bias)
        self.encoder = encoder  # assigned after the decoder's initialisation: left as loaded
        if encoder is not None:
            encoder.requires_grad_(False)
            encoder.eval()

    def train(self, mode: bool = True) -> Bert2Rnd:
        """Training mode for the decoder; the frozen encoder stays in eval mode (no dropout)."""
        super().train(mode)
        if self.encoder is not None:
            self.encoder.eval()
        return self

    def memory(self, states: Tensor, cases: Tensor, src_pad: Tensor) -> tuple[Tensor, Tensor]:
        """Encoder states (B, S, H), case classes (B, S), padding (B, S) -> memory (B, S, D), padding."""
        x = self.drop(states.to(self.bridge.weight.dtype) + self.case_embed(cases))
        return self.bridge_norm(self.bridge(x)), src_pad

    def encoder_states(self, ids: Tensor, src_pad: Tensor) -> Tensor:
        """The frozen encoder's last layer (B, S, H) for WordPiece ids (B, S)."""
        if self.encoder is None:
            raise RuntimeError("this model was built without its encoder (cached states only)")
        with torch.no_grad():
            out = self.encoder(input_ids=ids, attention_mask=(~src_pad).long())
        states: Tensor = out.last_hidden_state
        return states

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """Packed source ids (B, S) (id * 4 + case, 0 padding) -> memory (B, S, D), padding (B, S)."""
        ids, cases = src.div(N_CASES, rounding_mode="floor"), src.remainder(N_CASES)
        src_pad = src.eq(0)
        return self.memory(self.encoder_states(ids, src_pad), cases, src_pad)

    def trainable_parameters(self) -> int:
        """Parameters that training updates (the decoder, case embedding and bridge)."""
        return sum(p.numel() for p in self.parameters() if p.requires_grad)
