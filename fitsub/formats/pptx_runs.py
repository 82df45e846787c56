"""A .pptx paragraph's runs: its text as the pipeline sees it, and a translation written back.

A paragraph whose runs are formatted alike is its text: the translation goes into the first
run and the others are emptied. When they differ (a bold word in mid-sentence) and the runs
stand side by side (no line break ``<a:br/>`` or field between them), the text marks each run
that differs from the paragraph's main formatting (the formatting with the most characters),
`fitsub.markup.runs`: the pipeline carries it onto the words that translate it, and
`write_paragraph` writes the translation as a run per stretch, each a copy of the run whose
formatting it takes, in the translation's order (a bold word the translation moves to the
front comes first). A marked run the projection could not place (the warning names it) goes on
the words at its relative place in the sentence, as far as they are free. Elsewhere (a line
break or field among the runs, a paragraph edited after translation) the translated words are
shared among the runs in proportion to their source characters, and the line breaks among the
lines likewise (`share_runs`): every run survives, on the words at the same place.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from fitsub.markup.inline import Span
from fitsub.markup.runs import has_runs, mark_runs, read_runs, strip_runs
from fitsub.units import char_length

_WORD = re.compile(r"\S+")


def line_runs(paragraph: Any) -> list[list[Any]]:
    """The paragraph's runs per line: a line break (``<a:br/>``) starts a new line."""
    from pptx.text.text import _Run

    lines: list[list[Any]] = [[]]
    for child in paragraph._p.iterchildren():
        tag = str(child.tag).rsplit("}", 1)[-1]
        if tag == "r":
            lines[-1].append(_Run(child, paragraph))
        elif tag == "br":
            lines.append([])
    return lines


def plain_text(paragraph: Any) -> str:
    """The paragraph's text; a line break is a space (the model sees two words, not one)."""
    lines = ["".join(run.text for run in runs) for runs in line_runs(paragraph)]
    return " ".join(line for line in lines if line)


def _props(run: Any) -> bytes:
    from lxml import etree

    rpr = run._r.rPr
    return b"" if rpr is None else bytes(etree.tostring(rpr))


def same_format(runs: list[Any]) -> bool:
    """Whether every run has the same formatting."""
    return len({_props(run) for run in runs}) <= 1


def _side_by_side(paragraph: Any) -> list[Any] | None:
    """The paragraph's runs when nothing but runs stands between the first and the last."""
    from pptx.text.text import _Run

    kinds = [str(c.tag).rsplit("}", 1)[-1] for c in paragraph._p.iterchildren()]
    runs = [k for k, tag in enumerate(kinds) if tag == "r"]
    if not runs or any(kinds[k] != "r" for k in range(runs[0], runs[-1] + 1)):
        return None
    return [_Run(paragraph._p[k], paragraph) for k in runs]


def _marked(runs: list[Any]) -> list[bool]:
    """Which runs differ from the paragraph's main formatting (most characters)."""
    weight: dict[bytes, int] = {}
    for run in runs:
        weight[_props(run)] = weight.get(_props(run), 0) + char_length(run.text.strip())
    main = max(weight, key=lambda p: weight[p])
    return [_props(run) != main for run in runs]


def segment_text(paragraph: Any) -> tuple[str, bool]:
    """The paragraph's text as a segment (its differing runs marked, module docstring), and
    whether its runs mix formatting but could not be marked (shared by position)."""
    text = plain_text(paragraph)
    runs = list(paragraph.runs)
    if same_format(runs):
        return text, False
    side = _side_by_side(paragraph)
    if side is None or any(_private(run.text) for run in side):
        return text, True
    marked = _marked(side)
    if not any(marked):
        return text, False
    return mark_runs([run.text for run in side], marked), False


def _private(text: str) -> bool:
    """Whether `text` holds characters of the private use planes (15, 16), as markers are."""
    return any(ord(ch) >= 0xF0000 for ch in text)


def share_runs(text: str, weights: list[int]) -> list[str]:
    """`text` split at spaces into one part per run, in proportion to `weights` (characters).

    A run of weight 0 gets nothing; parts are joined with the space between them kept at the
    end of the earlier part, so the runs concatenated read as `text` (spaces normalised).
    """
    words = text.split()
    total = sum(weights)
    if total == 0 or not words:
        return [" ".join(words)] + [""] * (len(weights) - 1)
    bounds, seen = [], 0
    for w in weights:
        seen += w
        bounds.append(round(len(words) * seen / total))
    parts, start = [], 0
    for w, end in zip(weights, bounds, strict=True):
        end = start if w == 0 else max(end, start)
        parts.append(words[start:end])
        start = end
    parts[-1] += words[start:]
    out = [" ".join(p) for p in parts]
    for i in range(len(out) - 1):
        if out[i] and any(out[i + 1 :]):
            out[i] += " "
    return out


