"""`NMTBackend`: the `fitsub.backend.TranslationBackend` over a checkpoint directory.

Requests are sorted by source length, batched, beam-searched (`fitsub.nmt.search`) and returned
in input order. The requested length `Request.target_chars` reaches the model as:
* the length for its encoding, in its unit: characters as they are; subwords as
  round(target_chars / chars_per_piece), chars_per_piece stored at training time in
  `cfg.extra["chars_per_piece"]` (or `config.json["train"]["chars_per_piece"]`), else measured on
  the source itself;
* the length token (Lakew's `<short> <normal> <long>`), from target_chars / source chars and the
  model's thresholds;
* the re-ranking target of the n-best list.
`Request.max_chars` is the hard budget enforced inside beam search.

`target_chars=None` asks for the unconstrained translation: no length signal (no token, no
encoding term) for a baseline or a model trained with `length_dropout > 0`
(`supports_unconstrained`); a length model trained without that has never seen a missing
length, so it is given the source's own length instead (Lakew et al.'s length-matching setting).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path

import torch

from fitsub.backend import Candidate, OutputScore, Request
from fitsub.device import resolve_device
from fitsub.errors import InputError
from fitsub.nmt.attention import (
    CrossAttentionRecorder,
    output_word_index,
    source_attention,
    source_positions,
    word_rarity,
)
from fitsub.nmt.bounds import word_table
from fitsub.nmt.checkpoint import language_files, load_checkpoint, load_lexicon
from fitsub.nmt.config import base_language, target_language
from fitsub.nmt.ct2 import Ct2Engine, open_engine
from fitsub.nmt.lengths import length_class
from fitsub.nmt.lexicon_mask import LexiconMask
from fitsub.nmt.model_files import MODEL_ENV, default_models_dir, resolve_model_dir
from fitsub.nmt.retry import ask_shorter
from fitsub.nmt.search import beam_search
from fitsub.quality.lexicon import Lexicon
from fitsub.quality.links import WordLinks, links_note, model_links
from fitsub.threads import rebalance_threads
from fitsub.units import char_length, chars_to_no_space, subword_target

DROPOUT_SEED = 0  # Monte-Carlo dropout masks of `score_outputs`: the same for every run
# int8 on CPU is a load option, not the default: its BLEU cost is within 0.3 (+0.05 mean on the
# en-it test sets, docs/results/speed.md), but dynamic int8 quantises activations per batch, so a
# segment's translation would depend on the segments batched with it (the backend promises the
# same output alone or in a batch).
INT8_DEFAULT = False
Row = tuple[int, list[int], int, int | None]  # request index, source ids, length, re-rank target
__all__ = [
    "MODEL_ENV",
    "NMTBackend",
    "base_language",
    "default_models_dir",
    "resolve_device",
    "resolve_model_dir",
    "target_language",
]


class NMTBackend:
    """Length-controlled translation with a trained checkpoint (CPU or CUDA)."""

    def __init__(
        self,
        model_dir: Path,
        device: str = "auto",
        beam: int = 5,
        length_weight: float = 1.0,
        batch_size: int = 32,
        threads: int | None = None,
        int8: bool | None = None,
        lang: str | None = None,
        lexicon: str | Path = "auto",
    ) -> None:
        if beam < 1 or batch_size < 1:
            raise InputError(None, "beam and batch size must be at least 1")
        self.device = resolve_device(device)
        if threads is not None and self.device.type == "cpu":
            torch.set_num_threads(max(1, threads))
        if int8 is None:  # the default: see INT8_DEFAULT
            int8 = INT8_DEFAULT and self.device.type == "cpu"
        self.int8 = int8 and self.device.type == "cpu"
        self.model, self.tokenizer, self.cfg, self.meta = load_checkpoint(
            model_dir, self.device, int8=self.int8
        )
        self.beam, self.length_weight, self.batch_size = beam, length_weight, batch_size
        self.name = f"nmt:{Path(model_dir).name}:{self.cfg.method}"
        # a multilingual model: the target language its sources are tagged with
        self.lang = target_language(self.cfg, lang, model_dir) if self.cfg.tgt_langs else None
        if self.cfg.length_token and self.cfg.length_thresholds is None:
            raise InputError(model_dir, "model uses length tokens but stores no thresholds")
        cpp = self.cfg.extra.get(
            "chars_per_piece", self.meta.get("train", {}).get("chars_per_piece")
        )
        self.chars_per_piece: float | None = None if cpp is None else float(cpp)
        # whole words only: the pieces that continue a word (`fitsub.nmt.search`)
        self.words = word_table(self.tokenizer)
        # rows without a bound searched as CTranslate2 does (fitsub.nmt.free_search); False:
        # fitsub's beam with the whole-words rule, as before (bench/ct2_agreement.py)
        self.free_as_ct2 = True
        # never invent a word (fitsub.nmt.lexicon_mask): the checkpoint's lexicon.txt.gz, a
        # file, or "off"; `lexicon_note` says which (or why none), for the CLI to say once
        self.lexicon: Lexicon | None
        files = language_files(model_dir, default_models_dir(), self.cfg.src_lang, self.lang)
        self.lexicon, self.lexicon_note = load_lexicon(files, lexicon, tuple(self.cfg.targets))
        # the word links of the quality score (fitsub.quality.links; None: the signal is missing,
        # and `links_note` says so once)
        self.links: WordLinks | None = model_links(files, tuple(self.cfg.targets))
        self.links_note = None if self.links is not None else links_note(files)
        # the decoder layers whose cross-attention `score_outputs` averages (None: all)
        self.attention_layers: tuple[int, ...] | None = None
        # the unconstrained pass on CTranslate2 where it can run it (fitsub.nmt.ct2; int8 keeps
        # fitsub's search); `engine_note` for the CLI to say once
        self.ct2: Ct2Engine | None
        self.ct2, self.engine_note = open_engine(
            Path(model_dir), self.model, self.tokenizer, self.supports_unconstrained and not int8,
            threads=threads or torch.get_num_threads(),
        )  # fmt: skip

    def known_words(self) -> frozenset[str]:
        """Lower-cased whole words of the vocabulary, for `cut-word` (`Tokenizer.known_words`)."""
        return self.tokenizer.known_words()

    @property
    def supports_unconstrained(self) -> bool:
        """Whether `target_chars=None` gives a translation with no length signal at all."""
        return not self.cfg.uses_length or self.cfg.length_dropout > 0

    def _prepare(self, req: Request) -> tuple[list[int], int, int | None]:
        """(source ids, model length in its unit or -1, re-ranking target in chars)."""
        cfg, tok = self.cfg, self.tokenizer
        src_chars = char_length(req.text)
        target = req.target_chars
        if target is None and not self.supports_unconstrained:
            target = src_chars
        token = None
        if cfg.length_token and target is not None and cfg.length_thresholds is not None:
            token = length_class(src_chars, target, cfg.length_thresholds)
        ids = tok.source_ids(req.text, token, self.lang)
        units = -1
        if target is not None and cfg.encoding != "sinusoidal":
            if cfg.length_unit == "char":
                units = target
            else:
                n_src = max(1, len(ids) - 1 - (token is not None) - (self.lang is not None))
                cpp = self.chars_per_piece or max(src_chars, 1) / n_src
                units = subword_target(target, cpp)
        rerank = target
        if req.bounds_without_spaces and target is not None:  # re-rank in the bounds' unit
            rerank = chars_to_no_space(target, req.text)
        return ids, units, rerank

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """n-best candidates per request, best first, in input order; a request whose budget
        nothing met is asked again, shorter (`fitsub.nmt.retry`)."""
        out = self._translate_once(requests, n_best)
        ask_shorter(requests, out, lambda again: self._translate_once(again, n_best))
        return out

    def _translate_once(self, requests: Sequence[Request], n_best: int) -> list[list[Candidate]]:
        out: list[list[Candidate]] = [[] for _ in requests]
        todo: list[Row] = []
        for i, req in enumerate(requests):
            if not req.text.strip():
                out[i] = [Candidate("", 0.0, True)]
            else:
                todo.append((i, *self._prepare(req)))
        todo = self._on_ct2(requests, todo, n_best, out)
        todo.sort(key=lambda r: (self._keeps_lexicon(requests[r[0]]), len(r[1])))
        for start in range(0, len(todo), self.batch_size):
            rebalance_threads()  # the cores free now, unless --threads chose (fitsub.threads)
            chunk = todo[start : start + self.batch_size]
            on = [self._keeps_lexicon(requests[r[0]]) for r in chunk]
            if any(on) and not all(on):  # a chunk keeps to the lexicon or does not, as a whole
                cut = on.index(True)
                out_a = self._run(requests, chunk[:cut], n_best, False)
                out_b = self._run(requests, chunk[cut:], n_best, True)
                for r, cands in zip(chunk, out_a + out_b, strict=True):
                    out[r[0]] = cands
                continue
            for r, cands in zip(chunk, self._run(requests, chunk, n_best, all(on)), strict=True):
                out[r[0]] = cands
        return out

    def _on_ct2(
        self, requests: Sequence[Request], todo: list[Row], n_best: int, out: list[list[Candidate]]
    ) -> list[Row]:
        """Translate the rows of `todo` CTranslate2 can run (no length, bound or lexicon) into
        `out`; the rest stay for fitsub's search, a row it hands back searched alone."""
        free = [r for r in todo if r[2] < 0 and self._free(requests[r[0]])]
        if self.ct2 is None or not free:
            return todo
        got = self.ct2.translate_rows([r[1] for r in free], self.beam, n_best, self.batch_size)
        for r, hyps in zip(free, got, strict=True):
            out[r[0]] = (
                self._run(requests, [r], n_best, False)[0]  # alone: the same in any batch
                if hyps is None
                else [Candidate(self.tokenizer.decode(ids), sc, True) for ids, sc in hyps]
            )
        return [r for r in todo if r not in free]

    def _free(self, req: Request) -> bool:
        bounds = (req.target_chars, req.max_chars, req.min_chars)
        return all(b is None for b in bounds) and not self._keeps_lexicon(req)

    @functools.cached_property
    def lexicon_mask(self) -> LexiconMask | None:
        """The lexicon as masks over the vocabulary, built on the first search that keeps to it
        (0.6 s with a dictionary's 300,000 words: a run that re-fits nothing never pays it)."""
        if self.lexicon is None:
            return None
        return LexiconMask.from_tokenizer(self.tokenizer, self.lexicon)

    def _keeps_lexicon(self, req: Request) -> bool:
        """Whether this request's search keeps to the lexicon (`Request.lexicon`)."""
        return self.lexicon is not None and req.lexicon

    def _run(
        self,
        requests: Sequence[Request],
        chunk: Sequence[tuple[int, list[int], int, int | None]],
        n_best: int,
        keep_lexicon: bool,
    ) -> list[list[Candidate]]:
        """One batch of prepared requests through beam search; candidates per row."""
        out: list[list[Candidate]] = []
        if chunk:
            S = max(len(r[1]) for r in chunk)
            src = torch.full((len(chunk), S), self.cfg.pad_id, dtype=torch.long)
            for row, r in enumerate(chunk):
                src[row, : len(r[1])] = torch.tensor(r[1])
            units = torch.tensor([r[2] for r in chunk], dtype=torch.long)
            max_len = min(self.cfg.max_positions, 2 * S + 10)
            if self.cfg.length_unit == "subword":
                max_len = min(self.cfg.max_positions, max(max_len, int(units.max()) + 10))
            hyps = beam_search(
                self.model,
                src.to(self.device),
                None if bool((units < 0).all()) else units.to(self.device),
                [requests[r[0]].max_chars for r in chunk],
                beam=self.beam,
                max_len=max_len,
                length_weight=self.length_weight,
                n_best=n_best,
                target_chars=[r[3] for r in chunk],
                min_chars=[requests[r[0]].min_chars for r in chunk],
                no_space=[requests[r[0]].bounds_without_spaces for r in chunk],
                words=self.words,
                lexicon=self.lexicon_mask if keep_lexicon else None,
                sources=[requests[r[0]].text for r in chunk],
                free=[
                    self.free_as_ct2 and r[3] is None and self._free(requests[r[0]]) for r in chunk
                ],
            )
            for hs in hyps:
                out.append([Candidate(self.tokenizer.decode(h.ids), h.score, h.fits) for h in hs])
        return out

    # ---- forced decoding: the model's score of a given output (`fitsub.quality.score`) -------------
    def _forced(
        self, rows: Sequence[tuple[list[int], int, list[int]]], attention: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Teacher-forced (token log-probs, entropies, mask), each (B, T), for rows of (source
        ids, length in the model's unit or -1, output ids ending with EOS); and with
        `attention`, the cross-attention (B, T, S) averaged over heads and layers, else None."""
        cfg = self.cfg
        S = max(len(r[0]) for r in rows)
        T = max(len(r[2]) for r in rows)
        src = torch.full((len(rows), S), cfg.pad_id, dtype=torch.long)
        tgt_in = torch.full((len(rows), T), cfg.pad_id, dtype=torch.long)
        gold = torch.full((len(rows), T), cfg.pad_id, dtype=torch.long)
        for b, (ids, _, out) in enumerate(rows):
            src[b, : len(ids)] = torch.tensor(ids)
            tgt_in[b, : len(out)] = torch.tensor([cfg.bos_id, *out[:-1]])
            gold[b, : len(out)] = torch.tensor(out)
        units = torch.tensor([r[1] for r in rows], dtype=torch.long)
        length = None if bool((units < 0).all()) else units.to(self.device)
        recorder = CrossAttentionRecorder(self.attention_layers)
        with recorder.record(self.model) if attention else nullcontext(recorder):
            logits = self.model(src.to(self.device), tgt_in.to(self.device), length).float()
        logp = torch.log_softmax(logits, dim=-1)  # (B, T, V)
        gold = gold.to(self.device)
        picked = logp.gather(2, gold[:, :, None])[:, :, 0]  # (B, T)
        entropy = -(logp.exp() * logp).sum(-1)  # (B, T)
        mask = torch.zeros_like(picked, dtype=torch.bool)
        for b, r in enumerate(rows):
            mask[b, : len(r[2])] = True
        probs = recorder.probs
        return picked.cpu(), entropy.cpu(), mask.cpu(), None if probs is None else probs.cpu()

    @torch.inference_mode()
    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        """The model's scores of each given output (see `fitsub.backend.ScoresOutputs`).

        Forced decoding in batches (the length signal as `translate` gives it for the request);
        the Monte-Carlo dropout passes (Fomicheva et al. 2020, sec. 3.2: dropout kept on at
        test time, the same output scored again) run one segment at a time, its passes as one
        batch, with masks seeded by `DROPOUT_SEED`: a segment's score does not depend on the
        segments beside it nor on the run.
        """
        out = [OutputScore((), ()) for _ in requests]
        todo: list[tuple[int, list[int], int, list[int]]] = []
        for i, (req, text) in enumerate(zip(requests, outputs, strict=True)):
            if req.text.strip() and text.strip():
                ids, units, _ = self._prepare(req)
                out_ids = [*self.tokenizer.encode(text), self.cfg.eos_id]
                out_ids = out_ids[: self.cfg.max_positions]
                todo.append((i, ids, units, out_ids))
        todo.sort(key=lambda r: len(r[1]) + len(r[3]))
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            lp, ent, mask, probs = self._forced([r[1:] for r in chunk], attention=True)
            for b, r in enumerate(chunk):
                m = mask[b]
                keep = source_positions(self.tokenizer, r[1])
                steps = int(m.sum())
                attn = () if probs is None else source_attention(probs[b], steps, keep)
                pieces, word_lp = word_rarity(self.tokenizer, r[1])
                out[r[0]] = OutputScore(
                    token_logprobs=tuple(lp[b][m].tolist()),
                    entropies=tuple(ent[b][m].tolist()),
                    attention=attn,
                    word_pieces=pieces,
                    word_logprobs=word_lp,
                    output_words=output_word_index(self.tokenizer, r[3]),
                )
        if dropout_passes > 0:
            for r in todo:
                means = self._dropout_means(r[1:], dropout_passes)
                out[r[0]] = dataclasses.replace(out[r[0]], dropout_means=means)
        return out

    def _dropout_means(
        self, row: tuple[list[int], int, list[int]], passes: int
    ) -> tuple[float, ...]:
        """Mean token log-probability of one output under each of `passes` dropout passes."""
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(DROPOUT_SEED)
            self.model.train()
            try:
                lp, _, mask, _ = self._forced([row] * passes)
            finally:
                self.model.eval()
        means = (lp * mask).sum(1) / mask.sum(1).clamp(min=1)
        return tuple(float(x) for x in means.tolist())
