"""`NATBackend`: the `fitsub.backend.TranslationBackend` over a CMLM or LevT checkpoint.

Per request, the piece count comes from the requested length: n0 = round(target_chars /
chars_per_piece) (chars_per_piece measured at training time); without a requested length, from the
source: n0 = round(source pieces * length_ratio) (target / source pieces in the training data,
Lakew et al.'s proxy by input length, which Oka et al. 2021, sec. 4.4, use for their students).
`length_candidates` counts around n0 (n0, n0+1, n0-1, n0+2, ...) are decoded in one batch with
mask-predict (`fitsub.nat.decode`, a fixed number of iterations); with a hard budget, counts whose
fewest possible characters exceed the budget are dropped and the decoder keeps within the budget
by construction. The candidates are ordered by their average log-probability (Ghazvininejad et al.
2019, sec. 3) less `length_weight * |chars - target| / target` (as the AR n-best re-ranking,
`fitsub.nmt.search.rerank_key`); candidates reaching `min_chars` come first.

A Levenshtein Transformer (`fitsub.nat.levt_decode`) is given the piece count as its placeholder
classifier's length signal and chooses its own length; it is decoded with one length by default
(`length_candidates`), the insertions capped and the placeholders filled within the budget by
construction. When a LevT output's detokenised text misses the budget, the latest earlier
iteration's output that fits replaces it (whole pieces, never a cut word).

Verification: each candidate's detokenised text is measured with `fitsub.units` and compared with
the budget. When no candidate fits (a budget below one piece, or detokenisation differing from the
piece counts), the shortest candidates are returned flagged `fits=False`, as the AR search does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from fitsub.backend import Candidate, Request
from fitsub.errors import InputError
from fitsub.nat.checkpoint import load_nat
from fitsub.nat.decode import mask_predict, min_costs
from fitsub.nat.levt import LevT
from fitsub.nat.levt_decode import levt_decode
from fitsub.nmt.lengths import length_class
from fitsub.nmt.ranking import rerank_key
from fitsub.units import char_length, chars_no_space, chars_to_no_space, subword_target

if TYPE_CHECKING:
    from fitsub.quality.lexicon import Lexicon
    from fitsub.quality.links import WordLinks


@dataclass(frozen=True)
class _Row:
    """One (request, piece count) decoding row."""

    req: int
    src: list[int]
    pieces: int
    budget: int | None


@dataclass(frozen=True)
class _Out:
    text: str
    score: float  # sum of log-probabilities
    mean: float  # average log-probability
    chars: int  # of the text, in the request's unit


class NATBackend:
    """Length-controlled non-autoregressive translation with a CMLM or LevT checkpoint."""

    def __init__(
        self,
        model_dir: Path,
        device: str = "auto",
        iterations: int = 10,
        length_candidates: int | None = None,
        length_weight: float = 1.0,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        from fitsub.device import resolve_device

        if iterations < 1 or (length_candidates or 1) < 1 or batch_size < 1:
            raise InputError(None, "iterations, length candidates and batch size must be >= 1")
        self.device = resolve_device(device)
        if threads is not None and self.device.type == "cpu":
            torch.set_num_threads(max(1, threads))
        self.model, self.tokenizer, self.cfg, self.meta = load_nat(model_dir, self.device)
        self.arch = self.cfg.arch
        # no word resources: a student checks no lexicon and gives no word links
        self.lexicon: Lexicon | None = None
        self.links: WordLinks | None = None
        if length_candidates is None:  # a LevT chooses its own length around the signal
            length_candidates = 1 if isinstance(self.model, LevT) else 3
        if self.cfg.length_token and self.cfg.length_thresholds is None:
            raise InputError(model_dir, "model uses length tokens but stores no thresholds")
        self.iterations, self.length_candidates = iterations, length_candidates
        self.length_weight, self.batch_size = length_weight, batch_size
        self.name = f"nat:{Path(model_dir).name}:{self.arch}-{self.cfg.method}"
        self.chars_per_piece = float(self.cfg.extra.get("chars_per_piece") or 4.0)
        self.length_ratio = float(self.cfg.extra.get("length_ratio") or 1.0)
        self.min_first, self.min_later = min_costs(self.model)

    def known_words(self) -> frozenset[str]:
        """Lower-cased whole words of the vocabulary, for `cut-word` (`Tokenizer.known_words`)."""
        return self.tokenizer.known_words()

    def _counts(self, n0: int, budget: int | None) -> list[int]:
        """Piece counts to decode: around n0, none whose fewest characters exceed the budget."""
        top = self.cfg.max_positions - 1
        if budget is not None and budget >= self.min_first:
            most = 1 + (budget - self.min_first) // max(self.min_later, 1)
            top = min(top, most)
            n0 = min(n0, top)
        counts: list[int] = []
        for i in range(4 * self.length_candidates + 1):
            n = n0 + (i + 1) // 2 * (1 if i % 2 else -1)  # n0, n0+1, n0-1, n0+2, ...
            if 1 <= n <= top and n not in counts:
                counts.append(n)
            if len(counts) == self.length_candidates:
                break
        return counts or [1]

    def _rows(self, i: int, req: Request) -> list[_Row]:
        cfg, tok = self.cfg, self.tokenizer
        src_chars = char_length(req.text)
        token = None
        if cfg.length_token and cfg.length_thresholds is not None:
            token = length_class(src_chars, req.target_chars or src_chars, cfg.length_thresholds)
        ids = tok.source_ids(req.text, token)
        if req.target_chars is not None:
            n0 = subword_target(req.target_chars, self.chars_per_piece)
        else:
            n0 = max(1, round((len(ids) - 1 - (token is not None)) * self.length_ratio))
        budget = req.max_chars
        if budget is not None and budget < self.min_first:  # not even one piece: flagged later
            budget = None
        return [_Row(i, ids, n, budget) for n in self._counts(n0, budget)]

    def _decode(self, rows: list[_Row], requests: Sequence[Request]) -> list[_Out]:
        S = max(len(r.src) for r in rows)
        src = torch.full((len(rows), S), self.cfg.pad_id, dtype=torch.long)
        for j, r in enumerate(rows):
            src[j, : len(r.src)] = torch.tensor(r.src)
        lengths = torch.tensor([r.pieces for r in rows])
        budget = None
        if any(r.budget is not None for r in rows):
            budget = torch.tensor([-1 if r.budget is None else r.budget for r in rows])
        bare = torch.tensor([requests[r.req].bounds_without_spaces for r in rows])
        if isinstance(self.model, LevT):
            return self._decode_levt(
                rows=rows, requests=requests, src=src, lengths=lengths, budget=budget, bare=bare
            )
        out = mask_predict(
            model=self.model,
            src=src.to(self.device),
            lengths=lengths,
            iterations=self.iterations,
            budget=budget,
            no_space=bare if bool(bare.any()) else None,
        )
        toks, lps = out.tokens.tolist(), out.logp.sum(dim=1).tolist()
        res = []
        for r, row, lp in zip(rows, toks, lps, strict=True):
            text = self.tokenizer.decode(row[: r.pieces])
            n = chars_no_space(text) if requests[r.req].bounds_without_spaces else char_length(text)
            res.append(_Out(text, float(lp), float(lp) / r.pieces, n))
        return res

    def _decode_levt(
        self,
        rows: list[_Row],
        requests: Sequence[Request],
        src: torch.Tensor,
        lengths: torch.Tensor,
        budget: torch.Tensor | None,
        bare: torch.Tensor,
    ) -> list[_Out]:
        """Decode rows with the LevT; a text over its budget falls back on the latest earlier
        iteration's output that fits (module docstring)."""
        assert isinstance(self.model, LevT)
        out = levt_decode(
            model=self.model,
            src=src.to(self.device),
            tgt_len=lengths,
            max_iter=self.iterations,
            budget=budget,
            no_space=bare if bool(bare.any()) else None,
        )
        steps = [(out.tokens, out.logp), *reversed(out.history)]
        res = []
        for j, r in enumerate(rows):
            no_space = requests[r.req].bounds_without_spaces
            tried: list[_Out] = []
            for toks, lps in steps:
                ids = [i for i in toks[j].tolist() if i != self.cfg.pad_id]
                text = self.tokenizer.decode(ids)
                n = chars_no_space(text) if no_space else char_length(text)
                lp = float(lps[j].sum())
                tried.append(_Out(text, lp, lp / max(len(ids), 1), n))
                if r.budget is None or n <= r.budget:
                    break
            fits = r.budget is None or tried[-1].chars <= r.budget
            res.append(tried[-1] if fits else tried[0])  # none fits: the final one, flagged later
        return res

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """n-best candidates per request, best first, in input order."""
        out: list[list[Candidate]] = [[] for _ in requests]
        rows: list[_Row] = []
        for i, req in enumerate(requests):
            if not req.text.strip():
                out[i] = [Candidate("", 0.0, True)]
            else:
                rows.extend(self._rows(i, req))
        rows.sort(key=lambda r: (len(r.src), r.pieces))
        found: dict[int, list[_Out]] = {}
        step = self.batch_size * self.length_candidates
        for start in range(0, len(rows), step):
            chunk = rows[start : start + step]
            for r, o in zip(chunk, self._decode(chunk, requests), strict=True):
                found.setdefault(r.req, []).append(o)
        for i, outs in found.items():
            out[i] = self._choose(requests[i], outs, n_best)
        return out

    def _choose(self, req: Request, outs: list[_Out], n_best: int) -> list[Candidate]:
        """Order one request's candidates (module docstring); flag them when none fits."""
        budget, floor = req.max_chars, req.min_chars
        target = req.target_chars
        if req.bounds_without_spaces and target is not None:  # re-rank in the bounds' unit
            target = chars_to_no_space(target, req.text)
        uniq = list({o.text: o for o in sorted(outs, key=lambda o: o.mean)}.values())
        fitting = [o for o in uniq if budget is None or 0 < o.chars <= budget]
        if fitting:

            def key(o: _Out) -> tuple[bool, float]:
                reaches = floor is None or o.chars >= floor
                return (not reaches, -rerank_key(o.mean, o.chars, target, self.length_weight))

            return [Candidate(o.text, o.score, True) for o in sorted(fitting, key=key)[:n_best]]
        short = sorted(uniq, key=lambda o: (o.chars == 0, o.chars, -o.mean))[:n_best]
        return [Candidate(o.text, o.score, False) for o in short]
