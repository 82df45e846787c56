"""Batched beam search with a KV cache, hard character budgets and n-best re-ranking.

Every source keeps `beam` hypotheses in a fixed (B * beam) batch; finished hypotheses stay in
their slot and may only be extended by EOS at no cost, so they compete with the live ones on
their model score (the sum of log-probabilities). Greedy search is `beam=1`. The loop stops when
every hypothesis has ended, or when no live hypothesis can beat a finished one any more (scores
only fall as hypotheses grow); at step `max_len` only EOS is allowed (forced end). Each step is
expand, bound, select, advance, finish (`_search`; the units are `fitsub.nmt.beam`'s).

The bounds of each step (hard budget, characters without spaces, lower bound, whole words) are
masks over the step's scores: `fitsub.nmt.bounds`. An empty output does not count as fitting a
budget: when no non-empty hypothesis fits, the source is searched again without the budget and
those candidates are returned shortest (non-empty) first, flagged `fits=False`; when no
hypothesis can meet both bounds, the row is searched again with the upper bound alone
(`_fall_back`).

Each row's n-best list is re-ranked towards its length target (Takase & Okazaki 2019, sec. 3.4),
or by the length-normalised score (Wu et al. 2016, eq. 14) without one: `fitsub.nmt.ranking`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from fitsub.nmt.beam import NEG_INF, Beam, Decoder, candidates, suppressed, top_k
from fitsub.nmt.bounds import Bounds, WordTable, step_scores
from fitsub.nmt.free_search import free_hypotheses
from fitsub.nmt.lexicon_mask import LexiconMask, Rows
from fitsub.nmt.model import Transformer, unwrap
from fitsub.nmt.ranking import LENGTH_PENALTY, Hypothesis, normalised_score, rerank_key

# the n-best lists' names, for the callers that import them from here
__all__ = ["LENGTH_PENALTY", "Hypothesis", "beam_search", "normalised_score", "rerank_key"]


# ---- one search: expand, bound, select, advance, finish -----------------------------------------


@dataclass(frozen=True)
class _Rules:
    """What bounds every step of one search: the per-slot bounds, the pieces never generated
    (`fitsub.nmt.beam.suppressed`), the whole-words tables and the lexicon."""

    bounds: Bounds
    base: Tensor  # (V,)
    cont: Tensor | None  # (V,) continuation pieces
    prefixes: Tensor | None  # (V, P)
    lexicon: tuple[LexiconMask, Rows] | None


def _rules(
    model: Transformer,
    K: int,
    dev: torch.device,
    tgt_len: Tensor | None,
    budget: Tensor | None,
    floor: Tensor | None,
    no_space: Tensor | None,
    words: WordTable | None,
    lexicon: tuple[LexiconMask, Rows] | None,
) -> _Rules:
    """The per-source bounds repeated for each of a source's K slots, and the step's tables."""

    def per_slot(x: Tensor | None) -> Tensor | None:
        return None if x is None else x.to(dev).repeat_interleave(K)

    bare = per_slot(no_space)
    return _Rules(
        bounds=Bounds(
            limit=per_slot(budget),
            least=per_slot(floor),
            bare=None if bare is None else bare[:, None],
            lens=per_slot(tgt_len),
        ),
        base=suppressed(model),
        cont=None if words is None else words.continues.to(dev),
        prefixes=None if words is None else words.prefixes.to(dev),
        lexicon=lexicon,
    )


def _bounded_scores(
    model: Transformer, beam: Beam, h: Tensor, t: int, max_len: int, rules: _Rules
) -> tuple[Tensor, Tensor]:
    """Bound: the live rows' next-piece log-probabilities (n, V) under every bound of step `t`
    (`fitsub.nmt.bounds.step_scores`: budget, lower bound, whole words, forced end), then the
    lexicon (`fitsub.nmt.lexicon_mask`: never invent a word); and the characters each adds."""
    live = beam.live
    logp, add = step_scores(
        model=model,
        h=h,
        last=beam.tokens[live, t],
        chars=beam.chars[live],
        t=t,
        max_len=max_len,
        b=rules.bounds,
        live=live,
        base=rules.base,
        cont=rules.cont,
        prefixes=rules.prefixes,
    )
    if rules.lexicon is not None:
        rules.lexicon[0].restrict(
            logp,
            histories=beam.tokens[live, 1 : t + 1].tolist(),
            row_source=(live // beam.K).tolist(),
            rows=rules.lexicon[1],
        )
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
    lexicon: tuple[LexiconMask, Rows] | None = None,
) -> tuple[Tensor, Tensor, Tensor, int]:
    """Run the beam; returns tokens (B*K, steps+1), scores (B*K,), chars (B*K,), steps.

    B*K slots (`fitsub.nmt.beam.Beam`); only the live slots are decoded, as the rows of the
    decoder batch and of the KV cache, compacted after every step. The scores `top_k` sees are
    those of the one fixed (B*K, V) batch of the plain algorithm, so the n-best lists are the same.
    """
    rules = _rules(
        model, K=beam, dev=src.device, tgt_len=tgt_len, budget=budget, floor=floor,
        no_space=no_space, words=words, lexicon=lexicon,
    )  # fmt: skip
    dec = Decoder(model, src, max_len)
    b = Beam.start(model, B=src.size(0), K=beam, max_len=max_len, dev=src.device)
    steps = 0
    for t in range(max_len):
        # the length each row asks for: LDPE / LRPE encode len - pos, the remaining length
        # (Takase & Okazaki 2019, eqs. 3-6; `fitsub.nmt.length_encodings`)
        lens = None if rules.bounds.lens is None else rules.bounds.lens[b.live]
        h = dec.step(b.tokens[b.live, t : t + 1], lens)  # expand: (n, D)
        logp, add = _bounded_scores(model, b, h, t=t, max_len=max_len, rules=rules)  # bound
        step = top_k(b, candidates(b, logp))  # select
        b.advance(step, add, t)
        steps = t + 1
        alive = b.stop(step)  # finish
        if alive is None:
            break
        dec.follow(*b.follow(step, alive))
    return b.tokens[:, : steps + 1], b.scores, b.chars, steps


# ---- the call: its rows' settings, the free rows, the n-best lists, the fallbacks ---------------


@dataclass(frozen=True)
class _Call:
    """`beam_search`'s arguments, per row where they are per row (B entries)."""

    tgt_len: Tensor | None
    max_chars: list[int | None]
    target_chars: list[int | None]
    min_chars: list[int | None]
    no_space: list[bool]
    sources: list[str] | None
    free: list[bool] | None
    beam: int
    max_len: int
    length_weight: float
    n_best: int
    words: WordTable | None
    lexicon: LexiconMask | None

    def pick(self, rows: list[int], **change: object) -> _Call:
        """The rows `rows` of this call, with the settings in `change` replaced."""
        sub = dataclasses.replace(
            self,
            tgt_len=None if self.tgt_len is None else self.tgt_len[rows],
            max_chars=[self.max_chars[b] for b in rows],
            target_chars=[self.target_chars[b] for b in rows],
            min_chars=[self.min_chars[b] for b in rows],
            no_space=[self.no_space[b] for b in rows],
            sources=None if self.sources is None else [self.sources[b] for b in rows],
            free=None if self.free is None else [self.free[b] for b in rows],
        )
        return dataclasses.replace(sub, **change)  # type: ignore[arg-type]

    def bounds(self) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        """(budget, lower bound, no_space) as (B,) tensors, None where no row has one."""
        big = 1 << 30
        budget = None
        if any(b is not None for b in self.max_chars):
            budget = torch.tensor(
                [big if b is None else b for b in self.max_chars], dtype=torch.long
            )
        floor = None
        if any(f is not None for f in self.min_chars):
            floor = torch.tensor([0 if f is None else f for f in self.min_chars], dtype=torch.long)
        bare = torch.tensor(self.no_space, dtype=torch.bool) if any(self.no_space) else None
        return budget, floor, bare


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
    V, B = plain.cfg.vocab_size, src.size(0)
    if words is not None and (words.continues.shape != (V,) or words.prefixes.size(0) != V):
        raise ValueError(f"the word table must have vocab_size={V} rows")
    call = _Call(
        tgt_len=tgt_len,
        max_chars=list(max_chars) if max_chars is not None else [None] * B,
        target_chars=list(target_chars) if target_chars is not None else [None] * B,
        min_chars=list(min_chars) if min_chars is not None else [None] * B,
        no_space=list(no_space) if no_space is not None else [False] * B,
        sources=None if sources is None else list(sources),
        free=None if free is None else list(free),
        beam=beam,
        max_len=max_len,
        length_weight=length_weight,
        n_best=n_best,
        words=words,
        lexicon=lexicon,
    )
    return _run(plain, src, call)


