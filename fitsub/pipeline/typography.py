"""Typography that follows the source: ellipses kept, no doubled spaces (issue 43, part 4).

A small model writes ".." for the source's "...", or drops the ellipsis that opens a cue
continuing a sentence ("...and I had no idea" → "..e non avevo idea"). `follow_source` puts
the source's own ellipsis back where the translation has a run of one, two or four and more
dots (or none at all, for an opening one) at the same end of the line, and squeezes runs of
spaces to one. Nothing else is touched: the words, the other punctuation and the length (an
ellipsis added costs characters, so the caller checks the budget: `fitsub.pipeline.assemble`).
"""

from __future__ import annotations

import re

_END_ELLIPSIS = re.compile(r"(\.\.\.|…)([\"'”’»)\]]*)\s*$")
_START_ELLIPSIS = re.compile(r"^\s*([\"'“‘«(\[]*)(\.\.\.|…)")
_END_DOTS = re.compile(r"\.+([\"'”’»)\]]*)$")
_START_DOTS = re.compile(r"^([\"'“‘«(\[]*)\.+\s*")
_SPACES = re.compile(r"(?<=\S)  +(?=\S)")


def follow_source(source: str, text: str) -> str:
    """`text` with the source's ellipses at its ends and single spaces (module docstring)."""
    out = _SPACES.sub(" ", text.strip())
    if not out:
        return text
    end = _END_ELLIPSIS.search(source)
    if end is not None and not _END_ELLIPSIS.search(out):
        dots = _END_DOTS.search(out)
        if dots is not None:
            out = out[: dots.start()] + end.group(1) + dots.group(1)
        elif out[-1:].isalnum():
            out += end.group(1)
    start = _START_ELLIPSIS.search(source)
    if start is not None and not _START_ELLIPSIS.search(out):
        dots = _START_DOTS.search(out)
        rest = out[dots.end() :] if dots is not None else out
        lead = dots.group(1) if dots is not None else ""
        if rest[:1].isalnum() or dots is not None:
            out = lead + start.group(2) + rest
    return out
