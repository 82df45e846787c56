"""Mask-predict decoding (Ghazvininejad et al. 2019, sec. 3) with a hard character budget.

Mask-predict, for a target of N pieces and T iterations: iteration 0 masks every position and
predicts them all (y_t = argmax p, with its probability p_t); iteration i = 1 .. T-1 re-masks the
n = floor(N (T - i) / T) positions of lowest p_t and re-predicts only those (updating their p_t),
the others kept. The sequence's score is the sum of log p_t; the paper picks among length
candidates by the average log-probability, which `fitsub.nat.backend` uses.

Hard budget, by construction. Pieces have fixed character counts (`piece_chars`; the first
piece's word-boundary space is not counted, and `no_space` rows count no word-boundary space at
all), so a sequence's characters are the sum over its positions. Let m_t be the fewest characters
any generable piece can put at position t. At each iteration the masked positions are filled in
order of confidence (most probable first), each with the most probable piece among its top-k and
its best cheapest piece (cost m_t) whose cost c satisfies

    fixed + c + sum of m_u over the masked positions u still to fill <= budget

(`fixed`: the characters of the kept pieces and of the positions already filled). The cheapest
piece always qualifies while the invariant holds, and the invariant holds at iteration 0 when the
piece count N was chosen with sum_t m_t <= budget (the backend does) and carries over from one
iteration to the next because re-masked positions give back at least their m_t. So every output
is within budget by its piece-character count; the backend still verifies the detokenised text
and flags (never hides) a miss.

Pieces that add no characters (pad, BOS, EOS, unk, length tokens, language tags) are never
generated; a CMLM output has exactly N pieces and no EOS. Only the masked positions go through
the output projection (the kept ones' predictions are not used), which at T = 10 saves about
half of the projection's work.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from fitsub.nat.levt import LevT
from fitsub.nat.model import CMLM

NEG_INF = float("-inf")
TOP_K = 8  # candidates per position for the budgeted fill (plus the cheapest piece)


@dataclass(frozen=True)
class Decoded:
    """Batched mask-predict output: tokens (B, N) (pad past each row's length), per-position
    log-probabilities (B, N) (0 past the length), characters (B,) by piece counts."""

    tokens: Tensor
    logp: Tensor
    chars: Tensor


def piece_costs(model: CMLM | LevT) -> tuple[Tensor, Tensor, Tensor]:
    """(first, later, banned): characters a piece adds as the first piece / later (V,) and the
    pieces never generated (V,) bool."""
    pc, lead = model.piece_chars, model.leading_space
    banned = pc.eq(0)
    return pc - lead, pc, banned


def min_costs(model: CMLM | LevT) -> tuple[int, int]:
    """The fewest characters a generable piece adds as the first piece and as a later one."""
    first, later, banned = piece_costs(model)
    big = 1 << 30
    return int(first.masked_fill(banned, big).min()), int(later.masked_fill(banned, big).min())


BIG = 1 << 30  # the budget of a row without one


@dataclass(frozen=True)
class PieceCosts:
    """What the budgeted fill needs of a model's pieces: the characters each adds as the first
    piece / later (V,), the pieces never generated (V,), the fewest characters a generable
    first / later piece adds (m_first, m_later) and the ids of those cheapest pieces."""

    first: Tensor
    later: Tensor
    banned: Tensor
    m_first: int
    m_later: int
    cheap: tuple[Tensor, Tensor]

    @classmethod
    def of(cls, model: CMLM | LevT) -> PieceCosts:
        """The costs of `model`'s pieces (`piece_costs`, `min_costs`, `cheapest_pieces`)."""
        return cls(*piece_costs(model), *min_costs(model), cheapest_pieces(model))

    def least(self, use_first: Tensor, valid: Tensor) -> Tensor:
        """(B, N) m_t: the fewest characters any generable piece puts at each valid position."""
        return torch.where(use_first, self.m_first, self.m_later) * valid

    def chars(self, tokens: Tensor, use_first: Tensor, valid: Tensor) -> Tensor:
        """(B,) the characters of each row's valid pieces `tokens` (B, N)."""
        return (torch.where(use_first, self.first[tokens], self.later[tokens]) * valid).sum(1)


def first_positions(B: int, N: int, at: int, bare: Tensor | None, dev: torch.device) -> Tensor:
    """(B, N) the positions whose cost is a first piece's: position `at` (the first piece), and
    every position of the rows `bare` (B,) that count no word-boundary space."""
    use_first = torch.zeros(B, N, dtype=torch.bool, device=dev)
    use_first[:, at] = True
    if bare is not None:
        use_first |= bare[:, None]
    return use_first


def budget_limit(budget: Tensor | None, dev: torch.device) -> Tensor | None:
    """(B,) each row's budget in characters, `BIG` where it has none (negative); None: none."""
    if budget is None:
        return None
    limit = budget.to(dev)
    return torch.where(limit < 0, torch.full_like(limit, BIG), limit)


@torch.inference_mode()
def mask_predict(
    model: CMLM,
    src: Tensor,
    lengths: Tensor,
    iterations: int = 10,
    budget: Tensor | None = None,
    no_space: Tensor | None = None,
    tgt_len: Tensor | None = None,
) -> Decoded:
    """Decode src (B, S) into exactly `lengths` (B,) pieces per row with `iterations` rounds.

    `budget` (B,) characters per row (negative or None: none); `no_space` (B,) rows whose budget
    counts characters without word-boundary spaces; `tgt_len` (B,) the length signal for the
    model's encoding (default: `lengths`; < 0: none).
    """
    if iterations < 1:
        raise ValueError("iterations must be >= 1")
    if bool((lengths < 1).any()):
        raise ValueError("every row needs at least one target piece")
    dev = src.device
    B, N = src.size(0), int(lengths.max())
    lengths = lengths.to(dev)
    memory, src_pad = model.encode(src)
    signal: Tensor | None = lengths if tgt_len is None else tgt_len.to(dev)
    if model.cfg.encoding == "sinusoidal":
        signal = None
    valid = torch.arange(N, device=dev)[None, :] < lengths[:, None]  # (B, N)
    # (B, N, V) is avoided: a position's cost table is `first` at t = 0 or in no_space rows.
    bare = None if no_space is None else no_space.to(dev)
    use_first = first_positions(B, N, at=0, bare=bare, dev=dev)
    costs, limit = PieceCosts.of(model), budget_limit(budget, dev)
    tokens = torch.full((B, N), model.cfg.pad_id, dtype=torch.long, device=dev)
    logp_tok = torch.zeros(B, N, device=dev)
    for it in range(iterations):
        mask = valid.clone() if it == 0 else remask(logp_tok, lengths, valid, it=it, of=iterations)
        if not bool(mask.any()):
            break
        inp = torch.where(mask, torch.full_like(tokens, model.mask_id), tokens)
        hidden = model.decode_hidden(inp, memory, src_pad, signal)  # (B, N, D)
        tokens, logp_tok = predict_masked(
            model, hidden, mask=mask, tokens=tokens, logp_tok=logp_tok, costs=costs, limit=limit,
            use_first=use_first, valid=valid,
        )  # fmt: skip
    return Decoded(tokens, logp_tok * valid, costs.chars(tokens, use_first, valid))


def remask(logp_tok: Tensor, lengths: Tensor, valid: Tensor, *, it: int, of: int) -> Tensor:
    """(B, N) the positions iteration `it` of T = `of` re-predicts: the n = floor(N (T - it) / T)
    pieces of lowest probability (Ghazvininejad et al. 2019, sec. 3)."""
    n = (lengths * (of - it)) // of  # (B,)
    conf = logp_tok.masked_fill(~valid, float("inf"))
    rank = conf.argsort(dim=1, stable=True).argsort(dim=1)  # 0 = least confident
    return (rank < n[:, None]) & valid


def predict_masked(
    model: CMLM | LevT,
    hidden: Tensor,
    *,
    mask: Tensor,
    tokens: Tensor,
    logp_tok: Tensor,
    costs: PieceCosts,
    limit: Tensor | None,
    use_first: Tensor,
    valid: Tensor,
) -> tuple[Tensor, Tensor]:
    """(tokens, logp_tok) (B, N) with every masked position a piece and its log-probability:
    the most probable one, or with a budget `limit` (B,) the best that keeps its row within it
    (`fill_within_budget`). `hidden` (B, N, D) the decoder states; only the masked positions
    go through the output projection."""
    rb, rt = mask.nonzero(as_tuple=True)
    weight = model.embed.weight  # (V, D) the tied output projection
    logp = torch.log_softmax((hidden[rb, rt] @ weight.t()).float(), dim=-1)  # (M, V)
    logp.masked_fill_(costs.banned, NEG_INF)
    if limit is None:
        best_lp, best_id = logp.max(dim=-1)
        return tokens.index_put((rb, rt), best_id), logp_tok.index_put((rb, rt), best_lp)
    cand_id, cand_lp = fill_candidates(logp, use_first[rb, rt], costs.cheap)  # (M, k+1)
    B, N = mask.shape
    dense_id = torch.zeros(B, N, cand_id.size(1), dtype=torch.long, device=mask.device)
    dense_lp = torch.full((B, N, cand_id.size(1)), NEG_INF, device=mask.device)
    dense_id[rb, rt], dense_lp[rb, rt] = cand_id, cand_lp
    best_id, best_lp = fill_within_budget(
        dense_id,
        dense_lp,
        mask=mask,
        tokens=tokens,
        valid=valid,
        use_first=use_first,
        least=costs.least(use_first, valid),
        limit=limit,
        first=costs.first,
        later=costs.later,
    )
    return torch.where(mask, best_id, tokens), torch.where(mask, best_lp, logp_tok)


def cheapest_pieces(model: CMLM | LevT) -> tuple[Tensor, Tensor]:
    """Ids of the generable pieces of fewest characters as the first piece / as a later one."""
    first, later, banned = piece_costs(model)
    m_first, m_later = min_costs(model)
    return (
        torch.nonzero(first.eq(m_first) & ~banned)[:, 0],
        torch.nonzero(later.eq(m_later) & ~banned)[:, 0],
    )


def fill_candidates(
    logp: Tensor, use_first: Tensor, cheap: tuple[Tensor, Tensor]
) -> tuple[Tensor, Tensor]:
    """(ids, log-probabilities) (M, k+1) for M positions' log-probabilities (M, V) (banned
    pieces -inf): the top-k, most probable first, then the best of the cheapest pieces for the
    position's cost table (`use_first` (M,): the first-piece one)."""
    cheap_first, cheap_later = cheap
    top_lp, top_id = logp.topk(min(TOP_K, logp.size(1)), dim=-1)  # (M, k)
    first_id = cheap_first[logp[:, cheap_first].argmax(dim=-1)]
    later_id = cheap_later[logp[:, cheap_later].argmax(dim=-1)]
    cheap_id = torch.where(use_first, first_id, later_id)  # (M,)
    cand_id = torch.cat((top_id, cheap_id[:, None]), dim=1)  # (M, k+1)
    return cand_id, torch.cat((top_lp, logp.gather(1, cheap_id[:, None])), dim=1)


def fill_within_budget(
    cand_id: Tensor,
    cand_lp: Tensor,
    *,
    mask: Tensor,
    tokens: Tensor,
    valid: Tensor,
    use_first: Tensor,
    least: Tensor,
    limit: Tensor,
    first: Tensor,
    later: Tensor,
) -> tuple[Tensor, Tensor]:
    """Fill the masked positions most-confident first within the budget (module docstring).

    `cand_id` / `cand_lp` (B, N, k+1): each masked position's top-k pieces, most probable first,
    then its best cheapest piece. Returns (ids, log-probabilities) (B, N) (masked ones used).
    """
    B, N = mask.shape
    dev = mask.device
    cand_cost = torch.where(use_first[:, :, None], first[cand_id], later[cand_id])
    kept = valid & ~mask
    fixed = (torch.where(use_first, first[tokens], later[tokens]) * kept).sum(dim=1)  # (B,)
    rem = limit - fixed - (least * mask).sum(dim=1)  # (B,) slack over the minimum still needed
    order = (
        cand_lp[:, :, 0].masked_fill(~mask, NEG_INF).argsort(dim=1, descending=True, stable=True)
    )
    n_masked = mask.sum(dim=1)  # (B,)
    out_id = torch.zeros(B, N, dtype=torch.long, device=dev)
    out_lp = torch.zeros(B, N, device=dev)
    rows = torch.arange(B, device=dev)
    for step in range(int(n_masked.max())):
        t = order[:, step]  # (B,) the next position of each row
        active = step < n_masked  # (B,)
        c_lp, c_cost, c_id = cand_lp[rows, t], cand_cost[rows, t], cand_id[rows, t]  # (B, k+1)
        m_t = least[rows, t]
        ok = c_cost <= (rem + m_t)[:, None]
        ok[:, -1] |= ~ok.any(dim=1)  # infeasible row (budget below the minimum): cheapest piece
        pick = c_lp.masked_fill(~ok, NEG_INF).argmax(dim=1)  # (B,)
        chosen = c_id.gather(1, pick[:, None])[:, 0]
        cost = c_cost.gather(1, pick[:, None])[:, 0]
        rem = torch.where(active, rem + m_t - cost, rem)
        out_id[rows, t] = torch.where(active, chosen, out_id[rows, t])
        out_lp[rows, t] = torch.where(active, c_lp.gather(1, pick[:, None])[:, 0], out_lp[rows, t])
    return out_id, out_lp
