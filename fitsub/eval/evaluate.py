"""Translate a test set under each setting and score it (`fitsub eval`).

Settings are `fitsub.eval.settings`'s, test sets `fitsub.eval.testsets`'s; the result is an
`fitsub.eval.report.EvalReport`. Translation streams in batches and keeps only the output
strings, so 2,000 segments cost a few hundred kB beyond the model. The metrics themselves live
in `fitsub.metrics`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.budget import Limits
from fitsub.errors import InputError
from fitsub.eval.report import EvalReport, Row
from fitsub.eval.settings import Setting, check_ratios
from fitsub.eval.testsets import LoadedSet
from fitsub.metrics import score, subtitle_compliance, variance
from fitsub.metrics.speaking import SpeechScoring
from fitsub.units import char_length

# (label, done, total): called after each translated batch.
Progress = Callable[[str, int, int], None]


def sentencepiece_counter(model_dir: Path) -> Callable[[str], int] | None:
    """Pieces per text with the model's `spm.model` (None when the directory has none)."""
    spm_path = model_dir / "spm.model"
    if not spm_path.is_file():
        return None
    import sentencepiece

    proc = sentencepiece.SentencePieceProcessor(model_file=str(spm_path))

    def count(text: str) -> int:
        return len(proc.encode(text))

    return count


@dataclass(frozen=True)
class ScoreOptions:
    """Which metric groups to compute, BLEU's tokeniser and the subtitle limits (if any)."""

    quality: bool = True  # BLEU, BLEU*, chrF, buckets
    lengths: bool = True  # LR, VAR, LC, fit
    tokenize: str = "13a"
    limits: Limits | None = None
    speech: SpeechScoring | None = None  # `--unit syllables|seconds`: compliance in that unit


def score_row(
    data: LoadedSet,
    setting: Setting,
    outs: Sequence[str],
    options: ScoreOptions,
    count_subwords: Callable[[str], int] | None = None,
    cues: Sequence[tuple[str, int]] | None = None,
    requested: Sequence[int] | None = None,
) -> Row:
    """Score one output against the test set; with `cues` and limits, subtitle compliance too.

    `requested`: the lengths asked under a policy other than `source` (VAR req against them).
    """
    metrics = score(
        outs,
        data.refs,
        data.srcs,
        ratio=setting.ratio,
        count_subwords=count_subwords,
        quality=options.quality,
        lengths=options.lengths,
        tokenize=options.tokenize,
    )
    if cues is not None and options.limits is not None:
        lim = options.limits
        sub = subtitle_compliance(
            texts=[t for t, _ in cues],
            durations_ms=[d for _, d in cues],
            max_cpl=lim.cpl,
            max_lines=lim.lines,
            max_cps=lim.cps,
        )
        metrics = replace(metrics, subtitle=sub)
    if options.speech is not None and data.srcs is not None and options.lengths:
        lc = options.speech.compliance(data.srcs, outs)
        metrics = replace(metrics, speech_lc=lc, speech_unit=options.speech.unit)
    if requested is not None and metrics.var_requested is not None:
        var = variance([char_length(o) for o in outs], list(requested), "char")
        metrics = replace(metrics, var_requested=var)
    ratios: tuple[float, ...] = ()
    if data.srcs is not None:
        ratios = tuple(
            char_length(o) / char_length(s)
            for o, s in zip(outs, data.srcs, strict=True)
            if char_length(s) > 0
        )
    return Row(data.name, setting, metrics, ratios)


def translate_all(
    backend: TranslationBackend,
    setting: Setting,
    srcs: Sequence[str],
    batch_size: int = 32,
    progress: Progress | None = None,
    label: str = "",
    lengths: Sequence[int] | None = None,
) -> list[str]:
    """Translate every source under `setting` in batches; empty sources give empty outputs.

    `lengths`: the setting's policy's length per source (None: ratio × source)."""
    if batch_size < 1:
        raise InputError(None, f"must be at least 1, got {batch_size}", setting="batch_size")
    outs: list[str] = []
    for start in range(0, len(srcs), batch_size):
        batch = srcs[start : start + batch_size]
        todo = [i for i, s in enumerate(batch) if s.strip()]
        asks = [
            setting.request(batch[i], None if lengths is None else lengths[start + i]) for i in todo
        ]
        got = backend.translate(asks) if todo else []
        if len(got) != len(todo) or any(not c for c in got):
            raise RuntimeError(f"backend {backend.name} returned no candidate for some requests")
        texts = [""] * len(batch)
        for i, cands in zip(todo, got, strict=True):
            texts[i] = cands[0].text
        outs.extend(texts)
        if progress is not None:
            progress(label or setting.name, len(outs), len(srcs))
    return outs


