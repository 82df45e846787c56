"""`fitsub budget`: per segment the source length, every limit and the binding one."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Annotated, Any, overload

import typer
from rich.console import Console
from rich.text import Text

from fitsub.budget import (
    Budget,
    SpeechUnit,
    resolve_settings,
    summarize_budgets,
    tight_gaps,
    with_speech,
)
from fitsub.cli.documents import load_input
from fitsub.cli.limits import pick_profile, settings, translate_options
from fitsub.cli.models import pick_language
from fitsub.cli.options import (
    BudgetUnit,
    Cps,
    Encoding,
    InputFormat,
    Isochrony,
    Lang,
    Lines,
    Profile,
    SpeechRate,
)
from fitsub.cli.report import budget_summary_table, budget_table
from fitsub.document import Document, Segment
from fitsub.pipeline import PlannedSegment, TranslateOptions, plan

TABLE_ROWS = 1000  # `fitsub budget` prints its table in parts of this many rows


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


def budget_cmd(
    input: Path = typer.Argument(
        ...,
        help="Subtitles (.srt .vtt .ass .ssa) or slides (.txt .md .pptx); '-': standard input.",
    ),
    lang: Lang = None,
    profile: Profile = None,
    ratio: float | None = typer.Option(
        None,
        "--ratio",
        help="Isometric mode: budget = ratio × source characters (default: slot mode for "
        "subtitles, ratio 1.0 for slides without a box).",
    ),
    cpl: Annotated[
        int | None, typer.Option("--cpl", help="Characters per line (default per language).")
    ] = None,
    lines: Lines = None,
    cps: Cps = None,
    unit: BudgetUnit = None,
    isochrony: Isochrony = "source",
    speech_rate: SpeechRate = None,
    as_json: bool = typer.Option(
        False, "--json", help="Print JSON instead of a table.", metavar=""
    ),
    fmt: InputFormat = None,
    encoding_in: Encoding = None,
) -> None:
    """Pre-flight check: per segment the source length, every limit and the binding one.

    Under a dubbing budget (--unit seconds|syllables, or --profile dubbing) each segment's
    speaking window too.

    Example: fitsub budget samples/talk.srt --lang it --ratio 1.0
    """
    config = settings()
    lang = pick_language(config.get("lang", lang), None, "en", translating=False)
    chosen = pick_profile(config, profile)
    asked = resolve_settings(
        lang,
        ratio=ratio,
        cpl=cpl,
        lines=lines,
        cps=cps,
        profile=chosen,
        default_ratio=config.get("ratio"),
    )
    asked = with_speech(
        asked,
        unit=unit,
        profile=chosen,
        src_lang="en",
        isochrony=isochrony,
        speech_rate=speech_rate,
        ratio_given=ratio is not None,
    )
    opts = translate_options(asked)
    doc = load_input(input, fmt, encoding_in)
    gaps = _tight_gaps(doc, opts)
    head = {
        "input": str(input),
        "lang": lang,
        "profile": None if chosen is None else chosen.name,
        "mode": opts.mode,
        "unit": "char" if opts.speech is None else opts.speech.unit,
        "ratio": opts.ratio,
        "limits": opts.limits.__dict__,
    }
    table = _BudgetTable(as_json, head, None if opts.speech is None else opts.speech.unit)
    parts = _plan_in_parts(doc, opts)
    del doc  # the parts let each segment go once it is planned
    for planned in parts:
        table.add(planned)
    table.finish(gaps, opts.limits.min_gap_ms)


def _tight_gaps(doc: Document, opts: TranslateOptions) -> list[str]:
    """Ids of the cues that start under the profile's minimum gap after the previous one."""
    if not (doc.timed and opts.limits.min_gap_ms):
        return []
    times = [(s.start_ms, s.end_ms) for s in doc.segments]
    return [str(doc.segments[i].id or i + 1) for i in tight_gaps(times, opts.limits.min_gap_ms)]


def _plan_in_parts(doc: Document, opts: TranslateOptions) -> Iterator[list[PlannedSegment]]:
    """The plan, TABLE_ROWS segments at a time: memory holds the document and one Budget per
    segment, not every segment's plan, table row and JSON text at once."""
    segments: list[Segment | None] = list(doc.segments)
    doc = replace(doc, segments=(), gaps=())  # each part's segments are let go once planned
    for at in range(0, len(segments), TABLE_ROWS):
        chunk = tuple(s for s in segments[at : at + TABLE_ROWS] if s is not None)
        segments[at : at + TABLE_ROWS] = [None] * len(chunk)
        yield [replace(p, index=at + p.index) for p in plan(replace(doc, segments=chunk), opts)]


class _BudgetTable:
    """Prints the plan part by part (a rich table or JSON) and the summary at the end."""

    def __init__(self, as_json: bool, head: dict[str, Any], unit: SpeechUnit | None) -> None:
        self.as_json = as_json
        self.unit = unit  # a dubbing budget's: each segment's speaking window shown in it
        self.budgets = CompactBudgets()
        self.small: list[str] = []
        self.short: list[str] = []
        self.console = Console()
        if as_json:
            text = json.dumps(head, ensure_ascii=False, indent=2)
            sys.stdout.write(text[:-2] + ',\n  "segments": [')

    def add(self, planned: list[PlannedSegment]) -> None:
        """One part of the plan: counted, then printed."""
        for p in planned:
            if p.budget is None:
                continue
            self.budgets.append(p.budget)
            if p.budget.too_small:
                self.small.append(str(p.id or p.index + 1))
            if p.budget.too_short:
                self.short.append(str(p.id or p.index + 1))
        if not self.as_json:
            rows = [
                (p.index, p.id, p.protected.plain if p.protected else "", p.budget, p.window)
                for p in planned
            ]
            self.console.print(budget_table(rows, self.unit))
            return
        for p in planned:
            row = {
                "index": p.index,
                "id": p.id,
                "text": p.protected.plain if p.protected else None,
                "budget": p.budget.to_dict() if p.budget else None,
            }
            if p.window is not None:
                row["window"] = p.window.to_dict()
            shown = json.dumps(row, ensure_ascii=False, indent=2).replace("\n", "\n    ")
            sys.stdout.write(("," if p.index else "") + "\n    " + shown)

    def finish(self, gaps: list[str], min_gap_ms: int) -> None:
        """The summary, and the segments no translation can fit or no viewer can read."""
        summary = summarize_budgets(self.budgets)
        if self.as_json:
            summary_json = json.dumps(
                {**summary.to_dict(), "tight_gaps": gaps}, ensure_ascii=False, indent=2
            )
            sys.stdout.write('\n  ],\n  "summary": ' + summary_json.replace("\n", "\n  ") + "\n}\n")
            return
        say = self.console.print
        say(budget_summary_table(summary))
        if self.small:
            small = ", ".join(self.small)
            say(Text.assemble(("TOO SMALL", "red"), f" for any translation: segment(s) {small}"))
        if self.short:
            short = ", ".join(self.short)
            say(Text.assemble(("TOO SHORT", "red"), f" on screen to be read: segment(s) {short}"))
        if gaps:
            say(
                Text.assemble(
                    ("GAP", "red"),
                    f" under {min_gap_ms} ms before segment(s) {', '.join(gaps)} "
                    "(timings are never changed)",
                )
            )
