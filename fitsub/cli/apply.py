"""`fitsub apply`: write a reviewer's edits into the translated file and check every edited line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import typer

from fitsub.budget import LANGUAGE_LIMITS, Limits, limits_for
from fitsub.cli.console import printable, say
from fitsub.cli.documents import load_input
from fitsub.cli.options import STRICT_EXIT, Cps, Lines, Quiet
from fitsub.errors import InputError
from fitsub.formats import document_bytes
from fitsub.io.atomic import atomic_write_bytes
from fitsub.io.outputs import check_output_path
from fitsub.quality.dictionary import load_dictionary
from fitsub.quality.registry import RECHECKED
from fitsub.review.apply import Applied, apply_edits
from fitsub.review.edits import EditSet, match_edits, read_edits

EPILOG = (
    "The edits file is the review page's export (--review review.html, 'Export edits') or the "
    "review TSV with its 'fitted' column edited. Edits made for another file (another source, "
    "another segment count, unknown ids, a line re-translated since the review) are refused "
    "with exit 2 and nothing is written."
)


def apply_cmd(
    edits_path: Path = typer.Argument(
        ..., metavar="EDITS", help="Edits: the review page's JSON export, or a review TSV."
    ),
    translated: Path = typer.Argument(
        ..., metavar="TRANSLATED", help="The translated subtitle or slide file the review is of."
    ),
    source: Path | None = typer.Option(
        None, "--source", help="The source file: also check the edits were made from it."
    ),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="Write here instead of replacing TRANSLATED (atomically)."
    ),
    lang: str | None = typer.Option(
        None,
        "--lang",
        help="Language of the limits when the edits carry none (a TSV): default the one in "
        "TRANSLATED's name (talk.it.srt), else it.",
    ),
    cpl: int | None = typer.Option(
        None, "--cpl", min=1, help="Characters per line (default: the review's, or the language's)."
    ),
    lines: Lines = None,
    cps: Cps = None,
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Exit 3 when an edited line still breaks a limit or a word check flags it.",
        metavar="",
    ),
    quiet: Quiet = False,
) -> None:
    """Write reviewed edits into the translated file (markup, timings, layout kept); re-check.

    Only the edited segments change; each is laid out in its slot (the reviewer's line breaks
    when they fit, else re-flowed) and checked against its budget, the characters per line and
    the reading speed; with --source, also for the flags that need no model (untranslated,
    number-changed, meaning-reversed). What still breaks a limit or is flagged is listed (written
    anyway; --strict: exit 3).

    Example: fitsub apply talk.it.edits.json talk.it.srt --source talk.srt
    """
    out = translated if output is None else output
    check_output_path(out, "-o", [edits_path] + ([source] if source is not None else []))
    edits = read_edits(edits_path)
    doc = load_input(translated)
    src_doc = None if source is None else load_input(source)
    changed = match_edits(edits, doc, src_doc, source)
    limits = _limits(edits=edits, translated=translated, lang=lang, cpl=cpl, lines=lines, cps=cps)
    chosen = lang or edits.lang or _lang_from_name(translated) or "it"
    if not changed:
        if output is not None and not _same_path(out, translated):
            data, encoding = document_bytes(doc, out)  # -o NEW: NEW is written all the same
            atomic_write_bytes(out, data)
            if not quiet:
                say(
                    f"no line to change: {printable(translated)} already holds every edit; "
                    f"wrote it unchanged to {printable(out)} ({encoding})"
                )
            return
        if not quiet:
            say(f"no line to change: {printable(translated)} already holds every edit")
        return
    dictionary = load_dictionary(chosen) if src_doc is not None else None
    applied = apply_edits(
        doc,
        changed,
        limits if doc.timed else None,
        lang=chosen,
        source=src_doc,
        dictionary=dictionary,
    )
    data, encoding = document_bytes(applied.document, out)
    atomic_write_bytes(out, data)
    _report(applied, out, encoding, len(edits.edits), quiet)
    if src_doc is None and not quiet:
        say(f"word checks ({', '.join(RECHECKED)}) need --source: not run")
    if strict and (applied.broken or applied.flagged):
        raise typer.Exit(STRICT_EXIT)


def _same_path(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and a.samefile(b))
    except OSError:
        return False


def _lang_from_name(path: Path) -> str | None:
    """`talk.it.srt` → `it` (a language fitsub has limits for), else None."""
    parts = path.name.lower().split(".")
    return next((p for p in reversed(parts[1:-1]) if p in LANGUAGE_LIMITS), None)


def _limits(
    edits: EditSet,
    translated: Path,
    lang: str | None,
    cpl: int | None,
    lines: int | None,
    cps: float | None,
) -> Limits:
    """The review's limits (a TSV has none: the language's), with the flags given replacing."""
    base = edits.limits
    if base is None or lang is not None:
        code = lang or edits.lang or _lang_from_name(translated) or "it"
        try:
            base = limits_for(code)
        except ValueError as err:
            raise InputError(None, str(err), setting="lang") from None
    if cps is not None and cps <= 0:
        raise InputError(None, f"must be positive, got {cps}", setting="cps")
    if lines is not None and lines < 1:
        raise InputError(None, f"must be at least 1, got {lines}", setting="lines")
    return replace(
        base,
        cpl=base.cpl if cpl is None else cpl,
        lines=base.lines if lines is None else lines,
        cps=base.cps if cps is None else cps,
    )


def _report(applied: Applied, out: Path, encoding: str, given: int, quiet: bool) -> None:
    """One line for what was written, one per edited line that still breaks a limit."""
    n = len(applied.checked)
    if not quiet:
        same = given - n
        tail = f"; {same} already in the file" if same else ""
        say(f"applied {n} edit(s) to {printable(out)} ({encoding}){tail}")
    for c in applied.broken:
        say(
            f"segment {printable(c.id or c.index + 1)}: still breaks a limit: {'; '.join(c.problems)}"
        )
    for c in applied.flagged:
        flags = "; ".join(f"{f.name}: {f.detail}" for f in c.flags)
        say(f"segment {printable(c.id or c.index + 1)}: flagged: {flags}")
    if not quiet:
        ok = n - len(applied.broken)
        say(f"{ok} of {n} edited line(s) within every limit")
