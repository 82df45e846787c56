"""Slide text (.txt / .md): one segment per line, every line written back exactly.

A line's bullet marker, numbering, indentation, heading ``#``s and whole-line emphasis are
markup (`fitsub.markup.protect` peels them off and puts them back). Lines with nothing to
translate are segments with ``translatable=False``: blank lines, separators (``---``, ``***``,
``===``), fenced code blocks (between ```` ``` ```` or ``~~~`` fences, fences included), YAML
front matter (between ``---`` lines at the top), table rows (``|…|``), HTML comments, images
and lines of markup only.
"""

from __future__ import annotations

import re
from pathlib import Path

from fitsub.document import Segment
from fitsub.formats.blocks import Parsed, check_length
from fitsub.markup import protect

DEFAULT_GAPS = ("", "\n", "\n")
_FENCE = re.compile(r"^\s*(```|~~~)")


def parse(text: str, path: Path | None = None) -> Parsed:
    """Split slide text into one segment per line and mark the lines that hold no text."""
    lines = text.split("\n")
    trailing_newline = lines[-1] == ""
    if trailing_newline:
        lines.pop()
    segments: list[Segment] = []
    in_fence = False
    in_front_matter = bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines, start=1):
        fixed = in_fence or in_front_matter
        if _FENCE.match(line):
            in_fence = not in_fence
            fixed = True
        elif in_front_matter and number > 1 and line.strip() in ("---", "..."):
            in_front_matter = False
        elif not fixed:
            fixed = not protect(line, "slides").plain
        seg = Segment(
            index=len(segments),
            id=None,
            start_ms=None,
            end_ms=None,
            text=line,
            translatable=not fixed,
            line=number,
        )
        if seg.translatable:
            check_length(seg, "slides", path)
        segments.append(seg)
    gaps = (
        [""]
        + ["\n"] * max(len(segments) - 1, 0)
        + (["\n" if trailing_newline else ""] if segments else [])
    )
    if not segments:
        gaps = [text]
    return Parsed(segments, gaps, [])


def render_block(seg: Segment) -> str:
    """A slide line as written."""
    return seg.text
