"""Subtitle tags, WebVTT timestamps and ``{\\…}`` codes: which ``<…>`` is markup, and removing it.

Only the tags subtitles use are markup: ``b i u s c v lang ruby rt font`` (any case; ``c``, ``b``…
with ``.class`` suffixes; ``v``, ``lang`` and ``font`` with an annotation after a space), WebVTT
timestamps ``<00:00:01.500>`` and ``{\\…}`` codes. Any other ``<`` is text: "If a<b, swap them."
keeps every word, and so does "<3" or "<span>".
"""

from __future__ import annotations

import re

# A candidate tag; `known` keeps only the tags subtitles use (anything else is text).
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\.[\w-]+)*(?:[ \t][^<>\n]*)?)>")
_PLAIN_TAGS = frozenset({"b", "i", "u", "s", "c", "ruby", "rt"})  # classes only: <c.yellow>
_ANNOTATED_TAGS = frozenset({"v", "lang", "font"})  # an annotation after a space: <v Anna>
CODE = re.compile(r"\{\\[^}]*\}")
TIMESTAMP = re.compile(r"<\d[\d:.]*>")


def known(m: re.Match[str]) -> bool:
    """Whether a `TAG` match is a tag subtitles use (see the module docstring)."""
    closing, name, rest = m.group(1), m.group(2).lower(), m.group(3)
    if closing:  # `</c.yellow>` as some tools write it: a WebVTT parser drops it, never shows it
        dotted = rest.startswith(".") and not any(c.isspace() for c in rest)
        return name in _PLAIN_TAGS | _ANNOTATED_TAGS and (not rest.strip() or dotted)
    if name in _PLAIN_TAGS:
        return not rest or rest.startswith(".") and not any(c.isspace() for c in rest)
    return name in _ANNOTATED_TAGS


def tags(s: str, lo: int, hi: int) -> list[re.Match[str]]:
    """The known tags in s[lo:hi], in order."""
    return [m for m in TAG.finditer(s, lo, hi) if known(m)]


def tag_at(s: str, lo: int, hi: int) -> re.Match[str] | None:
    """The known tag starting at lo, if any."""
    m = TAG.match(s, lo, hi)
    return m if m is not None and known(m) else None


def markup_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every tag, timestamp and code in `text`, in order."""
    spans = [m.span() for m in tags(text, 0, len(text))]
    spans += [m.span() for m in TIMESTAMP.finditer(text)]
    spans += [m.span() for m in CODE.finditer(text)]
    return sorted(spans)


def strip_markup(text: str) -> str:
    """`text` without its tags, timestamps and codes."""
    out, pos = [], 0
    for start, end in markup_spans(text):
        if start < pos:  # a code inside a tag's annotation, say: already removed
            continue
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


# PowerPoint formatting runs written into a paragraph's text (`fitsub.markup.runs`): a character
# of Unicode's plane-15 private use area opens run k, the last one of plane 16 closes it.
RUN_BASE = 0xF0000
RUN_CLOSE = "\U0010fffd"
MAX_RUNS = 0xFFF0


def run_marker(ch: str) -> int | None:
    """The run index a run-opening character stands for, else None."""
    k = ord(ch) - RUN_BASE if len(ch) == 1 else -1
    return k if 0 <= k < MAX_RUNS else None