def write_paragraph(paragraph: Any, text: str) -> None:
    """Write a translation into the paragraph's runs (module docstring)."""
    side = _side_by_side(paragraph)
    if has_runs(text) and side is not None:
        _write_projected(side, text)
        return
    text = strip_runs(text)
    lines = [runs for runs in line_runs(paragraph) if "".join(r.text for r in runs)]
    if len(lines) > 1:
        weights = [char_length("".join(r.text for r in runs).strip()) for runs in lines]
        for runs, part in zip(lines, share_runs(text, weights), strict=True):
            _write_runs(runs, part.rstrip())
        return
    _write_runs(list(paragraph.runs), text)


def _write_runs(runs: list[Any], text: str) -> None:
    if same_format(runs):
        parts = [text] + [""] * (len(runs) - 1)
    else:
        parts = share_runs(text, [char_length(run.text.strip()) for run in runs])
    for run, part in zip(runs, parts, strict=True):
        run.text = part


def _write_projected(runs: list[Any], text: str) -> None:
    """Replace `runs` by one run per stretch of the translation, each a copy of the run whose
    formatting it takes: a marked run's span, else the main formatting."""
    from pptx.text.text import _Run

    marked = _marked(runs)
    plain, spans = read_runs(text)
    main = next((k for k, m in enumerate(marked) if not m), 0)
    taken = place_runs(
        spans={k: s for k, s in spans.items() if k < len(runs) and marked[k]},
        sizes=[char_length(run.text) for run in runs],
        text=plain,
    )
    pieces: list[tuple[int, str]] = []
    pos = 0
    for k, (a, b) in taken:
        pieces += [(main, plain[pos:a]), (k, plain[a:b])]
        pos = b
    pieces.append((main, plain[pos:]))
    first = runs[0]._r
    for k, piece in pieces:
        if not piece:
            continue
        element = copy.deepcopy(runs[k]._r)
        first.addprevious(element)
        _Run(element, runs[k]._parent).text = piece
    for run in runs:
        run._r.getparent().remove(run._r)


def place_runs(spans: dict[int, Span], sizes: list[int], text: str) -> list[tuple[int, Span]]:
    """Where each marked run goes in `text`, in text order, apart: its projected span, or
    (not placed: around the whole text, or crossing a run placed before it) the words at its
    relative place in the source (`sizes`: each run's characters), trimmed to what is free."""
    total = max(1, sum(sizes))
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    taken: list[tuple[int, Span]] = []
    for k in sorted(spans):
        a, b = spans[k]
        if (a, b) == (0, len(text)) or a >= b or _overlaps((a, b), taken):
            a, b = _relative(text, starts[k] / total, (starts[k] + sizes[k]) / total)
            a, b = _free((a, b), taken)
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            taken.append((k, (a, b)))
    return sorted(taken, key=lambda item: item[1])


def _overlaps(span: Span, taken: list[tuple[int, Span]]) -> bool:
    return any(span[0] < b and a < span[1] for _, (a, b) in taken)


def _relative(text: str, lo: float, hi: float) -> Span:
    """The words of `text` whose middles fall between shares `lo` and `hi` of it (else the
    word nearest the middle of that stretch)."""
    words = [m.span() for m in _WORD.finditer(text)]
    if not words:
        return 0, 0
    n = max(1, len(text))
    inside = [w for w in words if lo <= (w[0] + w[1]) / 2 / n < hi]
    if not inside:
        mid = (lo + hi) / 2 * n
        inside = [min(words, key=lambda w: abs((w[0] + w[1]) / 2 - mid))]
    return inside[0][0], inside[-1][1]


def _free(span: Span, taken: list[tuple[int, Span]]) -> Span:
    """`span` cut back to its first stretch that no taken span covers."""
    a, b = span
    for _, (x, y) in sorted(taken, key=lambda item: item[1]):
        if x <= a < y:
            a = y
        elif a < x < b:
            b = x
    return a, max(a, b)
