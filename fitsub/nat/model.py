"""The CMLM: fitsub's Transformer with a bidirectional decoder over masked target pieces.

Conditional masked language model (Ghazvininejad et al. 2019, "Mask-Predict: Parallel Decoding of
Conditional Masked Language Models", sec. 2): the decoder sees the whole target of a *given*
number of pieces N, some of them replaced by [MASK], with no causal mask, and predicts the piece
at every masked position independently given the source and the unmasked pieces.

Composition, not a new network: `CMLM.base` is a `fitsub.nmt.model.Transformer` (the same tied
embedding, encoder, `DecoderLayer`s and final norms; the AR decoder layers are called with
`causal=False` and a padding mask), plus one learnt [MASK] embedding. Weight names are the AR
model's with a `base.` prefix, so an AR checkpoint (e.g. the distillation teacher) can initialise
a CMLM (`fitsub train --arch cmlm --init-from TEACHER`).

Decoder input at target position t = 0 .. N-1 (no BOS; pad beyond N):

    x_t = sqrt(d) * (E[y_t] or m if y_t is masked) + [PE(t + 1)] + LE(t + 1, len)

PE is present for the encodings that have it (`has_position_term`); LE is the model's length
encoding (LDPE / LRPE, Takase & Okazaki 2019, eq. 3-6) in *piece* units whatever the AR model
used: pos_t = t + 1 pieces up to and including position t, so len - pos_t is the number of pieces
after t (0 at the last one), as in `fitsub.nmt.model`. `len` is N at inference; in training it is
N + per with per drawn from the model's noise window (perturbed LDPE, Oka et al. 2021, eq. 1-2,
whose student uses a positive window [0, 2]). A row of `tgt_len` < 0 gets no LE term.

In the input tensor, masked positions hold `MASK` = the BOS id (which a CMLM target never
contains) and are embedded with the learnt [MASK] vector instead of BOS's row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from fitsub.nmt.config import Arch, ModelConfig
from fitsub.nmt.length_encodings import has_position_term, length_encoding, sinusoidal
from fitsub.nmt.model import Transformer

CMLM_ARCH: Arch = "cmlm"  # ModelConfig.arch of a CMLM checkpoint


class OnTransformer(nn.Module):
    """A non-autoregressive student built on fitsub's Transformer (`self.base`): its encoder,
    tied embedding and piece-length tables are the AR model's (CMLM here, `fitsub.nat.levt.LevT`)."""

    base: Transformer
    kind = "student"  # named in the length-unit error

    def __init__(
        self,
        cfg: ModelConfig,
        piece_chars: Sequence[int] | None = None,
        leading_space: Sequence[int] | None = None,
    ) -> None:
        super().__init__()
        if cfg.length_unit != "subword":
            raise ValueError(
                f"a {self.kind} counts its length encodings in pieces (length_unit subword)"
            )
        self.cfg = cfg
        self.base = Transformer(cfg, piece_chars, leading_space)
        self.add_heads(cfg.d_model)

    def add_heads(self, d_model: int) -> None:
        """The student's own parameters, created after the AR model's (the subclasses')."""

    @property
    def embed(self) -> nn.Embedding:
        """The tied embedding / output projection."""
        return self.base.embed

    @property
    def piece_chars(self) -> Tensor:
        """(V,) characters each piece adds (specials 0); see `fitsub.nmt.tokenizer`."""
        return self.base.piece_chars

    @property
    def leading_space(self) -> Tensor:
        """(V,) 1 for pieces whose leading `▁` detokenisation strips at the start."""
        return self.base.leading_space

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor]:
        """src (B, S) -> memory (B, S, D), src_pad (B, S): the AR model's encoder."""
        return self.base.encode(src)

    def bidirectional(
        self, x: Tensor, memory: Tensor, *, src_mask: Tensor, self_mask: Tensor
    ) -> Tensor:
        """The AR model's decoder layers and final norm over the embedded target `x`, every
        position attending to every position `self_mask` allows (no causal mask, no cache)."""
        for i, layer in enumerate(self.base.dec_layers):
            x = layer(
                x,
                memory=memory,
                src_mask=src_mask,
                self_mask=self_mask,
                causal=False,
                cache=None,
                layer=i,
            )
        result: Tensor = self.base.dec_norm(x)
        return result


class CMLM(OnTransformer):
    """Conditional masked language model over fitsub's Transformer (see the module docstring)."""

    kind = "CMLM"

    def add_heads(self, d_model: int) -> None:
        """The learnt [MASK] vector."""
        self.mask_embed = nn.Parameter(torch.randn(d_model) * d_model**-0.5)

    @property
    def mask_id(self) -> int:
        """The id that marks a masked position in decoder inputs (BOS; never a CMLM target)."""
        return self.cfg.bos_id

    def decode_hidden(
        self, tgt: Tensor, memory: Tensor, src_pad: Tensor, tgt_len: Tensor | None
    ) -> Tensor:
        """tgt (B, N) pieces / MASK / pad -> final decoder states (B, N, D), bidirectional."""
        cfg, base = self.cfg, self.base
        B, N = tgt.shape
        masked = tgt.eq(self.mask_id)  # (B, N)
        key_pad = tgt.eq(cfg.pad_id)  # (B, N)
        scale = math.sqrt(cfg.d_model)
        x = base.embed(tgt) * scale  # (B, N, D)
        x = torch.where(masked[:, :, None], (self.mask_embed * scale).to(x.dtype), x)
        pos = torch.arange(1, N + 1, device=tgt.device)  # (N,) pieces up to and including t
        if has_position_term(cfg.encoding):
            x = x + sinusoidal(pos, cfg.d_model)
        if cfg.encoding != "sinusoidal" and tgt_len is not None:
            length = tgt_len.to(torch.float32)[:, None]  # (B, 1)
            le = length_encoding(
                encoding=cfg.encoding,
                pos=pos.expand(B, N),
                length=length.clamp(min=0),
                d_model=cfg.d_model,
                n_classes=cfg.rel_classes,
            )  # (B, N, D)
            x = x + le * length.ge(0)[:, :, None]
        x = base.drop(x)
        src_mask = ~src_pad[:, None, None, :]  # (B, 1, 1, S)
        self_mask = ~key_pad[:, None, None, :]  # (B, 1, 1, N) attend to every non-pad piece
        return self.bidirectional(x, memory, src_mask=src_mask, self_mask=self_mask)  # (B, N, D)

    def decode(
        self, tgt: Tensor, memory: Tensor, src_pad: Tensor, tgt_len: Tensor | None
    ) -> Tensor:
        """Logits (B, N, V) for every target position."""
        return self.decode_hidden(tgt, memory, src_pad, tgt_len) @ self.base.embed.weight.t()

    def forward(
        self, src: Tensor, tgt_in: Tensor, tgt_len: Tensor | None, hidden: bool = False
    ) -> Tensor:
        """The trainer's call: `tgt_in` (B, N) masked targets (see `fitsub.train.nat_batches`);
        logits (B, N, V), or the decoder states (B, N, D) with `hidden`."""
        memory, src_pad = self.encode(src)
        if hidden:
            return self.decode_hidden(tgt_in, memory, src_pad, tgt_len)
        return self.decode(tgt_in, memory, src_pad, tgt_len)

    def num_parameters(self) -> int:
        """Number of parameters (the tied embedding counted once)."""
        return sum(p.numel() for p in self.parameters())
