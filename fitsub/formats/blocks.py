"""What the text format modules share: parse results, blank-line blocks, gaps and cue checks.

One module per format (`srt`, `vtt`, `slides`...) parses a string (``\\n`` line endings, no BOM)
into segments plus the verbatim text between them (`Parsed.gaps`), and renders one segment back.
`fitsub.formats` chooses the module with a plain dict; timestamps are `fitsub.formats.timing`'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fitsub.document import (
    MAX_SEGMENT_CHARS,
    MAX_SEGMENT_CHARS_CEILING,
    MAX_SEGMENT_CHARS_ENV,
    Format,
    Segment,
)
from fitsub.errors import InputError
from fitsub.formats.timing import format_ms
from fitsub.markup import visible_text
from fitsub.units import char_length

MAX_LISTED_WARNINGS = 10


@dataclass
class Parsed:
    """A format module's parse result: segments, the raw text around them, warnings."""

    segments: list[Segment]
    gaps: list[str]
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Block:
    """Consecutive non-blank lines: 1-based first line number, the lines, character offsets."""

    line: int
    lines: list[str]
    start: int
    end: int  # offset just past the last character of the last line (before its newline)


def iter_lines(text: str) -> Iterator[str]:
    """The lines of `text` split at ``\\n``, one at a time (no list of every line in memory)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def iter_blocks(
    text: str,
    is_blank: Callable[[str], bool],
    starts_block: Callable[[list[str], str], bool],
    blank_lines: Collection[int] = (),
) -> Iterator[Block]:
    """Blocks of `text` split at blank lines, or before a line for which `starts_block` holds.

    `blank_lines`: 1-based numbers of further lines read as blank lines. Each block is yielded
    when complete, so a parser can turn it into a segment and let it go (memory stays linear
    in the segments kept, not in every line of the file).
    """
    current: Block | None = None
    offset = 0
    for number, line in enumerate(iter_lines(text), start=1):
        if is_blank(line) or number in blank_lines:
            if current is not None:
                yield current
            current = None
        else:
            if current is not None and starts_block(current.lines, line):
                yield current
                current = None
            if current is None:
                current = Block(number, [], offset, offset)
            current.lines.append(line)
            current.end = offset + len(line)
        offset += len(line) + 1
    if current is not None:
        yield current


def split_blocks(
    text: str,
    is_blank: Callable[[str], bool],
    starts_block: Callable[[list[str], str], bool],
    blank_lines: Collection[int] = (),
) -> list[Block]:
    """Every block of `iter_blocks` as a list."""
    return list(iter_blocks(text, is_blank, starts_block, blank_lines))


_SPACE_LINE = re.compile(r"^[^\S\n]+$", re.MULTILINE)


def has_space_lines(text: str) -> bool:
    """Whether some line of `text` is not empty but holds only whitespace."""
    return _SPACE_LINE.search(text) is not None


class GapCollector:
    """The raw text before each block and after the last one, collected as blocks go by."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.gaps: list[str] = []
        self.previous = 0
        self._shared: dict[str, str] = {}

    def add(self, block: Block) -> None:
        """Record the gap before `block`."""
        gap = self.text[self.previous : block.start]
        # most gaps are "\n\n": one string object, not one per cue
        self.gaps.append(self._shared.setdefault(gap, gap) if len(gap) < 8 else gap)
        self.previous = block.end

    def finish(self) -> list[str]:
        """Every gap, with the text after the last block."""
        return [*self.gaps, self.text[self.previous :]]


def spaces_only(line: str) -> bool:
    """A line that is not empty but holds only whitespace."""
    return line != "" and not line.strip()


def blank_space_lines(lines: list[str], opens_block: Callable[[list[str], int], bool]) -> set[int]:
    """1-based numbers of whitespace-only lines to read as empty lines.

    Such a line counts as empty where it starts or ends a block (an empty line or the file's
    end before or after it, other whitespace-only lines aside) or stands just before a line for
    which `opens_block(lines, i)` holds (a cue); elsewhere, between two lines of a cue's text,
    it stays text. Either way nothing is lost: the line is written back as it was.
    """
    blank: set[int] = set()
    after = 0  # the first line after a run of whitespace-only lines (found once per run)
    for i, line in enumerate(lines):
        if i == 0 or not spaces_only(line):
            continue
        before_blank = lines[i - 1] == "" or i in blank  # i is line i-1's 1-based number
        if after <= i:
            after = i + 1
            while after < len(lines) and spaces_only(lines[after]):
                after += 1
        after_blank = after >= len(lines) or lines[after] == ""
        if before_blank or after_blank or opens_block(lines, after):
            blank.add(i + 1)
    return blank


