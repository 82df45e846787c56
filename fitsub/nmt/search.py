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

NEG_INF = float("-inf")


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
) -> tuple[Tensor, Tensor, Tensor, int]:
    """Run the beam; returns tokens (B*K, steps+1), scores (B*K,), chars (B*K,), steps."""
    cfg = model.cfg
    B, K, V = src.size(0), beam, cfg.vocab_size
    dev = src.device
    memory, src_pad = model.encode(src)
    memory, src_pad = memory.repeat_interleave(K, 0), src_pad.repeat_interleave(K, 0)  # (BK, S, D)
    lens = None if tgt_len is None else tgt_len.to(dev).repeat_interleave(K)  # (BK,)
    limit = None if budget is None else budget.to(dev).repeat_interleave(K)  # (BK,)
    least = None if floor is None else floor.to(dev).repeat_interleave(K)  # (BK,)
    pc, lead = model.piece_chars, model.leading_space  # (V,)
    bare = None if no_space is None else no_space.to(dev).repeat_interleave(K)[:, None]  # (BK, 1)
    banned = pc.eq(0)
    banned[cfg.eos_id] = False
    base = torch.zeros(V, device=dev).masked_fill(banned, NEG_INF)  # (V,)
    only_eos = torch.full((V,), NEG_INF, device=dev)
    only_eos[cfg.eos_id] = 0.0
    scores = torch.zeros(B, K, device=dev)
    scores[:, 1:] = NEG_INF  # all beams start identical: keep one
    scores = scores.view(-1)  # (BK,)
    tokens = torch.full((B * K, max_len + 1), cfg.pad_id, dtype=torch.long, device=dev)
    tokens[:, 0] = cfg.bos_id
    chars = torch.zeros(B * K, dtype=torch.long, device=dev)
    finished = torch.zeros(B * K, dtype=torch.bool, device=dev)
    batch_base = torch.arange(B, device=dev)[:, None] * K  # (B, 1)
    cache = model.new_cache()
    steps = 0
    for t in range(max_len):
        logits = model.decode(tokens[:, t : t + 1], memory, src_pad, lens, cache)[:, -1]  # (BK, V)
        logp = torch.log_softmax(logits.float(), dim=-1) + base
        add = (pc - lead if t == 0 else pc)[None, :]  # (1 or BK, V) characters a piece would add
        if bare is not None:
            add = torch.where(bare, (pc - lead)[None, :], add)
        if limit is not None:
            over = (chars[:, None] + add) > limit[:, None]  # (BK, V)
            logp = logp.masked_fill(over, NEG_INF)
        if least is not None and t < max_len - 1:
            short = (chars < least) & ~finished  # (BK,) may not end yet
            logp[:, cfg.eos_id] = logp[:, cfg.eos_id].masked_fill(short, NEG_INF)
        if t == max_len - 1:
            logp = logp + only_eos  # forced end
        logp = torch.where(finished[:, None], only_eos, logp)
        cand = (scores[:, None] + logp).view(B, K * V)
        top, idx = cand.topk(K, dim=1)  # (B, K)
        rows = (batch_base + idx // V).view(-1)  # (BK,) the hypothesis each survivor extends
        tok = (idx % V).view(-1)  # (BK,)
        if K > 1:  # with one beam every row extends itself
            tokens, chars, finished = tokens[rows], chars[rows], finished[rows]
            cache.reorder(rows)
        tokens[:, t + 1] = tok
        chars = chars + (add[0, tok] if add.size(0) == 1 else add.gather(1, tok[:, None])[:, 0])
        finished = finished | tok.eq(cfg.eos_id)
        scores = top.view(-1)
        steps = t + 1
        if bool(finished.all()):
            break
        # Early stop: log-probabilities are <= 0, so a live hypothesis can only lose score. Once
        # every source's best finished hypothesis scores at least as well as its best live one,
        # no live hypothesis can win any more (one looping hypothesis would otherwise keep the
        # whole batch decoding to max_len); the live ones are dropped.
        sc, fin = scores.view(B, K), finished.view(B, K)
        best_fin = sc.masked_fill(~fin, NEG_INF).amax(1)  # (B,)
        best_live = sc.masked_fill(fin, NEG_INF).amax(1)  # (B,)
        if bool((best_fin >= best_live).all()):  # (-inf >= -inf: a source whose rows all died)
            scores = scores.masked_fill(~finished, NEG_INF)
            break
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
) -> list[list[Hypothesis]]:
    """Translate a padded batch `src` (B, S) of source ids; `n_best` hypotheses per row, best first.

    `tgt_len` (B,) is the length for the model's encoding in its `length_unit` (-1 or None: no
    length signal); `max_chars` the hard budget per row (None: none); `target_chars` the length
    in characters that re-ranking prefers; `min_chars` a lower bound per row (None: none);
    `no_space` rows count all three, and the returned `chars`, without spaces.
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
    tokens, scores, chars, _ = _search(net, src, tgt_len, budget_t, k, max_len, floor_t, bare_t)
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
        if not fitting:
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
        )
        for b, hyps in zip(misses, again, strict=True):
            results[b] = hyps
        return results
    if misses:
        sub_len = None if tgt_len is None else tgt_len[misses]
        sub_bare = [bare[b] for b in misses]
        again = beam_search(
            net, src[misses], sub_len, None, beam, max_len, length_weight, k, None, None, sub_bare
        )
        for b, hyps in zip(misses, again, strict=True):
            short = sorted(hyps, key=lambda h: (h.chars == 0, h.chars, -h.score))[:n_best]
            results[b] = [Hypothesis(h.ids, h.score, h.chars, False, h.rank) for h in short]
    return results
