"""The hard character budget inside a Hugging Face model's own search: a `LogitsProcessor`.

Lengths are visible characters (the unit of `fitsub.units`), counted per token from the
vocabulary (`PieceTable`): a SentencePiece `▁` is one space (a byte-level BPE `Ġ` likewise),
the first content piece's leading space is not counted (detokenisation drops it), and special
tokens (EOS, pad, unk, language tokens such as `__it__`, `ita_Latn`, `>>ita<<`, `<2it>`, the
length tokens `<short> <normal> <long>`) add 0 characters and are never generated except EOS.
A byte-fallback piece `<0xNN>` counts as one character (a multi-byte character then counts more
than once: the count can only over-estimate, so the budget still holds).

At every step, for each live hypothesis of the batch (`BudgetProcessor.__call__`):
* every token that would take it past its segment's `max_chars` gets -inf; EOS stays open, so
  no hypothesis can exceed its budget (per-segment budgets in one batch: row r belongs to
  segment r // num_beams, the layout `generate` uses);
* with a lower bound (`min_chars`, --min-ratio) EOS gets -inf while the hypothesis is shorter;
* `no_space` rows count characters without spaces (a piece adds its characters less its `▁`);
* whole words only (issue 11; the rule of `fitsub.nmt.bounds`, so both backends cut the same
  way). A continuation piece is a non-special piece that does not start with `▁` and whose
  first character is a letter or digit. `best` is the model's most likely next token before
  any budget masking (special tokens removed). For a live hypothesis whose last token is a text
  piece:
  - `best` a continuation piece that would exceed the budget: the word being written would be
    cut, so the hypothesis is killed (all its scores -inf), neither ended nor continued with
    another fragment;
  - `best` a continuation piece (the word is unfinished): only continuation pieces may follow,
    no EOS, no new word, no punctuation;
  - any continuation piece must be within `WORD_MARGIN` nats of `best` (a second-rate ending is
    a mangled word: "anno" + "ato" for "annoiato");
  - `best` forbidden by a bound: the pieces that are proper prefixes of it are forbidden too
    ("▁" + "rist" + "ora" for "▁ristorante" can only end in a cut word).
  Without these rules a budget that falls inside a word made the search close the word early:
  "Ero annoiato" -> "Ero annoato", "le barche" -> "le ban" were the bugs. A truncated word fits
  the budget but is not a translation.
When no hypothesis of a segment survives within its budget the backend returns the shortest
candidate of the unconstrained search flagged `fits=False` (see `fitsub.hf.backend`), as
`fitsub.nmt.search` does.

Never invent a word (issue 28; `fitsub.nmt.lexicon_mask`, the rule fitsub's own search keeps):
with a `lexicon` every word of the output is a word of the lexicon or of the row's source.

In beam search `generate` passes log-probabilities; in greedy search (one beam) raw logits:
masking with -inf means the same in both. Greedy rows never change places, so a killed greedy
row is recorded in `dead` and then only allowed to end (the backend discards it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from fitsub.nmt.bounds import NEG_INF, WORD_MARGIN  # the rule of fitsub.nmt.search's bounds
from fitsub.nmt.lexicon_mask import LexiconMask, Rows
from fitsub.units import SPACE_MARK, piece_chars, piece_leading_space

# language tokens of the families fitsub knows: >>ita<< (Marian), __it__ (M2M-100),
# ita_Latn (NLLB), it_IT (mBART-50), <2it> (MADLAD / T5-style)
LANG_TOKEN = re.compile(
    r"^(>>[\w-]+<<|__[a-z]{2,3}(_[A-Za-z]+)?__|[a-z]{3}_[A-Z][a-z]{3}|[a-z]{2}_[A-Z]{2}|<2[\w-]+>)$"
)


@dataclass(frozen=True)
class PieceTable:
    """Per token id: characters it adds, leading space, special, continuation piece."""

    chars: Tensor  # (V,) long
    lead: Tensor  # (V,) long, 1 when the piece starts with a word-boundary space
    special: Tensor  # (V,) bool: adds no characters, never generated (EOS aside)
    cont: Tensor  # (V,) bool: continues the previous word
    eos_id: int
    # (V, P) long: ids of the pieces that are proper prefixes of each piece's text, padded with
    # a special id other than EOS (never generated); (V, 0) when there is none to pad with
    prefixes: Tensor | None = None
    prefix_pad: int = 0

    def to(self, device: torch.device) -> PieceTable:
        """The same table on `device`."""
        return PieceTable(
            chars=self.chars.to(device),
            lead=self.lead.to(device),
            special=self.special.to(device),
            cont=self.cont.to(device),
            eos_id=self.eos_id,
            prefixes=None if self.prefixes is None else self.prefixes.to(device),
            prefix_pad=self.prefix_pad,
        )

    def length(self, ids: Sequence[int], no_space: bool = False) -> int:
        """Characters of a generated id sequence (special tokens skipped)."""
        total, first = 0, True
        for i in ids:
            if i < 0 or i >= self.chars.numel() or bool(self.special[i]):
                continue
            c, lead = int(self.chars[i]), int(self.lead[i])
            total += c - lead if (first or no_space) else c
            first = False
        return total


def _marker(pieces: Sequence[str | None]) -> str:
    """The word-boundary mark of the vocabulary: `▁` (SentencePiece) or `Ġ` (byte-level BPE)."""
    sp = sum(1 for p in pieces if p and p.startswith(SPACE_MARK))
    bpe = sum(1 for p in pieces if p and p.startswith("\u0120"))
    return "\u0120" if bpe > sp else SPACE_MARK


def _tokens(tokenizer: Any, n: int) -> list[str | None]:
    """The token string of each id below `n` (None where the tokenizer has none)."""
    pieces: list[str | None] = []
    for i in range(n):
        try:
            tok = tokenizer.convert_ids_to_tokens(i)
        except (IndexError, KeyError, ValueError, TypeError, OverflowError):
            tok = None
        pieces.append(tok if isinstance(tok, str) else None)
    return pieces


def piece_table(tokenizer: Any, vocab_size: int, eos_id: int) -> PieceTable:
    """Count characters per token id of `tokenizer` for a model with `vocab_size` outputs."""
    pieces = _tokens(tokenizer, vocab_size)
    mark = _marker(pieces)
    specials = {int(i) for i in getattr(tokenizer, "all_special_ids", [])}
    added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    specials |= {int(i) for i in added}
    chars, lead = [0] * vocab_size, [0] * vocab_size
    special, cont = [False] * vocab_size, [False] * vocab_size
    byte = re.compile(r"<0x[0-9A-Fa-f]{2}>")
    for i, p in enumerate(pieces):
        if p is None or i in specials or LANG_TOKEN.match(p):
            special[i] = True
            continue
        if byte.fullmatch(p):  # byte fallback: one byte, counted as a character
            chars[i] = 1
            continue
        text = p.replace(mark, " ")
        if not text:
            special[i] = True
            continue
        chars[i] = piece_chars(text, " ")
        lead[i] = piece_leading_space(text, " ")
        cont[i] = not text.startswith(" ") and text[0].isalnum()
    special[eos_id] = True
    pads = [i for i in range(vocab_size) if special[i] and i != eos_id]
    prefixes = _prefixes(pieces, special, pads[0]) if pads else None
    return PieceTable(
        chars=torch.tensor(chars, dtype=torch.long),
        lead=torch.tensor(lead, dtype=torch.long),
        special=torch.tensor(special, dtype=torch.bool),
        cont=torch.tensor(cont, dtype=torch.bool),
        eos_id=eos_id,
        prefixes=prefixes,
        prefix_pad=pads[0] if pads else 0,
    )


def piece_texts(tokenizer: Any, table: PieceTable) -> list[str | None]:
    """Per token id the text it adds (the word-boundary mark read as a space), None for special
    tokens and byte-fallback pieces (whose text the lexicon cannot see): `LexiconMask`'s input."""
    pieces = _tokens(tokenizer, table.chars.numel())
    mark = _marker(pieces)
    byte = re.compile(r"<0x[0-9A-Fa-f]{2}>")
    return [
        None if p is None or bool(table.special[i]) or byte.fullmatch(p) else p.replace(mark, " ")
        for i, p in enumerate(pieces)
    ]


