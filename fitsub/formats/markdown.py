"""Markdown slides (.md), parsed by markdown-it-py: a line's words with their inline markup.

markdown-it-py (CommonMark plus GFM tables and strikethrough) finds the blocks and the inline
tokens; fitsub locates each inline token in the source (`fitsub.markup.md_inline.locate`). A
segment is a run of words on one line *with* the emphasis, links, inline code, autolinks and
images among them ("The *old* dog sleeps all day."): `fitsub.markup.protect` takes that markup
off, the sentence is translated whole and the markup carried onto the translated words (issue
29). Every other byte of the file is a gap (`Parsed.gaps`), written back exactly: headings'
``#``, list markers, block quotes' ``>``, inline and block HTML, fenced and indented code
blocks, table pipes and delimiter rows, escapes (``\\*``) and entities (``&amp;``), and YAML /
TOML front matter (between ``---`` / ``+++`` lines at the top, cut off before parsing).

A segment has no surrounding spaces; a paragraph over several lines gives one segment per line
(the line's prefix, such as ``> `` in a quote, stays in the gap). A line is cut into parts
translated apart at escapes, entities, inline HTML, math and markup characters it holds
literally (``*``, ``_``, ``~``, backticks, ``<``, brackets, backslashes: "5 * 3"; not inside a
bare URL), which stay in the gaps: moved by a translation, they could pair up into emphasis or a
link that the source did not have. A cut inside an emphasis or a link, or a run whose words
`protect` would read otherwise than the block's parse did, falls back to one segment per text
token (the structure kept exactly, at some cost to that sentence's translation).

markdown-it-py gives line ranges, not character offsets: each token is found in its block's
lines by searching forward from the previous one. Where that fails (a construct whose source
differs from its token, such as a code span over two lines), the block's remaining text is left
untranslated and a warning names its line: never a wrong splice.

A translation is plain text: `escape_translation` backslash-escapes what Markdown would read as
markup in it (a model writing "*", "[", "<", or "- ", "# ", "1. " where a line starts) so that the
written file has the source's structure and shows the translation's characters; the kept words
(code, URLs) are not escaped, and the inline markup is put back after escaping. Left alone: a
"|" a model writes into a table cell would add a column.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from fitsub.document import Segment
from fitsub.formats.blocks import Parsed, cap_warnings, check_length, gaps_around
from fitsub.markup import Turn, protect
from fitsub.markup.inline import Span, collapse
from fitsub.markup.md_inline import URL, Piece, Unlocated, locate, parser

DEFAULT_GAPS = ("", "\n", "\n")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\n(?:.*?\n)??(?:\1|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
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


def escape_translation(text: str, line_start: bool, keep: Sequence[str] = ()) -> str:
    """`text` (a translation) with its Markdown-active characters backslash-escaped, so that it
    reads back as the same plain text with no emphasis, code, link or tag the source did not
    have; at a line's start (`line_start`) also a leading block marker ("# ", "> ", "- ",
    "1. "). CommonMark lets any ASCII punctuation be escaped; the backslashes do not show. The
    texts of `keep` (code spans, URLs: written back as the source has them) are not escaped."""
    if keep:
        kept = re.compile("|".join(re.escape(k) for k in sorted(set(keep), key=len)[::-1] if k))
        parts = kept.split(text)
        seps = kept.findall(text)
        out = escape_translation(parts[0], line_start)
        for sep, part in zip(seps, parts[1:], strict=True):
            out += sep + escape_translation(part, False)
        return out
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


def front_matter_end(text: str) -> int:
    """Characters of the YAML (``---``) or TOML (``+++``) front matter at the top (0: none)."""
    m = _FRONT_MATTER.match(text)
    return m.end() if m else 0


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return starts


def _cut_markup(src: str, start: int, end: int) -> list[tuple[int, int]]:
    """The parts of `src[start:end]` between runs of `_LITERAL_MARKUP` characters (those of
    a bare URL aside: it is kept as written, `fitsub.markup.md_inline`)."""
    urls = [m.span() for m in URL.finditer(src, start, end)]
    parts: list[tuple[int, int]] = []
    for m in _LITERAL_MARKUP.finditer(src, start, end):
        if any(a <= m.start() and m.end() <= b for a, b in urls):
            continue
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


def _pieces(pieces: Sequence[Piece], src: str, math: list[Span]) -> Iterator[Piece]:
    """`pieces` with each text cut where it holds literal markup characters or math (a ``cut``
    piece stands for what was cut out); a piece of another kind overlapping math is a cut."""
    for piece in pieces:
        if piece.kind != "text":
            hit = any(a < piece.end and piece.start < b for a, b in math)
            yield Piece("cut", piece.start, piece.end) if hit else piece
            continue
        cut = _cut_markup(src, piece.start, piece.end)
        parts = [x for part in cut for x in _outside(math, *part)]
        pos = piece.start
        for a, b in parts:
            if a > pos:
                yield Piece("cut", pos, a)
            yield Piece("text", a, b)
            pos = b
        if pos < piece.end or not parts:
            yield Piece("cut", pos, piece.end)


def _segments(pieces: Sequence[Piece], src: str, math: list[Span]) -> list[Span]:
    """The segments of one inline block: runs of words, emphasis, links and kept atoms (code,
    autolinks, images) on one line, cut at line breaks, escapes, entities, inline HTML,
    literal markup characters and math (module docstring)."""
    out: list[Span] = []
    group: list[Piece] = []
    depth, broken = 0, False
    for piece in _pieces(pieces, src, math):
        if piece.kind in ("cut", "special", "break"):
            if depth == 0:
                out += _group_spans(group, src, broken)
                group, broken = [], False
            else:  # a cut inside emphasis or a link: its words go alone, as text
                broken = True
            continue
        group.append(piece)
        depth += {"open": 1, "close": -1}.get(piece.kind, 0)
        if broken and depth == 0:
            out += _group_spans(group, src, broken)
            group, broken = [], False
    return out + _group_spans(group, src, broken or depth != 0)


def _group_spans(group: Sequence[Piece], src: str, broken: bool) -> list[Span]:
    """One segment for the whole group, when `fitsub.markup.protect` reads the same words in it
    as the block's parse did; else (or when `broken`) one per text piece."""
    texts = [_trim(src, p.start, p.end) for p in group if p.kind == "text"]
    if not broken and any(p.kind != "text" for p in group):
        a, b = _trim(src, group[0].start, group[-1].end)
        raw = "".join(_words(p, src) for p in group)
        if a < b and protect(src[a:b], "slides").plain == collapse(raw)[0]:
            return [(a, b)]
    return [(a, b) for a, b in texts if a < b]


