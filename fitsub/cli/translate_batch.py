"""`fitsub translate` over several files: one model load, one line per file, one report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from fitsub.backend import TranslationBackend
from fitsub.cli.console import error_text, fail, printable, progress_bar, say
from fitsub.cli.documents import parse_format
from fitsub.cli.many_files import FileOutcome, translate_file
from fitsub.cli.options import STRICT_EXIT
from fitsub.cli.report import plural, write_batch_report
from fitsub.cli.translation import Run
from fitsub.errors import InputError, Interrupted
from fitsub.io.outputs import STDIO, batch_outputs, check_output_path
from fitsub.pipeline import TranslateOptions


def translate_batch(run: Run, files: list[tuple[Path, Path | None]], out_dir: Path | None) -> None:
    """Translate every file with one model load and one progress bar; exit 2 if any failed."""
    if out_dir is not None:
        check_output_path(out_dir, "--out-dir", [f for f, _ in files], directory=True)
    outputs = batch_outputs(files, out_dir, run.lang, run.src_lang)
    check_output_path(run.report, "--report", [f for f, _ in files])
    opts, backend = run.with_model()
    meta = {**run.meta, "model": backend.name}
    if out_dir is not None:
        out_dir.mkdir(exist_ok=True)
    console = Console(stderr=True, quiet=run.quiet)
    pairs = [(src, out) for (src, _), out in zip(files, outputs, strict=True)]
    outcomes = _translate_all(run, pairs, backend, opts, meta, console)
    loud = Console(stderr=True)
    for outcome in outcomes:
        for warning in outcome.warnings:
            loud.print(
                Text.assemble(("warning:", "yellow"), printable(f" {outcome.input}: {warning}")),
                soft_wrap=True,
            )
    if run.report is not None:
        write_batch_report(run.report, [_report_entry(o) for o in outcomes])
    failed = [o for o in outcomes if o.error is not None]
    console.print(f"{len(outcomes) - len(failed)} of {plural(len(outcomes), 'file')} translated")
    if failed:
        for o in failed:
            say(f"fitsub: error: {o.error}")
        fail(f"{len(failed)} of {plural(len(outcomes), 'file')} failed", 2)
    if run.strict and any(o.summary is not None and o.summary.flagged for o in outcomes):
        raise typer.Exit(STRICT_EXIT)


def _translate_all(
    run: Run,
    pairs: list[tuple[Path, Path]],
    backend: TranslationBackend,
    opts: TranslateOptions,
    meta: dict[str, Any],
    console: Console,
) -> list[FileOutcome]:
    """Each file in turn under one progress bar; a file's failure is its outcome, not the end.

    Ctrl-C: `Interrupted` naming the files written so far (the one in progress too when its
    output was replaced before the interrupt: the file on disk says so, not the loop).
    """
    outcomes: list[FileOutcome] = []
    written: list[str] = []
    try:
        _loop(
            run=run,
            pairs=pairs,
            backend=backend,
            opts=opts,
            meta=meta,
            console=console,
            outcomes=outcomes,
            written=written,
        )
    except KeyboardInterrupt:
        raise Interrupted(written, len(pairs)) from None
    return outcomes


def _file_state(path: Path) -> tuple[int, int] | None:
    """(inode, modification time) of `path`, None when absent: an atomic write changes both."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def _loop(
    run: Run,
    pairs: list[tuple[Path, Path]],
    backend: TranslationBackend,
    opts: TranslateOptions,
    meta: dict[str, Any],
    console: Console,
    outcomes: list[FileOutcome],
    written: list[str],
) -> None:
    with progress_bar(console, run.quiet) as bar:
        task = bar.add_task("translating", total=len(pairs))
        for k, (src, out) in enumerate(pairs):
            bar.update(task, description=printable(f"{src.name}"), completed=k)
            before = _file_state(out)

            def step(done: int, total: int, k: int = k) -> None:
                bar.update(task, completed=k + (done / total if total else 0))

            try:
                fmt = parse_format(run.fmt)  # a bad --format fails each file, as any input error
                outcome = translate_file(
                    src=src,
                    out=out,
                    backend=backend,
                    opts=opts,
                    meta=meta,
                    fmt=fmt,
                    encoding=run.encoding,
                    progress=step,
                )
            except Exception as err:  # noqa: BLE001 - one file's failure must not stop the rest
                outcome = FileOutcome(src, out, error=error_text(err))
            except KeyboardInterrupt:
                if _file_state(out) != before:
                    written.append(printable(str(out)))
                raise
            if outcome.error is None:
                written.append(printable(str(out)))
            outcomes.append(outcome)
            console.print(Text(printable(outcome.line)), highlight=False, soft_wrap=True)
        bar.update(task, completed=len(pairs))


def _report_entry(o: FileOutcome) -> dict[str, Any]:
    """One file's entry in the batch's JSON report."""
    if o.report is not None:
        return {"input": str(o.input), "output": str(o.output), "status": "ok", **o.report}
    return {"input": str(o.input), "output": str(o.output), "status": "failed", "error": o.error}


def check_batch(
    files: list[tuple[Path, Path | None]], output: Path | None, review: Path | None
) -> None:
    """The flags that name one file cannot be part of a batch run."""
    if output is not None:
        raise InputError(None, "-o names one output; with several inputs use --out-dir")
    if review is not None:
        raise InputError(None, "--review takes one input; run it per file")
    if any(str(f) == STDIO for f, _ in files):
        raise InputError(None, "'-' (standard input) cannot be part of a batch run")
