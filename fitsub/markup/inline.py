"""Inline markup: tags inside a turn's words, kept with the words they cover (issue 29).

`split_inline` takes the markup out of a turn's words ("We kept bees in an <i>apiary</i>.")
and records each tag as an `InlineTag`: the markup written before and after the words it
covers, and where those words are in the plain text the model translates (character offsets).
Pairs are matched as a viewer reads them:

- ``<i> <b> <u> <s> <font …> <c.class> <v Name> <lang …> <ruby> <rt>`` with their closing tag
  (``</c>`` closes ``<c.yellow>``); an opening tag not closed in the turn covers the rest of it,
  a closing tag opened earlier covers its start;
- ASS override blocks: a block that only switches off what an earlier block switched on
  (``{\\i1}…{\\i0}``, ``{\\b1}…{\\b0}``, ``{\\c&H00FFFF&}…{\\c}``, anything …``{\\r}``) closes it;
  any other block (``{\\fs30}``, ``{\\fad(…)}``) covers the rest of the turn;
- WebVTT timestamps (``<00:00:01.500>``) are points between words.

`insert_inline` writes the tags back into a translation at the spans `fitsub.markup.project`
found for them. Song signs (``♪``) in mid-turn are visible text, not tags: they stay in `lost`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fitsub.markup.tags import CODE, TAG, TIMESTAMP, markup_spans, run_marker

Span = tuple[int, int]
_OVERRIDE = re.compile(r"\\(\d?[a-z]+)(\([^)]*\)|[^\\}]*)")
_TOGGLES = frozenset({"i", "b", "u", "s"})  # `\i1` on, `\i0` off
_MUSIC = re.compile(r"[♪♫]")


@dataclass(frozen=True)
class InlineTag:
    """Markup inside a turn: `open` before the words `plain[start:end]`, `close` after them.

    `open` is "" for a closing tag whose opening tag was in an earlier line or cue; `close` is ""
    for an opening tag (or ASS block) left open, and for a point (a WebVTT timestamp: start ==
    end).
    """

    open: str
    close: str
    start: int
    end: int

    @property
    def point(self) -> bool:
        """Whether the tag marks a place between words rather than a run of words."""
        return not self.close and self.start == self.end

    @property
    def reach(self) -> int:
        """The tag's size for nesting: its span, plus one at each end where it reaches beyond
        the turn (opened in an earlier cue, or left open): such a tag is outside every other."""
        return self.end - self.start + (not self.open) + (not self.close)

    @property
    def markup(self) -> str:
        """The tag as written, for warnings ("<i>…</i>"; a .pptx run: "formatting run 2")."""
        k = run_marker(self.open)
        if k is not None:
            return f"formatting run {k + 1}"
        return f"{self.open}…{self.close}"


def split_inline(core: str) -> tuple[str, tuple[InlineTag, ...], tuple[str, ...]]:
    """A turn's words without their markup (entities decoded, lines joined, spaces collapsed),
    its tags (`InlineTag`, offsets in those words) and the song signs it dropped."""
    raw: list[str] = []
    marks: list[tuple[int, str]] = []  # (offset in the raw text, markup)
    size, pos = 0, 0
    for a, b in markup_spans(core):
        if a < pos:  # a code inside a tag's annotation, say: already taken
            continue
        piece = _text(core[pos:a])
        raw.append(piece)
        size += len(piece)
        marks.append((size, core[a:b]))
        pos = b
    raw.append(_text(core[pos:]))
    plain, offsets = collapse("".join(raw))
    lost = tuple(_MUSIC.findall(core))
    return plain, _pair([(offsets[p], m) for p, m in marks], len(plain)), lost


def _text(piece: str) -> str:
    return html.unescape(_MUSIC.sub(" ", piece)).replace("\n", " ")


def collapse(raw: str) -> tuple[str, list[int]]:
    """`raw` with whitespace runs as one space, stripped; and each offset of `raw` in it."""
    out: list[str] = []
    offsets: list[int] = []
    space = True  # leading whitespace is dropped
    for ch in raw:
        offsets.append(len(out))
        if not ch.isspace():
            out.append(ch)
            space = False
        elif not space:
            out.append(" ")
            space = True
    if out and out[-1] == " ":
        out.pop()
    offsets.append(len(out))
    return "".join(out), [min(o, len(out)) for o in offsets]


def _overrides(block: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).strip()) for m in _OVERRIDE.finditer(block)]


def _closes(block: str, opener: str) -> bool:
    """Whether ASS block `block` switches off everything `opener` switched on."""
    items = _overrides(block)
    if not items or not all(_is_reset(name, arg) for name, arg in items):
        return False
    names = {name for name, _ in items}
    return "r" in names or {name for name, _ in _overrides(opener)} <= names


def _is_reset(name: str, arg: str) -> bool:
    if name == "r":
        return True
    return arg in ("", "0") if name in _TOGGLES else arg == ""


def _pair(marks: Sequence[tuple[int, str]], size: int) -> tuple[InlineTag, ...]:
    """Pair opening and closing markup (module docstring); the tags outermost first."""
    found: list[tuple[int, InlineTag]] = []  # (order of the opening mark, tag)
    stack: list[tuple[int, int, str]] = []  # (order, offset, markup) of tags still open
    for order, (offset, mark) in enumerate(marks):
        if TIMESTAMP.fullmatch(mark):
            found.append((order, InlineTag(mark, "", offset, offset)))
            continue
        code = CODE.fullmatch(mark) is not None
        opener = _opener_of(stack, mark, code)
        if opener is not None:
            k, start, text = stack.pop(opener)
            found.append((k, InlineTag(text, mark, start, offset)))
        elif _is_closing(mark, code):
            found.append((order, InlineTag("", mark, 0, offset)))
        else:
            stack.append((order, offset, mark))
    found += [(k, InlineTag(text, "", start, size)) for k, start, text in stack]
    found.sort(key=lambda item: (item[1].start, -item[1].reach, item[0]))
    return tuple(tag for _, tag in found)


def _is_closing(mark: str, code: bool) -> bool:
    if code:
        items = _overrides(mark)
        return bool(items) and all(_is_reset(name, arg) for name, arg in items)
    m = TAG.fullmatch(mark)
    return m is not None and bool(m.group(1))


def _opener_of(stack: Sequence[tuple[int, int, str]], mark: str, code: bool) -> int | None:
    """The index in `stack` of the open tag `mark` closes, if any (the innermost one)."""
    if code:
        for k in range(len(stack) - 1, -1, -1):
            if CODE.fullmatch(stack[k][2]) and _closes(mark, stack[k][2]):
                return k
        return None
    m = TAG.fullmatch(mark)
    if m is None or not m.group(1):
        return None
    name = m.group(2).lower()
    for k in range(len(stack) - 1, -1, -1):
        opened = TAG.fullmatch(stack[k][2])
        if opened is not None and opened.group(2).lower() == name:
            return k
    return None


def insert_inline(
    words: str, tags: Sequence[InlineTag], spans: Sequence[Span], escape: bool
) -> str:
    """`words` with each tag written around its span (offsets in `words`); the text between
    tags escaped as entities when `escape`. Spans must nest (`fitsub.markup.project` makes
    them): at one place, closing tags come first, then the outer opening tags, then a tag left
    no words (written empty, ``<i></i>``: kept, never dropped)."""
    events: list[
        tuple[int, int, int, int, str]
    ] = []  # (place, 0 close / 1 open, key, order, markup)
    for k, (tag, (a, b)) in enumerate(zip(tags, spans, strict=True)):
        size = b - a + (not tag.open) + (not tag.close)  # as `InlineTag.reach`
        if tag.open and tag.close and a == b:  # no room left for it: kept, empty, innermost
            events.append((a, 2, 0, k, tag.open + tag.close))
            continue
        if tag.close:
            events.append((b, 0, size, -k, tag.close))
        if tag.open:
            events.append((a, 1, -size, k, tag.open))
    events.sort()
    out, pos = [], 0
    for place, _, _, _, markup in events:
        out += [_escaped(words[pos:place], escape), markup]
        pos = place
    out.append(_escaped(words[pos:], escape))
    return "".join(out)


def _escaped(text: str, escape: bool) -> str:
    if not escape:
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
