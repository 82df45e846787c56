"""`fitsub translate` and `fitsub budget`: parse options, read, plan or translate, write, report."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, overload

import typer
from rich.console import Console
from rich.text import Text

from fitsub.budget import Budget, limits_for
from fitsub.budget import summarize as summarize_budgets
from fitsub.cli import app, printable, progress_bar
from fitsub.errors import InputError
from fitsub.glossary import load_glossary
from fitsub.io import STDIO, atomic_write_bytes, check_output_path
from fitsub.lengthpred.policy import check_policy
from fitsub.pipeline import TranslateOptions, plan, summarize, translate_document
from fitsub.report import (
    budget_summary_table,
    budget_table,
    comparison_table,
    summary_table,
    write_report,
)
from fitsub.review import check_review_path, write_review
from fitsub.segments import (
    FORMATS,
    Document,
    Format,
    Segment,
    document_bytes,
    read_bytes_document,
    read_document,
)

STRICT_EXIT = 3  # --strict: some segment carries a quality flag
LANG_HELP = "Target language (sets the CPL / lines / CPS defaults): it, de, fr, es, en."
TABLE_ROWS = 1000  # `fitsub budget` prints its table in parts of this many rows
FORMAT_HELP = "Input format: srt, vtt or slides (default: from the extension; sniffed for '-')."
ENCODING_HELP = "Input encoding, e.g. cp1252 (default: detected; invalid UTF-8 is an error)."


def _format(fmt: str | None) -> Format | None:
    if fmt is None:
        return None
    if fmt not in FORMATS:
        raise InputError(None, f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def load_input(path: Path, fmt: str | None = None, encoding: str | None = None) -> Document:
    """Read the input document: a file, or standard input for `-` (format given or sniffed)."""
    if str(path) == STDIO:
        data = sys.stdin.buffer.read()
        return read_bytes_document(data, _format(fmt), Path("<stdin>"), encoding)
    return read_document(path, _format(fmt), encoding)


def write_output(doc: Document, out: Path) -> str:
    """Write the translated document to `out` (atomically) or standard output for `-`."""
    data, encoding = document_bytes(doc, None if str(out) == STDIO else out)
    if str(out) == STDIO:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        atomic_write_bytes(out, data)
    return encoding


def _options(
    lang: str,
    ratio: float | None,
    cpl: int | None,
    lines: int | None,
    cps: float | None,
    per_cue: bool = False,
    compare: bool = True,
    min_ratio: float | None = None,
) -> TranslateOptions:
    if ratio is not None and ratio <= 0:
        raise InputError(None, f"--ratio must be positive, got {ratio}")
    for name, value in (("--cpl", cpl), ("--lines", lines), ("--cps", cps)):
        if value is not None and value <= 0:
            raise InputError(None, f"{name} must be positive, got {value}")
    try:
        limits = limits_for(lang, cpl=cpl, lines=lines, cps=cps)
    except ValueError as err:
        raise InputError(None, str(err)) from None
    if min_ratio is not None and not 0 < min_ratio <= (ratio or min_ratio):
        raise InputError(None, f"--min-ratio must be in (0, --ratio], got {min_ratio}")
    return TranslateOptions(
        lang=lang, limits=limits, ratio=ratio, per_cue=per_cue, compare=compare, min_ratio=min_ratio
    )


def default_output(src: Path, lang: str, src_lang: str) -> Path:
    """`talk.srt` → `talk.it.srt`; `talk.en.srt` → `talk.it.srt`."""
    stem = src.stem
    if stem.endswith(f".{src_lang}"):
        stem = stem[: -len(src_lang) - 1]
    return src.with_name(f"{stem}.{lang}{src.suffix}")


@app.command("translate")
def translate_cmd(
    input: Path = typer.Argument(
        ..., help="Subtitles (.srt, .vtt) or slide text (.txt, .md); '-': standard input."
    ),
    output: Path | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Output file (default: the input name with the language added; '-': stdout).",
    ),
    fmt: str | None = typer.Option(None, "--format", help=FORMAT_HELP),
    encoding_in: str | None = typer.Option(None, "--encoding", help=ENCODING_HELP),
    lang: str = typer.Option("it", "--lang", help=LANG_HELP),
    src_lang: str = typer.Option("en", "--src-lang", help="Source language."),
    ratio: float = typer.Option(
        1.0, "--ratio", help="Budget = ratio × source characters (1.0: same length)."
    ),
    min_ratio: float | None = typer.Option(
        None,
        "--min-ratio",
        help="Also a lower bound, e.g. 0.9 for dubbing (as long as the source).",
    ),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language)."
    ),
    lines: int | None = typer.Option(None, "--lines", help="Lines per cue (default per language)."),
    cps: float | None = typer.Option(None, "--cps", help="Reading speed, characters per second."),
    model: Path | None = typer.Option(
        None,
        "--model",
        help="fitsub model directory, or a Hugging Face model directory / hub id (default: shipped model).",
    ),
    beam: int = typer.Option(5, "--beam", min=1, help="Beam size."),
    device: str = typer.Option("auto", "--device", help="auto, cpu or cuda."),
    threads: int | None = typer.Option(
        None, "--threads", min=1, help="CPU threads (default: torch's, all cores)."
    ),
    compare: bool = typer.Option(
        True, "--compare/--no-compare", help="Also translate unconstrained and compare."
    ),
    per_cue: bool = typer.Option(
        False, "--per-cue", help="Translate cue by cue (no sentence grouping)."
    ),
    glossary: Path | None = typer.Option(
        None,
        "--glossary",
        help="TSV of terms: 'source<TAB>target', or a term alone to keep it as it is.",
    ),
    report: Path | None = typer.Option(None, "--report", help="Write the comparison as JSON here."),
    review: Path | None = typer.Option(
        None,
        "--review",
        help="Write a bilingual review file here: review.tsv or review.html (by extension).",
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Exit 3 when any segment carries a quality flag (0 otherwise)."
    ),
    length_policy: str = typer.Option(
        "source",
        "--length-policy",
        help="Length asked of the model: source (the budget, ratio × source) or predicted "
        "(the length predictor's, capped by the budget; needs the `length` extra).",
    ),
    length_predictor: Path | None = typer.Option(
        None,
        "--length-predictor",
        help="Length predictor directory (default: MODEL/length-predictor).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing but errors."),
) -> None:
    """Translate subtitles or slides so that each segment fits its budget, and compare.

    Every fitted segment gets quality flags (cut-word, number-changed, untranslated,
    dropped-content, over-budget, repeated-token); with --strict the exit status is 3 when any
    segment carries one. The output is written either way.

    Example: fitsub translate samples/talk.srt --lang it --ratio 1.0
    """
    from fitsub.backend import TranslationBackend
    from fitsub.hf.dispatch import is_hf_model, open_hf
    from fitsub.nat.backend import open_backend  # a CMLM checkpoint gets the NAT backend
    from fitsub.nmt.backend import resolve_model_dir

    if device not in ("auto", "cpu", "cuda"):
        raise InputError(None, f"--device must be auto, cpu or cuda, got {device!r}")
    opts = _options(lang, ratio, cpl, lines, cps, per_cue, compare, min_ratio)
    check_policy(length_policy, ("source", "predicted"))
    if glossary is not None:
        opts = dataclasses.replace(opts, glossary=load_glossary(glossary))
    from_stdin = str(input) == STDIO
    if output is not None:
        out = output
    else:
        out = Path(STDIO) if from_stdin else default_output(input, lang, src_lang)
    to_stdout = str(out) == STDIO
    check_output_path(out, "-o", [input], allow_stdout=True)
    check_output_path(report, "--report", [input, out])
    if report is not None and not to_stdout and os.path.abspath(report) == os.path.abspath(out):
        raise InputError(report, "--report and -o name the same file")
    if review is not None:
        check_review_path(review, [input, out])
        taken = [p for p in (report, None if to_stdout else out) if p is not None]
        if any(os.path.abspath(review) == os.path.abspath(p) for p in taken):
            raise InputError(review, "--review names the same file as -o or --report")
    doc = load_input(input, fmt, encoding_in)
    if length_policy != "source":  # the predictor is checked before the model is loaded
        from fitsub.lengthpred.predictor import open_policy

        owned = None if is_hf_model(model) else resolve_model_dir(model, src_lang, lang)
        policy = open_policy(length_policy, length_predictor, owned, src_lang, lang)
        opts = dataclasses.replace(opts, length=policy)
    backend: TranslationBackend
    if is_hf_model(model):  # a Hugging Face model directory or hub id (fitsub.hf)
        backend = open_hf(model, src_lang, lang, device=device, beam=beam, threads=threads)
    else:
        backend = open_backend(
            resolve_model_dir(model, src_lang, lang), device=device, beam=beam, threads=threads
        )

    console = Console(stderr=True, quiet=quiet)
    with progress_bar(console, quiet) as bar:
        task = bar.add_task("translating", total=None)
        result = translate_document(
            doc,
            backend,
            opts,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    encoding = write_output(result.document, out)
    summary = summarize(result.segments)
    if report is not None:
        meta = {
            "input": str(input),
            "output": str(out),
            "encoding": encoding,
            "lang": lang,
            "ratio": ratio,
            "limits": opts.limits.__dict__,
            "model": backend.name,
            "length_policy": length_policy,
        }
        write_report(report, result.segments, summary, meta)
    if review is not None:
        write_review(review, result.document, result.segments, title=f"{input} → {out}")
    if not quiet:
        # With `-o -` the translation owns standard output: the tables go to standard error.
        stdout = Console(stderr=to_stdout)
        if compare:
            title = printable(f"{input} → {out}")
            stdout.print(comparison_table(result.segments, title=title))
        stdout.print(summary_table(summary))
        shown = "standard output" if to_stdout else printable(out)
        stdout.print(
            Text(f"wrote {shown} ({encoding}, {len(doc.segments)} segments)"), highlight=False
        )
        for warning in doc.warnings:
            console.print(Text.assemble(("warning:", "yellow"), printable(f" {input}: {warning}")))
    # What the output lost (markup it cannot carry, glossary terms) is shown even with --quiet.
    loud = Console(stderr=True)
    for warning in result.warnings:
        loud.print(Text.assemble(("warning:", "yellow"), f" {input}: {warning}"), soft_wrap=True)
    flagged = sum(1 for r in result.segments if r.flags)
    if strict and flagged:
        console.print(f"--strict: {flagged} segment(s) carry quality flags; exit {STRICT_EXIT}")
        raise typer.Exit(STRICT_EXIT)


class CompactBudgets(Sequence[Budget]):
    """Budgets stored as tuples of their fields: a long file's summary without a Budget object
    (and its attribute dict) per segment; each is rebuilt when read."""

    def __init__(self) -> None:
        self._names = tuple(f.name for f in fields(Budget) if f.init)
        self._rows: list[tuple[Any, ...]] = []

    def append(self, budget: Budget) -> None:
        """Keep one budget."""
        self._rows.append(tuple(getattr(budget, name) for name in self._names))

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Budget: ...
    @overload
    def __getitem__(self, i: slice) -> list[Budget]: ...
    def __getitem__(self, i: int | slice) -> Budget | list[Budget]:
        if isinstance(i, slice):
            return [Budget(**dict(zip(self._names, row, strict=True))) for row in self._rows[i]]
        return Budget(**dict(zip(self._names, self._rows[i], strict=True)))

    def __iter__(self) -> Iterator[Budget]:
        for row in self._rows:
            yield Budget(**dict(zip(self._names, row, strict=True)))


@app.command("budget")
def budget_cmd(
    input: Path = typer.Argument(
        ..., help="Subtitles (.srt, .vtt) or slide text (.txt, .md); '-': standard input."
    ),
    lang: str = typer.Option("it", "--lang", help=LANG_HELP),
    ratio: float | None = typer.Option(1.0, "--ratio", help="Budget = ratio × source characters."),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language)."
    ),
    lines: int | None = typer.Option(None, "--lines", help="Lines per cue (default per language)."),
    cps: float | None = typer.Option(None, "--cps", help="Reading speed, characters per second."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    fmt: str | None = typer.Option(None, "--format", help=FORMAT_HELP),
    encoding_in: str | None = typer.Option(None, "--encoding", help=ENCODING_HELP),
) -> None:
    """Pre-flight check: per segment the source length, every limit and the binding one.

    Example: fitsub budget samples/talk.srt --lang it --ratio 1.0
    """
    opts = _options(lang, ratio, cpl, lines, cps)
    doc = load_input(input, fmt, encoding_in)
    # Planned TABLE_ROWS segments at a time and printed as it goes: memory holds the document and
    # one Budget per segment, not every segment's plan, table row and JSON text at once.
    budgets = CompactBudgets()
    small: list[str] = []
    short: list[str] = []
    console = Console()
    write = sys.stdout.write
    if as_json:
        head = {"input": str(input), "lang": lang, "ratio": ratio, "limits": opts.limits.__dict__}
        write(json.dumps(head, ensure_ascii=False, indent=2)[:-2] + ',\n  "segments": [')
    segments: list[Segment | None] = list(doc.segments)
    doc = replace(doc, segments=(), gaps=())  # each part's segments are let go once planned
    for at in range(0, len(segments), TABLE_ROWS):
        chunk = tuple(s for s in segments[at : at + TABLE_ROWS] if s is not None)
        segments[at : at + TABLE_ROWS] = [None] * len(chunk)
        planned = [replace(p, index=at + p.index) for p in plan(replace(doc, segments=chunk), opts)]
        del chunk
        for p in planned:
            if p.budget is None:
                continue
            budgets.append(p.budget)
            if p.budget.too_small:
                small.append(str(p.id or p.index + 1))
            if p.budget.too_short:
                short.append(str(p.id or p.index + 1))
        if as_json:
            for p in planned:
                row = {
                    "index": p.index,
                    "id": p.id,
                    "text": p.protected.plain if p.protected else None,
                    "budget": p.budget.to_dict() if p.budget else None,
                }
                shown = json.dumps(row, ensure_ascii=False, indent=2).replace("\n", "\n    ")
                write(("," if p.index else "") + "\n    " + shown)
        else:
            rows = [
                (p.index, p.id, p.protected.plain if p.protected else "", p.budget) for p in planned
            ]
            console.print(budget_table(rows))
    summary = summarize_budgets(budgets)
    if as_json:
        summary_json = json.dumps(summary.to_dict(), ensure_ascii=False, indent=2)
        write('\n  ],\n  "summary": ' + summary_json.replace("\n", "\n  ") + "\n}\n")
        return
    console.print(budget_summary_table(summary))
    if small:
        console.print(
            Text.assemble(
                ("TOO SMALL", "red"), f" for any translation: segment(s) {', '.join(small)}"
            )
        )
    if short:
        console.print(
            Text.assemble(
                ("TOO SHORT", "red"), f" on screen to be read: segment(s) {', '.join(short)}"
            )
        )
