"""`fitsub translate`'s per-segment table in a terminal: the columns that fit its width.

Every row shows its id, whether the fitted text fits, its flags and the fitted text (wrapped in
its column); a wider terminal adds the quality, the lengths, the budget, the length asked, the
binding limit, the source's length and the index, in that order, while they fit (`OPTIONAL`);
`--wide` shows every column. Numbers never wrap. The same rows as TSV and JSON are
`fitsub.cli.report`'s (every column, whatever the width).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from fitsub.budget import SpeechUnit
from fitsub.pipeline import SegmentResult
from fitsub.quality.registry import LOW_QUALITY


def _mark(ok: bool | None) -> Text:
    return Text("") if ok is None else (Text("yes", "green") if ok else Text("no", "red"))


def _asked(r: SegmentResult) -> Text:
    """The length asked of the model and where it came from: `38 pred`, `40 budget`."""
    q = r.requested
    if q is None:
        return Text("")
    short = {"budget": "budget", "predicted": "pred", "oracle": "oracle"}.get(q.source, q.source)
    return Text(f"{q.chars} {short}", style="dim" if q.source == "budget" else "")


def _quality(r: SegmentResult) -> Text:
    """The estimated quality (`fitsub.quality.score`), red when flagged low-quality."""
    if r.quality is None:
        return Text("")
    low = any(f.name == LOW_QUALITY for f in r.flags)
    return Text(f"{r.quality:.2f}", style="red" if low else "")


def _notes(r: SegmentResult) -> list[tuple[str, str]]:
    """What the budget and the markup say of a segment beyond its flags: (note, style)."""
    b = r.budget
    notes = [
        ("budget too small", "yellow", b is not None and b.too_small),
        ("TOO SHORT", "red", b is not None and b.too_short),
        ("markup dropped", "yellow", bool(r.markup_lost)),
        ("markup around the line", "yellow", bool(r.markup_moved)),
        ("glossary term lost", "red", bool(r.terms_lost)),
    ]
    return [(note, style) for note, style, on in notes if on]


def _limit(r: SegmentResult) -> Text:
    """The binding limit (under a dubbing budget, the speaking window), then the notes
    (`_notes`)."""
    binding = r.budget.binding if r.budget is not None else ""
    text = Text("speaking window" if r.window is not None else binding)
    for note, style in _notes(r):
        text.append(f" ({note})" if style == "yellow" else f" {note}", style=style)
    return text


def _flags(r: SegmentResult, notes: bool) -> Text:
    """The quality flags, comma-separated; with `notes`, the limit column's notes after them
    (shown here when that column is not)."""
    text = Text(", ".join(f.name for f in r.flags), style="yellow")
    for note, style in _notes(r) if notes else []:
        text.append(", " if text.plain else "")
        text.append(note, style=style)
    return text


def _count(n: int | None) -> Text:
    return Text("" if n is None else str(n))


@dataclass(frozen=True)
class Column:
    """One column of the per-segment table: its header, alignment and cell."""

    header: str
    justify: JustifyMethod
    cell: Callable[[SegmentResult], Text]
    wraps: bool = False  # folds to the width left; every other column keeps its cells whole


# left to right, as shown; the keys name them for `ESSENTIAL` and `OPTIONAL`
COLUMNS: dict[str, Column] = {
    "#": Column("#", "right", lambda r: Text(str(r.index + 1))),
    "id": Column("id", "left", lambda r: Text(r.id or "")),
    "src": Column(
        "src", "right", lambda r: _count(None if r.budget is None else r.budget.source_chars)
    ),
    "budget": Column(
        "budget", "right", lambda r: _count(None if r.budget is None else r.budget.chars)
    ),
    "asked": Column("asked", "right", _asked),
    "limit": Column("limit", "left", _limit, wraps=True),
    "unconstr.": Column("unconstr.", "right", lambda r: _count(r.unconstrained_chars)),
    "unconstr. fits": Column("fits", "center", lambda r: _mark(r.unconstrained_fits)),
    "fitted": Column("fitted", "right", lambda r: _count(r.fitted_chars)),
    "fits": Column("fits", "center", lambda r: _mark(r.fits)),
    "quality": Column("quality", "right", _quality),
    "flags": Column("flags", "left", lambda r: _flags(r, notes=False), wraps=True),
    "fitted text": Column("fitted text", "left", lambda r: Text(r.fitted), wraps=True),
}


def _window_cell(r: SegmentResult, unit: SpeechUnit) -> Text:
    """A dubbing budget's window in its unit: `1.6-1.8 s` (the lower end 10 % shorter) or
    `9-10 syl`; a segment without a window shows its characters."""
    if r.window is None:
        return _count(None if r.budget is None else r.budget.chars)
    return Text(r.window.describe(unit))


def _spoken_cell(r: SegmentResult, unit: SpeechUnit) -> Text:
    """The fitted line's length in the window's unit: its syllables, or its estimated speaking
    time at the window's rate (syllables ÷ rate, what the window holds it to)."""
    w = r.window
    if w is None or r.syllables is None:
        return _count(r.fitted_chars)
    if unit == "syllables":
        return Text(f"{r.syllables} syl")
    rate = w.target_syllables / w.seconds if w.seconds > 0 else 0.0
    return Text(f"{r.syllables / rate:.1f} s" if rate > 0 else "")


