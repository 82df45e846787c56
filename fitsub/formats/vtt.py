"""WebVTT (.vtt): parsed and validated block by block here; this parser is the reference.

webvtt-py 0.6 reads cues, identifiers, settings, STYLE, REGION and NOTE blocks, but rewrites
them on output (comments move, settings are re-serialised) and silently drops malformed cue
blocks. So fitsub parses WebVTT itself, once: the raw text of every non-cue block (the
``WEBVTT`` header with its metadata, STYLE, REGION, NOTE) is kept verbatim in `Document.gaps`,
each cue's timing line in `Segment.timing`. tests/unit/test_parse_once.py cross-checks this
parser against webvtt-py (cue count, identifiers, times).

Blocks follow the WebVTT rules: an empty line ends a block, and a line with ``-->`` that cannot
be the block's timing line starts a new cue. Leniency where nothing is lost (real exports have
these): a line holding only whitespace counts as an empty line where it starts or ends a
block, or stands just before a cue (identifier or timing line) or a NOTE / STYLE / REGION block;
elsewhere (between two lines of a cue's text, as YouTube writes them) it stays cue text, as the
standard says. Such lines are written back as they were; a warning counts them. Timestamps must be
``[HH:]MM:SS.mmm`` as the standard says; a comma decimal separator is an error with its own
message. A block of text after a cue's blank line is an error (webvtt-py would drop it).
"""

from __future__ import annotations

import re
from pathlib import Path

from fitsub.document import Segment
from fitsub.errors import InputError
from fitsub.formats.blocks import (
    Block,
    Parsed,
    blank_space_lines,
    cap_warnings,
    check_cues,
    gaps_around,
    quoted,
    split_blocks,
)
from fitsub.formats.timing import render_timing, times_of, timing_tail

_TS = r"(?:([0-9]{2,}):)?([0-9]{2}):([0-9]{2})\.([0-9]{3})"
# The two timestamps only: the settings after them are checked by `timing_tail` without
# backtracking (a regex tail was quadratic on long runs of spaces).
TIMING = re.compile(rf"{_TS}[ \t]+-->[ \t]+{_TS}")
_COMMA_TS = re.compile(r"\d{2}:\d{2},\d{3}")
DEFAULT_GAPS = ("WEBVTT\n\n", "\n\n", "\n")
_HEADER = re.compile(r"^WEBVTT(?:[ \t].*)?$")


def parse_timing(line: str) -> tuple[int, int, str] | None:
    """(start ms, end ms, cue settings) of a WebVTT timing line, or None when it is not one."""
    m = TIMING.match(line)
    if m is None:
        return None
    settings = timing_tail(line[m.end() :])
    times = None if settings is None else times_of(m.groups())
    return None if times is None or settings is None else (*times, settings)


def _is_blank(line: str) -> bool:
    return line == ""


def _opens_block(lines: list[str], i: int) -> bool:
    """Whether line `i` begins a cue (timing line, or identifier then timing) or a NOTE block."""
    if i >= len(lines) or not lines[i].strip():
        return False
    line = lines[i]
    if "-->" in line or (i + 1 < len(lines) and "-->" in lines[i + 1]):
        return True
    word = line.split(maxsplit=1)[0]
    return word in ("NOTE", "STYLE", "REGION") and line.startswith(word)


def _starts_block(block: list[str], line: str) -> bool:
    # As webvtt-py and the standard: "-->" can only be a block's first or second line.
    return "-->" in line and (
        len(block) > 1 or "-->" in block[0] or _HEADER.match(block[0]) is not None
    )


def _kind(block: Block) -> str:
    first = block.lines[0]
    if "-->" in first or (len(block.lines) > 1 and "-->" in block.lines[1]):
        return "cue"
    word = first.split(maxsplit=1)[0] if first.strip() else ""
    if word in ("NOTE", "STYLE", "REGION") and first.startswith(word):
        return word
    return "text"


def parse(text: str, path: Path | None = None) -> Parsed:
    """Parse WebVTT text (``\\n`` newlines) into cues; `InputError` naming the line on bad input."""
    first_line = text.split("\n", 1)[0]
    if _HEADER.match(first_line) is None:
        hint = (
            " (this looks like SRT; use .srt)" if "-->" in text[:200] and "," in text[:200] else ""
        )
        raise InputError(path, f"missing 'WEBVTT' header on the first line{hint}", 1)
    lines = text.split("\n")
    spaces = blank_space_lines(lines, _opens_block)
    blocks = split_blocks(text, _is_blank, _starts_block, spaces)
    cues: list[Block] = []
    segments: list[Segment] = []
    for block in blocks[1:]:
        kind = _kind(block)
        if kind == "cue":
            segments.append(_cue(block, len(segments), path))
            cues.append(block)
        elif kind == "text":
            if segments:
                prev = segments[-1]
                name = f"cue {prev.id!r}" if prev.id else f"the cue at line {prev.line}"
                problem = (
                    f"text after a blank line inside {name}: a cue's text cannot contain a blank "
                    "line (remove the blank line, or give the text its own timing line)"
                )
            else:
                problem = "text before the first cue that is not a NOTE, STYLE or REGION block"
            raise InputError(path, problem, block.line)
    warnings = check_cues(segments, "vtt", path)
    if spaces:
        first = min(spaces)
        warnings.insert(
            0,
            f"line {first}: {len(spaces)} line(s) holding only spaces read as empty lines "
            "(the WebVTT standard reads them as text; written back as they were)",
        )
    gaps = gaps_around(text, [(b.start, b.end) for b in cues])
    return Parsed(segments, gaps, cap_warnings(warnings))


def _cue(block: Block, index: int, path: Path | None) -> Segment:
    lines = block.lines
    timing_at = 0 if "-->" in lines[0] else 1
    cue_id = lines[0] if timing_at == 1 else None
    timing = lines[timing_at]
    line_no = block.line + timing_at
    parsed = parse_timing(timing)
    if parsed is None:
        if _COMMA_TS.search(timing):
            raise InputError(
                path,
                f"comma decimal separator in timestamp {quoted(timing)}: WebVTT uses '.' "
                "(00:00:01.000); is this an SRT file?",
                line_no,
            )
        raise InputError(
            path,
            f"broken timestamp {quoted(timing)}: expected '[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm'",
            line_no,
        )
    start, end, settings = parsed
    body = "\n".join(lines[timing_at + 1 :])
    return Segment(
        index=index,
        id=cue_id,
        start_ms=start,
        end_ms=end,
        text=body,
        translatable=bool(body.strip()),
        settings=settings,
        timing=timing,
        line=block.line,
    )


def render_block(seg: Segment) -> str:
    """One cue as WebVTT lines (no trailing newline): identifier, timing line, text."""
    lines = ([seg.id] if seg.id else []) + [render_timing(seg, ".", parse_timing)]
    if seg.text:
        lines.append(seg.text)
    return "\n".join(lines)


_LANGUAGE = re.compile(r"^(Language:[ \t]*)\S.*$", re.MULTILINE)


def set_language(header: str, lang: str) -> str:
    """The header block (``WEBVTT`` line and its metadata) with ``Language:`` set to `lang`.

    Only the header's own lines (up to its first empty line) change; a header without a
    ``Language:`` line is returned as it is.
    """
    end = header.find("\n\n")
    head, rest = (header, "") if end < 0 else (header[:end], header[end:])
    return _LANGUAGE.sub(lambda m: m.group(1) + lang, head, count=1) + rest
