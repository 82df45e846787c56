"""The steps of a batched beam search, each a small unit a reader can test alone (the shape of
Sockeye's beam search: `UpdateScores`, `TopK`, `SortNormalizeAndUpdateFinished`).

One step of `fitsub.nmt.search` is:

* expand: `Decoder.step`, the final decoder state of every live row (one row per live slot,
  the KV cache holding the rows' histories); the next pieces' scores and their bounds are
  `fitsub.nmt.bounds.step_scores`;
* select: `candidates` lays each searching source's K x V continuations out in its K slots
  (a finished slot may only be extended by EOS, at no cost) and `top_k` keeps the K best;
* advance: `Beam.advance` writes the chosen pieces, characters, scores and ended flags;
* finish: `Beam.stop` ends the search when every slot has ended or when no live hypothesis can
  beat its source's best finished one any more (the live ones are dropped);
* follow: `Beam.follow` and `Decoder.follow` move the decoder's rows and cache onto the
  slots still live.

`Decoder`, `suppressed` and `only_eos` also serve `fitsub.nmt.free_search`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from fitsub.nmt.model import Transformer

NEG_INF = float("-inf")


def suppressed(model: Transformer) -> Tensor:
    """(V,) 0, or -inf for the pieces search never generates: those of no characters (pad, BOS,
    unk, length tokens, language tags) other than EOS."""
    banned = model.piece_chars.eq(0)
    banned[model.cfg.eos_id] = False
    return torch.zeros(model.cfg.vocab_size, device=banned.device).masked_fill(banned, NEG_INF)


def only_eos(logp: Tensor, eos: int) -> None:
    """The forced end, in place: every piece of `logp` (n, V) but EOS gets -inf."""
    end = logp[:, eos].clone()
    logp.fill_(NEG_INF)
    logp[:, eos] = end


class Decoder:
    """The incremental decoder over a beam's rows: the encoder output, each row's source padding
    and the KV cache (encode once, then one `decode` call per step)."""

    def __init__(self, model: Transformer, src: Tensor, max_len: int) -> None:
        self.model = model
        self.memory, self.pad = model.encode(src)  # (B, S, D), (B, S)
        # room for about as many pieces as the source has; the cache doubles when a search runs
        # past it (sized for max_len, a char-unit request's max_len of ~chars + 10 held 3-4x the
        # rows' need: most of the decoder's memory)
        self.cache = model.new_cache(min(max_len + 1, src.size(1) + 16))

    def step(self, last: Tensor, lens: Tensor | None) -> Tensor:
        """(n, D) each row's final decoder state after its latest piece `last` (n, 1)."""
        h = self.model.decode_hidden(
            tgt_in=last, memory=self.memory, src_pad=self.pad, tgt_len=lens, cache=self.cache
        )
        return h[:, -1]

    def follow(self, rows: Tensor, cross: bool) -> None:
        """Keep the rows `rows` (n',) of the state, in that order; `cross`: the rows' sources
        changed, so the source padding and the cross-attention K/V follow too."""
        if cross:
            self.pad = self.pad[rows]
        if cross or not torch.equal(rows, torch.arange(rows.numel(), device=rows.device)):
            self.cache.reorder(rows, cross=cross)


@dataclass(frozen=True)
class Step:
    """One step's choice for the slots of the sources still searching (B'K,): the slot each
    extends (`parent`), the decoder row of that parent (-1: an ended one), the piece, the score."""

    slots: Tensor
    parent: Tensor
    row: Tensor
    tok: Tensor
    score: Tensor


