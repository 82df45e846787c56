"""Projecting inline tags onto a translation: which words of the translation each tag covers.

The source's tags cover character spans of its plain text (`fitsub.markup.inline`). A
translation reorders and changes words, so each span is found again in the translation, the
"detag and project" approach of Hanneman & Dinu (2020), "How Should Markup Tags Be Translated?"
(WMT), with the alignment made cheap and model-agnostic:

1. the translation has the source's words (``--model identity``, an untranslated cue): every
   tag goes back on its own characters, exactly;
2. the tagged words are copied into the translation (names, numbers, "apiary" left as is):
   the tag goes around the copy (the one nearest the tag's place in the source);
3. the tagged words translated alone (`span_texts`: the pipeline asks the model for its best
   few translations, `fitsub.pipeline.inline`, tried in order) are found in the translation:
   the window of the translation's words that best matches them (`MIN_MATCH`, words compared
   by their common prefix, so "rosso" matches "rossa" and "breve" "brevemente"; a long word
   must match when there is one, not only "di" or "la"; ties go to the place nearest the tag's
   place in the source);
4. otherwise the tag cannot be placed: it is kept around the whole turn (or around the span of
   the tag it sits in; after a tag closed before it, before one left open after it), and
   reported as `Placement.unplaced`, never dropped.

A point (a WebVTT timestamp) goes before the word at the same relative place. Tags are placed
outermost first and an inner tag stays inside its outer tag; a tag whose span would cross one
already placed is not placed (rule 4), so the markup written always nests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fitsub.markup.inline import InlineTag, Span

MIN_MATCH = 0.5  # least Dice score of a window of the translation against the span's words
CONTENT = 4  # letters of a word that must match when the span's translation has one
_WORD = re.compile(r"\w+")
_PUNCT = ",.;:!?…»\"'”’)"


@dataclass(frozen=True)
class Placement:
    """Each tag's span in the translation (character offsets) and the tags not placed on their
    words (indices into the tags: kept around the whole turn, rule 4)."""

    spans: tuple[Span, ...]
    unplaced: tuple[int, ...] = ()


def project(
    source: str,
    tags: Sequence[InlineTag],
    translation: str,
    span_texts: Mapping[str, Sequence[str]] | None = None,
) -> Placement:
    """Where each of `tags` (spans of `source`) goes in `translation` (module docstring)."""
    if source.split() == translation.split():
        return Placement(tuple((_same(source, translation, t.start, t.end)) for t in tags))
    src_words = [m.span() for m in _WORD.finditer(source)]
    tgt_words = [m.span() for m in _WORD.finditer(translation)]
    spans: dict[int, Span] = {}
    unplaced: list[int] = []
    # tags that reach beyond the turn first (outside every other), then the larger ones
    order = sorted(range(len(tags)), key=lambda k: (not _edge(tags[k]), -tags[k].reach, k))
    for k in order:
        tag = tags[k]
        bounds = _bounds(tags, k, spans, len(translation))
        if tag.point:
            spans[k] = _point(
                tag.start, src=src_words, tgt=tgt_words, bounds=bounds, size=len(source)
            )
            continue
        if tag.start == 0 and tag.end == len(source):
            spans[k] = bounds
            continue
        found = _find(
            source=source,
            tag=tag,
            translation=translation,
            words=tgt_words,
            bounds=bounds,
            span_texts=span_texts or {},
        )
        if found is None or any(_cross(found, spans[j]) for j in spans):
            spans[k] = bounds
            unplaced.append(k)
        else:
            spans[k] = found
    return Placement(tuple(spans[k] for k in range(len(tags))), tuple(sorted(unplaced)))


def _same(source: str, translation: str, start: int, end: int) -> Span:
    """A span of `source` in `translation`, which has the same words (spaces aside); a point
    stays a point."""
    a = remap(source, translation, start, True)
    return (a, a) if start == end else (a, remap(source, translation, end, False))


def remap(text: str, other: str, offset: int, start: bool) -> int:
    """`offset` in `text` as an offset in `other`, which has the same characters but for
    whitespace: before the same next non-space character (`start`), else after the same
    previous one."""
    count = sum(1 for ch in text[:offset] if not ch.isspace())
    seen = 0
    for i, ch in enumerate(other):
        if ch.isspace():
            continue
        if start and seen == count:
            return i
        seen += 1
        if not start and seen == count:
            return i + 1
    return len(other) if count else 0


def _parent(tags: Sequence[InlineTag], k: int, spans: Mapping[int, Span]) -> int | None:
    """The smallest tag already placed whose source span holds tag k's."""
    tag = tags[k]
    holders = [j for j in spans if tags[j].start <= tag.start and tag.end <= tags[j].end]
    return min(holders, key=lambda j: tags[j].end - tags[j].start, default=None)


def _edge(tag: InlineTag) -> bool:
    """Whether a tag reaches beyond the turn: opened in an earlier cue, or left open."""
    return not (tag.open and tag.close) and not tag.point