def _run(net: Transformer, src: Tensor, call: _Call) -> list[list[Hypothesis]]:
    """The rows of `src`: the free ones searched as CTranslate2 does, the others with their
    bounds, then the fallbacks for the rows none of whose hypotheses fit."""
    if call.free is not None and any(call.free):
        return _with_free_rows(net, src, call)
    if call.lexicon is not None and call.lexicon.vocab_size != net.cfg.vocab_size:
        raise ValueError(f"the lexicon mask must have vocab_size={net.cfg.vocab_size} rows")
    results, misses = _ranked(net, src, call)
    return _fall_back(net, src, call, results, misses) if misses else results


def _with_free_rows(net: Transformer, src: Tensor, call: _Call) -> list[list[Hypothesis]]:
    """The free rows through `fitsub.nmt.free_search`, the others through `_run`."""
    free, B = call.free or [], src.size(0)
    bounded = (call.max_chars, call.min_chars, call.target_chars)
    if any(free[b] and tuple(x[b] for x in bounded) != (None,) * 3 for b in range(B)):
        raise ValueError("a free row may have no budget, lower bound or length target")
    if call.lexicon is not None:
        raise ValueError("free rows do not keep to the lexicon")
    rest = [b for b in range(B) if not free[b]]
    out = dict(
        zip(rest, _run(net, src[rest], call.pick(rest, free=None)) if rest else [], strict=True)
    )
    mine = [b for b in range(B) if free[b]]
    out.update(
        free_hypotheses(net=net, src=src, tgt_len=call.tgt_len, rows=mine, k=max(call.beam, call.n_best),
                        max_len=call.max_len, n_best=call.n_best, bare=call.no_space)
    )  # fmt: skip
    return [out[b] for b in range(B)]