@dataclass
class Beam:
    """B sources x K hypotheses in a fixed (B*K) slot layout, best first as `top_k` ranks them.

    Only the live slots (not finished, not dead) are decoded: `live` (n,) is the slot of each
    decoder row. A finished slot keeps its score and may only be extended by EOS at no cost, so
    it still competes in its source's `top_k`; a source whose slots have all ended leaves
    `srcs`.
    """

    K: int
    eos: int
    tokens: Tensor  # (BK, max_len + 1) histories from BOS
    scores: Tensor  # (BK,) summed log-probabilities; -inf: an empty or dropped slot
    chars: Tensor  # (BK,) characters of each history
    finished: Tensor  # (BK,) ended by EOS
    live: Tensor  # (n,) the slot of each decoder row
    srcs: Tensor  # (B',) the sources still searching

    @classmethod
    def start(cls, model: Transformer, B: int, K: int, max_len: int, dev: torch.device) -> Beam:
        """Every source at BOS; all its beams start identical, so only slot 0 is kept."""
        cfg = model.cfg
        tokens = torch.full((B * K, max_len + 1), cfg.pad_id, dtype=torch.long, device=dev)
        tokens[:, 0] = cfg.bos_id
        scores = torch.full((B, K), NEG_INF, device=dev)
        scores[:, 0] = 0.0
        return cls(
            K=K,
            eos=cfg.eos_id,
            tokens=tokens,
            scores=scores.view(-1),
            chars=torch.zeros(B * K, dtype=torch.long, device=dev),
            finished=torch.zeros(B * K, dtype=torch.bool, device=dev),
            live=torch.arange(B, device=dev) * K,
            srcs=torch.arange(B, device=dev),
        )

    def slots(self) -> Tensor:
        """(B'K,) the slots of the sources still searching."""
        K = self.K
        return (self.srcs[:, None] * K + torch.arange(K, device=self.srcs.device)).view(-1)

    def advance(self, step: Step, add: Tensor, t: int) -> None:
        """Write step `t`'s choice: each slot takes its parent's history plus the piece, the
        characters the piece adds (`add` (1 or n, V); none after an end), the new score."""
        slots, parent, tok = step.slots, step.parent, step.tok
        was_fin = self.finished[parent]
        step_add = add[0, tok] if add.size(0) == 1 else add[step.row.clamp(min=0), tok]
        self.tokens[slots] = self.tokens[parent]
        self.tokens[slots, t + 1] = tok
        self.chars[slots] = self.chars[parent] + torch.where(was_fin, 0, step_add)
        self.finished[slots] = was_fin | tok.eq(self.eos)
        self.scores[slots] = step.score

    def stop(self, step: Step) -> Tensor | None:
        """The stop test after `advance`: None when the search is over, else (B'K,) the slots to
        decode next.

        Over when every slot has ended, or (early stop) when every source's best finished
        hypothesis scores at least as well as its best live one: log-probabilities are <= 0,
        so a live hypothesis can only lose score, and one looping hypothesis would otherwise keep
        the whole batch decoding to max_len; the live ones are then dropped (score -inf).
        """
        slots, K = step.slots, self.K
        fin = self.finished[slots]
        alive = ~fin & step.score.gt(NEG_INF)
        if not bool(alive.any()):
            return None
        sc, f = step.score.view(-1, K), fin.view(-1, K)
        best_fin = sc.masked_fill(~f, NEG_INF).amax(1)  # (B',)
        best_live = sc.masked_fill(f, NEG_INF).amax(1)  # (B',)
        if bool((best_fin >= best_live).all()):  # (-inf >= -inf: a source whose rows all died)
            self.scores[slots[~fin]] = NEG_INF
            return None
        return alive

    def follow(self, step: Step, alive: Tensor) -> tuple[Tensor, bool]:
        """Make the `alive` slots the live ones; returns the decoder row each continues and
        whether the rows' sources changed (then the cross-attention state must follow)."""
        before = self.live // self.K
        self.srcs = self.srcs[alive.view(-1, self.K).any(1)]
        self.live = step.slots[alive]
        after = self.live // self.K
        cross = after.numel() != before.numel() or not torch.equal(after, before)
        return step.row[alive], cross


def candidates(beam: Beam, logp: Tensor) -> Tensor:
    """(B'K, V) the score of every continuation of the searching sources' slots: the live rows'
    log-probabilities `logp` (n, V, overwritten) plus their scores, each in its slot's row;
    a finished slot only EOS, at its own score; empty slots -inf."""
    slots = beam.slots()
    V = logp.size(1)
    pos = torch.full((beam.scores.numel(),), -1, dtype=torch.long, device=logp.device)
    pos[slots] = torch.arange(slots.numel(), device=logp.device)
    cand = torch.full((slots.numel(), V), NEG_INF, device=logp.device)
    cand.index_copy_(0, pos[beam.live], logp.add_(beam.scores[beam.live][:, None]))
    done = slots[beam.finished[slots]]
    cand[pos[done], beam.eos] = beam.scores[done]
    return cand


def top_k(beam: Beam, cand: Tensor) -> Step:
    """The K best of each source's K x V candidates `cand` (B'K, V), best first."""
    K, V = beam.K, cand.size(1)
    slots = beam.slots()
    top, idx = cand.view(-1, K * V).topk(K, dim=1)  # (B', K)
    parent = (slots.view(-1, K)[:, :1] + idx // V).view(-1)  # (B'K,) the slot extended
    row_of = torch.full((beam.scores.numel(),), -1, dtype=torch.long, device=cand.device)
    row_of[beam.live] = torch.arange(beam.live.numel(), device=cand.device)
    return Step(
        slots=slots, parent=parent, row=row_of[parent], tok=(idx % V).view(-1), score=top.view(-1)
    )
