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
    BIG,
    NEG_INF,
    PieceCosts,
    budget_limit,
    first_positions,
    predict_masked,
)
from fitsub.nat.levt import MAX_PLACEHOLDERS, LevT


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


@dataclass(frozen=True)
class _Rows:
    """What each row brings to an iteration: the encoder output (B, S, D) and its padding, the
    length signal (B,) (None: none), the most pieces (B,), the budget (B,) (None: none) and
    whether it counts no word-boundary space (B,)."""

    memory: Tensor
    src_pad: Tensor
    signal: Tensor | None
    max_len: Tensor
    limit: Tensor | None
    bare: Tensor

    def take(self, act: Tensor) -> _Rows:
        """The rows `act` (b,) only."""
        return _Rows(
            memory=self.memory[act],
            src_pad=self.src_pad[act],
            signal=None if self.signal is None else self.signal[act],
            max_len=self.max_len[act],
            limit=None if self.limit is None else self.limit[act],
            bare=self.bare[act],
        )


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
    cfg, dev, B = model.cfg, src.device, src.size(0)
    pad = cfg.pad_id
    if max_len is None:
        max_len = 2 * src.ne(pad).sum(1) + 10
    memory, src_pad = model.encode(src)
    rows = _Rows(
        memory=memory,
        src_pad=src_pad,
        signal=None if tgt_len is None or cfg.encoding == "sinusoidal" else tgt_len.to(dev),
        max_len=max_len.to(dev).clamp(min=1, max=cfg.max_positions - 2),
        limit=budget_limit(budget, dev),
        bare=torch.zeros(B, dtype=torch.bool, device=dev)
        if no_space is None
        else no_space.to(dev).bool(),
    )
    costs = PieceCosts.of(model)
    y = torch.tensor([[cfg.bos_id, cfg.eos_id]], device=dev).expand(B, 2).clone()
    lp = torch.zeros(B, 2, device=dev)
    done = torch.zeros(B, dtype=torch.bool, device=dev)
    iters = torch.zeros(B, dtype=torch.long, device=dev)
    history: list[tuple[Tensor, Tensor]] = []
    for _ in range(max_iter):
        act = (~done).nonzero()[:, 0]
        if act.numel() == 0:
            break
        before, a_lp = _compact(y[act], lp[act], y[act].ne(pad), pad)
        a_y, a_lp = _iteration(model, before, a_lp, rows=rows.take(act), costs=costs)
        iters[act] += 1
        y, lp = _scatter_rows(y, lp, act=act, a_y=a_y, a_lp=a_lp, pad=pad)
        done[act] |= _rows_equal(a_y, before, pad)  # unchanged: the next would be too
        history.append(_inner_only(y, lp, model))
    tokens, logp_tok = _inner_only(y, lp, model)
    valid = tokens.ne(pad)
    use_first = first_positions(B, tokens.size(1), at=0, bare=rows.bare, dev=dev)
    return LevTDecoded(
        tokens=tokens,
        logp=logp_tok,
        lengths=valid.sum(1),
        chars=costs.chars(tokens, use_first, valid),
        iterations=iters,
        history=history,
    )


def _iteration(
    model: LevT, y: Tensor, lp: Tensor, rows: _Rows, costs: PieceCosts
) -> tuple[Tensor, Tensor]:
    """One iteration of the three policies over rows y (b, T) (module docstring)."""
    y, lp = _delete(model, y, lp, rows)
    counts = _placeholders(model, y, rows, _placeholder_cap(model, y, rows, costs))
    if not bool(counts.any()):
        return y, lp
    y, lp = _insert(y=y, lp=lp, counts=counts, plh=model.plh_id, pad=model.cfg.pad_id)
    return _fill(model, y, lp, rows=rows, costs=costs)


def _delete(model: LevT, y: Tensor, lp: Tensor, rows: _Rows) -> tuple[Tensor, Tensor]:
    """Policy 1: drop every inner token whose deletion score wins (skipped while y is empty)."""
    inner = _inner(y, model)
    if not bool(inner.any()):
        return y, lp
    dele = model.deletion_logits(y, rows.memory, rows.src_pad).argmax(-1).eq(1) & inner
    return _compact(y, lp, y.ne(model.cfg.pad_id) & ~dele, model.cfg.pad_id)


def _placeholder_cap(model: LevT, y: Tensor, rows: _Rows, costs: PieceCosts) -> Tensor:
    """(b,) the most new pieces a row may get: up to `max_len` pieces and, with a budget,
    P = (budget - C) // m_later (an empty row 1 + (budget - m_first) // m_later; module
    docstring), so that m for every placeholder still fits."""
    inner = _inner(y, model)
    n_inner = inner.sum(1)
    cap = (rows.max_len - n_inner).clamp(min=0)
    if rows.limit is None:
        return cap
    bare, limit, m_first = rows.bare, rows.limit, costs.m_first
    m_new = torch.where(bare, m_first, costs.m_later)  # (b,) a new piece's fewest chars
    per = m_new.clamp(min=1)
    cost = torch.where(bare[:, None], costs.first[y], costs.later[y]) * inner
    room = (limit - cost.sum(1)).clamp(min=0) // per
    empty = 1 + (limit - m_first).clamp(min=-1) // per  # first piece: m_first
    room = torch.where(n_inner.eq(0) & limit.ge(m_first), empty, room)
    free = limit.ge(BIG) | m_new.eq(0)  # no budget, or pieces of no characters
    return torch.minimum(cap, torch.where(free, cap, room))


def _placeholders(model: LevT, y: Tensor, rows: _Rows, cap: Tensor) -> Tensor:
    """Policy 2: (b, T-1) the placeholders to insert after each position: the argmax of eq. 5,
    the classifier seeing the requested length through its LDPE (Oka et al. 2021), at most
    `cap` (b,) new per row (`_cap`)."""
    slots = y[:, 1:].ne(model.cfg.pad_id)  # (b, T-1)
    logits = model.placeholder_logits(y, rows.memory, rows.src_pad, rows.signal)
    logp = torch.log_softmax(logits.float(), dim=-1)  # (b, T-1, K+1)
    counts = logp.argmax(-1).masked_fill(~slots, 0).clamp(max=MAX_PLACEHOLDERS)
    return _cap(counts, logp, cap)


def _fill(
    model: LevT, y: Tensor, lp: Tensor, rows: _Rows, costs: PieceCosts
) -> tuple[Tensor, Tensor]:
    """Policy 3: a token for every placeholder (argmax of eq. 6), within the budget
    (`fitsub.nat.decode.predict_masked`, shared with the CMLM)."""
    mask = y.eq(model.plh_id)
    hidden = model.token_hidden(y, rows.memory, rows.src_pad)  # (b, T, D)
    use_first = first_positions(y.size(0), y.size(1), at=1, bare=rows.bare, dev=y.device)
    valid = _inner(y, model) | mask
    return predict_masked(
        model, hidden, mask=mask, tokens=y, logp_tok=lp, costs=costs, limit=rows.limit,
        use_first=use_first, valid=valid,
    )  # fmt: skip


def _rows_equal(a: Tensor, b: Tensor, pad: int) -> Tensor:
    """(B,) whether rows of a (B, Ta) and b (B, Tb) hold the same tokens (pads aside)."""
    if a.shape == b.shape and torch.equal(a, b):
        return torch.ones(a.size(0), dtype=torch.bool, device=a.device)
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
