"""Markdown slides (.md), parsed by markdown-it-py: only text nodes are translated.

markdown-it-py (CommonMark plus GFM tables and strikethrough) finds the blocks and the inline
tokens; fitsub locates each inline ``text`` token in the source and makes it a segment. Every
other byte of the file is a gap (`Parsed.gaps`), written back exactly: headings' ``#``, list
markers, block quotes' ``>``, emphasis markers, link and image syntax with their targets and
titles, image alt texts, inline code, inline and block HTML, fenced and indented code blocks,
table pipes and delimiter rows, autolinks, escapes (``\\*``) and entities (``&amp;``), and YAML /
TOML front matter (between ``---`` / ``+++`` lines at the top, cut off before parsing).

A text token becomes one segment without its surrounding spaces; a paragraph over several
lines gives one segment per line (the line's prefix, such as ``> `` in a quote, stays in the
gap). Text around a link or an emphasis is translated in parts ("Click", "the link", "to go on"):
the structure is kept exactly, at some cost to the translation of that sentence. Likewise a
text node is cut at markup characters it holds literally (``*``, ``_``, ``~``, backticks, ``<``,
brackets, backslashes: "5 * 3"), which stay in the gaps: moved by a translation, they could
pair up into emphasis or a link that the source did not have.

markdown-it-py gives line ranges, not character offsets: each token is found in its block's
lines by searching forward from the previous one. Where that fails (a construct whose source
differs from its token, such as a code span over two lines), the block's remaining text is left
untranslated and a warning names its line: never a wrong splice.

A translation is plain text: `escape_translation` backslash-escapes what Markdown would read as
markup in it (a model writing "*", "[", "<", or "- ", "# ", "1. " where a line starts) so that the
written file has the source's structure and shows the translation's characters. Left alone: a
"|" a model writes into a table cell would add a column.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from fitsub.document import Segment
from fitsub.formats.blocks import Parsed, cap_warnings, check_length, gaps_around
from fitsub.markup import protect

DEFAULT_GAPS = ("", "\n", "\n")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\n(?:.*?\n)??(?:\1|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_EMPHASIS = {"em_open", "em_close", "strong_open", "strong_close", "s_open", "s_close"}
# Markup characters that stayed literal text in the source ("5 * 3", "a<b", "[x]"): a
# translation that moves them could pair them into emphasis, a code span, a link or a tag, so
# a text token is cut at them and they stay in the gaps, where they are written back as read.
_LITERAL_MARKUP = re.compile(r"[*_~`<\[\]\\]+")
# TeX math, kept as written (never translated): display ``$$…$$`` (across lines too) and inline
# ``$…$`` as Pandoc reads it (no space inside either dollar, no digit right after the closing
# one, so "$5 and $6" is text).
MATH = re.compile(
    r"\$\$(?:[^$]|\$(?!\$))+?\$\$|(?<![\\$])\$(?=[^\s$])[^$\n]*?(?<=[^\s$\\])\$(?![\d$])"
)


# In a translation: the characters the reader cuts text at (they open emphasis, code, links and
# tags), an entity ("&amp;"), and, at the start of a line, what opens a block: a heading, quote,
# list item or setext underline.
_INLINE_ACTIVE = re.compile(r"[*_~`<|\[\]\\]|&(?=#?\w+;)")
_BLOCK_START = re.compile(
    r"\A([ \t]*)(#{1,6}(?=[ \t]|\Z)|>|[-+*](?=[ \t]|\Z)|\d{1,9}(?=[.)]([ \t]|\Z))|[=-]+[ \t]*\Z)"
)
# What may stand before a text node on its line for that node to open a block: nothing, or
# block prefixes (indentation, quote markers, list markers).
# (one marker at a time: a pattern nesting `[ \t]*` under `*` backtracks for minutes on a line
# of 20,000 tabs)
_LINE_PREFIX = re.compile(r"[ \t]*(?:>|[-+*]|\d{1,9}[.)])")


def escape_translation(text: str, line_start: bool) -> str:
    """`text` (a translation) with its Markdown-active characters backslash-escaped, so that it
    reads back as the same plain text with no emphasis, code, link or tag the source did not
    have; at a line's start (`line_start`) also a leading block marker ("# ", "> ", "- ",
    "1. "). CommonMark lets any ASCII punctuation be escaped; the backslashes do not show."""
    out = _INLINE_ACTIVE.sub(lambda m: "\\" + m.group(0), text)
    m = _BLOCK_START.match(out) if line_start else None
    if m is None:
        return out
    lead, marker = m.group(1), m.group(2)
    if marker[0].isdigit():  # "1." / "1)": escape the delimiter after the number
        return lead + marker + "\\" + out[m.end() :]
    return lead + "\\" + out[len(lead) :]


def opens_line(gap_before: str) -> bool:
    """Whether a text node after `gap_before` starts its line's content (a block could open)."""
    line = gap_before[gap_before.rfind("\n") + 1 :]
    pos = 0
    while (m := _LINE_PREFIX.match(line, pos)) is not None:
        pos = m.end()
    return not line[pos:].strip(" \t")


class _Lost(Exception):
    """A token could not be located in the source."""


def _parser() -> MarkdownIt:
    # text_join would merge escapes and entities into the text around them; kept apart, their
    # source form (`markup`) stays in the gaps.
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


def front_matter_end(text: str) -> int:
    """Characters of the YAML (``---``) or TOML (``+++``) front matter at the top (0: none)."""
    m = _FRONT_MATTER.match(text)
    return m.end() if m else 0


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return starts