def gaps_around(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The raw text before each (start, end) span and after the last one."""
    gaps: list[str] = []
    shared: dict[str, str] = {}  # most gaps are "\n\n": one string object, not one per cue
    previous = 0
    for start, end in spans:
        gap = text[previous:start]
        gaps.append(shared.setdefault(gap, gap) if len(gap) < 8 else gap)
        previous = end
    gaps.append(text[previous:])
    return gaps


# Cue numbers longer than this are ids, not numbers (no `int()` on thousands of digits).
MAX_NUMBER_DIGITS = 18


def quoted(text: str, limit: int = 60) -> str:
    """`text` stripped and quoted for an error message, cut to `limit` characters."""
    text = text.strip()
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text):,} chars)"


def is_number(text: str) -> bool:
    """Whether `text` is a cue number: ASCII digits only (not "¹²", "①" or "١"), not too long."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_NUMBER_DIGITS


def check_cues(segments: Sequence[Segment], fmt: Format, path: Path | None) -> list[str]:
    """Reject cues that end before they start or are too long (untranslated ones, an ASS
    drawing or comment, count towards no limit); warn on order, overlap, ids."""
    warnings: list[str] = []
    previous: Segment | None = None
    for seg in segments:
        if seg.translatable:
            check_length(seg, fmt, path)
        assert seg.start_ms is not None and seg.end_ms is not None
        where = f"line {seg.line}" if seg.line is not None else f"cue {seg.index + 1}"
        if seg.end_ms < seg.start_ms:
            raise InputError(
                path,
                f"cue ends before it starts ({format_ms(seg.end_ms, '.')} < "
                f"{format_ms(seg.start_ms, '.')})",
                seg.line,
            )
        if seg.end_ms == seg.start_ms:
            warnings.append(f"{where}: cue has zero duration")
        if previous is not None:
            assert previous.start_ms is not None and previous.end_ms is not None
            if seg.start_ms < previous.start_ms:
                warnings.append(f"{where}: cue starts before the cue above it (kept in file order)")
            elif seg.start_ms < previous.end_ms:
                warnings.append(
                    f"{where}: cue overlaps the cue above it by "
                    f"{previous.end_ms - seg.start_ms} ms (timings kept)"
                )
        previous = seg
    return warnings


def max_segment_chars() -> int:
    """The longest segment accepted, in visible characters: `MAX_SEGMENT_CHARS`, or the value
    of the environment variable `MAX_SEGMENT_CHARS_ENV` (a whole number up to
    `MAX_SEGMENT_CHARS_CEILING`: a file whose "cue" is a whole document is still refused)."""
    raw = os.environ.get(MAX_SEGMENT_CHARS_ENV, "").strip()
    if not raw:
        return MAX_SEGMENT_CHARS
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 7) or not (
        1 <= int(raw) <= MAX_SEGMENT_CHARS_CEILING
    ):
        raise InputError(
            None,
            f"{MAX_SEGMENT_CHARS_ENV} must be a whole number from 1 to "
            f"{MAX_SEGMENT_CHARS_CEILING:,}, got {quoted(raw, 20)}",
        )
    return int(raw)


def check_length(seg: Segment, fmt: Format, path: Path | None) -> None:
    """`InputError` when a segment has more than `max_segment_chars()` visible characters."""
    n = char_length(visible_text(seg.text, fmt))
    limit = max_segment_chars()
    if n > limit:
        kind = "line" if fmt == "slides" else "cue"
        allow = (
            f" (allow longer ones with {MAX_SEGMENT_CHARS_ENV}={min(-(-n // 1000) * 1000, MAX_SEGMENT_CHARS_CEILING)})"
            if n <= MAX_SEGMENT_CHARS_CEILING
            else f" (at most {MAX_SEGMENT_CHARS_CEILING:,} with {MAX_SEGMENT_CHARS_ENV})"
        )
        raise InputError(
            path, f"{kind} has {n:,} characters; the limit is {limit:,}{allow}", seg.line
        )


def numbering_warnings(segments: Sequence[Segment]) -> list[str]:
    """Warn where numeric cue ids are missing, not numbers, or not one more than the previous."""
    warnings: list[str] = []
    previous: int | None = None
    for seg in segments:
        where = f"line {seg.line}"
        if seg.id is None:
            warnings.append(f"{where}: cue has no number (written back without one)")
            continue
        if not is_number(seg.id):
            warnings.append(f"{where}: cue number {seg.id!r} is not a number (kept as written)")
            previous = None
            continue
        number = int(seg.id)
        if previous is not None and number != previous + 1:
            warnings.append(
                f"{where}: cue numbered {number} follows {previous} (out of order or missing; "
                "numbers kept as written)"
            )
        previous = number
    return warnings


def cap_warnings(warnings: list[str]) -> list[str]:
    """At most `MAX_LISTED_WARNINGS` warnings, then a count of the rest."""
    if len(warnings) <= MAX_LISTED_WARNINGS:
        return warnings
    rest = len(warnings) - MAX_LISTED_WARNINGS
    return warnings[:MAX_LISTED_WARNINGS] + [f"... and {rest} more warnings"]
