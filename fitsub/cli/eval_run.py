"""`fitsub eval`'s run: score the given outputs, or translate each test set with every model
(opened through `fitsub.cli.registry`) under each setting and score it; then write the report
(JSON, markdown, plots) and show its tables."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.cli import registry
from fitsub.cli.console import progress_bar
from fitsub.cli.eval_config import EvalRun
from fitsub.errors import InputError
from fitsub.eval.evaluate import evaluate_hyps, evaluate_models, sentencepiece_counter
from fitsub.eval.report import LEGEND, EvalReport, bucket_cells, main_cells, rich_table
from fitsub.eval.settings import make_settings
from fitsub.io.atomic import atomic_write_text

Predict = Callable[[Sequence[str]], list[int]]


def evaluate(run: EvalRun) -> EvalReport:
    """The report of `run`: its given outputs scored, or its test sets translated and scored."""
    return _score_given(run) if run.given else _translate_and_score(run)


def write_outputs(
    report: EvalReport,
    *,
    json_out: Path | None,
    markdown: Path | None,
    plot: Path | None,
    quiet: bool,
) -> None:
    """--json, --markdown ('-': stdout) and --plot, then the tables unless quiet or on stdout."""
    _emit(json_out, report.to_json())
    _emit(markdown, report.to_markdown())
    written: list[Path] = []
    if plot is not None:
        from fitsub.eval.plots import write_plots

        written = write_plots(report, plot)
    if not quiet and "-" not in (str(json_out), str(markdown)):
        _print(report, written)


def _emit(path: Path | None, text: str) -> None:
    if path is None:
        return
    if str(path) == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(path, text)


def _score_given(run: EvalRun) -> EvalReport:
    """The given outputs (--hyp) scored; subword lengths with the first model's tokenizer."""
    counter: Callable[[str], int] | None = None
    if run.models:
        model = registry.locate(run.models[0], src_lang=run.src_lang, lang=run.lang)
        if registry.model_kind(model).is_checkpoint:  # else no spm.model, no counter
            counter = sentencepiece_counter(model)
    return evaluate_hyps(run.loaded, run.ratios, run.options, counter)


def _translate_and_score(run: EvalRun) -> EvalReport:
    """Every test set translated under each setting × ratio × model, under one progress bar."""
    for data in run.loaded:
        if data.srcs is None:
            raise InputError(None, f"test set {data.name!r}: --src is needed to translate")
    dirs = _model_dirs(run.models, run.src_lang, run.lang)
    setting_list = make_settings(run.modes, run.ratios, dirs, run.policies)
    predictors = _predictors(dirs, run)

    def predictor(d: Path | None) -> Predict:
        if d is None or d not in predictors:
            raise InputError(None, "no length predictor for this model")
        return predictors[d]

    console = Console(stderr=True, quiet=run.quiet)
    with progress_bar(console, run.quiet) as bar:
        return evaluate_models(
            run.loaded,
            setting_list,
            _opener(run),
            run.options,
            _counter,
            run.batch_size,
            _bar_progress(bar),
            predictor=predictor if predictors else None,
        )


def _counter(d: Path | None) -> Callable[[str], int] | None:
    """A model's subword counter (its SentencePiece tokenizer)."""
    return None if d is None else sentencepiece_counter(d)


def _opener(run: EvalRun) -> Callable[[Path | None], TranslationBackend]:
    """Opens a located model's backend with the run's device, beam, batch size and threads."""

    def open_backend(d: Path | None) -> TranslationBackend:
        if d is None:  # every setting names a located model here
            raise InputError(None, "no model directory")
        return registry.open_model(
            d,
            src_lang=run.src_lang,
            lang=run.lang,
            device=run.device,
            beam=run.beam,
            batch_size=run.batch_size,
            threads=run.threads,
        )

    return open_backend


def _bar_progress(bar: Progress) -> Callable[[str, int, int], None]:
    """The core's progress callback: one task on `bar` per label (a setting of a test set)."""
    tasks: dict[str, int] = {}

    def progress(label: str, done: int, total: int) -> None:
        if label not in tasks:
            tasks[label] = int(bar.add_task(escape(label), total=total))
        bar.update(tasks[label], completed=done, total=total)  # type: ignore[arg-type]

    return progress


def _model_dirs(models: list[Path], src_lang: str, lang: str) -> list[Path]:
    """Each `--model`'s checkpoint directory (the shipped model when none is given); a Hugging
    Face model directory or hub id is kept as given (`fitsub.cli.registry.locate`)."""
    named: list[Path | None] = [*models] or [None]
    return [registry.locate(m, src_lang=src_lang, lang=lang) for m in named]


def _predictors(dirs: list[Path], run: EvalRun) -> dict[Path, Predict]:
    """Each model's length predictor when a policy asks for one: checked (extra, directory,
    languages, unit) before anything is translated."""
    if "predicted" not in run.policies:
        return {}
    from fitsub.lengthpred.predictor import open_policy

    predictors: dict[Path, Predict] = {}
    for d in dirs:
        owned = d if registry.model_kind(d).is_checkpoint else None
        policy = open_policy(
            name="predicted",
            predictor_dir=run.predictor_dir,
            model_dir=owned,
            src_lang=run.src_lang,
            tgt_lang=run.lang,
        )
        assert policy.predict is not None
        predictors[d] = policy.predict
    return predictors


def _print(report: EvalReport, plots: list[Path]) -> None:
    console = Console()
    console.print(rich_table(*main_cells(report), title="fitsub eval"))
    headers, rows = bucket_cells(report)
    if rows:
        console.print(rich_table(headers, rows, title="BLEU (LR) by reference length, 13a tokens"))
    console.print(LEGEND, highlight=False, style="dim")
    for line in report.signatures():
        console.print(Text(line), highlight=False)
    for note in sorted({n for r in report.rows for n in r.metrics.notes}):
        console.print(Text(f"note: {note}"), highlight=False)
    for path in plots:
        console.print(Text(f"wrote {path}"), highlight=False)