def _prefixes(pieces: Sequence[str | None], special: Sequence[bool], pad: int) -> Tensor:
    """(V, P) proper-prefix piece ids per piece, padded with `pad` (a never-generated id)."""
    ids = {p: i for i, p in enumerate(pieces) if p is not None and not special[i]}
    rows = [
        [ids[p[:k]] for k in range(1, len(p)) if p[:k] in ids] if p and not special[i] else []
        for i, p in enumerate(pieces)
    ]
    width = max(1, max(map(len, rows)))
    flat = [row + [pad] * (width - len(row)) for row in rows]
    return torch.tensor(flat, dtype=torch.long)


class BudgetProcessor:
    """A `transformers.LogitsProcessor` enforcing per-segment character budgets (module doc).

    `max_chars`, `min_chars`, `no_space`: one entry per segment of the batch; `num_beams` rows
    per segment; `prefix_len`: decoder positions before the first generated content token (1
    for the decoder start token, 2 with a forced language token, which this processor leaves to
    `generate`'s own `ForcedBOSTokenLogitsProcessor`); `max_len`: the sequence length at which
    generation stops (the lower bound is not enforced at that last step).
    """

    def __init__(
        self,
        table: PieceTable,
        max_chars: Sequence[int | None],
        min_chars: Sequence[int | None] | None = None,
        no_space: Sequence[bool] | None = None,
        num_beams: int = 1,
        prefix_len: int = 1,
        max_len: int | None = None,
        lexicon: tuple[LexiconMask, Rows] | None = None,
    ) -> None:
        n = len(max_chars)
        self.lexicon = lexicon  # (the mask, the batch's sources): module docstring
        big = 1 << 30
        self.table = table
        self.limit = torch.tensor([big if b is None else b for b in max_chars], dtype=torch.long)
        floors = list(min_chars) if min_chars is not None else [None] * n
        self.floor = torch.tensor([0 if f is None else f for f in floors], dtype=torch.long)
        self.has_floor = any(f is not None for f in floors)
        self.bare = torch.tensor(list(no_space) if no_space is not None else [False] * n)
        self.num_beams, self.prefix_len, self.max_len = num_beams, prefix_len, max_len
        self.dead = torch.zeros(n * num_beams, dtype=torch.bool)  # greedy only (module doc)

    def lengths(self, ids: Tensor, bare: Tensor) -> Tensor:
        """(rows,) characters of each row's generated content `ids` (rows, T)."""
        t = self.table
        if ids.size(1) == 0:
            return torch.zeros(ids.size(0), dtype=torch.long, device=ids.device)
        content = ~t.special[ids]  # (rows, T)
        pc = t.chars[ids].masked_fill(~content, 0)
        ld = t.lead[ids].masked_fill(~content, 0)
        first = content & (content.long().cumsum(1) == 1)
        full = pc.sum(1) - (ld * first).sum(1)
        return torch.where(bare, (pc - ld).sum(1), full)

    @torch.no_grad()
    def __call__(self, input_ids: Tensor, scores: Tensor) -> Tensor:
        cur = input_ids.size(1)
        if cur < self.prefix_len:  # the forced language token: generate's own processor
            return scores
        dev = scores.device
        t = self.table if self.table.chars.device == dev else self.table.to(dev)
        self.table = t
        rows = scores.size(0)
        seg = torch.arange(rows, device=dev) // self.num_beams
        limit, floor = self.limit.to(dev)[seg], self.floor.to(dev)[seg]
        bare = self.bare.to(dev)[seg]
        gen = input_ids[:, self.prefix_len :]
        chars = self.lengths(gen, bare)  # (rows,)
        started = (~t.special[gen]).any(1) if gen.size(1) else torch.zeros_like(bare)
        out = scores.masked_fill(t.special[None, :], NEG_INF)  # never generated ...
        out[:, t.eos_id] = scores[:, t.eos_id]  # ... except EOS
        best_val, best = out.max(1)  # the model's choice before any bound masks it
        text_last = ~t.special[gen[:, -1]] if gen.size(1) else torch.zeros_like(bare)
        # whole words (module doc): inside an unfinished word only near continuations
        mid = t.cont[best] & text_last  # (rows,)
        near = out >= best_val[:, None] - WORD_MARGIN
        out = out.masked_fill(t.cont[None, :] & ~near | mid[:, None] & ~t.cont[None, :], NEG_INF)
        add = torch.where((bare | ~started)[:, None], (t.chars - t.lead)[None, :], t.chars[None, :])
        over = (chars[:, None] + add) > limit[:, None]  # (rows, V)
        over[:, t.eos_id] = False
        out = out.masked_fill(over, NEG_INF)
        if self.has_floor and (self.max_len is None or cur < self.max_len - 1):
            out[:, t.eos_id] = out[:, t.eos_id].masked_fill(chars < floor, NEG_INF)
        cut = mid & over.gather(1, best[:, None])[:, 0]  # the word would be cut: kill
        out = out.masked_fill(cut[:, None], NEG_INF)
        if t.prefixes is not None:  # best forbidden: the pieces that would start it too
            blocked = out.gather(1, best[:, None])[:, 0].eq(NEG_INF)
            pre = t.prefixes[best].masked_fill(~blocked[:, None], t.prefix_pad)  # (rows, P)
            out = out.scatter(1, pre, NEG_INF)  # the pad id is special: -inf already
        if self.lexicon is not None:  # never invent a word
            mask, lex_rows = self.lexicon
            out = mask.restrict(out, gen.tolist(), seg.tolist(), lex_rows)
        if self.num_beams == 1:  # greedy rows keep their places: a dead row may only end
            self.dead = self.dead.to(dev) | torch.isinf(out).all(1)
            if bool(self.dead.any()):
                only_eos = torch.full_like(out[0], NEG_INF)
                only_eos[t.eos_id] = 0.0
                out = torch.where(self.dead[:, None], only_eos[None, :], out)
        return out
