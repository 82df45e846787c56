"""Batched beam search with a KV cache, hard character budgets and n-best re-ranking.

Every source keeps `beam` hypotheses in a fixed (B * beam) batch; finished hypotheses stay in
their slot and may only be extended by EOS at no cost, so they compete with the live ones on
their model score (the sum of log-probabilities). Greedy search is `beam=1`. The loop stops when
every hypothesis has ended, or when no live hypothesis can beat a finished one any more (scores
only fall as hypotheses grow); at step `max_len` only EOS is allowed (forced end).

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
`cut-word` test of `fitsub.flags`). When no whole hypothesis fits, the fallback above returns the
shortest whole unconstrained candidates flagged `fits=False`, never a cut word. Only if even the unconstrained search keeps
no whole hypothesis (each one cut at the forced end) is it run once more without the rule.
Cost: one max, one gather and a few masks per step over the (B*K, V) scores; no Python loop.

N-best re-ranking (after Takase & Okazaki 2019, sec. 3.4): candidates are ordered by
    score - length_weight * |chars - target_chars| / max(target_chars, 1)
where `target_chars` is the requested length in characters (rows without one: by score alone).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from fitsub.nmt.model import Transformer, unwrap
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.units import piece_leading_space

NEG_INF = float("-inf")
WORD_MARGIN = 1.5  # nats: a continuation piece other than the model's best must be this close


@dataclass(frozen=True)
class Hypothesis:
    """One search result: piece ids (no BOS / EOS), model score, characters, budget flag."""

    ids: list[int]
    score: float
    chars: int
    fits: bool = True
    rank: float = 0.0  # the re-ranking key (higher is better)


def rerank_key(score: float, chars: int, target_chars: int | None, length_weight: float) -> float:
    """score - length_weight * |chars - target| / max(target, 1); the score alone without a target."""
    if target_chars is None:
        return score
    return score - length_weight * abs(chars - target_chars) / max(target_chars, 1)


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
class _Bounds:
    """Per-slot bounds and tables of one search (slot = one of the K hypotheses of a source)."""

    limit: Tensor | None  # (BK,) hard budget in characters
    least: Tensor | None  # (BK,) lower bound
    bare: Tensor | None  # (BK, 1) rows counted without spaces
    lens: Tensor | None  # (BK,) length for the model's encoding


def _step_scores(
    model: Transformer,
    h: Tensor,
    last: Tensor,
    chars: Tensor,
    t: int,
    max_len: int,
    b: _Bounds,
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
        eos = logp[:, cfg.eos_id].clone()
        logp.fill_(NEG_INF)
        logp[:, cfg.eos_id] = eos
    if best is not None and prefixes is not None and b.limit is not None:
        blocked = logp.gather(1, best.indices)[:, 0].eq(NEG_INF)  # (n,) a bound forbids it
        pre = prefixes[best.indices[:, 0]]  # (n, P) the pieces that would start its word
        pre = pre.masked_fill(~blocked[:, None], cfg.pad_id)  # pad: -inf already
        logp.scatter_(1, pre, NEG_INF)
    return logp, add


@torch.inference_mode()
def _search(
    model: Transformer,
    src: Tensor,
    tgt_len: Tensor | None,
    budget: Tensor | None,
    beam: int,
    max_len: int,
    floor: Tensor | None = None,
    no_space: Tensor | None = None,
    words: WordTable | None = None,
) -> tuple[Tensor, Tensor, Tensor, int]:
    """Run the beam; returns tokens (B*K, steps+1), scores (B*K,), chars (B*K,), steps.

    Layout: B*K slots (K per source, best first, as `topk` ranks them). Only the *live* slots
    (not finished, not dead) are decoded: they are the rows of the decoder batch and of the KV
    cache, which `reorder` compacts in place after every step. A finished slot keeps its score and
    may only be extended by EOS at no cost, so it still competes in its source's `topk`; a source
    whose slots have all ended leaves the batch. The scores `topk` sees are those of the one
    fixed (B*K, V) batch of the plain algorithm, so the n-best lists are the same.
    """
    cfg = model.cfg
    B, K, V = src.size(0), beam, cfg.vocab_size
    dev = src.device
    memory, src_pad = model.encode(src)  # (B, S, D), (B, S)

    def per_slot(x: Tensor | None) -> Tensor | None:
        return None if x is None else x.to(dev).repeat_interleave(K)

    bare = per_slot(no_space)
    b = _Bounds(per_slot(budget), per_slot(floor), None if bare is None else bare[:, None],
                per_slot(tgt_len))  # fmt: skip
    pc = model.piece_chars
    banned = pc.eq(0)
    banned[cfg.eos_id] = False
    base = torch.zeros(V, device=dev).masked_fill(banned, NEG_INF)  # (V,)
    cont = None if words is None else words.continues.to(dev)  # (V,) continuation pieces
    prefixes = None if words is None else words.prefixes.to(dev)  # (V, P)
    # per slot (B*K): history, score, characters, ended
    tokens = torch.full((B * K, max_len + 1), cfg.pad_id, dtype=torch.long, device=dev)
    tokens[:, 0] = cfg.bos_id
    scores = torch.full((B, K), NEG_INF, device=dev)
    scores[:, 0] = 0.0  # all beams start identical: keep one
    scores = scores.view(-1)  # (BK,)
    chars = torch.zeros(B * K, dtype=torch.long, device=dev)
    finished = torch.zeros(B * K, dtype=torch.bool, device=dev)
    # the decoder batch: one row per live slot (at t = 0, slot 0 of each source)
    live = torch.arange(B, device=dev) * K  # (n,) the slot of each row
    srcs = torch.arange(B, device=dev)  # (B',) the sources still searching
    row_src = srcs  # (n,) the source of each row
    cache = model.new_cache(max_len + 1)
    pad = src_pad  # (n, S) the source padding of each row
    steps = 0
    for t in range(max_len):
        lens = None if b.lens is None else b.lens[live]
        h = model.decode_hidden(tokens[live, t : t + 1], memory, pad, lens, cache)[:, -1]  # (n, D)
        logp, add = _step_scores(
            model, h, tokens[live, t], chars[live], t, max_len, b, live, base, cont, prefixes
        )
        # the candidates of the sources still searching, in the fixed slot layout (B'K, V)
        slots = (srcs[:, None] * K + torch.arange(K, device=dev)).view(-1)  # (B'K,)
        pos = torch.full((B * K,), -1, dtype=torch.long, device=dev)
        pos[slots] = torch.arange(slots.numel(), device=dev)
        cand = torch.full((slots.numel(), V), NEG_INF, device=dev)
        cand.index_copy_(0, pos[live], logp.add_(scores[live][:, None]))
        done = slots[finished[slots]]  # finished slots: extended by EOS at no cost
        cand[pos[done], cfg.eos_id] = scores[done]
        top, idx = cand.view(-1, K * V).topk(K, dim=1)  # (B', K)
        parent = (slots.view(-1, K)[:, :1] + idx // V).view(-1)  # (B'K,) the slot extended
        tok = (idx % V).view(-1)  # (B'K,)
        top = top.view(-1)
        # rows of the live parents, to reorder the decoder state
        row_of = torch.full((B * K,), -1, dtype=torch.long, device=dev)
        row_of[live] = torch.arange(live.numel(), device=dev)
        was_fin = finished[parent]
        step_add = add[0, tok] if add.size(0) == 1 else add[row_of[parent].clamp(min=0), tok]
        tokens[slots] = tokens[parent]
        tokens[slots, t + 1] = tok
        chars[slots] = chars[parent] + torch.where(was_fin, 0, step_add)
        finished[slots] = was_fin | tok.eq(cfg.eos_id)
        scores[slots] = top
        steps = t + 1
        alive = ~finished[slots] & top.gt(NEG_INF)  # (B'K,) slots to decode next
        if not bool(alive.any()):
            break
        # Early stop: log-probabilities are <= 0, so a live hypothesis can only lose score. Once
        # every source's best finished hypothesis scores at least as well as its best live one,
        # no live hypothesis can win any more (one looping hypothesis would otherwise keep the
        # whole batch decoding to max_len); the live ones are dropped.
        sc, fin = top.view(-1, K), finished[slots].view(-1, K)
        best_fin = sc.masked_fill(~fin, NEG_INF).amax(1)  # (B',)
        best_live = sc.masked_fill(fin, NEG_INF).amax(1)  # (B',)
        if bool((best_fin >= best_live).all()):  # (-inf >= -inf: a source whose rows all died)
            kill = slots[~finished[slots]]
            scores[kill] = NEG_INF
            break
        keep = alive.view(-1, K).any(1)  # (B',) sources with a live slot
        srcs = srcs[keep]
        live = slots[alive]
        rows = row_of[parent[alive]]  # (n',) the row each new live slot continues
        new_src = live // K
        # cross-attention K/V (and the padding) follow the rows only when the rows' sources change
        cross = new_src.numel() != row_src.numel() or not torch.equal(new_src, row_src)
        if cross:
            pad = pad[rows]
        if cross or not torch.equal(rows, torch.arange(rows.numel(), device=dev)):
            cache.reorder(rows, cross=cross)
        row_src = new_src
    return tokens[:, : steps + 1], scores, chars, steps


def beam_search(
    model: nn.Module,
    src: Tensor,
    tgt_len: Tensor | None = None,
    max_chars: Sequence[int | None] | None = None,
    beam: int = 5,
    max_len: int = 128,
    length_weight: float = 1.0,
    n_best: int = 1,
    target_chars: Sequence[int | None] | None = None,
    min_chars: Sequence[int | None] | None = None,
    no_space: Sequence[bool] | None = None,
    words: WordTable | None = None,
) -> list[list[Hypothesis]]:
    """Translate a padded batch `src` (B, S) of source ids; `n_best` hypotheses per row, best first.

    `tgt_len` (B,) is the length for the model's encoding in its `length_unit` (-1 or None: no
    length signal); `max_chars` the hard budget per row (None: none); `target_chars` the length
    in characters that re-ranking prefers; `min_chars` a lower bound per row (None: none);
    `no_space` rows count all three, and the returned `chars`, without spaces; `words`
    (`word_table(tokenizer)`) turns on the whole-words rule (None: off, for callers without
    the tokenizer's pieces).
    The caller sorts sources by length (see backend).
    """
    if beam < 1 or n_best < 1 or max_len < 1:
        raise ValueError("beam, n_best and max_len must be >= 1")
    plain = unwrap(model)  # a compiled or DDP-wrapped model decodes with its plain module
    if not isinstance(plain, Transformer):
        raise TypeError(f"beam_search needs a fitsub Transformer, got {type(plain).__name__}")
    net: Transformer = plain
    B, eos = src.size(0), net.cfg.eos_id
    budgets = list(max_chars) if max_chars is not None else [None] * B
    targets = list(target_chars) if target_chars is not None else [None] * B
    big = 1 << 30
    budget_t = None
    if any(b is not None for b in budgets):
        budget_t = torch.tensor([big if b is None else b for b in budgets], dtype=torch.long)
    floors = list(min_chars) if min_chars is not None else [None] * B
    floor_t = None
    if any(f is not None for f in floors):
        floor_t = torch.tensor([0 if f is None else f for f in floors], dtype=torch.long)
    bare = list(no_space) if no_space is not None else [False] * B
    bare_t = torch.tensor(bare, dtype=torch.bool) if any(bare) else None
    k = max(beam, n_best)
    if words is not None and (
        words.continues.shape != (net.cfg.vocab_size,)
        or words.prefixes.size(0) != net.cfg.vocab_size
    ):
        raise ValueError(f"the word table must have vocab_size={net.cfg.vocab_size} rows")
    tokens, scores, chars, _ = _search(
        net, src, tgt_len, budget_t, k, max_len, floor_t, bare_t, words
    )
    toks, scs, chs = tokens[:, 1:].tolist(), scores.tolist(), chars.tolist()
    results: list[list[Hypothesis]] = []
    misses: list[int] = []
    for b in range(B):
        hyps = []
        for row in range(b * k, (b + 1) * k):
            if scs[row] == NEG_INF:
                continue
            ids = toks[row]
            ids = ids[: ids.index(eos)] if eos in ids else ids
            budget = budgets[b]
            fits = budget is None or 0 < chs[row] <= budget
            key = rerank_key(scs[row], chs[row], targets[b], length_weight)
            hyps.append(Hypothesis(ids, scs[row], chs[row], fits, key))
        fitting = sorted((h for h in hyps if h.fits), key=lambda h: -h.rank)
        if not fitting and (budget_t is not None or floor_t is not None or words is not None):
            misses.append(b)
        results.append(fitting[:n_best])
    if misses and floor_t is not None:  # both bounds were impossible: keep the upper one alone
        sub_len = None if tgt_len is None else tgt_len[misses]
        sub_budget = [budgets[b] for b in misses]
        sub_target = [targets[b] for b in misses]
        sub_bare = [bare[b] for b in misses]
        again = beam_search(
            net,
            src[misses],
            sub_len,
            sub_budget,
            beam,
            max_len,
            length_weight,
            n_best,
            sub_target,
            no_space=sub_bare,
            words=words,
        )
        for b, hyps in zip(misses, again, strict=True):
            results[b] = hyps
        return results
    if misses and budget_t is None:  # unbounded, and every hypothesis was cut at the forced end
        sub_len = None if tgt_len is None else tgt_len[misses]
        again = beam_search(
            net, src[misses], sub_len, None, beam, max_len, length_weight, n_best,
            [targets[b] for b in misses], None, [bare[b] for b in misses],
        )  # fmt: skip
        for b, hyps in zip(misses, again, strict=True):
            results[b] = hyps
    elif misses:
        sub_len = None if tgt_len is None else tgt_len[misses]
        sub_bare = [bare[b] for b in misses]
        again = beam_search(
            net, src[misses], sub_len, None, beam, max_len, length_weight, k, None, None, sub_bare,
            words,
        )  # fmt: skip
        for b, hyps in zip(misses, again, strict=True):
            short = sorted(hyps, key=lambda h: (h.chars == 0, h.chars, -h.score))[:n_best]
            results[b] = [Hypothesis(h.ids, h.score, h.chars, False, h.rank) for h in short]
    return results
