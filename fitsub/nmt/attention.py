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
* **Rarity**: how unfamiliar the English source is to the model, read off the SentencePiece
  unigram model the checkpoint ships (no extra file): the pieces each source word is split
  into (a word seen often in training is one piece, a rare one many) and the word's unigram
  log-probability, the sum of its pieces' scores (`word_rarity`).
* **Output words**: which output word each piece of the forced output belongs to
  (`output_word_index`), for the target-side signals of `fitsub.quality.target`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor, nn

from fitsub.nmt.layers import CrossAttention
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import SPACE_MARK


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


def word_rarity(
    tokenizer: Tokenizer, ids: Sequence[int]
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """(pieces, unigram log-probability) of each source word of `ids` with a letter in it: a
    word starts at a piece beginning with `▁`; only its pieces with a letter count ("(Applause)"
    is the two pieces of "Applause"), and its log-probability is the sum of their SentencePiece
    scores (the unigram model's log-probabilities)."""
    words: list[list[int]] = []
    for i, keep in zip(ids, source_positions(tokenizer, ids), strict=True):
        if keep:
            piece = tokenizer.sp.id_to_piece(int(i))
            if piece.startswith(SPACE_MARK) or not words:
                words.append([])
            words[-1].append(int(i))
    unk = tokenizer.unk_id
    lettered = [
        [i for i in w if i == unk or _has_letter(tokenizer.sp.id_to_piece(i))] for w in words
    ]
    kept = [w for w in lettered if w]
    pieces = tuple(len(w) for w in kept)
    logprobs = tuple(float(sum(_piece_score(tokenizer, i) for i in w)) for w in kept)
    return pieces, logprobs


def output_word_index(tokenizer: Tokenizer, ids: Sequence[int]) -> tuple[int, ...]:
    """For each output piece of `ids`, the index of the word it belongs to (a word starts at a
    piece beginning with `▁`, or after a piece without a letter), -1 for a piece without a
    letter (punctuation, digits) and for special tokens (the end of sentence): the grouping
    `fitsub.quality.target` sums a word's log-probability over."""
    out: list[int] = []
    word, open_word = -1, False
    for i in ids:
        i = int(i)
        piece = (
            "" if tokenizer.is_special(i) and i != tokenizer.unk_id else tokenizer.sp.id_to_piece(i)
        )
        if not (i == tokenizer.unk_id or _has_letter(piece)):
            out.append(-1)
            open_word = False
            continue
        if piece.startswith(SPACE_MARK) or not open_word:
            word += 1
            open_word = True
        out.append(word)
    return tuple(out)


def source_positions(tokenizer: Tokenizer, ids: Sequence[int]) -> list[bool]:
    """True at the pieces of the source text itself (an unknown piece included), False at the
    end-of-source token and the length / language tags."""
    return [int(i) == tokenizer.unk_id or not tokenizer.is_special(int(i)) for i in ids]


def _has_letter(piece: str) -> bool:
    return any(c.isalpha() for c in piece)


def _piece_score(tokenizer: Tokenizer, i: int) -> float:
    """A piece's unigram log-probability; an unknown piece scores as SentencePiece penalises it,
    10 under the least likely piece."""
    if i == tokenizer.unk_id:
        return _lowest_score(tokenizer) - 10.0
    return float(tokenizer.sp.get_score(i))


_LOWEST: weakref.WeakKeyDictionary[Tokenizer, float] = weakref.WeakKeyDictionary()


def _lowest_score(tokenizer: Tokenizer) -> float:
    """The least likely piece's score (computed once per tokenizer)."""
    if tokenizer not in _LOWEST:
        scores = (tokenizer.sp.get_score(i) for i in range(tokenizer.vocab_size))
        _LOWEST[tokenizer] = min(
            float(x) for i, x in enumerate(scores) if not tokenizer.is_special(i)
        )
    return _LOWEST[tokenizer]
