"""`fitsub eval`: translate a test set under each setting (or take given outputs) and score it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.budget import limits_for
from fitsub.cli import registry
from fitsub.cli.console import progress_bar
from fitsub.cli.limits import settings as config_settings
from fitsub.cli.models import pick_language
from fitsub.cli.options import (
    Beam,
    Cps,
    Device,
    Lang,
    LengthPredictor,
    Lines,
    SpeechRate,
    Threads,
    check_device,
    language_code,
    split_list,
)
from fitsub.errors import InputError
from fitsub.eval.evaluate import ScoreOptions, evaluate_hyps, evaluate_models, sentencepiece_counter
from fitsub.eval.report import LEGEND, EvalReport, bucket_cells, main_cells, rich_table
from fitsub.eval.settings import make_settings
from fitsub.eval.testsets import LoadedSet, TestSet, load_testset, parse_testset
from fitsub.io.atomic import atomic_write_text
from fitsub.io.outputs import check_output_path
from fitsub.lengthpred.policy import check_policy

EPILOG = (
    "Examples:\n\n"
    "fitsub eval --model models/en-it --src test.en --ref test.it --bleu --lr"
    " --settings unconstrained,length,hard --ratio 1.0,0.9 --markdown results.md --plot plots/\n\n"
    "fitsub eval --src test.en --hyp out.it --ref test.it --lang it --ratio 0.9 --json scores.json\n\n"
    "fitsub eval --hyp out.it.srt --ref ref.it.srt --src in.srt --lang it\n\n"
    "fitsub eval --testset flores=data/flores200-devtest --lang it --max-segments 500 --bleu --lr"
)


def _ratios(values: list[str] | None) -> list[float]:
    out = []
    for v in split_list(values) or ["1.0"]:
        try:
            out.append(float(v))
        except ValueError:
            raise InputError(None, f"--ratio must be a number, got {v!r}") from None
    return out


def _name(path: Path, taken: set[str]) -> str:
    name = path.name.rsplit(".", 2)[0] if path.suffix else path.name
    return str(path) if name in taken else name


def _testsets(
    src: list[Path], ref: list[Path], hyp: list[Path], specs: list[str], src_lang: str, lang: str
) -> list[TestSet]:
    sets = [parse_testset(spec, src_lang, lang) for spec in specs]
    if specs and hyp:
        raise InputError(None, "--testset names sources to translate; it cannot be used with --hyp")
    if not ref:
        if src or hyp:
            raise InputError(None, "--ref is required with --src / --hyp")
    else:
        for opt, paths in (("--src", src), ("--hyp", hyp)):
            if paths and len(paths) != len(ref):
                raise InputError(
                    None, f"{len(paths)} {opt} files for {len(ref)} --ref files; give one per --ref"
                )
        taken: set[str] = {t.name for t in sets}
        for i, r in enumerate(ref):
            name = _name(r, taken)
            taken.add(name)
            sets.append(
                TestSet(name, ref=r, src=src[i] if src else None, hyp=hyp[i] if hyp else None)
            )
    if not sets:
        raise InputError(None, "nothing to evaluate: give --ref with --src or --hyp, or --testset")
    return sets


def _target(lang: str | None, models: list[Path], src_lang: str, translating: bool) -> str:
    """`--lang` as `fitsub translate` picks it, or the one language all `--model`s translate into."""
    if lang is not None or len(models) < 2:
        return pick_language(lang, models[0] if models else None, src_lang, translating)
    found = sorted({pick_language(None, m, src_lang) for m in models})
    if len(found) > 1:
        into = f"the models translate into {', '.join(found)}"
        raise InputError(None, f"is required: {into}", setting="lang")
    return found[0]


def _check_outputs(
    sets: list[TestSet], json_out: Path | None, markdown: Path | None, plot: Path | None
) -> None:
    """No report may overwrite an input (or name a folder, or a file for --plot)."""
    inputs = {p.resolve() for t in sets for p in (t.src, t.ref, t.hyp) if p is not None}
    for opt, out in (("--json", json_out), ("--markdown", markdown)):
        if out is not None and str(out) != "-" and out.resolve() in inputs:
            raise InputError(out, f"{opt} would overwrite an input file; choose another path")
        check_output_path(out, opt, sorted(inputs), allow_stdout=True)
    check_output_path(plot, "--plot", sorted(inputs), directory=True)


def _emit(path: Path | None, text: str) -> None:
    if path is None:
        return
    if str(path) == "-":
        sys.stdout.write(text)
    else:
        atomic_write_text(path, text)


def eval_cmd(
    model: list[Path] | None = typer.Option(
        None,
        "--model",
        help="fitsub model directory or Hugging Face model directory / hub id; repeat to compare models (default: shipped model).",
    ),
    src: list[Path] | None = typer.Option(
        None, "--src", help="Source file (one segment a line, or .srt/.vtt); repeatable."
    ),
    ref: list[Path] | None = typer.Option(
        None, "--ref", help="Reference file, one per --src / --hyp; repeatable."
    ),
    hyp: list[Path] | None = typer.Option(
        None,
        "--hyp",
        help="System output to score without a model (text, .srt or .vtt); repeatable.",
    ),
    testset: list[str] | None = typer.Option(
        None,
        "--testset",
        help="NAME=PREFIX: source PREFIX.<src-lang>, reference PREFIX.<lang>; repeatable.",
    ),
    bleu: bool = typer.Option(
        False, "--bleu", help="Quality: BLEU, BLEU*, chrF, per-length buckets."
    ),
    lr: bool = typer.Option(
        False, "--lr", help="Length: LR, VAR, LC, fit (default with --bleu: both)."
    ),
    settings: list[str] | None = typer.Option(
        None,
        "--settings",
        help="unconstrained, length, hard, band, iso (comma-separated or repeated; default: unconstrained,length).",
    ),
    ratio: list[str] | None = typer.Option(
        None,
        "--ratio",
        help="Requested length = ratio × source characters; several: 1.0,0.9 (default 1.0).",
    ),
    src_lang: str | None = typer.Option(None, "--src-lang", help="Source language (default: en)."),
    lang: Lang = None,
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line for subtitle compliance."
    ),
    lines: Lines = None,
    cps: Cps = None,
    tokenize: str = typer.Option(
        "13a", "--tokenize", help="sacrebleu tokeniser for BLEU (13a, intl, zh, ja-mecab, ...)."
    ),
    max_segments: int | None = typer.Option(
        None, "--max-segments", help="Evaluate on the first N segments only."
    ),
    batch_size: int = typer.Option(32, "--batch-size", help="Segments per translation batch."),
    beam: Beam = 5,
    device: Device = "auto",
    threads: Threads = None,
    json_out: Path | None = typer.Option(
        None, "--json", help="Write the report as JSON here ('-': stdout)."
    ),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Write markdown tables here ('-': stdout)."
    ),
    plot: Path | None = typer.Option(None, "--plot", help="Write PNG plots into this directory."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No table or progress on the terminal."
    ),
    length_policy: list[str] | None = typer.Option(
        None,
        "--length-policy",
        help="Length asked in length/hard/band settings: source (ratio × source), predicted "
        "(the length predictor's), oracle (the reference's); several: source,predicted,oracle.",
    ),
    length_predictor: LengthPredictor = None,
    unit: str | None = typer.Option(
        None, "--unit", help="Also compliance in syllables or seconds (espeak-ng; docs/user-guide)."
    ),
    speech_rate: SpeechRate = None,
) -> None:
    """Score translations: BLEU (sacrebleu, with signature), BLEU*, chrF, LR, VAR, LC, fit.

    Translates each test set under every setting × ratio (× model), or scores given --hyp
    outputs; subtitle outputs (.srt / .vtt) also get CPL, line-count and CPS compliance.
    """
    check_device(device)
    config = config_settings()
    src_lang = language_code(config.get("src_lang", src_lang) or "en")
    lang = _target(config.get("lang", lang), model or [], src_lang, translating=not hyp)
    check_output_path(json_out, "--json", [], allow_stdout=True)
    check_output_path(markdown, "--markdown", [], allow_stdout=True)
    try:
        limits = limits_for(lang, cpl=cpl, lines=lines, cps=cps)
    except ValueError as err:
        raise InputError(None, str(err)) from None
    quality, lengths = (bleu, lr) if (bleu or lr) else (True, True)
    speech = None
    if unit is not None:
        from fitsub.metrics.speaking import SpeechScoring

        speech = SpeechScoring(unit, src_lang=src_lang, lang=lang, speech_rate=speech_rate)
    options = ScoreOptions(
        quality=quality, lengths=lengths, tokenize=tokenize, limits=limits, speech=speech
    )
    ratios = _ratios(ratio)
    src, ref, hyp = src or [], ref or [], hyp or []
    sets = _testsets(src=src, ref=ref, hyp=hyp, specs=testset or [], src_lang=src_lang, lang=lang)
    _check_outputs(sets, json_out, markdown, plot)
    loaded = [load_testset(t, max_segments) for t in sets]
    if hyp:
        report = _score_given(
            loaded=loaded,
            ratios=ratios,
            options=options,
            models=model or [],
            src_lang=src_lang,
            lang=lang,
        )
    else:
        report = _translate_and_score(
            loaded=loaded,
            ratios=ratios,
            options=options,
            models=model or [],
            modes=split_list(settings) or ["unconstrained", "length"],
            src_lang=src_lang,
            lang=lang,
            device=device,
            beam=beam,
            batch_size=batch_size,
            quiet=quiet,
            threads=threads,
            policies=[check_policy(p) for p in split_list(length_policy)] or ["source"],
            predictor_dir=length_predictor,
        )
    _emit(json_out, report.to_json())
    _emit(markdown, report.to_markdown())
    written: list[Path] = []
    if plot is not None:
        from fitsub.eval.plots import write_plots

        written = write_plots(report, plot)
    if not quiet and "-" not in (str(json_out), str(markdown)):
        _print(report, written)


def _score_given(
    loaded: list[LoadedSet],
    ratios: list[float],
    options: ScoreOptions,
    models: list[Path],
    src_lang: str,
    lang: str,
) -> EvalReport:
    counter: Callable[[str], int] | None = None
    if models:
        model = registry.locate(models[0], src_lang=src_lang, lang=lang)
        if registry.model_kind(model).is_checkpoint:  # else no spm.model, no counter
            counter = sentencepiece_counter(model)
    return evaluate_hyps(loaded, ratios, options, counter)


def _translate_and_score(
    loaded: list[LoadedSet],
    ratios: list[float],
    options: ScoreOptions,
    models: list[Path],
    modes: list[str],
    src_lang: str,
    lang: str,
    device: str,
    beam: int,
    batch_size: int,
    quiet: bool,
    threads: int | None = None,
    policies: Sequence[str] = ("source",),
    predictor_dir: Path | None = None,
) -> EvalReport:
    for data in loaded:
        if data.srcs is None:
            raise InputError(None, f"test set {data.name!r}: --src is needed to translate")
    dirs = _model_dirs(models, src_lang, lang)
    setting_list = make_settings(modes, ratios, dirs, policies)
    predictors = _predictors(
        dirs=dirs, policies=policies, predictor_dir=predictor_dir, src_lang=src_lang, lang=lang
    )

    def predictor(d: Path | None) -> Callable[[Sequence[str]], list[int]]:
        if d is None or d not in predictors:
            raise InputError(None, "no length predictor for this model")
        return predictors[d]

    def counter(d: Path | None) -> Callable[[str], int] | None:
        return None if d is None else sentencepiece_counter(d)

    def open_backend(d: Path | None) -> TranslationBackend:
        if d is None:  # every setting names a located model here
            raise InputError(None, "no model directory")
        return registry.open_model(
            d,
            src_lang=src_lang,
            lang=lang,
            device=device,
            beam=beam,
            batch_size=batch_size,
            threads=threads,
        )

    console = Console(stderr=True, quiet=quiet)
    with progress_bar(console, quiet) as bar:
        tasks: dict[str, int] = {}

        def progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = int(bar.add_task(escape(label), total=total))
            bar.update(tasks[label], completed=done, total=total)  # type: ignore[arg-type]

        return evaluate_models(
            loaded,
            setting_list,
            open_backend,
            options,
            counter,
            batch_size,
            progress,
            predictor=predictor if predictors else None,
        )


def _model_dirs(models: list[Path], src_lang: str, lang: str) -> list[Path]:
    """Each `--model`'s checkpoint directory (the shipped model when none is given); a Hugging
    Face model directory or hub id is kept as given (`fitsub.cli.registry.locate`)."""
    named: list[Path | None] = [*models] or [None]
    return [registry.locate(m, src_lang=src_lang, lang=lang) for m in named]


def _predictors(
    dirs: list[Path],
    policies: Sequence[str],
    predictor_dir: Path | None,
    src_lang: str,
    lang: str,
) -> dict[Path, Callable[[Sequence[str]], list[int]]]:
    """Each model's length predictor when a policy asks for one: checked (extra, directory,
    languages, unit) before anything is translated."""
    if "predicted" not in policies:
        return {}
    from fitsub.lengthpred.predictor import open_policy

    predictors: dict[Path, Callable[[Sequence[str]], list[int]]] = {}
    for d in dirs:
        owned = d if registry.model_kind(d).is_checkpoint else None
        policy = open_policy(
            name="predicted",
            predictor_dir=predictor_dir,
            model_dir=owned,
            src_lang=src_lang,
            tgt_lang=lang,
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
