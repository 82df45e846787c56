"""The search of `fitsub.hf.backend.HFBackend`: a batch of jobs through the model's own
`generate`, bounded by `fitsub.hf.constraints.BudgetProcessor`, read back as hypotheses.

The steps of `HFBackend._generate`: `budget_processor` (bound: the hard budget, the lower
bound, whole words and the lexicon as one logits processor, always on: without budgets it
still keeps special and language tokens out of the text); `generate_options` (the search:
beam search with `length_penalty=0`, so that a hypothesis' score is its summed
log-probability, or greedy search, whose scores `greedy_scores` sums from the step logits);
`hypotheses` (finish: each returned sequence's pieces, text, characters and whether it ended
inside the search's constraints).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from fitsub.hf.constraints import BudgetProcessor, PieceTable
from fitsub.nmt.lexicon_mask import LexiconMask
from fitsub.units import char_length, chars_no_space

DEAD = -1e8  # `generate` fills beams it could not fill with about -1e9


@dataclass
class Job:
    """One request as the model reads it."""

    index: int
    text: str  # with prefix / length token
    n_ids: int
    units: int | None  # length for LDPE / LRPE, in pieces
    rerank: int | None
    source: str = ""  # the request's text: the words the output may copy


@dataclass(frozen=True)
class Hyp:
    """One returned sequence: its pieces, score, characters and text."""

    ids: list[int]
    score: float
    chars: int
    text: str
    ok: bool  # finished inside the search's constraints


def budget_processor(
    table: PieceTable,
    jobs: Sequence[Job],
    k: int,
    lexicon: LexiconMask | None,
    bounds: tuple[Sequence[int | None] | None, Sequence[int | None] | None, list[bool]],
    prefix: int,
    max_new: int,
) -> BudgetProcessor:
    """Bound: the processor of the jobs' `bounds` (budgets, lower bounds, no_space rows; None:
    none), `k` beams each, `prefix` decoder positions before the first content piece."""
    budgets, floors, bare = bounds
    n = len(jobs)
    sources = [j.source for j in jobs]
    lex = None if lexicon is None else (lexicon, lexicon.for_sources(sources, table.chars.device))
    return BudgetProcessor(
        table=table,
        max_chars=list(budgets) if budgets is not None else [None] * n,
        min_chars=list(floors) if floors is not None else [None] * n,
        no_space=bare,
        num_beams=k,
        prefix_len=prefix,
        max_len=1 + max_new,
        lexicon=lex,
    )


def generate_options(
    k: int, max_new: int, forced_bos: int | None, proc: BudgetProcessor
) -> dict[str, Any]:
    """`generate`'s arguments: `k` beams returned, summed log-probabilities as scores (beam
    search: `length_penalty=0`; greedy: the step logits, for `greedy_scores`)."""
    from transformers import LogitsProcessorList

    options: dict[str, Any] = dict(num_beams=k, num_return_sequences=k, max_new_tokens=max_new)
    options.update(do_sample=False, return_dict_in_generate=True)
    if k > 1:
        options.update(length_penalty=0.0, output_scores=True, early_stopping=True)
    else:
        options.update(output_logits=True)
    if forced_bos is not None:
        options["forced_bos_token_id"] = forced_bos
    options["logits_processor"] = LogitsProcessorList([proc])
    return options


def greedy_scores(gen: Any, prefix: int, eos: int) -> list[float]:
    """Greedy search's scores: the model's log-probabilities of the chosen pieces, EOS
    included, the forced language token not (it is not the model's choice)."""
    seqs = gen.sequences
    logp = torch.stack([torch.log_softmax(x.float(), -1) for x in gen.logits], 1)
    steps = seqs[:, 1 : 1 + logp.size(1)]
    picked = logp.gather(2, steps[:, :, None])[:, :, 0]
    ended = (steps == eos).long().cumsum(1)
    live = (ended == 0) | ((ended == 1) & (steps == eos))
    live[:, : prefix - 1] = False
    scores: list[float] = picked.masked_fill(~live, 0.0).sum(1).tolist()
    return scores


def hypotheses(
    tokenizer: Any,
    seqs: list[list[int]],
    scores: list[float],
    dead: list[bool],
    *,
    n: int,
    k: int,
    prefix: int,
    special: list[bool],
    eos: int,
    bare: list[bool],
) -> list[list[Hyp]]:
    """Finish: the `k` sequences of each of `n` jobs as hypotheses: the content pieces up to EOS, the
    text, its characters (without spaces in `bare` rows), and whether the search ended it inside
    its constraints (not a beam `generate` filled, not a greedy row the processor killed)."""
    out: list[list[Hyp]] = [[] for _ in range(n)]
    for r, row in enumerate(seqs):
        ids = row[prefix:]
        ids = ids[: ids.index(eos)] if eos in ids else ids
        ids = [i for i in ids if 0 <= i < len(special) and not special[i]]
        text = tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
        text = text.strip()
        chars = chars_no_space(text) if bare[r // k] else char_length(text)
        ok = scores[r] > DEAD and not dead[r]
        out[r // k].append(Hyp(ids, float(scores[r]), chars, text, ok))
    return out