def _words(piece: Piece, src: str) -> str:
    """The words a piece gives the text to translate (kept atoms included)."""
    if piece.kind == "text":
        return src[piece.start : piece.end]
    if piece.kind == "atom":
        a, b = piece.inner or (piece.start, piece.end)
        return src[a:b]
    return ""


def parse(text: str, path: Path | None = None) -> Parsed:
    """Split Markdown into its segments (runs of words with their inline markup) and everything
    else (gaps)."""
    offset = front_matter_end(text)
    body = text[offset:]
    starts = _line_starts(body)
    spans: list[Span] = []
    warnings: list[str] = []
    pos = 0
    math = [m.span() for m in MATH.finditer(body)]
    for tok in parser().parse(body):
        if tok.type != "inline" or tok.map is None or not tok.children:
            continue
        first, last = tok.map
        pos = max(pos, starts[first])
        end = starts[last] if last < len(starts) else len(body)
        try:
            pieces = locate(tok.children, body, pos, end)
        except Unlocated:
            line = text.count("\n", 0, offset) + first + 1
            warnings.append(f"line {line}: text not located in the source; left untranslated")
            continue
        spans += [(offset + a, offset + b) for a, b in _segments(pieces, body, math)]
        if pieces:
            pos = pieces[-1].end
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
            translatable=_has_words(protect(piece, "slides").turns[0]),
            line=bisect.bisect_right(line_starts, a),
        )
        if seg.translatable:
            check_length(seg, "slides", path)
        segments.append(seg)
    return Parsed(segments, gaps_around(text, spans), cap_warnings(warnings))


def _has_words(turn: Turn) -> bool:
    """Whether a segment has words to translate (not only code, links' URLs and images)."""
    words = list(turn.plain)
    for a, b in turn.keep:
        words[a:b] = [" "] * (b - a)
    return any(ch.isalnum() for ch in words)


def render_block(seg: Segment) -> str:
    """A text node as written."""
    return seg.text
