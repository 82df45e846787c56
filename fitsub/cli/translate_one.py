"""`fitsub translate` of one file: check the output names, translate, write the output, the
--report and --review files, and show the comparison; exit 3 under --strict when flagged."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.cli.console import printable, progress_bar
from fitsub.cli.documents import load_input, table_layout, write_output
from fitsub.cli.many_files import encoding_info
from fitsub.cli.options import STRICT_EXIT
from fitsub.cli.report import comparison_json, comparison_tsv, plural, summary_table, write_report
from fitsub.cli.results_table import print_comparison
from fitsub.cli.run_settings import write_run_settings
from fitsub.cli.translation import Run
from fitsub.document import Document
from fitsub.errors import InputError, Interrupted
from fitsub.formats import with_target_language
from fitsub.identity import is_identity
from fitsub.io.outputs import STDIO, check_output_path, default_output
from fitsub.pipeline import (
    TranslateOptions,
    TranslationResult,
    summarize_results,
    translate_document,
)
from fitsub.review.tsv import check_review_path, review_format, write_review


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


def translate_one(run: Run, src: Path, output: Path | None, review: Path | None) -> None:
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
        if review_format(review) == "html" and str(out) != STDIO:  # for `fitsub review --serve`
            written.append(printable(str(write_run_settings(run, src=src, out=out, review=review))))


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
            unit = None if run.opts.speech is None else run.opts.speech.unit
            print_comparison(stdout, result.segments, title=title, wide=run.wide, unit=unit)
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
