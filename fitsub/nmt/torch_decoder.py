"""fitsub's own decoder of a checkpoint: the torch model, its beam search and forced scoring.

`NMTBackend` (`fitsub.nmt.backend`) builds one on first use: the fitted pass (a length, a hard
budget, the lexicon), a row CTranslate2 hands back, the forced scoring of the quality score, a
conversion to CTranslate2. A run whose every pass CTranslate2 serves never imports torch (issue
59: `import torch` takes 1.7-2.5 s and 233 MB on a 2-core AVX2 CPU) nor loads the weights.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path

import torch

from fitsub.backend import OutputScore
from fitsub.device import resolve_device
from fitsub.nmt.attention import (
    CrossAttentionRecorder,
    output_word_index,
    source_attention,
    source_positions,
    word_rarity,
)
from fitsub.nmt.bounds import word_table
from fitsub.nmt.checkpoint import build_model, load_weights, quantize_model
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lexicon_mask import LexiconMask
from fitsub.nmt.search import Hypothesis, beam_search
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.lexicon import Lexicon

DROPOUT_SEED = 0  # Monte-Carlo dropout masks of `score`: the same for every run
# one output to score: (source ids, length in the model's unit or -1, output ids ending with EOS)
ForcedRow = tuple[list[int], int, list[int]]


@dataclasses.dataclass(frozen=True)
class SearchRows:
    """One batch for `TorchDecoder.search`, a value per row: the source ids, the length in the
    model's unit (-1: none), the hard budget, the re-ranking target and the lower bound (in
    characters; None: none), whether the bounds count no spaces, the source text, and whether
    the row is unconstrained (searched as CTranslate2 searches it)."""

    sources: Sequence[list[int]]
    units: Sequence[int]
    max_chars: Sequence[int | None]
    target_chars: Sequence[int | None]
    min_chars: Sequence[int | None]
    no_space: Sequence[bool]
    texts: Sequence[str]
    free: Sequence[bool]


class TorchDecoder:
    """The torch model of a checkpoint on its device, and the searches and scores run on it."""

    def __init__(
        self,
        model_dir: Path,
        cfg: ModelConfig,
        tokenizer: Tokenizer,
        *,
        device: str,
        threads: int | None,
        int8: bool,
        lexicon: Lexicon | None,
    ) -> None:
        self.device = resolve_device(device)
        if threads is not None and self.device.type == "cpu":
            torch.set_num_threads(max(1, threads))
        self.int8 = int8 and self.device.type == "cpu"
        self.cfg, self.tokenizer, self.lexicon = cfg, tokenizer, lexicon
        self.model, int8_state = load_weights(model_dir, cfg, tokenizer, self.device, build_model)
        if self.int8:  # an int8 export's layers from its stored tensors, else quantised here
            quantize_model(self.model, int8_state or None)
        # whole words only: the pieces that continue a word (`fitsub.nmt.search`)
        self.words = word_table(tokenizer)

    @functools.cached_property
    def lexicon_mask(self) -> LexiconMask | None:
        """The lexicon as masks over the vocabulary, built on the first search that keeps to it
        (0.6 s with a dictionary's 300,000 words: a run that re-fits nothing never pays it)."""
        if self.lexicon is None:
            return None
        return LexiconMask.from_tokenizer(self.tokenizer, self.lexicon)

    def search(
        self,
        rows: SearchRows,
        *,
        beam: int,
        length_weight: float,
        n_best: int,
        keep_lexicon: bool,
    ) -> list[list[Hypothesis]]:
        """One batch through beam search (`fitsub.nmt.search.beam_search`); hypotheses per row."""
        cfg = self.cfg
        S = max(len(ids) for ids in rows.sources)
        src = torch.full((len(rows.sources), S), cfg.pad_id, dtype=torch.long)
        for row, ids in enumerate(rows.sources):
            src[row, : len(ids)] = torch.tensor(ids)
        units = torch.tensor(list(rows.units), dtype=torch.long)
        max_len = min(cfg.max_positions, 2 * S + 10)
        if cfg.length_unit == "subword":
            max_len = min(cfg.max_positions, max(max_len, int(units.max()) + 10))
        return beam_search(
            self.model,
            src.to(self.device),
            None if bool((units < 0).all()) else units.to(self.device),
            list(rows.max_chars),
            beam=beam,
            max_len=max_len,
            length_weight=length_weight,
            n_best=n_best,
            target_chars=list(rows.target_chars),
            min_chars=list(rows.min_chars),
            no_space=list(rows.no_space),
            words=self.words,
            lexicon=self.lexicon_mask if keep_lexicon else None,
            sources=list(rows.texts),
            free=list(rows.free),
        )

    # ---- forced decoding: the model's score of a given output (`fitsub.quality.score`) -------------
    def forced(
        self,
        rows: Sequence[ForcedRow],
        attention: bool = False,
        layers: tuple[int, ...] | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Teacher-forced (token log-probs, entropies, mask), each (B, T), for `rows`; and with
        `attention`, the cross-attention (B, T, S) averaged over heads and the decoder `layers`
        (None: all), else None."""
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
        recorder = CrossAttentionRecorder(layers)
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
    def score(
        self,
        rows: Sequence[ForcedRow],
        batch_size: int,
        dropout_passes: int = 0,
        layers: tuple[int, ...] | None = None,
    ) -> list[OutputScore]:
        """Each row's `OutputScore`, in order: forced decoding in batches of `batch_size` rows as
        given, the cross-attention of the decoder `layers` (None: all); the Monte-Carlo dropout
        passes (Fomicheva et al. 2020, sec. 3.2: dropout kept on at test time, the same output
        scored again) one row at a time, its passes as one batch, with masks seeded by
        `DROPOUT_SEED`: a row's score depends neither on the rows beside it nor on the run."""
        out: list[OutputScore] = []
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            lp, ent, mask, probs = self.forced(chunk, attention=True, layers=layers)
            for b, (ids, _, out_ids) in enumerate(chunk):
                m = mask[b]
                keep = source_positions(self.tokenizer, ids)
                steps = int(m.sum())
                attn = () if probs is None else source_attention(probs[b], steps, keep)
                pieces, word_lp = word_rarity(self.tokenizer, ids)
                out.append(
                    OutputScore(
                        token_logprobs=tuple(lp[b][m].tolist()),
                        entropies=tuple(ent[b][m].tolist()),
                        attention=attn,
                        word_pieces=pieces,
                        word_logprobs=word_lp,
                        output_words=output_word_index(self.tokenizer, out_ids),
                    )
                )
        if dropout_passes > 0:
            out = [
                dataclasses.replace(sc, dropout_means=self.dropout_means(row, dropout_passes))
                for sc, row in zip(out, rows, strict=True)
            ]
        return out

    def dropout_means(self, row: ForcedRow, passes: int) -> tuple[float, ...]:
        """Mean token log-probability of one output under each of `passes` dropout passes."""
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(DROPOUT_SEED)
            self.model.train()
            try:
                lp, _, mask, _ = self.forced([row] * passes)
            finally:
                self.model.eval()
        means = (lp * mask).sum(1) / mask.sum(1).clamp(min=1)
        return tuple(float(x) for x in means.tolist())
