"""SubRip (.srt): parsed and validated line by line here; this parser is the reference.

pysrt is lax: it silently drops text that follows a blank line inside a cue and reads broken
timestamps as best it can; so fitsub parses SRT itself (errors name the line) and parses once.
tests/unit/test_parse_once.py cross-checks this parser against pysrt (cue count, numbers, times).

Accepted timing lines: ``H:MM:SS,mmm --> H:MM:SS,mmm`` (1-3 hour digits, ``.`` also accepted as
the decimal separator, as players do; a fraction of one or two digits is a decimal fraction of
a second, as pysubs2 reads it: ``00:29:27,46`` is 1,767,460 ms; pysrt and ffmpeg read 46 ms;
the line is written back as it was), optionally followed by coordinates (``X1:… Y2:…``) that
are kept verbatim in `Segment.settings`. A block may omit its cue number (warning). A line of
whitespace counts as a blank line between cues, and as text between two lines of a cue's text
(`fitsub.formats.blank_space_lines`); it is written back as it was.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

from fitsub.document import Segment
from fitsub.errors import InputError
from fitsub.formats.blocks import (
    GapCollector,
    Parsed,
    blank_space_lines,
    cap_warnings,
    check_cues,
    has_space_lines,
    is_number,
    iter_blocks,
    numbering_warnings,
    quoted,
)
from fitsub.formats.timing import render_timing, times_of, timing_line, timing_tail

_TS = r"([0-9]{1,3}):([0-9]{2}):([0-9]{2})[,.]([0-9]{1,3})"
# The two timestamps only: what follows (coordinates, trailing spaces) is checked by
# `timing_tail` without backtracking (a regex tail was quadratic on long runs of spaces).
TIMING = re.compile(rf"[ \t]*{_TS}[ \t]*-->[ \t]*{_TS}")
DEFAULT_GAPS = ("", "\n\n", "\n")
_TIMING_HELP = "expected 'HH:MM:SS,mmm --> HH:MM:SS,mmm'"


def parse_timing(line: str) -> tuple[int, int, str] | None:
    """(start ms, end ms, coordinates) of a timing line, or None when it is not one."""
    m = TIMING.match(line)
    if m is None:
        return None
    coords = timing_tail(line[m.end() :])
    if coords is None or (coords and coords[0].isspace()):
        return None
    times = times_of(m.groups())
    return None if times is None else (*times, coords)


def _is_blank(line: str) -> bool:
    return line == ""


def _opens_block(lines: list[str], i: int) -> bool:
    """Whether line `i` begins a cue: a timing line, or a number then a timing line."""
    if i >= len(lines) or not lines[i].strip():
        return False
    return "-->" in lines[i] or (i + 1 < len(lines) and "-->" in lines[i + 1])


def _never(_block: list[str], _line: str) -> bool:
    return False


def parse(text: str, path: Path | None = None) -> Parsed:
    """Parse SRT text (``\\n`` newlines) into cues; `InputError` naming the line on bad input."""
    spaces = blank_space_lines(text.split("\n"), _opens_block) if has_space_lines(text) else set()
    gaps = GapCollector(text)
    segments: list[Segment] = []
    padded: list[int] = []
    for block in iter_blocks(text, _is_blank, _never, spaces):
        gaps.add(block)
        if "-->" not in block.lines[0] and block.lines[0] != block.lines[0].strip():
            padded.append(block.line)
        lines = block.lines
        if "-->" in lines[0]:
            cue_id, timing_at = None, 0
        elif len(lines) > 1 and "-->" in lines[1]:
            cue_id, timing_at = lines[0].strip(), 1
        else:
            _no_timing(block.line, lines, segments, path)
        timing = lines[timing_at]
        parsed = parse_timing(timing)
        if parsed is None:
            raise InputError(
                path, f"broken timestamp {quoted(timing)}: {_TIMING_HELP}", block.line + timing_at
            )
        start, end, coords = parsed
        body = lines[timing_at + 1 :]
        for k, line in enumerate(body):
            if "-->" in line:
                raise InputError(
                    path,
                    "timing line inside a cue's text (missing blank line between cues?)",
                    block.line + timing_at + 1 + k,
                )
        cue_text = "\n".join(body)
        # a timing line rendered the same from the times is not stored (memory, long files)
        kept: str | None = None if timing == timing_line(start, end, coords, ",") else timing
        segments.append(
            Segment(
                index=len(segments),
                id=cue_id,
                start_ms=start,
                end_ms=end,
                text=cue_text,
                translatable=bool(cue_text.strip()),
                settings=coords,
                timing=kept,
                line=block.line,
            )
        )
    if not segments:
        raise InputError(path, "empty file")
    warnings = check_cues(segments, "srt", path) + numbering_warnings(segments)
    if padded:
        warnings.insert(
            0,
            f"line {padded[0]}: {len(padded)} cue number line(s) with spaces around the number; "
            "written without them",
        )
    return Parsed(segments, gaps.finish(), cap_warnings(warnings))


def _no_timing(line: int, lines: list[str], segments: list[Segment], path: Path | None) -> NoReturn:
    """Raise the right error for a block without a timing line."""
    if lines[0].strip().upper().startswith("WEBVTT") and not segments:
        raise InputError(path, "this is a WebVTT file (starts with WEBVTT), not SRT; use .vtt", 1)
    if segments:
        prev = segments[-1]
        name = f"cue {prev.id}" if prev.id is not None else f"the cue at line {prev.line}"
        if is_number(lines[0].strip()) and len(lines) == 1:
            raise InputError(path, f"cue number {lines[0].strip()} has no timing line", line)
        raise InputError(
            path,
            f"text after a blank line inside {name}: a cue's text cannot contain a blank line "
            "(remove the blank line, or give the text its own number and timing)",
            line,
        )
    raise InputError(
        path, f"not an SRT file: expected a cue number then a timing line ({_TIMING_HELP})", line
    )


def render_block(seg: Segment) -> str:
    """One cue as SRT lines (no trailing newline): number, timing line, text."""
    lines = ([seg.id] if seg.id is not None else []) + [render_timing(seg, ",", parse_timing)]
    if seg.text:
        lines.append(seg.text)
    return "\n".join(lines)
