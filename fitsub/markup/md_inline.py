"""Markdown inside a line's words: emphasis, links and code spans kept apart from the words.

markdown-it-py (CommonMark plus strikethrough) reads a line's inline markup; `split_markdown`
returns the words the model translates and each piece of markup as an `InlineTag` with the
words it covers, so that `fitsub.markup.project` carries it onto the translation's words
(Hanneman & Dinu 2020, "detag and project"), as it does for subtitle tags:

- ``*…*``, ``_…_``, ``**…**``, ``__…__``, ``~~…~~``: a tag around their words;
- a link ``[text](url "title")`` (or ``[text][label]``): ``[`` and ``](url "title")`` around
  the link text, which is translated; the target is never sent to the model;
- inline code ``` `make test` ``` and autolinks ``<https://…>``: a tag around their text, which
  is *kept*: `keep` lists its span, and the pipeline sends it to the model as a placeholder
  (`fitsub.glossary.shield`), so it comes back as written and the tag goes around it;
- an image ``![alt](src)`` and a bare URL (``https://…`` in the words) are kept as written
  (`keep`), without a tag;
- escapes (``\\*``) and entities (``&amp;``), and inline HTML, are words written as in the
  source (the Markdown reader of `fitsub.formats.markdown` never puts them in a segment).

`locate` finds each inline token's characters in the source: markdown-it-py gives tokens, not
offsets. The Markdown reader uses it on whole blocks; `split_markdown` on one line's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from fitsub.markup.inline import InlineTag, Span, collapse

EMPHASIS = {"em_open", "em_close", "strong_open", "strong_close", "s_open", "s_close"}
# A bare URL in the words: kept as written (trailing punctuation is the sentence's).
URL = re.compile(
    r"\b(?:https?|ftp)://[^\s<>]*[^\s<>.,;:!?'\")\]]|\bwww\.[^\s<>]*[^\s<>.,;:!?'\")\]]"
)


class Unlocated(Exception):
    """A token could not be located in the source (a construct whose source differs from its
    token, such as a code span over two lines)."""


@dataclass(frozen=True)
class Piece:
    """One inline token's characters in the source, `start` to `end`.

    `kind`: ``text``; ``open`` / ``close`` (emphasis, a link's ``[`` / ``](…)``); ``atom`` (code
    span, autolink, image: `inner` is the kept text's span, None for an image, kept whole);
    ``special`` (an escape, an entity, inline HTML); ``break`` (a line break).
    """

    kind: str
    start: int
    end: int
    inner: Span | None = None


@cache
def parser() -> MarkdownIt:
    """CommonMark plus GFM tables and strikethrough; escapes and entities kept as tokens of
    their own (``text_join`` would merge them into the text around them)."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


def find(src: str, needle: str, pos: int, end: int) -> int:
    """Where `needle` is in `src[pos:end]`; `Unlocated` if it is not (or is empty)."""
    at = src.find(needle, pos, end)
    if at < 0 or not needle:
        raise Unlocated(needle)
    return at


def skip_target(src: str, pos: int, end: int) -> int:
    """Past a link's ``(target "title")`` or ``[label]`` starting at `pos` (nothing: `pos`)."""
    if pos < end and src[pos] == "(":
        return past_closing(src, pos + 1, end, "()")
    if pos < end and src[pos] == "[":
        return find(src, "]", pos, end) + 1
    return pos


def past_closing(src: str, pos: int, end: int, pair: str) -> int:
    """Index just past the ``pair[1]`` that balances one ``pair[0]`` already open before `pos`
    (nested pairs skipped, backslash escapes honoured); none before `end`: `Unlocated`."""
    depth, i = 1, pos
    while i < end:
        ch = src[i]
        if ch == "\\":
            i += 2
            continue
        if ch == pair[0]:
            depth += 1
        elif ch == pair[1]:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Unlocated(pair)


def locate(children: Sequence[Token], src: str, pos: int, end: int) -> list[Piece]:
    """Every inline token of `children` as a `Piece` of `src[pos:end]`, in order."""
    pieces: list[Piece] = []
    k = 0
    while k < len(children):
        tok = children[k]
        kind = tok.type
        k += 1
        if kind == "text" and not tok.content:
            continue  # markdown-it leaves empty text tokens around emphasis delimiters
        if kind == "text":
            at = find(src, tok.content, pos, end)
            pieces.append(Piece("text", at, at + len(tok.content)))
            pos = at + len(tok.content)
        elif kind == "text_special" or kind in EMPHASIS:
            at = find(src, tok.markup, pos, end)
            which = "special" if kind == "text_special" else kind.rsplit("_", 1)[1]
            pieces.append(Piece(which, at, at + len(tok.markup)))
            pos = at + len(tok.markup)
        elif kind in ("softbreak", "hardbreak"):
            at = find(src, "\n", pos, end)
            pieces.append(Piece("break", pos, at + 1))
            pos = at + 1
        elif kind == "link_open" and tok.markup in ("autolink", "linkify"):
            at = find(src, "<", pos, end)
            text = children[k].content if k < len(children) else ""
            inner = find(src, text, at, end)
            pos = find(src, ">", inner + len(text), end) + 1
            pieces.append(Piece("atom", at, pos, (inner, inner + len(text))))
            k += 2  # its text and its link_close
        elif kind == "link_open":
            at = find(src, "[", pos, end)
            pieces.append(Piece("open", at, at + 1))
            pos = at + 1
        elif kind == "link_close":
            at = find(src, "]", pos, end)
            pos = skip_target(src, at + 1, end)
            pieces.append(Piece("close", at, pos))
        elif kind == "image":
            at = find(src, "![", pos, end)
            pos = skip_target(src, past_closing(src, at + 2, end, "[]"), end)
            pieces.append(Piece("atom", at, pos))
        elif kind == "code_inline":
            at = find(src, tok.markup, pos, end)
            inner = find(src, tok.content, at + len(tok.markup), end)
            pos = find(src, tok.markup, inner + len(tok.content), end) + len(tok.markup)
            pieces.append(Piece("atom", at, pos, (inner, inner + len(tok.content))))
        elif kind == "html_inline":
            at = find(src, tok.content, pos, end)
            pieces.append(Piece("special", at, at + len(tok.content)))
            pos = at + len(tok.content)
        else:
            raise Unlocated(kind)
    return pieces


def split_markdown(core: str) -> tuple[str, tuple[InlineTag, ...], tuple[Span, ...]]:
    """A line's words without their inline Markdown (spaces collapsed), the markup as tags
    (offsets in those words, outermost first) and the spans of the words kept as written
    (module docstring). Markup that cannot be read is left in the words."""
    found = parser().parseInline(core)
    try:
        pieces = locate(found[0].children or [], core, 0, len(core)) if found else []
    except Unlocated:
        return _plain_only(core)
    raw: list[str] = []
    size = 0
    opened: list[tuple[int, str]] = []  # (offset in raw, markup) of tags still open
    marks: list[tuple[int, int, str, str]] = []  # (raw start, raw end, open, close)
    kept: list[tuple[int, int]] = []
    for piece in pieces:
        text = core[piece.start : piece.end]
        if piece.kind == "open":
            opened.append((size, text))
            continue
        if piece.kind == "close":
            if not opened:
                return _plain_only(core)
            start, markup = opened.pop()
            marks.append((start, size, markup, text))
            continue
        if piece.kind == "atom" and piece.inner is not None:
            a, b = piece.inner
            marks.append((size, size + b - a, core[piece.start : a], core[b : piece.end]))
            text = core[a:b]
        if piece.kind == "atom":
            kept.append((size, size + len(text)))
        raw.append(" " if piece.kind == "break" else text)
        size += len(raw[-1])
    if opened:
        return _plain_only(core)
    plain, offsets = collapse("".join(raw))
    tags = [InlineTag(o, c, offsets[a], offsets[b]) for a, b, o, c in marks]
    tags.sort(key=lambda t: (t.start, -(t.end - t.start)))
    keep = [(offsets[a], offsets[b]) for a, b in kept]
    return plain, tuple(tags), _with_urls(plain, keep)


def _plain_only(core: str) -> tuple[str, tuple[InlineTag, ...], tuple[Span, ...]]:
    plain = collapse(core)[0]
    return plain, (), _with_urls(plain, [])


def _with_urls(plain: str, keep: list[Span]) -> tuple[Span, ...]:
    """`keep` with the bare URLs of `plain` that no kept span holds, in order."""
    for m in URL.finditer(plain):
        if not any(a < m.end() and m.start() < b for a, b in keep):
            keep.append(m.span())
    return tuple(sorted(keep))
