"""`HFBackend`: a Hugging Face seq2seq model behind `fitsub.backend.TranslationBackend`.

Anything `AutoModelForSeq2SeqLM` + `AutoTokenizer` load (Marian, M2M-100, NLLB, mBART-50,
T5-style such as MADLAD) from a local directory or a hub id (from the local cache, or
downloaded when there is a network). Weights are read from safetensors only (never unpickled).

Semantics mirror `fitsub.nmt.backend` / `fitsub.nmt.search`:
* the hard budget `Request.max_chars` and the lower bound `min_chars` are enforced inside the
  model's own beam search by `fitsub.hf.constraints.BudgetProcessor` (per-segment budgets in one
  batch, EOS always open, whole-word rule);
* scores are sums of log-probabilities (`length_penalty=0`), and the n-best list is re-ranked by
  `fitsub.nmt.search.rerank_key` towards `target_chars` (Takase & Okazaki 2019, sec. 3.4);
* when both bounds cannot be met the segment is searched again with the upper bound alone;
  when nothing fits, the shortest non-empty candidate of the unconstrained search is returned
  with `fits=False`.
Target language (`--lang`): a forced first target token for M2M-100 / NLLB / mBART-50
(`__it__`, `ita_Latn`, `it_IT`), a source prefix for multilingual Marian (`>>ita<<`) and
T5-style models (`<2it>`); a bilingual model needs none. A model fine-tuned by
`fitsub.train.hf_finetune` also gets its length token (Lakew et al. 2019) or its LDPE / LRPE length
(Takase & Okazaki 2019) from `Request.target_chars`.

Loading is `fitsub.hf.loading`'s, the target language `fitsub.hf.languages`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch

from fitsub.backend import Candidate, OutputScore, Request
from fitsub.device import resolve_device
from fitsub.errors import InputError
from fitsub.hf.constraints import PieceTable, piece_table, piece_texts
from fitsub.hf.generation import (
    Hyp,
    Job,
    budget_processor,
    generate_options,
    greedy_scores,
    hypotheses,
)
from fitsub.hf.languages import source_text, target_language
from fitsub.hf.length_positions import PE_METHODS, attach
from fitsub.hf.loading import META, first_line, load_pretrained, read_meta
from fitsub.hf.scoring import forced
from fitsub.nmt.backend import default_models_dir
from fitsub.nmt.checkpoint import load_lexicon
from fitsub.nmt.lengths import length_class
from fitsub.nmt.lexicon_mask import LexiconMask
from fitsub.nmt.ranking import rerank_key
from fitsub.quality.lexicon import Lexicon
from fitsub.quality.links import pair_links
from fitsub.units import char_length, chars_to_no_space, subword_target

DROPOUT_SEED = 0  # Monte-Carlo dropout masks of `score_outputs` (as `fitsub.nmt.torch_decoder`'s)


class HFBackend:
    """Length-controlled translation with a Hugging Face seq2seq model (CPU or CUDA)."""

    def __init__(
        self,
        model: str,
        lang: str = "it",
        src_lang: str = "en",
        device: str = "auto",
        beam: int = 5,
        length_weight: float = 1.0,
        batch_size: int = 32,
        threads: int | None = None,
        precision: str = "auto",
        lexicon: str | Path = "auto",
    ) -> None:
        if beam < 1 or batch_size < 1:
            raise InputError(None, "beam and batch size must be at least 1")
        if precision not in ("auto", "fp32", "fp16", "bf16"):
            raise InputError(None, f"unknown precision {precision!r}")
        self.device = resolve_device(device)
        if threads is not None and self.device.type == "cpu":
            torch.set_num_threads(max(1, threads))
        net, tok, config, local = load_pretrained(model)
        self.meta = read_meta(Path(model)) if local else {}
        self.method: str | None = self.meta.get("method")
        self.lang = target_language(tok, config, lang=lang, src_lang=src_lang, model=model)
        dtype = torch.float32
        if self.device.type == "cuda" and precision != "fp32":
            bf16 = torch.cuda.is_bf16_supported()
            dtype = torch.float16 if precision == "fp16" or not bf16 else torch.bfloat16
        self.model = net.to(device=self.device, dtype=dtype).eval()
        self.tokenizer, self.config = tok, config
        vocab = int(self.model.get_output_embeddings().weight.shape[0])
        eos = config.eos_token_id if config.eos_token_id is not None else tok.eos_token_id
        table = piece_table(tok, vocab, int(eos))
        self._special: list[bool] = table.special.tolist()  # CPU copies for per-token lookups
        self._visible: list[int] = (table.chars - table.lead).tolist()
        self._lead: list[int] = table.lead.tolist()
        self.table: PieceTable = table.to(self.device)
        self.beam, self.length_weight, self.batch_size = beam, length_weight, batch_size
        self.positions = None
        if self.method in PE_METHODS:
            self.positions = attach(self.model, self.method)
        self.thresholds: tuple[float, float] | None = None
        if self.method == "tok":
            t = self.meta.get("length_thresholds")
            if not (isinstance(t, list) and len(t) == 2):
                raise InputError(model, f"{META} names method tok but stores no thresholds")
            self.thresholds = (float(t[0]), float(t[1]))
        self.chars_per_piece = float(self.meta.get("chars_per_piece", 0.0)) or None
        name = Path(model).name if local else model
        self.name = f"hf:{name}" + (f":{self.method}" if self.method else "")
        self._known: frozenset[str] | None = None
        max_pos = getattr(config, "max_position_embeddings", None) or 512
        self.max_positions = int(max_pos)
        # never invent a word: a `lexicon.txt.gz` beside the model, a file, or "off"; a hub id
        # or a directory without one has none (said once: `lexicon_note`)
        self.lexicon: Lexicon | None = None
        self.lexicon_note: str | None = None
        tgt = lang.strip().lower().replace("_", "-").split("-")[0]  # also for the word links
        if local or str(lexicon) not in ("auto", "off"):
            self.lexicon, self.lexicon_note = load_lexicon(Path(model), lexicon, (tgt,))
        elif str(lexicon) == "auto":
            self.lexicon_note = f"{model}: no lexicon: words are not checked against a lexicon"
        # the word links of the quality score: beside the model, else the shipped pair's
        self.links = pair_links(Path(model) if local else None, default_models_dir(), src_lang, tgt)
        self.lexicon_mask = (
            None
            if self.lexicon is None
            else LexiconMask(piece_texts(tok, table), int(eos), self.lexicon)
        )

    def known_words(self) -> frozenset[str]:
        """Lower-cased whole words of the vocabulary (word-start pieces of letters), for the
        pipeline's `cut-word` flag (`fitsub.quality.flags`)."""
        if self._known is None:
            ids = [i for i, sp in enumerate(self._special) if not sp and self._lead[i]]
            pieces = self.tokenizer.convert_ids_to_tokens(ids)
            self._known = frozenset(
                p[1:].lower() for p in pieces if isinstance(p, str) and p[1:].isalpha()
            )
        return self._known

    @property
    def supports_unconstrained(self) -> bool:
        """A fine-tuned length model has always seen a length; a plain model never has."""
        return self.method is None

    def _job(self, i: int, req: Request) -> Job:
        src_chars = char_length(req.text)
        target = req.target_chars
        if target is None and not self.supports_unconstrained:
            target = src_chars  # Lakew's length-matching setting, as NMTBackend does
        token = None
        if self.thresholds is not None and target is not None:
            token = length_class(src_chars, target, self.thresholds)
        text = source_text(req.text, self.lang, token)
        try:
            ids = self.tokenizer(text)["input_ids"]
        except Exception as err:  # any tokenizer failure is bad input
            problem = f"the tokenizer cannot encode {req.text[:40]!r}: {first_line(err)}"
            raise InputError(self.name, problem) from None
        special, visible = self._special, self._visible
        content = [x for x in ids if 0 <= x < len(special) and not special[x]]
        content = [x for x in content if visible[x] > 0]  # a bare `▁` encodes nothing
        unk = self.tokenizer.unk_token_id
        n_unk = sum(1 for x in ids if unk is not None and x == unk)
        if not content and n_unk == 0 or n_unk * 2 > max(1, len(content) + n_unk):
            raise InputError(
                self.name,
                f"the tokenizer cannot encode {req.text[:40]!r} "
                f"({n_unk} of {len(content) + n_unk} pieces unknown)",
            )
        units = None
        if self.positions is not None and target is not None:
            cpp = self.chars_per_piece or max(src_chars, 1) / max(1, len(content))
            units = subword_target(target, cpp)
        rerank = target
        if req.bounds_without_spaces and target is not None:
            rerank = chars_to_no_space(target, req.text)
        return Job(index=i, text=text, n_ids=len(ids), units=units, rerank=rerank, source=req.text)

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        """n-best candidates per request, best first, in input order."""
        out: list[list[Candidate]] = [[] for _ in requests]
        todo: list[Job] = []
        for i, req in enumerate(requests):
            if not req.text.strip():
                out[i] = [Candidate("", 0.0, True)]
            else:
                todo.append(self._job(i, req))
        scoped = [r.lexicon for r in requests]  # the search keeps to the lexicon
        todo.sort(key=lambda j: (scoped[j.index], j.n_ids))  # batching by length
        for start in range(0, len(todo), self.batch_size):
            chunk = todo[start : start + self.batch_size]
            on = [scoped[j.index] for j in chunk]
            cut = on.index(True) if True in on else len(on)
            for part, lex in ((chunk[:cut], False), (chunk[cut:], True)):
                reqs = [requests[j.index] for j in part]
                if not part:
                    continue
                for j, cands in zip(part, self._constrained(part, reqs, n_best, lex), strict=True):
                    out[j.index] = cands
        return out

    def _constrained(
        self, jobs: list[Job], reqs: list[Request], n_best: int, lexicon: bool = True
    ) -> list[list[Candidate]]:
        """Search with the budgets; the fallbacks of `fitsub.nmt.search.beam_search` (a job
        nothing keeps to the lexicon for is searched again without it)."""
        lex = self.lexicon_mask if lexicon else None
        budgets = [r.max_chars for r in reqs]
        floors = [r.min_chars for r in reqs]
        bare = [r.bounds_without_spaces for r in reqs]
        k = max(self.beam, n_best)
        results: list[list[Candidate]] = []
        misses: list[int] = []
        found = self._generate(jobs, k=k, lexicon=lex, budgets=budgets, floors=floors, bare=bare)
        for b, hyps in enumerate(found):
            fitting = self._fitting(hyps, budgets[b], jobs[b].rerank)
            if not fitting:
                misses.append(b)
            results.append(fitting[:n_best])
        if misses and lex is not None:  # nothing within the bounds keeps to the lexicon
            sub = self._constrained(
                [jobs[b] for b in misses], [reqs[b] for b in misses], n_best, False
            )
            for b, cands in zip(misses, sub, strict=True):
                results[b] = cands
            return results
        if misses and any(f is not None for f in floors):  # keep the upper bound alone
            again = self._generate(
                [jobs[b] for b in misses],
                k=k,
                lexicon=lex,
                budgets=[budgets[b] for b in misses],
                bare=[bare[b] for b in misses],
            )
            still = []
            for b, hyps in zip(misses, again, strict=True):
                results[b] = self._fitting(hyps, budgets[b], jobs[b].rerank)[:n_best]
                if not results[b]:
                    still.append(b)
            misses = still
        if misses:  # nothing fits: the shortest unconstrained candidates, flagged
            again = self._generate([jobs[b] for b in misses], k=k, lexicon=lex)
            for b, hyps in zip(misses, again, strict=True):
                usable = [h for h in hyps if h.ok]
                short = sorted(usable, key=lambda h: (h.chars == 0, h.chars, -h.score))[:n_best]
                results[b] = [Candidate(h.text, h.score, False) for h in short]
        lost = [b for b in range(len(jobs)) if not results[b]]
        if lost and lex is not None:  # nothing keeps to the lexicon: the best without it
            lost_jobs = [jobs[b] for b in lost]
            for b, cands in zip(
                lost,
                self._constrained(lost_jobs, [reqs[b] for b in lost], n_best, False),
                strict=True,
            ):
                results[b] = cands
        return results

    def _fitting(self, hyps: list[Hyp], budget: int | None, target: int | None) -> list[Candidate]:
        good = [h for h in hyps if h.ok and (budget is None or 0 < h.chars <= budget)]
        good.sort(key=lambda h: -rerank_key(h.score, h.chars, target, self.length_weight))
        return [Candidate(h.text, h.score, True) for h in good]

    @torch.inference_mode()
    def _generate(
        self,
        jobs: list[Job],
        *,
        k: int,
        lexicon: LexiconMask | None,
        budgets: Sequence[int | None] | None = None,
        floors: Sequence[int | None] | None = None,
        bare: Sequence[bool] | None = None,
    ) -> list[list[Hyp]]:
        """`k` beams and `k` returned hypotheses per job (fewer when `generate` returns fewer);
        no `budgets`, `floors` or `bare`: the unconstrained search (`fitsub.hf.generation`)."""
        enc = self.tokenizer([j.text for j in jobs], return_tensors="pt", padding=True)
        enc = enc.to(self.device)
        S = int(enc["input_ids"].shape[1])
        max_new = max(2, min(self.max_positions - 2, 2 * S + 10))
        prefix = 1 + (self.lang.forced_bos is not None)
        rows_bare = list(bare) if bare is not None else [False] * len(jobs)
        bounds = (budgets, floors, rows_bare)
        proc = budget_processor(  # bound
            self.table, jobs, k=k, lexicon=lexicon, bounds=bounds, prefix=prefix, max_new=max_new
        )
        options = generate_options(k, max_new, self.lang.forced_bos, proc)
        self._ask_lengths(jobs, k)
        try:
            gen = self.model.generate(**enc, **options)  # expand, select: the model's own search
        finally:
            if self.positions is not None:
                self.positions.lengths = None
        eos = self.table.eos_id
        if k > 1:
            scores = gen.sequences_scores.float().tolist()
        else:
            scores = greedy_scores(gen, prefix, eos)
        dead = proc.dead.tolist() if k == 1 else [False] * gen.sequences.size(0)
        return hypotheses(  # finish
            self.tokenizer,
            gen.sequences.tolist(),
            scores,
            dead,
            n=len(jobs),
            k=k,
            prefix=prefix,
            special=self._special,
            eos=eos,
            bare=rows_bare,
        )

    def _ask_lengths(self, jobs: list[Job], k: int) -> None:
        """The LDPE / LRPE length (Takase & Okazaki 2019) of each job's `k` beams, for the next
        `generate` (None where no job has one)."""
        if self.positions is None:
            return
        lens = [-1 if j.units is None else j.units for j in jobs]
        self.positions.lengths = torch.tensor(lens, device=self.device).repeat_interleave(k)
        if all(x < 0 for x in lens):
            self.positions.lengths = None

    @torch.inference_mode()
    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        """The model's scores of each given output (see `fitsub.backend.ScoresOutputs`); the
        Monte-Carlo dropout passes as `fitsub.nmt.backend.NMTBackend.score_outputs` runs them."""
        out = [OutputScore((), ()) for _ in requests]
        todo: list[tuple[Job, list[int]]] = []
        for i, (req, text) in enumerate(zip(requests, outputs, strict=True)):
            if req.text.strip() and text.strip():
                ids = self.tokenizer(text_target=text, add_special_tokens=False)["input_ids"]
                ids = [int(x) for x in ids][: self.max_positions - 2]
                todo.append((self._job(i, req), ids))
        todo.sort(key=lambda r: r[0].n_ids + len(r[1]))
        for begin in range(0, len(todo), self.batch_size):
            chunk = todo[begin : begin + self.batch_size]
            lp, ent, mask = forced(self, [c[0] for c in chunk], [c[1] for c in chunk])
            for b, (job, _) in enumerate(chunk):
                m = mask[b]
                out[job.index] = OutputScore(tuple(lp[b][m].tolist()), tuple(ent[b][m].tolist()))
        for job, ids in todo if dropout_passes > 0 else ():
            devices = [self.device] if self.device.type == "cuda" else []
            with torch.random.fork_rng(devices=devices):
                torch.manual_seed(DROPOUT_SEED)
                self.model.train()
                try:
                    lp, _, mask = forced(self, [job] * dropout_passes, [ids] * dropout_passes)
                finally:
                    self.model.eval()
            means = (lp * mask).sum(1) / mask.sum(1).clamp(min=1)
            prev = out[job.index]
            out[job.index] = OutputScore(
                prev.token_logprobs, prev.entropies, tuple(float(x) for x in means.tolist())
            )
        return out
