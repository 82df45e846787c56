"""`fitsub translate`: parse the options into a `Run`, then translate one file or a batch."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.budget import resolve_settings, with_speech
from fitsub.cli.console import printable, progress_bar
from fitsub.cli.documents import load_input, table_layout, write_output
from fitsub.cli.limits import pick_profile, settings, translate_options
from fitsub.cli.many_files import encoding_info, expand_inputs
from fitsub.cli.models import check_model_path, pick_language
from fitsub.cli.options import (
    STRICT_EXIT,
    Beam,
    BudgetUnit,
    Cps,
    Device,
    Encoding,
    InputFormat,
    Isochrony,
    Lang,
    LengthPredictor,
    Lines,
    Profile,
    SpeechRate,
    Threads,
    check_device,
    check_share,
    language_code,
)
from fitsub.cli.report import comparison_json, comparison_tsv, plural, summary_table, write_report
from fitsub.cli.results_table import print_comparison
from fitsub.cli.translate_batch import check_batch, translate_batch
from fitsub.cli.translation import Run
from fitsub.document import Document
from fitsub.errors import InputError, Interrupted
from fitsub.formats import EXTENSIONS, with_target_language
from fitsub.glossary import load_glossary
from fitsub.identity import is_identity
from fitsub.io.outputs import STDIO, check_output_path, default_output
from fitsub.lengthpred.policy import check_policy
from fitsub.pipeline import (
    TranslateOptions,
    TranslationResult,
    summarize_results,
    translate_document,
)
from fitsub.review.tsv import check_review_path, write_review


def translate_cmd(
    inputs: list[Path] = typer.Argument(
        ...,
        help="Subtitles (.srt .vtt .ass .ssa), slides (.txt .md .pptx), folders or glob "
        "patterns; '-': standard input.",
        show_default=False,
    ),
    output: Path | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Output file (default: the input name with the language added; '-': stdout).",
    ),
    out_dir: Path | None = typer.Option(
        None,
        "--out-dir",
        help="Write every output into this folder (batch runs; a named folder's layout is kept).",
    ),
    fmt: InputFormat = None,
    encoding_in: Encoding = None,
    lang: Lang = None,
    src_lang: str | None = typer.Option(None, "--src-lang", help="Source language (default: en)."),
    profile: Profile = None,
    ratio: float | None = typer.Option(
        None,
        "--ratio",
        help="Isometric mode: budget = ratio × source characters (capped by the slot). "
        "Default: slot mode for subtitles (the cue's CPL × lines and CPS × duration), "
        "ratio 1.0 for slides without a box.",
    ),
    min_ratio: float | None = typer.Option(
        None,
        "--min-ratio",
        help="Also a lower bound, e.g. 0.9 for dubbing (as long as the source); isometric mode.",
    ),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language or profile)."
    ),
    unit: BudgetUnit = None,
    isochrony: Isochrony = "source",
    speech_rate: SpeechRate = None,
    lines: Lines = None,
    cps: Cps = None,
    model: Path | None = typer.Option(
        None,
        "--model",
        help="fitsub model directory, or a Hugging Face model directory / hub id (default: shipped model).",
    ),
    beam: Beam = 5,
    device: Device = "auto",
    threads: Threads = None,
    compare: bool = typer.Option(
        True,
        "--compare/--no-compare",
        help="Show the unconstrained translation beside the fitted one (it is always computed: "
        "the output is the same either way).",
        metavar="",
    ),
    per_cue: bool = typer.Option(
        False, "--per-cue", help="Translate cue by cue (no sentence grouping).", metavar=""
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="TSV of terms: 'source<TAB>target', or a term alone to keep it as it is.",
    ),
    report: Path | None = typer.Option(
        None, "--report", help="Write the comparison as JSON here (batch: every file in one)."
    ),
    review: Path | None = typer.Option(
        None,
        "--review",
        help="Write a bilingual review file here: review.tsv or review.html (by extension).",
    ),
    table_format: str = typer.Option(
        "auto",
        "--table-format",
        help="Per-segment table: auto (rich on a terminal, tsv otherwise), rich, tsv or json.",
    ),
    wide: bool = typer.Option(
        False,
        "--wide",
        help="Every column of the per-segment table (default: those the terminal's width holds).",
        metavar="",
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Exit 3 when any segment carries a quality flag (0 otherwise).",
        metavar="",
    ),
    length_policy: str = typer.Option(
        "source",
        "--length-policy",
        help="Length asked of a segment that must be fitted: source (slot mode: the "
        "unconstrained translation's length capped by the budget; isometric mode: the budget, "
        "ratio × source) or predicted (the shipped length predictor's, capped by the budget).",
    ),
    length_predictor: LengthPredictor = None,
    quality_threshold: float | None = typer.Option(
        None,
        "--quality-threshold",
        help="Flag low-quality under this score, 0-1 (default: the language's calibrated one; "
        "higher flags more lines and finds more of the wrong ones: docs/quality.md).",
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="Print nothing but errors.", metavar=""
    ),
) -> None:
    """Translate subtitles or slides so that each segment fits its budget, and compare.

    Every fitted segment gets quality flags (cut-word, number-changed, meaning-reversed, untranslated,
    dropped-content, over-budget, repeated-token, low-quality); with --strict the exit status is 3 when any
    segment carries one. The output is written either way. Several inputs, a folder or a glob
    pattern make a batch run: one model load, one line per file, exit 2 at the end when a file
    failed (the others are translated).

    Example: fitsub translate samples/talk.srt --lang it --ratio 1.0
    """
    check_device(device)
    config = settings()
    src_lang = language_code(config.get("src_lang", src_lang) or "en")
    model = config.get("model", model)
    check_model_path(None if model is None else Path(model))
    lang = pick_language(config.get("lang", lang), None if model is None else Path(model), src_lang)
    glossary_path = config.get("glossary", glossary)
    chosen = pick_profile(config, profile)
    asked = resolve_settings(
        lang,
        ratio=ratio,
        cpl=cpl,
        lines=lines,
        cps=cps,
        min_ratio=min_ratio,
        profile=chosen,
        default_ratio=config.get("ratio"),
    )
    asked = with_speech(
        asked,
        unit=unit,
        profile=chosen,
        src_lang=src_lang,
        isochrony=isochrony,
        speech_rate=speech_rate,
        ratio_given=ratio is not None or min_ratio is not None,
    )
    opts = translate_options(asked, per_cue=per_cue, compare=compare)
    check_policy(length_policy, ("source", "predicted"))
    if quality_threshold is not None:
        check_share("quality_threshold", quality_threshold)
        opts = dataclasses.replace(opts, quality_threshold=quality_threshold)
    if glossary_path is not None:
        opts = dataclasses.replace(opts, glossary=load_glossary(Path(glossary_path)))
    table_layout(table_format, True)  # a bad choice is an error before any work
    files = expand_inputs(inputs, EXTENSIONS)
    batch = out_dir is not None or len(files) > 1
    if batch:
        check_batch(files, output, review)
    meta: dict[str, Any] = {
        "lang": lang,
        "src_lang": src_lang,
        "profile": None if chosen is None else chosen.name,
        "mode": opts.mode,
        "ratio": opts.ratio,
        "min_ratio": opts.min_ratio,
        "unit": "char" if opts.speech is None else opts.speech.unit,
        "isochrony": None if opts.speech is None else opts.speech.isochrony,
        "speech_rate": None if opts.speech is None else opts.speech.rate,
        "limits": dataclasses.asdict(opts.limits),
        "length_policy": length_policy,
    }
    run = Run(
        opts=opts,
        meta=meta,
        model=None if model is None else Path(model),
        src_lang=src_lang,
        device=device,
        beam=beam,
        threads=threads,
        fmt=fmt,
        encoding=encoding_in,
        report=report,
        strict=strict,
        quiet=quiet,
        length_policy=length_policy,
        length_predictor=length_predictor,
        table_format=table_format,
        wide=wide,
    )
    if batch:
        translate_batch(run, files, out_dir)
        return
    _translate_one(run, files[0][0], output, review)


def _output_path(run: Run, src: Path, output: Path | None, review: Path | None) -> Path:
    """The output file (`-o`, else named after the input), checked with --report / --review."""
    if output is not None:
        out = output
    else:
        out = Path(STDIO) if str(src) == STDIO else default_output(src, run.lang, run.src_lang)
    to_stdout = str(out) == STDIO
    report = run.report
    check_output_path(out, "-o", [src], allow_stdout=True)
    check_output_path(report, "--report", [src, out])
    if report is not None and not to_stdout and os.path.abspath(report) == os.path.abspath(out):
        raise InputError(report, "--report and -o name the same file")
    if review is not None:
        check_review_path(review, [src, out])
        taken = [p for p in (report, None if to_stdout else out) if p is not None]
        if any(os.path.abspath(review) == os.path.abspath(p) for p in taken):
            raise InputError(review, "--review names the same file as -o or --report")
    return out


def _translate_one(run: Run, src: Path, output: Path | None, review: Path | None) -> None:
    """One file: read, translate, write, report, show the comparison; exit 3 under --strict."""
    out = _output_path(run, src, output, review)
    doc = load_input(src, run.fmt, run.encoding)
    opts, backend = run.with_model()
    console = Console(stderr=True, quiet=run.quiet)
    with progress_bar(console, run.quiet) as bar:
        task = bar.add_task("translating", total=None)
        result = translate_document(
            doc,
            backend,
            opts,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    translated = (
        result.document
        if is_identity(backend.name)
        else with_target_language(result.document, run.lang)
    )
    written: list[str] = []  # what Ctrl-C from here on leaves written (errors.Interrupted)
    try:
        encoding = write_output(translated, out)
        written.append("standard output" if str(out) == STDIO else printable(str(out)))
        _write_extras(
            run=run,
            src=src,
            out=out,
            doc=doc,
            backend=backend,
            result=result,
            translated=translated,
            review=review,
            opts=opts,
            encoding=encoding,
            written=written,
        )
    except KeyboardInterrupt:
        raise Interrupted(written) from None
    except InputError as err:  # a full disk at the report: the subtitle file is written
        raise err.after_writing(written) from None
    if not run.quiet:
        _show(run, src=src, out=out, doc=doc, result=result, encoding=encoding, console=console)
    # What the output lost (markup it cannot carry, glossary terms) is shown even with --quiet.
    loud = Console(stderr=True)
    for warning in result.warnings:
        loud.print(Text.assemble(("warning:", "yellow"), f" {src}: {warning}"), soft_wrap=True)
    flagged = sum(1 for r in result.segments if r.flags)
    if run.strict and flagged:
        console.print(
            f"--strict: quality flags on {plural(flagged, 'segment')}; exit {STRICT_EXIT}"
        )
        raise typer.Exit(STRICT_EXIT)


def _write_extras(
    run: Run,
    src: Path,
    out: Path,
    doc: Document,
    backend: TranslationBackend,
    result: TranslationResult,
    translated: Document,
    review: Path | None,
    opts: TranslateOptions,
    encoding: str,
    written: list[str],
) -> None:
    """The --report and --review files of one translated file, each named in `written`."""
    if run.report is not None:
        meta = {
            **run.meta,
            "input": str(src),
            "output": str(out),
            "format": doc.format,
            "encoding": encoding,
            "encoding_detected": encoding_info(doc),
            "model": backend.name,
        }
        write_report(run.report, result.segments, summarize_results(result.segments), meta)
        written.append(printable(str(run.report)))
    if review is not None:
        write_review(
            review,
            translated,
            result.segments,
            title=f"{src} → {out}",
            source=doc,
            limits=opts.limits,
            lang=run.lang,
            output=None if str(out) == STDIO else out,
        )
        written.append(printable(str(review)))


def _show(
    run: Run,
    src: Path,
    out: Path,
    doc: Document,
    result: TranslationResult,
    encoding: str,
    console: Console,
) -> None:
    """The comparison table (or TSV / JSON), the summary, what was written and the warnings."""
    to_stdout = str(out) == STDIO
    # With `-o -` the translation owns standard output: the tables go to standard error.
    stdout = Console(stderr=to_stdout)
    stream = sys.stderr if to_stdout else sys.stdout
    summary = summarize_results(result.segments)
    shown_layout = table_layout(run.table_format, stream.isatty())
    if shown_layout == "rich":
        if run.opts.compare:
            title = printable(f"{src} → {out}")
            print_comparison(stdout, result.segments, title=title, wide=run.wide)
        stdout.print(summary_table(summary))
    else:
        render = comparison_json if shown_layout == "json" else comparison_tsv
        stream.write(render(result.segments, summary))
        stream.flush()
    shown = "standard output" if to_stdout else printable(out)
    target = stdout if shown_layout == "rich" else console  # the TSV / JSON stays clean
    wrote = f"wrote {shown} ({encoding}, {plural(len(doc.segments), 'segment')})"
    target.print(Text(wrote), highlight=False)
    for warning in doc.warnings:
        console.print(Text.assemble(("warning:", "yellow"), printable(f" {src}: {warning}")))
