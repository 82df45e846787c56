"""The Levenshtein Transformer (Gu et al. 2019) over fitsub's Transformer, with perturbed LDPE in
its placeholder classifier (Oka et al. 2021).

Gu et al. 2019 ("Levenshtein Transformer", NeurIPS) generate by editing: a sequence y (BOS ...
EOS) is refined by three policies read off one bidirectional decoder's states h (B, T, D):

* deletion (eq. 4):      pi_del(d_i | i, y)     = softmax(h_i A^T),            A (2, D)
* placeholders (eq. 5):  pi_plh(p_i | i, y)     = softmax([h_i ; h_i+1] B^T),  B (K+1, 2D),
  p_i in 0..K placeholders to insert between tokens i and i+1 (K = 255, as fairseq)
* tokens (eq. 6):        pi_tok(t_i | i, y)     = softmax(h_i C^T), C the tied embedding,
  one token for every placeholder

The three passes share the decoder (fairseq's default, "shared"), each on its own input. The
decoder input at position t (BOS at t = 0) is

    x_t = sqrt(d) * (E[y_t] or w if y_t is a placeholder) + PE(t)                    (del, tok)
    x_t = sqrt(d) * E[y_t] + [PE(t)] + LE(t, len + per)                             (plh)

Oka et al. 2021 (sec. 3.2) add the perturbed length-difference encoding (perLDPE, eq. 1-2) only
to the placeholder classifier's input, the one pass that decides the length; the other two keep
ordinary position encodings. LE is the model's length encoding (LDPE / LRPE, `fitsub.nmt.length_encodings`,
in pieces: pos t = pieces up to and including t, so at the last target piece len - pos = 0), PE is
present in the placeholder pass when the method has it (`ldpe+pe`), and `per` is the training-time
perturbation in the model's noise window (the paper's student: [0, 2]). `len` is the target's
piece count in training and the requested length (or the source proxy) at inference, so the
placeholder classifier sees at every slot how many pieces are still missing. `sinusoidal` (method
`baseline`) gives the paper's baseline LevT. Placeholders are marked by the unk id in input tensors
(as fairseq does) and embedded with one learnt vector w.

Training (sec. 3.2, "Imitation learning", as fairseq's implementation by the same authors), per
target y* (`LevT.forward`, `fitsub.nat.levt_oracle`):

1. roll-in for insertion: y' = y* with a random share of its pieces dropped (random word dropping);
   the expert (`edits`) gives the placeholder counts p* of each slot of y' and the placeholder
   positions of y*; loss L_plh = CE(pi_plh(y'), p*) (label smoothing 0.01, as fairseq);
2. token loss L_tok = label-smoothed CE(pi_tok(y* with placeholders), y*) at the placeholders;
3. roll-in for deletion: y'' = the placeholders filled with the model's own argmax tokens
   (no gradient); the expert's deletions d* of y'' w.r.t. y*; L_del = CE(pi_del(y''), d*).

The loss is L_plh + L_tok + L_del, each the mean over its positions. Simplification, also
fairseq's: the paper's mixture roll-ins (alpha: delete from the initial sequence; beta: insert into
the expert-corrected model output) are fixed to alpha = 0 (the initial sequence is empty here:
nothing to delete) and beta = 1 (insertion always learnt from random word dropping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from fitsub.nat.levt_oracle import edits
from fitsub.nat.model import OnTransformer
from fitsub.nmt.config import Arch
from fitsub.nmt.length_encodings import has_position_term, length_encoding, sinusoidal
from fitsub.nmt.loss import projected_nll

LEVT_ARCH: Arch = "levt"  # ModelConfig.arch of a LevT checkpoint
MAX_PLACEHOLDERS = 255  # per slot; the placeholder classifier has 256 classes (fairseq)
PLH_SMOOTHING = 0.01  # label smoothing of the placeholder loss (fairseq)


@dataclass(frozen=True)
class LevTTerms:
    """The named loss terms of one batch (means over their positions) and their sum."""

    loss: Tensor
    plh: Tensor
    tok: Tensor
    dele: Tensor


class LevT(OnTransformer):
    """Levenshtein Transformer over fitsub's Transformer (see the module docstring)."""

    kind = "LevT"

    def add_heads(self, d_model: int) -> None:
        """The placeholder embedding, the placeholder classifier (B of eq. 5) and the deletion
        classifier (A of eq. 4); the token classifier is the tied output projection."""
        D = d_model
        self.plh_embed = nn.Parameter(torch.randn(D) * D**-0.5)
        self.plh_head = nn.Linear(2 * D, MAX_PLACEHOLDERS + 1, bias=False)  # B of eq. 5
        self.del_head = nn.Linear(D, 2, bias=False)  # A of eq. 4
        nn.init.normal_(self.plh_head.weight, std=0.02)
        nn.init.normal_(self.del_head.weight, std=0.02)

    @property
    def plh_id(self) -> int:
        """The id that marks a placeholder in decoder inputs (unk, as fairseq)."""
        return self.cfg.unk_id

    def decode_hidden(
        self,
        y: Tensor,
        memory: Tensor,
        src_pad: Tensor,
        tgt_len: Tensor | None = None,
        length_aware: bool = False,
    ) -> Tensor:
        """y (B, T) BOS ... EOS + pad (placeholders = unk) -> decoder states (B, T, D).

        `length_aware`: the placeholder pass (PE only if the method has it, plus LE of
        `tgt_len`, < 0 or None: none); otherwise the ordinary PE (deletion and token passes)."""
        cfg, base = self.cfg, self.base
        B, T = y.shape
        scale = math.sqrt(cfg.d_model)
        x = base.embed(y) * scale  # (B, T, D)
        x = torch.where(y.eq(self.plh_id)[:, :, None], (self.plh_embed * scale).to(x.dtype), x)
        pos = torch.arange(T, device=y.device)  # (T,) pieces up to and including t (BOS 0)
        if not length_aware or has_position_term(cfg.encoding):
            x = x + sinusoidal(pos, cfg.d_model)
        if length_aware and cfg.encoding != "sinusoidal" and tgt_len is not None:
            length = tgt_len.to(torch.float32)[:, None]  # (B, 1)
            le = length_encoding(
                encoding=cfg.encoding,
                pos=pos.expand(B, T),
                length=length.clamp(min=0),
                d_model=cfg.d_model,
                n_classes=cfg.rel_classes,
            )  # (B, T, D)
            x = x + le * length.ge(0)[:, :, None]
        x = base.drop(x)
        src_mask = ~src_pad[:, None, None, :]  # (B, 1, 1, S)
        self_mask = y.ne(cfg.pad_id)[:, None, None, :]  # (B, 1, 1, T) bidirectional, no pads
        return self.bidirectional(x, memory, src_mask=src_mask, self_mask=self_mask)  # (B, T, D)

    def placeholder_logits(
        self, y: Tensor, memory: Tensor, src_pad: Tensor, tgt_len: Tensor | None
    ) -> Tensor:
        """(B, T-1, K+1) scores of 0..K placeholders in each slot between y_t and y_t+1 (eq. 5)."""
        h = self.decode_hidden(y, memory, src_pad, tgt_len, length_aware=True)
        result: Tensor = self.plh_head(torch.cat((h[:, :-1], h[:, 1:]), dim=-1))
        return result

    def deletion_logits(self, y: Tensor, memory: Tensor, src_pad: Tensor) -> Tensor:
        """(B, T, 2) scores of keeping (0) / deleting (1) each token (eq. 4)."""
        result: Tensor = self.del_head(self.decode_hidden(y, memory, src_pad))
        return result

    def token_hidden(self, y: Tensor, memory: Tensor, src_pad: Tensor) -> Tensor:
        """(B, T, D) states whose projection on the embedding scores the tokens (eq. 6)."""
        return self.decode_hidden(y, memory, src_pad)

    def banned(self) -> Tensor:
        """(V,) pieces never generated: those adding no characters (pad, BOS, EOS, unk, tags)."""
        return self.piece_chars.eq(0)

    def forward(
        self, src: Tensor, tgt: Tensor, prev: Tensor, tgt_len: Tensor | None, eps: float = 0.1
    ) -> LevTTerms:
        """The imitation-learning losses of one batch (module docstring, steps 1-3).

        src (B, S); tgt (B, T) BOS y* EOS + pad; prev (B, T') the insertion roll-in (a
        subsequence of tgt, `random_deletion`); tgt_len (B,) the (perturbed) length signal."""
        cfg = self.cfg
        pad = cfg.pad_id
        memory, src_pad = self.encode(src)
        # 1. placeholders: expert counts for each slot of the roll-in
        ex = edits(prev, tgt, pad)
        slots = prev[:, 1:].ne(pad)  # (B, T'-1)
        plh_logits = self.placeholder_logits(prev, memory, src_pad, tgt_len)
        target = ex.insert.clamp(max=MAX_PLACEHOLDERS)[slots]
        l_plh = F.cross_entropy(plh_logits[slots].float(), target, label_smoothing=PLH_SMOOTHING)
        # 2. tokens at the expert's placeholders
        plh = ex.placeholder  # (B, T)
        masked = tgt.masked_fill(plh, self.plh_id)
        hidden = self.token_hidden(masked, memory, src_pad)  # (B, T, D)
        tok_target = tgt.masked_fill(~plh, pad)
        n_plh = max(int(plh.sum()), 1)
        l_tok = (
            projected_nll(
                hidden=hidden, weight=self.embed.weight, target=tok_target, pad=pad, eps=eps
            )
            / n_plh
        )
        # 3. deletion: the model's own tokens in the placeholders, judged by the expert
        with torch.no_grad():
            scores = hidden[plh] @ self.embed.weight.t()  # (P, V)
            guess = scores.float().masked_fill(self.banned(), float("-inf")).argmax(-1)
            filled = tgt.clone()
            filled[plh] = guess
        wrong = edits(filled, tgt, pad).delete  # (B, T)
        inner = filled.ne(pad) & filled.ne(cfg.bos_id) & filled.ne(cfg.eos_id)
        del_logits = self.deletion_logits(filled, memory, src_pad)
        l_del = F.cross_entropy(del_logits[inner].float(), wrong[inner].long())
        return LevTTerms(l_plh + l_tok + l_del, l_plh, l_tok, l_del)

    def num_parameters(self) -> int:
        """Number of parameters (the tied embedding counted once)."""
        return sum(p.numel() for p in self.parameters())
