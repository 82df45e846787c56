"""The bounds of a search step: hard character budgets, lower bounds and whole words, as masks
over the (rows, V) next-piece scores (`step_scores`, called by `fitsub.nmt.search`'s beam loop).

Hard budget: each hypothesis carries its detokenised length in characters, counted with the
model's `piece_chars` / `leading_space` tables (the first piece's word-boundary space is not
counted, see `fitsub.nmt.tokenizer`). A token that would take it above its segment's
`max_chars` gets -inf; EOS is always allowed; pieces that add no characters other than EOS
(pad, BOS, unk, length tokens, language tags) are never generated. So no hypothesis exceeds its
budget by construction. An empty output does not count as fitting a budget: when no non-empty
hypothesis fits, the source is searched again without the budget and those candidates are
returned shortest (non-empty) first, flagged `fits=False`.

Characters without spaces (`no_space` rows, the unit of IWSLT 2022's length compliance): the
row's budget, lower bound, re-ranking target and returned length all count characters other
than spaces; a piece adds its characters less its word-boundary space (SentencePiece pieces
hold no other space).

Lower bound (`min_chars`, for dubbing's "same length as the source"): EOS gets -inf while a
hypothesis is shorter than its row's lower bound (except at the forced end). When no hypothesis
can meet both bounds, the row is searched again with the upper bound alone.

Whole words only (`words`, a `WordTable`): a hard budget must never be met by cutting a word
("annoiato" -> "annoato", "barche" -> "ban"): a cut word reads as a typo or as another word,
which is worse for a subtitle than a shorter sentence or a flagged one. A continuation piece does
not start with `▁` and starts with a letter or digit: it extends the word before it. At each
step, `best` is the model's most likely next piece before any bound masks it (only the
never-generated pieces are removed). For a live hypothesis:
* after a text piece, `best` a continuation piece (the word is unfinished): only continuation
  pieces may follow; no EOS (a hypothesis ends only at a word boundary, where the model itself
  would start a new word, punctuate or end), no new word, no punctuation. If the budget forbids
  every continuation the model finds likely, the hypothesis is dropped (-inf) and beam search
  falls back on the hypotheses that chose shorter whole words earlier;
* a continuation piece must be nearly as likely as `best` (within `WORD_MARGIN` nats): the
  model's second-rate ending of a word is a mangled word ("anno" + "ato" for "annoiato"), and a
  fragment glued onto a finished word is one too ("Ero" + "So");
* `best` forbidden by a bound: its proper prefixes are forbidden too (`WordTable.prefixes`): the
  word the model wants cannot fit, and any spelling of it from shorter pieces is as long, so
  starting it ("▁" + "rist" + "ora" for "▁ristorante") can only end in a cut word. This is the
  rule "a piece that starts a word is allowed only if some continuation of that word can still
  fit", with the model's own word as the continuation and the vocabulary's pieces as spellings.
What this rule cannot see is a word the model closes with an ending of its own once the ending
it wanted cannot fit ("▁cost" + "i" + "to" for "costruita"): every piece is the model's best at
its step. The pipeline catches those on the n-best (`fitsub.pipeline._accept_whole`, with the
`cut-word` test of `fitsub.quality.flags`). When no whole hypothesis fits, the fallback above returns the
shortest whole unconstrained candidates flagged `fits=False`, never a cut word. Only if even the unconstrained search keeps
no whole hypothesis (each one cut at the forced end) is it run once more without the rule.
Cost: one max, one gather and a few masks per step over the (B*K, V) scores; no Python loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from fitsub.nmt.beam import NEG_INF, only_eos
from fitsub.nmt.model import Transformer
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import piece_leading_space

__all__ = [
    "NEG_INF",
    "WORD_MARGIN",
    "Bounds",
    "WordTable",
    "continuation_pieces",
    "step_scores",
    "word_table",
]
WORD_MARGIN = 1.5  # nats: a continuation piece other than the model's best must be this close


@dataclass(frozen=True)
class WordTable:
    """What the whole-words rule needs of the vocabulary (`word_table(tokenizer)`).

    `continues` (V,) bool: the continuation pieces. `prefixes` (V, P) long: for each piece, the
    ids of the pieces that are proper prefixes of its text ("▁", "▁ri", "▁rist" for
    "▁ristorante"), padded with `pad` (a piece search never generates).
    """

    continues: Tensor
    prefixes: Tensor


def word_table(tokenizer: Tokenizer) -> WordTable:
    """The continuation pieces and the proper-prefix pieces of every piece of `tokenizer`."""
    V = tokenizer.vocab_size
    texts = [None if tokenizer.is_special(i) else tokenizer.sp.id_to_piece(i) for i in range(V)]
    ids = {t: i for i, t in enumerate(texts) if t}
    cont = [t is not None and not piece_leading_space(t) and t[:1].isalnum() for t in texts]
    pre = [[ids[t[:k]] for k in range(1, len(t)) if t[:k] in ids] if t else [] for t in texts]
    width = max(1, max(map(len, pre)))
    table = torch.full((V, width), tokenizer.pad_id, dtype=torch.long)
    for i, row in enumerate(pre):
        table[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return WordTable(torch.tensor(cont, dtype=torch.bool), table)


def continuation_pieces(tokenizer: Tokenizer) -> list[bool]:
    """Per piece id: whether it continues the word before it (no `▁`, starts with a letter/digit)."""
    return [bool(x) for x in word_table(tokenizer).continues.tolist()]


@dataclass
class Bounds:
    """Per-slot bounds and tables of one search (slot = one of the K hypotheses of a source)."""

    limit: Tensor | None  # (BK,) hard budget in characters
    least: Tensor | None  # (BK,) lower bound
    bare: Tensor | None  # (BK, 1) rows counted without spaces
    lens: Tensor | None  # (BK,) length for the model's encoding


def step_scores(
    model: Transformer,
    h: Tensor,
    last: Tensor,
    chars: Tensor,
    t: int,
    max_len: int,
    b: Bounds,
    live: Tensor,
    base: Tensor,
    cont: Tensor | None,
    prefixes: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """Masked log-probabilities (n, V) of the live rows' next piece, and the characters it adds.

    `h` (n, D) final decoder states, `last` (n,) their last piece, `chars` (n,) their length,
    `live` (n,) their slots (to read the bounds). Every rule of the module docstring is a
    vectorised mask over the (n, V) scores; nothing loops over hypotheses.
    """
    cfg, pc, lead = model.cfg, model.piece_chars, model.leading_space
    logits = model.project(h)  # (n, V) tied output projection
    logp = torch.log_softmax(logits.float(), dim=-1).add_(base)
    best = None
    if cont is not None:  # whole words only (module docstring), before any bound
        best = logp.max(1, keepdim=True)  # (n, 1) the model's own next piece
        mid = cont[best.indices[:, 0]] & (pc[last] > 0)  # (n,) an unfinished word
        near = logp >= best.values - WORD_MARGIN  # (n, V)
        # a continuation piece must be nearly as likely as the best piece; inside an
        # unfinished word nothing else is allowed (no end, no new word, no punctuation)
        logp.masked_fill_(cont[None, :] & ~near | mid[:, None] & ~cont[None, :], NEG_INF)
    add = (pc - lead if t == 0 else pc)[None, :]  # (1 or n, V) characters a piece would add
    if b.bare is not None:
        add = torch.where(b.bare[live], (pc - lead)[None, :], add)
    if b.limit is not None:
        room = b.limit[live] - chars  # (n,) characters still allowed
        logp.masked_fill_(add > room[:, None], NEG_INF)
    if b.least is not None and t < max_len - 1:
        short = chars < b.least[live]  # (n,) may not end yet
        logp[:, cfg.eos_id].masked_fill_(short, NEG_INF)
    if t == max_len - 1:  # forced end
        only_eos(logp, cfg.eos_id)
    if best is not None and prefixes is not None and b.limit is not None:
        blocked = logp.gather(1, best.indices)[:, 0].eq(NEG_INF)  # (n,) a bound forbids it
        pre = prefixes[best.indices[:, 0]]  # (n, P) the pieces that would start its word
        pre = pre.masked_fill(~blocked[:, None], cfg.pad_id)  # pad: -inf already
        logp.scatter_(1, pre, NEG_INF)
    return logp, add
