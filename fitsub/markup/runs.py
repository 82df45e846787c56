"""PowerPoint formatting runs as inline tags: a bold word keeps its formatting on its
translation.

A .pptx paragraph whose runs differ in formatting (a bold word in mid-sentence) is read
(`fitsub.formats.pptx_runs`) as its text with each run that differs from the paragraph's main
formatting between two markers: the opening one names the run (`tags.RUN_BASE` + its index),
the closing one is `tags.RUN_CLOSE`, both private-use characters no deck shows. `protect_runs`
turns them into `InlineTag`s, so the pipeline carries each run onto the words of the
translation that translate it (`fitsub.markup.project`, as for subtitle tags; Hanneman & Dinu
2020) and writes the markers back there; `read_runs` reads where they went.
"""

from __future__ import annotations

from collections.abc import Sequence

from fitsub.markup.inline import InlineTag, Span, collapse
from fitsub.markup.protected import Protected, Turn
from fitsub.markup.tags import MAX_RUNS, RUN_BASE, RUN_CLOSE, run_marker


def has_runs(text: str) -> bool:
    """Whether `text` holds run markers."""
    return RUN_CLOSE in text


def mark_runs(texts: Sequence[str], marked: Sequence[bool]) -> str:
    """The runs' texts joined, each `marked` run between its markers (spaces at its edges left
    outside them); runs past `tags.MAX_RUNS` are not marked."""
    out: list[str] = []
    for k, (text, mark) in enumerate(zip(texts, marked, strict=True)):
        core = text.strip()
        if not mark or not core or k >= MAX_RUNS:
            out.append(text)
            continue
        lead = text[: len(text) - len(text.lstrip())]
        trail = text[len(text.rstrip()) :]
        out.append(f"{lead}{chr(RUN_BASE + k)}{core}{RUN_CLOSE}{trail}")
    return "".join(out)


def _walk(text: str) -> tuple[str, list[tuple[int, int, int]]]:
    """`text` without markers, and (run, start, end) of each marked run in it."""
    raw: list[str] = []
    size = 0
    opened: list[tuple[int, int]] = []
    found: list[tuple[int, int, int]] = []
    for ch in text:
        k = run_marker(ch)
        if k is not None:
            opened.append((k, size))
        elif ch == RUN_CLOSE:
            if opened:
                k, start = opened.pop()
                found.append((k, start, size))
        else:
            raw.append(ch)
            size += 1
    found += [(k, start, size) for k, start in opened]
    return "".join(raw), found


def strip_runs(text: str) -> str:
    """`text` without run markers."""
    return _walk(text)[0]


def protect_runs(text: str) -> Protected:
    """A paragraph's words (spaces collapsed) and its marked runs as tags, outermost first."""
    raw, found = _walk(text)
    plain, offsets = collapse(raw)
    tags = [InlineTag(chr(RUN_BASE + k), RUN_CLOSE, offsets[a], offsets[b]) for k, a, b in found]
    tags.sort(key=lambda t: (t.start, -(t.end - t.start)))
    return Protected(plain=plain, turns=(Turn("", plain, "", inline=tuple(tags)),), original=text)


def read_runs(text: str) -> tuple[str, dict[int, Span]]:
    """A translation with run markers: its text, and the span each marked run went to."""
    plain, found = _walk(text)
    return plain, {k: (a, b) for k, a, b in found}