def evaluate_models(
    testsets: Sequence[LoadedSet],
    settings: Sequence[Setting],
    open_backend: Callable[[Path | None], TranslationBackend],
    options: ScoreOptions = ScoreOptions(),
    subword_counter: Callable[[Path | None], Callable[[str], int] | None] | None = None,
    batch_size: int = 32,
    progress: Progress | None = None,
    predictor: Callable[[Path | None], Callable[[Sequence[str]], list[int]]] | None = None,
) -> EvalReport:
    """Translate each test set under each setting (one model loaded at a time) and score it.

    An unconstrained translation does not depend on the ratio: it is made once per model and
    test set and scored against each ratio. Length policies: `predicted` asks for the lengths
    `predictor(model_dir)` gives (in chars), `oracle` for the reference's length; the meta
    then holds the predictor's accuracy against the references (`predictor_accuracy`).
    """
    for data in testsets:
        if data.srcs is None:
            raise InputError(None, f"test set {data.name!r} has no source to translate")
    rows: dict[tuple[int, int], Row] = {}
    accuracy: dict[str, Any] = {}
    model_dirs = list(dict.fromkeys(s.model_dir for s in settings))
    for model_dir in model_dirs:
        mine = {si: s for si, s in enumerate(settings) if s.model_dir == model_dir}
        run = _ModelRun(
            open_backend(model_dir),
            options,
            subword_counter(model_dir) if subword_counter is not None else None,
            batch_size,
            progress,
            len(testsets) > 1,
        )
        predict = None
        if predictor is not None and any(s.policy == "predicted" for s in mine.values()):
            predict = predictor(model_dir)
        for ti, data in enumerate(testsets):
            lengths = _policy_lengths(data, predict)
            if predict is not None:
                key = data.name if len(model_dirs) == 1 else f"{model_dir}: {data.name}"
                accuracy[key] = _predictor_accuracy(data, lengths["predicted"])
            for si, row in run.score_set(data, mine, lengths).items():
                rows[(ti, si)] = row
        del run  # one model loaded at a time
    meta: dict[str, Any] = {
        "mode": "model",
        "testsets": [t.name for t in testsets],
        "n_settings": len(settings),
    }
    if accuracy:
        meta["predictor_accuracy"] = accuracy
    return EvalReport([rows[k] for k in sorted(rows)], meta)


@dataclass(frozen=True)
class _ModelRun:
    """One model's backend and what scoring its outputs needs."""

    backend: TranslationBackend
    options: ScoreOptions
    counter: Callable[[str], int] | None
    batch_size: int
    progress: Progress | None
    several_sets: bool  # progress labels name the test set

    def score_set(
        self, data: LoadedSet, settings: dict[int, Setting], lengths: dict[str, list[int]]
    ) -> dict[int, Row]:
        """Each setting's row on one test set (by the setting's index); the unconstrained
        translation made once and scored under every ratio."""
        assert data.srcs is not None
        unconstrained: tuple[list[str], float] | None = None
        rows: dict[int, Row] = {}
        for si, setting in settings.items():
            label = f"{data.name}: {setting.name}" if self.several_sets else setting.name
            asked = lengths.get(setting.policy)
            if setting.policy != "source" and asked is None:
                raise InputError(None, f"setting {setting.name}: no length predictor")
            if setting.mode == "unconstrained" and unconstrained is not None:
                outs, seconds = unconstrained
            else:
                start = time.perf_counter()
                outs = translate_all(
                    self.backend, setting, data.srcs, self.batch_size, self.progress, label, asked
                )
                seconds = time.perf_counter() - start
                if setting.mode == "unconstrained":
                    unconstrained = outs, seconds
            requested = None
            if asked is not None and setting.mode != "unconstrained":
                requested = [
                    setting.request(s, n).target_chars or 0
                    for s, n in zip(data.srcs, asked, strict=True)
                ]
            row = score_row(data, setting, outs, self.options, self.counter, requested=requested)
            speed = len(data.srcs) / seconds if seconds > 0 else None
            rows[si] = replace(row, metrics=replace(row.metrics, segments_per_s=speed))
        return rows


def _policy_lengths(
    data: LoadedSet, predict: Callable[[Sequence[str]], list[int]] | None
) -> dict[str, list[int]]:
    """Per policy other than `source`, the length asked for each source (characters)."""
    assert data.srcs is not None
    out = {"oracle": [char_length(r) for r in data.refs]}
    if predict is not None:
        out["predicted"] = predict(data.srcs)
    return out


def _predictor_accuracy(data: LoadedSet, predicted: Sequence[int]) -> dict[str, Any]:
    """Predicted and source lengths against the references' (Oka et al. 2020, Table 2)."""
    from fitsub.metrics.length import accuracy

    assert data.srcs is not None
    keep = [i for i, s in enumerate(data.srcs) if s.strip() and data.refs[i].strip()]
    ref = [char_length(data.refs[i]) for i in keep]
    return {
        "unit": "char",
        "predicted": accuracy([predicted[i] for i in keep], ref).to_dict(),
        "src_len": accuracy([char_length(data.srcs[i]) for i in keep], ref).to_dict(),
    }


def evaluate_hyps(
    testsets: Sequence[LoadedSet],
    ratios: Sequence[float],
    options: ScoreOptions = ScoreOptions(),
    count_subwords: Callable[[str], int] | None = None,
) -> EvalReport:
    """Score existing outputs (no model): one setting `hyp` (`hyp@RATIO` when several ratios)."""
    ratios = check_ratios(ratios)
    rows: list[Row] = []
    for data in testsets:
        if data.hyps is None:
            raise InputError(None, f"test set {data.name!r} has no system output (--hyp)")
        for ratio in ratios:
            name = "hyp" if len(ratios) == 1 else f"hyp@{ratio:g}"
            setting = Setting(name, "hyp", ratio)
            rows.append(score_row(data, setting, data.hyps, options, count_subwords, data.hyp_cues))
    meta = {"mode": "hyp", "testsets": [t.name for t in testsets]}
    return EvalReport(rows, meta)
