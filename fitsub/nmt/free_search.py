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
(`fitsub.nmt.ranking.normalised_score`, Wu et al. 2016 eq. 14), as `Ct2Engine` re-ranks
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

from dataclasses import dataclass, field

import torch
from torch import Tensor

from fitsub.nmt.beam import NEG_INF, Decoder, only_eos, suppressed
from fitsub.nmt.model import Transformer
from fitsub.nmt.ranking import Hypothesis, normalised_score

# (piece ids without BOS / EOS, summed log-probability as searched, the model's own)
Found = list[tuple[list[int], float, float]]


@dataclass
class _Live:
    """The live hypotheses, in decoder-row order: `per` rows (K, or one at the first step) for
    each source of `srcs`, each with its pieces, its summed log-probability as searched (`was`)
    and under the full softmax (`own`), and the row it continues (`parents`); K live per
    source, V pieces, EOS."""

    K: int
    V: int
    eos: int
    per: int
    srcs: list[int] = field(default_factory=list)
    seqs: list[list[int]] = field(default_factory=list)
    was: list[float] = field(default_factory=list)
    own: list[float] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)

    def own_score(self, r: int, score: float, mass: list[float]) -> float:
        """The full softmax's score of row `r` extended to the searched `score`: the searched
        step's log-probability plus the log of the allowed pieces' mass (`mass[r]`)."""
        return self.own[r] + score - self.was[r] + mass[r]

    def end_eos(
        self, i: int, cand: list[int], top: list[float], mass: list[float], final: bool, got: Found
    ) -> tuple[list[int], bool]:
        """Finish: of source `i`'s first K candidates (`cand`, `top`: its 2K best, flat over
        its rows x V), each EOS one (every one at the forced end) goes to `got`, a finished
        hypothesis, and its place in the beam to the next candidate of the second K that is
        not EOS. Returns the K candidates kept live (indices into `cand`) and whether the best
        one ended."""
        V, eos = self.V, self.eos
        spare = self.K  # the next candidate of the second K that may replace an ended one
        picks, best_ended = [], False
        for k in range(self.K):
            j = k
            if cand[k] % V == eos or final:
                best_ended |= k == 0
                tail = [] if cand[k] % V == eos else [cand[k] % V]
                r = i * self.per + cand[k] // V
                got.append((self.seqs[r] + tail, top[k], self.own_score(r, top[k], mass)))
                for m in range(spare, len(cand)):
                    if cand[m] % V != eos:
                        j, spare = m, m + 1
                        break
            picks.append(j)
        return picks, best_ended

    def extend(
        self, nxt: _Live, i: int, cand: list[int], top: list[float], mass: list[float]
    ) -> None:
        """Append to `nxt` source `i`'s chosen candidates `cand` (flat over its rows x V) with
        their searched scores `top`."""
        for c, score in zip(cand, top, strict=True):
            r = i * self.per + c // self.V
            nxt.parents.append(r)
            nxt.seqs.append(self.seqs[r] + [c % self.V])
            nxt.was.append(score)
            nxt.own.append(self.own_score(r, score, mass))


def _expand(
    dec: Decoder, last: Tensor, lens: Tensor | None, base: Tensor, final: bool
) -> tuple[Tensor, list[float]]:
    """The rows' next-piece log-probabilities (n, V) with the special pieces suppressed before
    the softmax (only EOS at the `final` step), and per row the log of the allowed pieces' mass
    under the full softmax (<= 0: what the full softmax's log-probability of an allowed piece
    is less the searched one's)."""
    eos = dec.model.cfg.eos_id
    logits = dec.model.project(dec.step(last, lens)).float()
    logp = torch.log_softmax(logits + base, dim=-1)  # (n, V) the special pieces suppressed
    mass = (torch.log_softmax(logits, dim=-1)[:, eos] - logp[:, eos]).tolist()
    if final:  # forced end, as in fitsub's beam: only EOS (module docstring)
        only_eos(logp, eos)
    return logp, mass


@torch.inference_mode()
def free_beam(
    model: Transformer, src: Tensor, tgt_len: Tensor | None, beam: int, n: int, max_len: int
) -> list[Found]:
    """CTranslate2's beam search (module docstring) over a padded batch `src` (B, S): per row
    its `n` best finished hypotheses by summed log-probability, best first (not re-ranked), each
    with its summed log-probability as searched (the special pieces suppressed) and the model's
    own (what forced decoding gives). `tgt_len` (B,): -1 (no length) per row, or None."""
    cfg, B, dev = model.cfg, src.size(0), src.device
    K, V = beam, cfg.vocab_size
    dec, base = Decoder(model, src, max_len), suppressed(model)
    found: list[Found] = [[] for _ in range(B)]
    top_ended = [False] * B
    live = _Live(K=K, V=V, eos=cfg.eos_id, per=1, srcs=list(range(B)), seqs=[[] for _ in range(B)])
    live.was, live.own = [0.0] * B, [0.0] * B
    last = torch.full((B, 1), cfg.bos_id, dtype=torch.long, device=dev)  # (n, 1)
    lens = tgt_len
    for step in range(max_len):
        final = step + 1 == max_len
        logp, mass = _expand(dec, last, lens, base=base, final=final)  # expand
        if step > 0:
            logp += torch.tensor(live.was, device=dev)[:, None]
        # select: each source's 2K best candidates over its rows x V
        top, idx = logp.view(len(live.srcs), live.per * V).topk(min(2 * K, V), dim=1)  # (B', 2K)
        tops, idxs = top.tolist(), idx.tolist()
        nxt = _Live(K=K, V=V, eos=cfg.eos_id, per=K)
        for i, s in enumerate(live.srcs):
            # finish: its ended candidates to `found`, their places to the next ones
            picks, ended = live.end_eos(i, idxs[i], tops[i], mass=mass, final=final, got=found[s])
            top_ended[s] |= ended
            if final or (top_ended[s] and len(found[s]) >= n):  # the source is done
                found[s].sort(key=lambda h: -h[1])
                del found[s][n:]
                continue
            nxt.srcs.append(s)
            chosen, scores = [idxs[i][j] for j in picks], [tops[i][j] for j in picks]
            live.extend(nxt, i, cand=chosen, top=scores, mass=mass)
        if not nxt.srcs:
            break
        index = torch.tensor(nxt.parents, dtype=torch.long, device=dev)
        cross = step == 0 or len(nxt.srcs) != len(live.srcs)  # the rows' sources changed
        dec.follow(index, cross)
        if cross and lens is not None:
            lens = lens[index]
        live = nxt
        last = torch.tensor([seq[-1] for seq in live.seqs], dtype=torch.long, device=dev)[:, None]
    return found


def free_hypotheses(
    net: Transformer,
    src: Tensor,
    tgt_len: Tensor | None,
    rows: list[int],
    k: int,
    max_len: int,
    n_best: int,
    bare: list[bool],
) -> dict[int, list[Hypothesis]]:
    """The rows `rows` of `src` through `free_beam` (K = k, its k best kept) as hypotheses
    (characters without spaces in `bare` rows), re-ranked by the length-normalised score
    (`fitsub.nmt.ranking`), as `Ct2Engine` re-ranks CTranslate2's; the source padding trimmed
    to theirs."""
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