def _find(src: str, needle: str, pos: int, end: int) -> int:
    at = src.find(needle, pos, end)
    if at < 0 or not needle:
        raise _Lost(needle)
    return at


def _skip_target(src: str, pos: int, end: int) -> int:
    """Past a link's ``(target "title")`` or ``[label]`` starting at `pos` (nothing: `pos`)."""
    if pos < end and src[pos] == "(":
        return _past_closing(src=src, pos=pos + 1, end=end, opening="(", closing=")")
    if pos < end and src[pos] == "[":
        return _find(src, "]", pos, end) + 1
    return pos


def _close_bracket(src: str, pos: int, end: int) -> int:
    """Index just past the ``]`` closing a bracket opened before `pos` (nested ones skipped)."""
    return _past_closing(src=src, pos=pos, end=end, opening="[", closing="]")


def _past_closing(src: str, pos: int, end: int, opening: str, closing: str) -> int:
    """Index just past the `closing` that balances one `opening` already open before `pos`
    (nested pairs skipped, backslash escapes honoured); none before `end`: `_Lost`."""
    depth, i = 1, pos
    while i < end:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _Lost(opening)


def _text_spans(children: Sequence[Token], src: str, pos: int, end: int) -> list[tuple[int, int]]:
    """(start, end) in `src` of every text token of one inline block, in order."""
    spans: list[tuple[int, int]] = []
    autolink = False
    for tok in children:
        kind = tok.type
        if kind == "text" and not tok.content:
            continue  # markdown-it leaves empty text tokens around emphasis delimiters
        if kind == "text":
            at = _find(src, tok.content, pos, end)
            pos = at + len(tok.content)
            if not autolink:
                spans.append((at, pos))
        elif kind == "text_special" or kind in _EMPHASIS:
            pos = _find(src, tok.markup, pos, end) + len(tok.markup)
        elif kind in ("softbreak", "hardbreak"):
            pos = _find(src, "\n", pos, end) + 1
        elif kind == "link_open":
            autolink = tok.markup in ("autolink", "linkify")
            pos = _find(src, "<" if tok.markup == "autolink" else "[", pos, end) + 1
        elif kind == "link_close":
            if autolink:
                pos = _find(src, ">", pos, end) + 1
            else:
                pos = _skip_target(src, _find(src, "]", pos, end) + 1, end)
            autolink = False
        elif kind == "image":
            pos = _skip_target(src, _close_bracket(src, _find(src, "![", pos, end) + 2, end), end)
        elif kind == "code_inline":
            opened = _find(src, tok.markup, pos, end) + len(tok.markup)
            inner = _find(src, tok.content, opened, end) + len(tok.content)
            pos = _find(src, tok.markup, inner, end) + len(tok.markup)
        elif kind == "html_inline":
            pos = _find(src, tok.content, pos, end) + len(tok.content)
        else:
            raise _Lost(kind)
    return spans


def _cut_markup(src: str, start: int, end: int) -> list[tuple[int, int]]:
    """The parts of `src[start:end]` between runs of `_LITERAL_MARKUP` characters."""
    parts: list[tuple[int, int]] = []
    for m in _LITERAL_MARKUP.finditer(src, start, end):
        parts.append((start, m.start()))
        start = m.end()
    parts.append((start, end))
    return parts


def _outside(spans: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """The parts of [start, end) outside every span of `spans` (sorted, not overlapping)."""
    parts: list[tuple[int, int]] = []
    k = bisect.bisect_left(spans, (start, start)) - 1
    for a, b in spans[max(k, 0) :]:
        if a >= end:
            break
        if b <= start:
            continue
        if a > start:
            parts.append((start, a))
        start = max(start, b)
    if start < end:
        parts.append((start, end))
    return parts


def _trim(src: str, start: int, end: int) -> tuple[int, int]:
    while start < end and src[start].isspace():
        start += 1
    while end > start and src[end - 1].isspace():
        end -= 1
    return start, end


def parse(text: str, path: Path | None = None) -> Parsed:
    """Split Markdown into its text nodes (segments) and everything else (gaps)."""
    offset = front_matter_end(text)
    body = text[offset:]
    starts = _line_starts(body)
    spans: list[tuple[int, int]] = []
    warnings: list[str] = []
    pos = 0
    math = [m.span() for m in MATH.finditer(body)]
    for tok in _parser().parse(body):
        if tok.type != "inline" or tok.map is None or not tok.children:
            continue
        first, last = tok.map
        pos = max(pos, starts[first])
        end = starts[last] if last < len(starts) else len(body)
        try:
            found = _text_spans(tok.children, body, pos, end)
        except _Lost:
            line = text.count("\n", 0, offset) + first + 1
            warnings.append(f"line {line}: text not located in the source; left untranslated")
            continue
        pieces = (piece for span in found for piece in _cut_markup(body, *span))
        for a, b in (part for piece in pieces for part in _outside(math, *piece)):
            a, b = _trim(body, a, b)
            if a < b:
                spans.append((offset + a, offset + b))
        if found:
            pos = found[-1][1]
    segments: list[Segment] = []
    line_starts = _line_starts(text)
    for a, b in spans:
        piece = text[a:b]
        seg = Segment(
            index=len(segments),
            id=None,
            start_ms=None,
            end_ms=None,
            text=piece,
            translatable=any(ch.isalnum() for ch in protect(piece, "slides").plain),
            line=bisect.bisect_right(line_starts, a),
        )
        if seg.translatable:
            check_length(seg, "slides", path)
        segments.append(seg)
    return Parsed(segments, gaps_around(text, spans), cap_warnings(warnings))


def render_block(seg: Segment) -> str:
    """A text node as written."""
    return seg.text