def speech_columns(unit: SpeechUnit) -> dict[str, Column]:
    """`COLUMNS` under a dubbing budget: the budget and the fitted length in the window's unit
    (seconds or syllables); the lengths still counted in characters say so."""
    return {
        **COLUMNS,
        "budget": Column("budget", "right", lambda r: _window_cell(r, unit)),
        "fitted": Column("fitted", "right", lambda r: _spoken_cell(r, unit)),
        "unconstr.": replace(COLUMNS["unconstr."], header="unconstr. chars"),
        "asked": replace(COLUMNS["asked"], header="asked chars"),
        "src": replace(COLUMNS["src"], header="src chars"),
    }


# shown at any width: the segment, whether it fits, its flags and its text ("#" stands for "id"
# when some segment has none)
ESSENTIAL = ("id", "fits", "flags", "fitted text")
# added in this order while the table still fits the width, the fitted text keeping `TEXT_ROOM`
OPTIONAL = (
    "quality", "fitted", "budget", "unconstr.", "unconstr. fits", "asked", "limit", "src", "#",
)  # fmt: skip
TEXT_ROOM = 36  # characters of fitted text kept on one line before a column is added
BORDER = 3  # what each column adds to the table's width (a rule and a space either side)


def table_columns(
    results: Sequence[SegmentResult], width: int | None, columns: Mapping[str, Column] = COLUMNS
) -> list[str]:
    """The keys of the columns shown in `width` terminal columns (every one when None), left
    to right: `ESSENTIAL`, then `OPTIONAL` in order while the table stays within `width` with
    `TEXT_ROOM` for the fitted text (or its longest line, when shorter); a column empty in
    every row is left out."""
    rows = [r for r in results if r.budget is not None]
    key = "id" if rows and all(r.id for r in rows) else "#"
    essential = [key if k == "id" else k for k in ESSENTIAL]
    optional = [k for k in OPTIONAL if k not in essential] + (["id"] if key == "#" else [])
    if width is None:
        chosen = set(essential + optional)
    else:

        def room(k: str) -> int:
            need = max(
                [cell_len(columns[k].header)] + [_cell_width(columns[k].cell(r)) for r in rows]
            )
            return BORDER + (min(need, TEXT_ROOM) if k == "fitted text" else need)

        used = 1 + sum(room(k) for k in essential)
        chosen = set(essential)
        for k in optional:
            if not any(columns[k].cell(r).plain for r in rows):
                continue  # nothing to show (no quality score, no length asked)
            used += room(k)
            if used > width:
                break
            chosen.add(k)
    return [k for k in columns if k in chosen]


def _cell_width(text: Text) -> int:
    return max((cell_len(line) for line in text.plain.splitlines()), default=0)


def comparison_table(
    results: Sequence[SegmentResult],
    title: str = "fitsub",
    width: int | None = None,
    unit: SpeechUnit | None = None,
) -> Table:
    """Per segment: budget, binding limit, unconstrained length, fitted length, fits or not,
    quality, flags and the fitted text; in `width` terminal columns, the columns that fit
    (`table_columns`; every one when None). Under a dubbing budget (`unit`), the budget and the
    fitted length are in seconds or syllables (`speech_columns`)."""
    # User text (paths, ids, cue text such as "[/x]") goes in as `Text`, never through rich's
    # markup parser: a "[" in a file could otherwise restyle the table or make rich raise.
    columns = COLUMNS if unit is None else speech_columns(unit)
    keys = table_columns(results, width, columns)
    table = Table(title=Text(title, style="table.title"), show_lines=False)
    for k in keys:
        col = columns[k]
        # numbers stay on one line; the texts take the width that is left
        table.add_column(col.header, justify=col.justify, no_wrap=not col.wraps, overflow="fold")
    notes = "limit" not in keys  # the limit column's notes then follow the flags
    for r in results:
        if r.budget is None:
            continue
        cells = [columns[k].cell(r) for k in keys]
        if notes:
            cells[keys.index("flags")] = _flags(r, notes=True)
        table.add_row(*cells)
    return table


def print_comparison(
    console: Console,
    results: Sequence[SegmentResult],
    title: str,
    wide: bool,
    unit: SpeechUnit | None = None,
) -> None:
    """The table on `console`, in its width; `wide`: every column, as wide as they need (the
    lines may then be wider than the terminal: a wide one, or `less -S`); `unit`: a dubbing
    budget's (seconds or syllables)."""
    width = None if wide else console.width
    table = comparison_table(results, title=title, width=width, unit=unit)
    if wide:
        needed = console.measure(table, options=console.options.update_width(1 << 16)).maximum
        console = Console(file=console.file, width=max(console.width, needed))
    console.print(table)