def _bounds(tags: Sequence[InlineTag], k: int, spans: Mapping[int, Span], size: int) -> Span:
    """Where tag k may go: inside the span of the tag it sits in (else the whole turn), after
    a tag that closes before it and before a tag left open after it."""
    parent = _parent(tags, k, spans)
    lo, hi = spans[parent] if parent is not None else (0, size)
    tag = tags[k]
    for j, (a, b) in spans.items():
        other = tags[j]
        if j == parent or not _edge(other):
            continue
        if not other.open and other.end <= tag.start:
            lo = max(lo, min(b, hi))
        if not other.close and other.start >= tag.end:
            hi = min(hi, max(a, lo))
    return lo, hi


def _cross(a: Span, b: Span) -> bool:
    """Whether spans a and b overlap without one holding the other."""
    holds = b[0] <= a[0] and a[1] <= b[1] or a[0] <= b[0] and b[1] <= a[1]
    return a[0] < b[1] and b[0] < a[1] and not holds


def _point(pos: int, src: Sequence[Span], tgt: Sequence[Span], bounds: Span, size: int) -> Span:
    """A point between words: before the target word at the same relative place."""
    before = sum(1 for a, _ in src if a < pos)
    if not src or not tgt:
        place = bounds[0] if pos < size else bounds[1]
    else:
        k = round(before / len(src) * len(tgt))
        place = tgt[k][0] if k < len(tgt) else bounds[1]
    place = min(max(place, bounds[0]), bounds[1])
    return place, place


def _find(
    source: str,
    tag: InlineTag,
    translation: str,
    words: Sequence[Span],
    bounds: Span,
    span_texts: Mapping[str, Sequence[str]],
) -> Span | None:
    """The span of the translation that holds the tagged words (rules 2 and 3)."""
    text = source[tag.start : tag.end].strip()
    if not text:
        return None
    inside = [w for w in words if bounds[0] <= w[0] and w[1] <= bounds[1]]
    where = (tag.start + tag.end) / 2 / max(1, len(source))
    found = _window(_norm(text), translation, inside, where, exact=True)
    for candidate in span_texts.get(text, ()):
        if found is not None:
            break
        found = _window(_norm(candidate), translation, inside, where, exact=False)
    if found is None:
        return None
    a, b = found
    if not tag.open:  # closing a tag opened before the turn: from the turn's start
        a = bounds[0]
    if not tag.close:  # left open: to the turn's end
        b = bounds[1]
    return _with_punctuation(text, translation, span=(a, b), lo=bounds[0])


def _norm(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _window(
    want: Sequence[str], text: str, words: Sequence[Span], where: float, exact: bool
) -> Span | None:
    """The window of `words` (spans in `text`) matching `want` best (exact: word for word)."""
    if not want or not words:
        return None
    got = [text[a:b].lower() for a, b in words]
    best: tuple[float, float, int] | None = None
    span: Span | None = None
    for i in range(len(got)):
        for n in range(1, min(len(got) - i, len(want) + 2) + 1):
            window = got[i : i + n]
            if exact:
                score = 1.0 if window == list(want) else 0.0
            else:
                score = _dice(want, window)
            if score < (1.0 if exact else MIN_MATCH):
                continue
            mid = (words[i][0] + words[i + n - 1][1]) / 2 / max(1, len(text))
            key = (score, -abs(mid - where), -n)
            if best is None or key > best:
                best, span = key, (words[i][0], words[i + n - 1][1])
    return span


def _dice(want: Sequence[str], window: Sequence[str]) -> float:
    """2 × (greedy one-to-one word similarity) / (words in both); 0 when `want` holds a word
    of `CONTENT` letters or more and none of those matched (a window of "di" alone does not
    stand for "di un ecosistema")."""
    free = list(window)
    total = 0.0
    content = False
    for w in want:
        scores = [_similar(w, v) for v in free]
        if scores and max(scores) > 0:
            j = scores.index(max(scores))
            total += scores[j]
            free.pop(j)
            content = content or len(w) >= CONTENT
    if not content and any(len(w) >= CONTENT for w in want):
        return 0.0
    return 2 * total / (len(want) + len(window))


def _similar(a: str, b: str) -> float:
    """1 for the same word; the share of their common prefix for words of 4 letters or more
    that share at least 3 and 60 % of the longer (inflection: "rosso" / "rossa"); 0.6 when
    one word of 4 letters or more begins the other ("breve" / "brevemente"); else 0."""
    if a == b:
        return 1.0
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    if min(len(a), len(b)) < 4 or common < 3:
        return 0.0
    share = common / max(len(a), len(b))
    if share < 0.6 and common == min(len(a), len(b)):
        return 0.6
    return share if share >= 0.6 else 0.0


def _with_punctuation(text: str, translation: str, span: Span, lo: int) -> Span:
    """The span grown over the punctuation the tagged words end with, where the translation
    has it right after them ("<i>In 1928,</i>" → "<i>Nel 1928,</i>"), and over the symbols they
    begin with, where the translation has them right before ("<i>«Hi</i>" → "<i>«Ciao</i>"); not
    before `lo`."""
    a, b = span
    if not text[0].isalnum() and not text[0].isspace():
        while a > lo and not translation[a - 1].isspace() and not translation[a - 1].isalnum():
            a -= 1
    while b < len(translation) and text[-1] in _PUNCT and translation[b] in _PUNCT:
        b += 1
    return a, b
