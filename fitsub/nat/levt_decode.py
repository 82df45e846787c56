"""Iterative Levenshtein Transformer decoding (Gu et al. 2019, sec. 3.3) with a hard budget.

From y = [BOS, EOS] (an empty translation), each iteration applies the three policies greedily:

1. delete every token whose deletion score wins (BOS and EOS are never deleted; skipped while
   the sequence is empty);
2. insert, into each slot, the most probable number of placeholders (argmax of eq. 5), the
   placeholder classifier seeing the requested length through its LDPE (Oka et al. 2021);
3. fill every placeholder with a token (argmax of eq. 6).

A row stops when an iteration leaves it unchanged (the next would too: decoding is
deterministic) or after `max_iter` iterations (fairseq's default 10). Its score is the mean
log-probability of its tokens as each was filled (fairseq's). The total length is capped at
`max_len` pieces (2 source pieces + 10, as fairseq's `max_ratio`, within the model's positions).

Hard budget in characters, by construction. Pieces have fixed character counts (`piece_chars`;
the first piece's word-boundary space not counted; `no_space` rows count no word-boundary
space), m_first / m_later are the fewest characters a generable piece adds first / later
(`fitsub.nat.decode.min_costs`). Invariant after every step: the characters of the kept tokens
plus m for every unfilled placeholder fit the budget.

* Deletion never adds characters (a piece that becomes first loses its space).
* Placeholders are capped per row at P = (budget - C) // m_later new pieces (no cap but `max_len`
  where a generable piece adds no character: `▁` alone in a `no_space` row), C the characters of
  the kept tokens counted as later pieces (at most one character above their exact count, which
  a placeholder in front of the first piece would make exact); an empty row gets
  1 + (budget - m_first) // m_later. When the classifier asks for more, the P placeholders kept
  are those it is surest of: ranked by P(p_i >= j) for the j-th placeholder of slot i, which is
  decreasing in j, so each slot keeps a prefix of its count.
* Tokens fill the placeholders most confident first, each the best of its top-8 and its cheapest
  piece whose characters leave the fewest characters the unfilled placeholders need
  (`fitsub.nat.decode.fill_within_budget`, shared with the CMLM).

So every iteration's output is within the budget by its piece characters; the backend measures
the detokenised text again and falls back to the latest earlier iteration's output (`history`)
that fits, whole pieces only: no word is ever cut to make a text fit. A budget below m_first
cannot be met and is treated as none (the backend flags the result).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from fitsub.nat.decode import (
    NEG_INF,
    cheapest_pieces,
    fill_candidates,
    fill_within_budget,
    min_costs,
    piece_costs,
)
from fitsub.nat.levt import MAX_PLACEHOLDERS, LevT

BIG = 1 << 30


@dataclass(frozen=True)
class LevTDecoded:
    """Batched LevT output: tokens (B, N) inner pieces (pad past each row's length), their
    log-probabilities (B, N), lengths (B,), characters (B,) by piece counts, iterations (B,)
    run, and `history[i]` the (tokens, logp) after iteration i (rows stopped earlier repeat)."""

    tokens: Tensor
    logp: Tensor
    lengths: Tensor
    chars: Tensor
    iterations: Tensor
    history: list[tuple[Tensor, Tensor]]


def _inner(y: Tensor, model: LevT) -> Tensor:
    """(B, T) bool: the translation's pieces (not BOS / EOS / pad)."""
    cfg = model.cfg
    return y.ne(cfg.pad_id) & y.ne(cfg.bos_id) & y.ne(cfg.eos_id)


def _compact(y: Tensor, lp: Tensor, keep: Tensor, pad: int) -> tuple[Tensor, Tensor]:
    """Rows of y (B, T) and lp with only the `keep` positions, in order, padded and trimmed."""
    order = (~keep).to(torch.int8).argsort(dim=1, stable=True)
    kept = keep.gather(1, order)
    y = y.gather(1, order).masked_fill(~kept, pad)
    lp = lp.gather(1, order).masked_fill(~kept, 0.0)
    width = max(int(kept.sum(1).max()), 2)
    return y[:, :width], lp[:, :width]


def _cap(counts: Tensor, logp: Tensor, cap: Tensor) -> Tensor:
    """Placeholder counts (B, S) cut to at most `cap` (B,) per row, keeping the j-th
    placeholder of slot i by rank of P(p_i >= j) (module docstring)."""
    over = counts.sum(1) > cap
    if not bool(over.any()):
        return counts
    J = int(counts.max())
    tail = logp.exp().flip(-1).cumsum(-1).flip(-1)  # (B, S, K+1) P(p_i >= k)
    j = torch.arange(1, J + 1, device=counts.device)  # (J,)
    score = tail[:, :, 1 : J + 1]  # (B, S, J) the j-th placeholder of each slot
    score = score - j * 1e-9  # ties: earlier placeholders of a slot first
    score = score.masked_fill(j > counts[:, :, None], NEG_INF)
    B, S = counts.shape
    flat = score.reshape(B, S * J)
    rank = flat.argsort(dim=1, descending=True, stable=True).argsort(dim=1)
    keep = (rank < cap[:, None]) & flat.gt(NEG_INF)
    capped = keep.view(B, S, J).sum(-1)
    return torch.where(over[:, None], capped, counts)


def _insert(y: Tensor, lp: Tensor, counts: Tensor, plh: int, pad: int) -> tuple[Tensor, Tensor]:
    """y (B, T) with counts[:, s] placeholders after position s (B, T-1); lp follows y."""
    B, T = y.shape
    live = y.ne(pad)
    shift = torch.zeros(B, T, dtype=torch.long, device=y.device)
    shift[:, 1:] = counts.cumsum(1)  # placeholders before each token
    new_pos = torch.arange(T, device=y.device)[None, :] + shift  # (B, T)
    n_new = live.sum(1) + counts.sum(1)  # (B,)
    W = int(n_new.max())
    out = torch.full((B, W), plh, dtype=y.dtype, device=y.device)
    out_lp = torch.zeros(B, W, device=y.device)
    rows = torch.arange(B, device=y.device)[:, None].expand(B, T)
    out[rows[live], new_pos[live]] = y[live]
    out_lp[rows[live], new_pos[live]] = lp[live]
    past = torch.arange(W, device=y.device)[None, :] >= n_new[:, None]
    return out.masked_fill(past, pad), out_lp.masked_fill(past, 0.0)


@torch.inference_mode()
def levt_decode(
    model: LevT,
    src: Tensor,
    tgt_len: Tensor | None,
    max_iter: int = 10,
    budget: Tensor | None = None,
    no_space: Tensor | None = None,
    max_len: Tensor | None = None,
) -> LevTDecoded:
    """Decode src (B, S) by delete / insert placeholders / fill until no change or `max_iter`.

    `tgt_len` (B,) the length signal in pieces (< 0 or None: none); `budget` (B,) characters
    (< 0 or None: none); `no_space` (B,) rows whose budget counts no word-boundary spaces;
    `max_len` (B,) pieces (default 2 * source pieces + 10, within the model's positions).
    """
    if max_iter < 1:
        raise ValueError("max_iter must be >= 1")
    cfg = model.cfg
    pad, bos, eos, plh = cfg.pad_id, cfg.bos_id, cfg.eos_id, model.plh_id
    dev = src.device
    B = src.size(0)
    memory, src_pad = model.encode(src)
    signal = None if tgt_len is None or cfg.encoding == "sinusoidal" else tgt_len.to(dev)
    if max_len is None:
        max_len = 2 * src.ne(pad).sum(1) + 10
    max_len = max_len.to(dev).clamp(min=1, max=cfg.max_positions - 2)
    first, later, banned = piece_costs(model)
    m_first, m_later = min_costs(model)
    cheap = cheapest_pieces(model)
    bare = torch.zeros(B, dtype=torch.bool, device=dev)
    if no_space is not None:
        bare = no_space.to(dev).bool()
    limit = None
    if budget is not None:
        limit = budget.to(dev)
        limit = torch.where(limit < 0, torch.full_like(limit, BIG), limit)
    weight = model.embed.weight  # (V, D) the tied output projection
    y = torch.tensor([[bos, eos]], device=dev).expand(B, 2).clone()
    lp = torch.zeros(B, 2, device=dev)
    done = torch.zeros(B, dtype=torch.bool, device=dev)
    iters = torch.zeros(B, dtype=torch.long, device=dev)
    history: list[tuple[Tensor, Tensor]] = []
    for _ in range(max_iter):
        act = (~done).nonzero()[:, 0]
        if act.numel() == 0:
            break
        a_y, a_lp = y[act], lp[act]
        a_y, a_lp = _compact(a_y, a_lp, a_y.ne(pad), pad)
        before = a_y
        mem, spad = memory[act], src_pad[act]
        # 1. deletion
        inner = _inner(a_y, model)
        if bool(inner.any()):
            dele = model.deletion_logits(a_y, mem, spad).argmax(-1).eq(1) & inner
            a_y, a_lp = _compact(a_y, a_lp, a_y.ne(pad) & ~dele, pad)
        # 2. placeholders, at most max_len pieces and, with a budget, P new pieces
        inner = _inner(a_y, model)
        n_inner = inner.sum(1)
        cap = (max_len[act] - n_inner).clamp(min=0)
        if limit is not None:
            a_bare, a_lim = bare[act], limit[act]
            m_new = torch.where(a_bare, m_first, m_later)  # (b,) a new piece's fewest chars
            per = m_new.clamp(min=1)
            cost = torch.where(a_bare[:, None], first[a_y], later[a_y]) * inner
            room = (a_lim - cost.sum(1)).clamp(min=0) // per
            empty = 1 + (a_lim - m_first).clamp(min=-1) // per  # first piece: m_first
            room = torch.where(n_inner.eq(0) & a_lim.ge(m_first), empty, room)
            free = a_lim.ge(BIG) | m_new.eq(0)  # no budget, or pieces of no characters
            cap = torch.minimum(cap, torch.where(free, cap, room))
        slots = a_y[:, 1:].ne(pad)  # (b, T-1)
        logp = torch.log_softmax(
            model.placeholder_logits(
                a_y, mem, spad, None if signal is None else signal[act]
            ).float(),
            dim=-1,
        )  # (b, T-1, K+1)
        counts = logp.argmax(-1).masked_fill(~slots, 0).clamp(max=MAX_PLACEHOLDERS)
        counts = _cap(counts, logp, cap)
        if bool(counts.any()):
            a_y, a_lp = _insert(y=a_y, lp=a_lp, counts=counts, plh=plh, pad=pad)
            # 3. tokens for the placeholders
            mask = a_y.eq(plh)
            hidden = model.token_hidden(a_y, mem, spad)  # (b, T, D)
            rb, rt = mask.nonzero(as_tuple=True)
            tok_lp = torch.log_softmax((hidden[rb, rt] @ weight.t()).float(), dim=-1)  # (M, V)
            tok_lp.masked_fill_(banned, NEG_INF)
            if limit is None:
                best_lp, best_id = tok_lp.max(dim=-1)
                a_y = a_y.index_put((rb, rt), best_id)
                a_lp = a_lp.index_put((rb, rt), best_lp)
            else:
                b, T = a_y.shape
                valid = _inner(a_y, model) | mask
                use_first = torch.zeros(b, T, dtype=torch.bool, device=dev)
                use_first[:, 1] = True
                use_first |= bare[act][:, None]
                least = torch.where(use_first, m_first, m_later) * valid
                cand_id, cand_lp = fill_candidates(tok_lp, use_first[rb, rt], cheap)
                dense_id = torch.zeros(b, T, cand_id.size(1), dtype=torch.long, device=dev)
                dense_lp = torch.full((b, T, cand_id.size(1)), NEG_INF, device=dev)
                dense_id[rb, rt], dense_lp[rb, rt] = cand_id, cand_lp
                best_id, best_lp = fill_within_budget(
                    dense_id,
                    dense_lp,
                    mask=mask,
                    tokens=a_y,
                    valid=valid,
                    use_first=use_first,
                    least=least,
                    limit=limit[act],
                    first=first,
                    later=later,
                )
                a_y = torch.where(mask, best_id, a_y)
                a_lp = torch.where(mask, best_lp, a_lp)
        same = a_y.shape == before.shape and torch.equal(a_y, before)
        unchanged = (
            torch.ones(act.numel(), dtype=torch.bool, device=dev)
            if same
            else _rows_equal(a_y, before, pad)
        )
        iters[act] += 1
        y, lp = _scatter_rows(y, lp, act=act, a_y=a_y, a_lp=a_lp, pad=pad)
        done[act] |= unchanged
        history.append(_inner_only(y, lp, model))
    tokens, logp_tok = _inner_only(y, lp, model)
    lengths = tokens.ne(pad).sum(1)
    use_first = torch.zeros_like(tokens, dtype=torch.bool)
    use_first[:, 0] = True
    use_first |= bare[:, None]
    chars = (torch.where(use_first, first[tokens], later[tokens]) * tokens.ne(pad)).sum(1)
    return LevTDecoded(
        tokens=tokens,
        logp=logp_tok,
        lengths=lengths,
        chars=chars,
        iterations=iters,
        history=history,
    )


def _rows_equal(a: Tensor, b: Tensor, pad: int) -> Tensor:
    """(B,) whether rows of a (B, Ta) and b (B, Tb) hold the same tokens (pads aside)."""
    W = max(a.size(1), b.size(1))
    a = torch.nn.functional.pad(a, (0, W - a.size(1)), value=pad)
    b = torch.nn.functional.pad(b, (0, W - b.size(1)), value=pad)
    return a.eq(b).all(1)


def _scatter_rows(
    y: Tensor, lp: Tensor, *, act: Tensor, a_y: Tensor, a_lp: Tensor, pad: int
) -> tuple[Tensor, Tensor]:
    """y / lp (B, T) with rows `act` replaced by a_y / a_lp, widened as needed."""
    W = max(y.size(1), a_y.size(1))
    y = torch.nn.functional.pad(y, (0, W - y.size(1)), value=pad)
    lp = torch.nn.functional.pad(lp, (0, W - lp.size(1)), value=0.0)
    y[act] = torch.nn.functional.pad(a_y, (0, W - a_y.size(1)), value=pad)
    lp[act] = torch.nn.functional.pad(a_lp, (0, W - a_lp.size(1)), value=0.0)
    return y, lp


def _inner_only(y: Tensor, lp: Tensor, model: LevT) -> tuple[Tensor, Tensor]:
    """(tokens, logp) (B, N): the inner pieces of y (B, T), BOS / EOS dropped, padded."""
    keep = _inner(y, model)
    order = (~keep).to(torch.int8).argsort(dim=1, stable=True)
    kept = keep.gather(1, order)
    width = max(int(kept.sum(1).max()), 1)
    toks = y.gather(1, order).masked_fill(~kept, model.cfg.pad_id)[:, :width]
    return toks, lp.gather(1, order).masked_fill(~kept, 0.0)[:, :width]
