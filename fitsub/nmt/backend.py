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

Start-up without torch (issue 59): the backend opens with the checkpoint's config, tokenizer,
lexicon, word links and the CTranslate2 engine of the unconstrained pass, none of which needs
torch; fitsub's own decoder (`fitsub.nmt.torch_decoder`: torch, the weights, beam search, forced
scoring) is built the first time a pass needs it. A run CTranslate2 serves alone never imports
torch; a run that scores its output (the quality score) or re-fits a row builds it then.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fitsub.backend import Candidate, OutputScore, Request
from fitsub.device import known_cpu, resolve_device
from fitsub.errors import InputError
from fitsub.nmt.config import base_language, target_language
from fitsub.nmt.ct2 import Ct2Engine, Placement, open_engine
from fitsub.nmt.lengths import LENGTH_TOKENS, length_class
from fitsub.nmt.model_files import (
    AR_ARCHS,
    AR_WRONG_ARCH,
    MODEL_ENV,
    default_models_dir,
    language_files,
    load_lexicon,
    open_checkpoint,
    resolve_model_dir,
)
from fitsub.nmt.retry import ask_shorter
from fitsub.nmt.token_path import (
    budget_token,
    filter_candidates,
    miss_direction,
    next_token,
    token_path_on,
)
from fitsub.quality.lexicon import Lexicon
from fitsub.quality.links import WordLinks, links_note, model_links
from fitsub.threads import default_threads, rebalance_threads, torch_threads
from fitsub.units import char_length, chars_to_no_space, subword_target

