"""The unconstrained beam as CTranslate2 runs it: fitsub's own search of a request without a
bound, so that the unconstrained pass gives the same n-best on either engine (`fitsub.nmt.ct2`).

CTranslate2's `BeamSearch::search` (src/decoding.cc, 4.x; `length_penalty=0`, patience 1, the
search `fitsub.nmt.ct2.Ct2Engine` asks for): each step scores the K live hypotheses of a source
and takes its 2K best candidates (summed log-probabilities). Of the first K, each EOS candidate
is a finished hypothesis, kept with its score, and its place in the beam goes to the next
candidate of the second K that is not EOS, so K hypotheses stay live. A source is done once the
best candidate of one of its steps was EOS and it has kept `n` finished hypotheses, or at the
last step (`max_len`), where only EOS is allowed, as in fitsub's beam (a forced end: CTranslate2
keeps its last piece instead, but `Ct2Engine` hands a row that reaches its length cap back to
fitsub's search, so that ending is fitsub's on either engine) and the K are kept. Its `n`
best by score are then re-ranked by fitsub's length normalisation
(`fitsub.nmt.search.normalised_score`, Wu et al. 2016 eq. 14), as `Ct2Engine` re-ranks
CTranslate2's. The pieces fitsub never generates are
suppressed before the softmax, as CTranslate2's `suppress_sequences` does (masked after it, as
in fitsub's beam, 23 of ud-pud dev's 1,000 1-best outputs differed from CTranslate2's); each
hypothesis also carries its score under the full softmax, the model's own log-probability of
it (what forced decoding gives, `NMTBackend.score_outputs`), which is the score returned.
There is no whole-words rule here: no bound can cut a word (`fitsub.nmt.bounds`).

`fitsub.nmt.search` keeps finished hypotheses in their slots, where they compete with the live
ones, and stops when no live hypothesis can beat the best finished one on its summed score; on
rows without a bound it often stopped before a longer hypothesis with a better normalised score
had finished (86 % of ud-pud dev's 1-best were CTranslate2's, docs/results/speed.md).
"""

from __future__ import annotations

import torch
from torch import Tensor

from fitsub.nmt.model import Transformer

NEG_INF = float("-inf")
# (piece ids without BOS / EOS, summed log-probability as searched, the model's own)
Found = list[tuple[list[int], float, float]]


@torch.inference_mode()
def free_beam(
    model: Transformer, src: Tensor, tgt_len: Tensor | None, beam: int, n: int, max_len: int
) -> list[Found]:
    """CTranslate2's beam search (module docstring) over a padded batch `src` (B, S): per row
    its `n` best finished hypotheses by summed log-probability, best first (not re-ranked), each
    with its summed log-probability as searched (the special pieces suppressed) and the model's
    own (what forced decoding gives). `tgt_len` (B,): -1 (no length) per row, or None."""
    cfg = model.cfg
    B, K, V, eos = src.size(0), beam, cfg.vocab_size, cfg.eos_id
    dev = src.device
    memory, pad = model.encode(src)  # (B, S, D), (B, S)
    banned = model.piece_chars.eq(0)
    banned[eos] = False
    base = torch.zeros(V, device=dev).masked_fill(banned, NEG_INF)  # (V,)
    cache = model.new_cache(min(max_len + 1, src.size(1) + 16))
    found: list[Found] = [[] for _ in range(B)]
    top_ended = [False] * B
    srcs = list(range(B))  # the sources still searching, in row-block order
    last = torch.full((B, 1), cfg.bos_id, dtype=torch.long, device=dev)  # (n, 1) next input
    lens = tgt_len
    seqs: list[list[int]] = [[] for _ in range(B)]  # each row's pieces so far
    scores: Tensor | None = None  # (n,) each row's summed log-probability, as searched
    was: list[float] = [0.0] * B  # the same per row, as Python floats
    own: list[float] = [0.0] * B  # each row's summed log-probability under the full softmax
    width = min(2 * K, V)
    for step in range(max_len):
        h = model.decode_hidden(last, memory, pad, lens, cache)[:, -1]  # (n, D)
        logits = model.project(h).float()
        logp = torch.log_softmax(logits + base, dim=-1)  # (n, V) the special pieces suppressed
        # the full softmax's log-probability of a piece less the searched one's: the log of
        # the allowed pieces' mass (<= 0), the same for every allowed piece of the row
        mass = (torch.log_softmax(logits, dim=-1)[:, eos] - logp[:, eos]).tolist()
        final = step + 1 == max_len
        if final:  # forced end, as in fitsub's beam: only EOS (module docstring)
            end = logp[:, eos].clone()
            logp.fill_(NEG_INF)
            logp[:, eos] = end
        if scores is not None:
            logp += scores[:, None]
        per = 1 if scores is None else K  # rows per source (one at the first step)
        top, idx = logp.view(len(srcs), per * V).topk(width, dim=1)  # (B', 2K)
        tops, idxs = top.tolist(), idx.tolist()
        rows: list[int] = []  # the parent row of each new live row
        toks: list[int] = []
        news: list[float] = []
        owns: list[float] = []
        going: list[int] = []  # the sources still searching after this step
        for i, s in enumerate(srcs):
            cand, got = idxs[i], found[s]
            spare = K  # the next candidate of the second K that may replace an ended one
            picks = []
            for k in range(K):
                j = k
                if cand[k] % V == eos or final:
                    top_ended[s] |= k == 0
                    tail = [] if cand[k] % V == eos else [cand[k] % V]
                    r = i * per + cand[k] // V
                    mine = own[r] + tops[i][k] - was[r] + mass[r]
                    got.append((seqs[r] + tail, tops[i][k], mine))
                    for m in range(spare, width):
                        if cand[m] % V != eos:
                            j, spare = m, m + 1
                            break
                picks.append(j)
            if final or (top_ended[s] and len(got) >= n):
                got.sort(key=lambda h: -h[1])
                del got[n:]
                continue
            going.append(i)
            for j in picks:
                r = i * per + cand[j] // V
                rows.append(r)
                toks.append(cand[j] % V)
                news.append(tops[i][j])
                owns.append(own[r] + tops[i][j] - was[r] + mass[r])
        if not going:
            break
        seqs = [seqs[r] + [t] for r, t in zip(rows, toks, strict=True)]
        index = torch.tensor(rows, dtype=torch.long, device=dev)
        cross = scores is None or len(going) != len(srcs)  # the rows' sources changed
        if cross:
            pad = pad[index]
            lens = None if lens is None else lens[index]
        cache.reorder(index, cross=cross)
        srcs = [srcs[i] for i in going]
        last = torch.tensor(toks, dtype=torch.long, device=dev)[:, None]
        scores = torch.tensor(news, device=dev)
        was, own = news, owns
    return found
