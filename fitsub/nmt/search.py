"""Batched beam search with a KV cache, hard character budgets and n-best re-ranking.

Every source keeps `beam` hypotheses in a fixed (B * beam) batch; finished hypotheses stay in
their slot and may only be extended by EOS at no cost, so they compete with the live ones on
their model score (the sum of log-probabilities). Greedy search is `beam=1`. The loop stops when
every hypothesis has ended, or when no live hypothesis can beat a finished one any more (scores
only fall as hypotheses grow); at step `max_len` only EOS is allowed (forced end).

The bounds of each step (hard budget, characters without spaces, lower bound, whole words) are
masks over the step's scores: `fitsub.nmt.bounds`. An empty output does not count as fitting a
budget: when no non-empty hypothesis fits, the source is searched again without the budget and
those candidates are returned shortest (non-empty) first, flagged `fits=False`; when no
hypothesis can meet both bounds, the row is searched again with the upper bound alone.

N-best re-ranking (after Takase & Okazaki 2019, sec. 3.4): candidates are ordered by
    score - length_weight * |chars - target_chars| / max(target_chars, 1)
where `target_chars` is the requested length in characters. Rows without one (the unconstrained
translation) are ordered by the length-normalised score of Wu et al. 2016 (GNMT, eq. 14)
    score / lp(n),  lp(n) = ((5 + n) / 6) ** LENGTH_PENALTY,  n = the output's pieces,
since the summed log-probability favours outputs that stop early (the small models' unconstrained
output was 0.84-0.98 of the references' length on the dev sets; experiments/length-penalty/).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from fitsub.nmt.bounds import NEG_INF, Bounds, WordTable, step_scores
from fitsub.nmt.free_search import free_beam
from fitsub.nmt.lexicon_mask import LexiconMask, Rows
from fitsub.nmt.model import Transformer, unwrap


@dataclass(frozen=True)
class Hypothesis:
    """One search result: piece ids (no BOS / EOS), model score, characters, budget flag."""

    ids: list[int]
    score: float
    chars: int
    fits: bool = True
    rank: float = 0.0  # the re-ranking key (higher is better)


# GNMT's alpha, chosen on dev (mustc-tst-common-a and ud-pud, it and de, 300 lines each): 1.0
# gains 0.03-0.34 BLEU and 0.3-0.45 chrF on all four over the plain score (experiments/length-penalty)
LENGTH_PENALTY = 1.0


def rerank_key(score: float, chars: int, target_chars: int | None, length_weight: float) -> float:
    """score - length_weight * |chars - target| / max(target, 1); the score alone without a target."""
    if target_chars is None:
        return score
    return score - length_weight * abs(chars - target_chars) / max(target_chars, 1)


def normalised_score(score: float, pieces: int, alpha: float = LENGTH_PENALTY) -> float:
    """score / ((5 + pieces) / 6) ** alpha (Wu et al. 2016, eq. 14): the key of rows without a
    length target."""
    return score / float(((5 + pieces) / 6) ** alpha)  # float ** float is typed Any


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
    lexicon: tuple[LexiconMask, Rows] | None = None,
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
    b = Bounds(
        limit=per_slot(budget),
        least=per_slot(floor),
        bare=None if bare is None else bare[:, None],
        lens=per_slot(tgt_len),
    )
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
    # room for about as many pieces as the source has; the cache doubles when a search runs past
    # it (sized for max_len, a char-unit request's max_len of ~chars + 10 held 3-4x the rows'
    # need: most of the decoder's memory)
    cache = model.new_cache(min(max_len + 1, src.size(1) + 16))
    pad = src_pad  # (n, S) the source padding of each row
    steps = 0
    for t in range(max_len):
        lens = None if b.lens is None else b.lens[live]
        h = model.decode_hidden(
            tgt_in=tokens[live, t : t + 1], memory=memory, src_pad=pad, tgt_len=lens, cache=cache
        )[:, -1]  # (n, D)
        logp, add = step_scores(
            model=model,
            h=h,
            last=tokens[live, t],
            chars=chars[live],
            t=t,
            max_len=max_len,
            b=b,
            live=live,
            base=base,
            cont=cont,
            prefixes=prefixes,
        )
        if lexicon is not None:  # never invent a word (fitsub.nmt.lexicon_mask): K per row
            lexicon[0].restrict(
                logp,
                histories=tokens[live, 1 : t + 1].tolist(),
                row_source=(live // K).tolist(),
                rows=lexicon[1],
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
    lexicon: LexiconMask | None = None,
    sources: Sequence[str] | None = None,
    free: Sequence[bool] | None = None,
) -> list[list[Hypothesis]]:
    """Translate a padded batch `src` (B, S) of source ids; `n_best` hypotheses per row, best first.

    `tgt_len` (B,) is the length for the model's encoding in its `length_unit` (-1 or None: no
    length signal); `max_chars` the hard budget per row (None: none); `target_chars` the length
    in characters that re-ranking prefers; `min_chars` a lower bound per row (None: none);
    `no_space` rows count all three, and the returned `chars`, without spaces; `words`
    (`word_table(tokenizer)`) turns on the whole-words rule (None: off, for callers without
    the tokenizer's pieces); `lexicon` (`LexiconMask`) lets every word of the output be only a
    word of the lexicon or of the row's source text (`sources`, B texts; None: off). A row no
    hypothesis of which keeps to both the lexicon and the bounds is searched again without the
    lexicon, bounds and fallbacks as they are (the caller flags the word,
    `fitsub.quality.lexicon.unknown_words`): the budget is the harder promise.
    `free` (B bools): the rows the caller declares unconstrained (no budget, lower bound,
    length target or lexicon); they are searched as CTranslate2 searches them
    (`fitsub.nmt.free_search`), without the whole-words rule, so the unconstrained pass gives
    the same n-best on either engine (`fitsub.nmt.ct2`).
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
    V = net.cfg.vocab_size
    if words is not None and (words.continues.shape != (V,) or words.prefixes.size(0) != V):
        raise ValueError(f"the word table must have vocab_size={V} rows")

    def again(rows: list[int], **change: object) -> list[list[Hypothesis]]:
        """The rows `rows` searched again with the arguments in `change` replaced."""
        args: dict[str, object] = {
            "tgt_len": None if tgt_len is None else tgt_len[rows],
            "max_chars": [budgets[b] for b in rows],
            "beam": beam,
            "max_len": max_len,
            "length_weight": length_weight,
            "n_best": n_best,
            "target_chars": [targets[b] for b in rows],
            "min_chars": [floors[b] for b in rows],
            "no_space": [bare[b] for b in rows],
            "words": words,
            "lexicon": lexicon,
            "sources": None if sources is None else [sources[b] for b in rows],
            "free": None if free is None else [free[b] for b in rows],
        }
        args.update(change)
        return beam_search(net, src[rows], **args)  # type: ignore[arg-type]

    if free is not None and any(free):  # CTranslate2's search (fitsub.nmt.free_search)
        if any(free[b] and (budgets[b], floors[b], targets[b]) != (None,) * 3 for b in range(B)):
            raise ValueError("a free row may have no budget, lower bound or length target")
        if lexicon is not None:
            raise ValueError("free rows do not keep to the lexicon")
        rest = [b for b in range(B) if not free[b]]
        out = dict(zip(rest, again(rest, free=None) if rest else [], strict=True))
        mine = [b for b in range(B) if free[b]]
        out.update(
            _free_rows(net=net, src=src, tgt_len=tgt_len, rows=mine, k=k, max_len=max_len,
                       n_best=n_best, bare=bare)
        )  # fmt: skip
        return [out[b] for b in range(B)]
    lex = None
    if lexicon is not None:
        if lexicon.vocab_size != V:
            raise ValueError(f"the lexicon mask must have vocab_size={V} rows")
        texts = list(sources) if sources is not None else [""] * B
        lex = (lexicon, lexicon.for_sources(texts, src.device))
    tokens, scores, chars, _ = _search(
        model=net,
        src=src,
        tgt_len=tgt_len,
        budget=budget_t,
        beam=k,
        max_len=max_len,
        floor=floor_t,
        no_space=bare_t,
        words=words,
        lexicon=lex,
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
            key = (
                normalised_score(scs[row], len(ids))
                if targets[b] is None
                else rerank_key(scs[row], chs[row], targets[b], length_weight)
            )
            hyps.append(Hypothesis(ids=ids, score=scs[row], chars=chs[row], fits=fits, rank=key))
        # with the lexicon an empty output is no translation either (its only way to "keep" to it)
        fitting = sorted(
            (h for h in hyps if h.fits and (lexicon is None or h.chars > 0)), key=lambda h: -h.rank
        )
        bound = budget_t is not None or floor_t is not None or words is not None
        if not fitting and (bound or lexicon is not None):
            misses.append(b)
        results.append(fitting[:n_best])

    if misses and lexicon is not None:  # nothing within the bounds keeps to the lexicon:
        for b, hyps in zip(misses, again(misses, lexicon=None), strict=True):  # the best without
            results[b] = hyps
        return results
    if misses and floor_t is not None:  # both bounds were impossible: keep the upper one alone
        for b, hyps in zip(misses, again(misses, min_chars=None), strict=True):
            results[b] = hyps
    elif misses and budget_t is None:  # unbounded, and every hypothesis was cut at the forced end
        for b, hyps in zip(misses, again(misses, words=None), strict=True):
            results[b] = hyps
    elif misses:
        wide = again(misses, max_chars=None, n_best=k, target_chars=None, min_chars=None)
        for b, hyps in zip(misses, wide, strict=True):
            short = sorted(hyps, key=lambda h: (h.chars == 0, h.chars, -h.score))[:n_best]
            results[b] = [
                Hypothesis(ids=h.ids, score=h.score, chars=h.chars, fits=False, rank=h.rank)
                for h in short
            ]
    return results


def _free_rows(
    net: Transformer,
    src: Tensor,
    tgt_len: Tensor | None,
    rows: list[int],
    k: int,
    max_len: int,
    n_best: int,
    bare: list[bool],
) -> dict[int, list[Hypothesis]]:
    """The rows `rows` of `src` through `free_beam` (K = k, its k best kept), re-ranked by the
    length-normalised score; the source padding trimmed to theirs."""
    sub = src[rows]
    sub = sub[:, : int(sub.ne(net.cfg.pad_id).sum(1).max())]
    lens = None if tgt_len is None else tgt_len[rows]
    found = free_beam(model=net, src=sub, tgt_len=lens, beam=k, n=k, max_len=max_len)
    pc, lead = net.piece_chars.tolist(), net.leading_space.tolist()
    out: dict[int, list[Hypothesis]] = {}
    for b, hyps in zip(rows, found, strict=True):
        ranked = []
        for ids, searched, score in hyps:
            if searched == NEG_INF:  # a candidate that no piece could extend (a forced end)
                continue
            chars = sum(pc[i] - lead[i] for i in ids)  # without spaces
            if not bare[b] and ids:
                chars += sum(lead[i] for i in ids[1:])  # the first piece's space is not counted
            key = normalised_score(searched, len(ids))  # CTranslate2's order
            ranked.append(Hypothesis(ids=ids, score=score, chars=chars, fits=True, rank=key))
        out[b] = sorted(ranked, key=lambda h: -h.rank)[:n_best]
    return out