if TYPE_CHECKING:
    import torch

    from fitsub.nmt.model import Transformer
    from fitsub.nmt.torch_decoder import TorchDecoder

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
        self.model_dir, self.device_name, self.threads = Path(model_dir), device, threads
        if not known_cpu(device):  # only torch can tell: the device is checked now, as asked
            resolve_device(device)
        if threads is not None and "torch" in sys.modules and self.on_cpu:
            torch_threads(threads)  # torch is loaded (another part of the run uses it): now
        if int8 is None:  # the default: see INT8_DEFAULT
            int8 = INT8_DEFAULT and self.on_cpu
        self.int8 = int8
        self.cfg, self.tokenizer, self.meta = open_checkpoint(
            model_dir, archs=AR_ARCHS, wrong_arch=AR_WRONG_ARCH
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
        # the decoder layers whose cross-attention `score_outputs` averages (None: all), read when
        # fitsub's decoder scores: `score_on_ct2` False (calibrations of the coverage signals)
        self.attention_layers: tuple[int, ...] | None = None
        self.score_on_ct2 = True
        # the unconstrained pass on CTranslate2 where it can run it (fitsub.nmt.ct2; int8 keeps
        # fitsub's search); `engine_note` for the CLI to say once. The torch model is asked for
        # only to convert the weights (once, into the user's cache).
        self.ct2: Ct2Engine | None
        # fitted rows first asked of CTranslate2 with the length token (fitsub.nmt.token_path,
        # opt-in);
        # `token_served` counts the rows it answered
        self.token_path, self.token_served = token_path_on(self.cfg), 0
        self.ct2, self.engine_note = open_engine(
            self.model_dir,
            self.cfg,
            self.tokenizer,
            self.supports_unconstrained and not int8,
            where=self._placement,
            model=lambda: self.model,
        )

    @functools.cached_property
    def device(self) -> torch.device:
        """The torch device the model runs on (`fitsub.device.resolve_device`: imports torch)."""
        return resolve_device(self.device_name)

    @property
    def on_cpu(self) -> bool:
        """Whether the model runs on the CPU (known without torch where `known_cpu` says)."""
        return known_cpu(self.device_name) or self.device.type == "cpu"

    def _placement(self) -> Placement:
        """Where CTranslate2 runs: this backend's device, with `--threads` or torch's count."""
        threads = self.threads or default_threads()
        if known_cpu(self.device_name):
            return Placement("cpu", 0, threads)
        return Placement(self.device.type, self.device.index or 0, threads)

    @functools.cached_property
    def decoder(self) -> TorchDecoder:
        """fitsub's own decoder (`fitsub.nmt.torch_decoder`: torch and the weights), built the
        first time a pass needs it."""
        from fitsub.nmt.torch_decoder import TorchDecoder

        return TorchDecoder(
            self.model_dir,
            self.cfg,
            self.tokenizer,
            device=self.device_name,
            threads=self.threads,
            int8=self.int8,
            lexicon=self.lexicon,
        )

    @property
    def model(self) -> Transformer:
        """The torch model (in eval mode, on `device`), loaded on first use (`decoder`)."""
        return self.decoder.model

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
        todo = self._on_token_path(requests, todo, n_best, out)
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

    def _on_token_path(
        self, requests: Sequence[Request], todo: list[Row], n_best: int, out: list[list[Candidate]]
    ) -> list[Row]:
        """Answer the fitted rows of `todo` whose length-token n-best on CTranslate2 holds a
        candidate within their bounds (`fitsub.nmt.token_path`) into `out`, asking a row whose
        candidates all missed one way once more with the next token that way; the others stay
        for fitsub's search."""
        if self.ct2 is None or not self.token_path:
            return todo
        k, classes = max(self.beam, n_best), [self.tokenizer.token_id(t) for t in LENGTH_TOKENS]
        asks: list[tuple[Row, list[int]]] = [
            (r, [self.tokenizer.token_id(self._budget_token(requests[r[0]])), *r[1][1:]])
            for r in todo
            if r[3] is not None
        ]
        served: set[int] = set()
        for _ in range(2):  # the row's own token, then the next one the way it missed
            if not asks:
                break
            got = self.ct2.translate_rows([ids for _, ids in asks], k, k, self.batch_size)
            again: list[tuple[Row, list[int]]] = []
            for (r, ids), hyps in zip(asks, got, strict=True):
                if hyps is None:
                    continue
                req = requests[r[0]]
                texts = [(self.tokenizer.decode(h), sc) for h, sc in hyps]
                cands = filter_candidates(req, texts, r[3], self.length_weight, self.lexicon)
                if cands:
                    out[r[0]] = cands[:n_best]
                    served.add(r[0])
                elif (moved := next_token(ids, classes, miss_direction(req, texts))) is not None:
                    again.append((r, moved))
            asks = again
        self.token_served += len(served)
        return [r for r in todo if r[0] not in served]

    def _budget_token(self, req: Request) -> str:
        """The length token the token path first asks a budgeted request for (`budget_token`)."""
        assert req.target_chars is not None and self.cfg.length_thresholds is not None
        return budget_token(char_length(req.text), req.target_chars, self.cfg.length_thresholds)

    def _free(self, req: Request) -> bool:
        bounds = (req.target_chars, req.max_chars, req.min_chars)
        return all(b is None for b in bounds) and not self._keeps_lexicon(req)

    def _keeps_lexicon(self, req: Request) -> bool:
        """Whether this request's search keeps to the lexicon (`Request.lexicon`)."""
        return self.lexicon is not None and req.lexicon

    def _run(
        self,
        requests: Sequence[Request],
        chunk: Sequence[Row],
        n_best: int,
        keep_lexicon: bool,
    ) -> list[list[Candidate]]:
        """One batch of prepared requests through fitsub's beam search; candidates per row."""
        if not chunk:
            return []
        from fitsub.nmt.torch_decoder import SearchRows

        reqs = [requests[r[0]] for r in chunk]
        rows = SearchRows(
            sources=[r[1] for r in chunk],
            units=[r[2] for r in chunk],
            max_chars=[q.max_chars for q in reqs],
            target_chars=[r[3] for r in chunk],
            min_chars=[q.min_chars for q in reqs],
            no_space=[q.bounds_without_spaces for q in reqs],
            texts=[q.text for q in reqs],
            free=[
                self.free_as_ct2 and r[3] is None and self._free(q)
                for r, q in zip(chunk, reqs, strict=True)
            ],
        )
        hyps = self.decoder.search(
            rows,
            beam=self.beam,
            length_weight=self.length_weight,
            n_best=n_best,
            keep_lexicon=keep_lexicon,
        )
        return [
            [Candidate(self.tokenizer.decode(h.ids), h.score, h.fits) for h in hs] for hs in hyps
        ]

    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        """The model's scores of each given output (see `fitsub.backend.ScoresOutputs`).

        Forced decoding in batches of outputs sorted by length. A model that decodes without a
        length (`supports_unconstrained`) scores every output without one, whatever length the
        request asks (the quality score is calibrated so: `fitsub.quality.model.json`), on
        CTranslate2 (>= 4.4) where it runs the unconstrained pass, until fitsub's decoder is loaded
        (`fitsub.nmt.ct2_score`: no torch; the two agree within 2e-3 nats); dropout passes, a
        model that always takes a length (the request's), `score_on_ct2` off or no CTranslate2:
        fitsub's decoder (`TorchDecoder.score`, dropout seeded there per segment).
        """
        out = [OutputScore((), ()) for _ in requests]
        todo: list[tuple[int, list[int], int, list[int]]] = []
        for i, (req, text) in enumerate(zip(requests, outputs, strict=True)):
            if req.text.strip() and text.strip():
                ids, units, _ = self._prepare(req)
                out_ids = [*self.tokenizer.encode(text), self.cfg.eos_id][: self.cfg.max_positions]
                todo.append((i, ids, -1 if self.supports_unconstrained else units, out_ids))
        if not todo:
            return out
        todo.sort(key=lambda r: len(r[1]) + len(r[3]))
        from fitsub.nmt.ct2_score import forced_scores, supported

        idle = "decoder" not in self.__dict__ and self.score_on_ct2 and not dropout_passes
        if self.ct2 is not None and idle and supported() and all(r[2] < 0 for r in todo):
            scores = forced_scores(
                self.ct2, self.tokenizer, [r[1::2] for r in todo], self.batch_size
            )
        else:
            scores = self.decoder.score(
                [r[1:] for r in todo], self.batch_size, dropout_passes, self.attention_layers
            )
        for r, sc in zip(todo, scores, strict=True):
            out[r[0]] = sc
        return out