def _ranked(net: Transformer, src: Tensor, call: _Call) -> tuple[list[list[Hypothesis]], list[int]]:
    """The search with every bound: per row its `n_best` fitting hypotheses, best first, and the
    rows (`misses`) of which none fit although a bound or the lexicon applied."""
    B, k = src.size(0), max(call.beam, call.n_best)
    budget, floor, bare = call.bounds()
    lex = None
    if call.lexicon is not None:
        texts = call.sources if call.sources is not None else [""] * B
        lex = (call.lexicon, call.lexicon.for_sources(texts, src.device))
    tokens, scores, chars, _ = _search(
        model=net,
        src=src,
        tgt_len=call.tgt_len,
        budget=budget,
        beam=k,
        max_len=call.max_len,
        floor=floor,
        no_space=bare,
        words=call.words,
        lexicon=lex,
    )
    toks, scs, chs = tokens[:, 1:].tolist(), scores.tolist(), chars.tolist()
    bound = budget is not None or floor is not None or call.words is not None
    results: list[list[Hypothesis]] = []
    misses: list[int] = []
    for b in range(B):
        mine = slice(b * k, (b + 1) * k)
        hyps = _hypotheses(toks[mine], scs[mine], chs[mine], eos=net.cfg.eos_id, call=call, b=b)
        # with the lexicon an empty output is no translation either (its only way to "keep" to it)
        fitting = sorted(
            (h for h in hyps if h.fits and (call.lexicon is None or h.chars > 0)),
            key=lambda h: -h.rank,
        )
        if not fitting and (bound or call.lexicon is not None):
            misses.append(b)
        results.append(fitting[: call.n_best])
    return results, misses


def _hypotheses(
    toks: list[list[int]], scores: list[float], chars: list[int], eos: int, call: _Call, b: int
) -> list[Hypothesis]:
    """Row `b`'s K slots as hypotheses (dropped slots left out): the pieces up to EOS, whether
    they fit the budget (non-empty, within it) and the re-ranking key (module docstring)."""
    budget, target = call.max_chars[b], call.target_chars[b]
    hyps = []
    for ids, score, n in zip(toks, scores, chars, strict=True):
        if score == NEG_INF:
            continue
        ids = ids[: ids.index(eos)] if eos in ids else ids
        fits = budget is None or 0 < n <= budget
        key = (
            normalised_score(score, len(ids))
            if target is None
            else rerank_key(score, n, target, call.length_weight)
        )
        hyps.append(Hypothesis(ids=ids, score=score, chars=n, fits=fits, rank=key))
    return hyps


def _fall_back(
    net: Transformer, src: Tensor, call: _Call, results: list[list[Hypothesis]], misses: list[int]
) -> list[list[Hypothesis]]:
    """`results` with the rows `misses` searched again, with the first setting that can help
    dropped: the lexicon (the budget is the harder promise); else the lower bound; else, with no
    budget (every hypothesis cut at the forced end), the whole-words rule; else the budget,
    whose shortest non-empty candidates are returned flagged `fits=False`."""
    none: list[int | None] = [None] * len(misses)
    if call.lexicon is not None:
        again = _run(net, src[misses], call.pick(misses, lexicon=None))
    elif any(f is not None for f in call.min_chars):
        again = _run(net, src[misses], call.pick(misses, min_chars=none))
    elif all(b is None for b in call.max_chars):
        again = _run(net, src[misses], call.pick(misses, words=None))
    else:
        k = max(call.beam, call.n_best)
        wide = call.pick(misses, max_chars=none, n_best=k, target_chars=none, min_chars=none)
        again = [
            [dataclasses.replace(h, fits=False) for h in _shortest(hyps, call.n_best)]
            for hyps in _run(net, src[misses], wide)
        ]
    for b, hyps in zip(misses, again, strict=True):
        results[b] = hyps
    return results


def _shortest(hyps: list[Hypothesis], n: int) -> list[Hypothesis]:
    """The `n` shortest non-empty hypotheses (then the empty ones), the better score first."""
    return sorted(hyps, key=lambda h: (h.chars == 0, h.chars, -h.score))[:n]
