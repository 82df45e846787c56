"""`fitsub translate` and `fitsub budget`: parse options, read, plan or translate, write, report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console

from fitsub.budget import limits_for
from fitsub.budget import summarize as summarize_budgets
from fitsub.cli import app, progress_bar
from fitsub.errors import InputError
from fitsub.pipeline import TranslateOptions, plan, summarize, translate_document
from fitsub.report import (
    budget_summary_table,
    budget_table,
    comparison_table,
    summary_table,
    write_report,
)
from fitsub.segments import read_document, write_document

LANG_HELP = "Target language (sets the CPL / lines / CPS defaults): it, de, fr, es, en."


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
    input: Path = typer.Argument(..., help="Subtitles (.srt, .vtt) or slide text (.txt, .md)."),
    output: Path | None = typer.Option(
        None,
        "-o",
        "--output",
        help="Output file (default: the input name with the language added).",
    ),
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
        None, "--model", help="Model directory (default: shipped model)."
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
    report: Path | None = typer.Option(None, "--report", help="Write the comparison as JSON here."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing but errors."),
) -> None:
    """Translate subtitles or slides so that each segment fits its budget, and compare.

    Example: fitsub translate samples/talk.srt --lang it --ratio 1.0
    """
    from fitsub.nmt.backend import NMTBackend, resolve_model_dir

    if device not in ("auto", "cpu", "cuda"):
        raise InputError(None, f"--device must be auto, cpu or cuda, got {device!r}")
    opts = _options(lang, ratio, cpl, lines, cps, per_cue, compare, min_ratio)
    doc = read_document(input)
    out = output if output is not None else default_output(input, lang, src_lang)
    if out.resolve() == input.resolve():
        raise InputError(input, "output would overwrite the input; choose another -o")
    if not out.parent.exists():
        raise InputError(out, "output directory does not exist")
    backend = NMTBackend(
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
    encoding = write_document(result.document, out)
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
        }
        write_report(report, result.segments, summary, meta)
    if not quiet:
        stdout = Console()
        if compare:
            stdout.print(comparison_table(result.segments, title=f"{input} → {out}"))
        stdout.print(summary_table(summary))
        stdout.print(f"wrote {out} ({encoding}, {len(doc.segments)} segments)")
        for warning in (*doc.warnings, *result.warnings):
            console.print(f"[yellow]warning:[/] {input}: {warning}")


@app.command("budget")
def budget_cmd(
    input: Path = typer.Argument(..., help="Subtitles (.srt, .vtt) or slide text (.txt, .md)."),
    lang: str = typer.Option("it", "--lang", help=LANG_HELP),
    ratio: float | None = typer.Option(1.0, "--ratio", help="Budget = ratio × source characters."),
    cpl: int | None = typer.Option(
        None, "--cpl", help="Characters per line (default per language)."
    ),
    lines: int | None = typer.Option(None, "--lines", help="Lines per cue (default per language)."),
    cps: float | None = typer.Option(None, "--cps", help="Reading speed, characters per second."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Pre-flight check: per segment the source length, every limit and the binding one.

    Example: fitsub budget samples/talk.srt --lang it --ratio 1.0
    """
    opts = _options(lang, ratio, cpl, lines, cps)
    doc = read_document(input)
    planned = plan(doc, opts)
    budgets = [p.budget for p in planned if p.budget is not None]
    summary = summarize_budgets(budgets)
    if as_json:
        rows = [
            {
                "index": p.index,
                "id": p.id,
                "text": p.protected.plain if p.protected else None,
                "budget": p.budget.to_dict() if p.budget else None,
            }
            for p in planned
        ]
        payload = {
            "input": str(input),
            "lang": lang,
            "ratio": ratio,
            "limits": opts.limits.__dict__,
            "segments": rows,
            "summary": summary.to_dict(),
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return
    console = Console()
    console.print(
        budget_table(
            [(p.index, p.id, p.protected.plain if p.protected else "", p.budget) for p in planned]
        )
    )
    console.print(budget_summary_table(summary))
    small = [
        str(p.id or p.index + 1) for p in planned if p.budget is not None and p.budget.too_small
    ]
    if small:
        console.print(f"[red]TOO SMALL[/] for any translation: segment(s) {', '.join(small)}")
