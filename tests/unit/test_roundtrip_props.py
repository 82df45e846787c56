"""Property tests: SRT and WebVTT read → write round trips reproduce the text exactly, and
`with_texts` never changes the cue count, ids or timings."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fitsub.formats import parse_document, render_document
from fitsub.markup import protect

SETTINGS = settings(
    max_examples=int(os.environ.get("FITSUB_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789àèéìòù'’?!.,;:-–()[]♪&\"/#*"
_WORDS = st.text(alphabet=_WORD_CHARS, min_size=1, max_size=8)
_MARKUP = st.sampled_from(
    ["<i>", "</i>", "<b>", "</b>", "{\\an8}", "&amp;", "&lt;", "<v Anna>", "<c.red>", "</c>", "♪"]
)
_TOKEN = st.one_of(_WORDS, _WORDS, _WORDS, _MARKUP)


@st.composite
def text_line(draw: st.DrawFn) -> str:
    """One line of cue text: words and markup, never blank and never containing '-->'."""
    tokens = draw(st.lists(_TOKEN, min_size=1, max_size=7))
    line = " ".join(tokens)
    if draw(st.booleans()):
        line = draw(st.sampled_from(["- ", "-", "♪ ", "<i>"])) + line
    return line.replace("-->", "->")


@dataclass
class Cue:
    id: str | None
    start: int
    end: int
    settings: str
    lines: list[str]


@st.composite
def cues(draw: st.DrawFn, numbered: bool) -> list[Cue]:
    n = draw(st.integers(min_value=1, max_value=8))
    out: list[Cue] = []
    t = draw(st.integers(min_value=0, max_value=10 * 3_600_000))
    for i in range(n):
        start = t + draw(st.integers(min_value=0, max_value=5000))
        end = start + draw(st.integers(min_value=0, max_value=8000))
        t = end
        if numbered:
            cue_id: str | None = draw(st.sampled_from([str(i + 1), str(i + 1), str(i + 7), None]))
        else:
            cue_id = draw(
                st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True))
            )
        lines = draw(st.lists(text_line(), min_size=0, max_size=3))
        out.append(Cue(cue_id, start, end, "", lines))
    return out


def _ts(ms: int, sep: str, short: bool = False) -> str:
    s, milli = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    if short and h == 0:
        return f"{m:02d}:{s:02d}{sep}{milli:03d}"
    return f"{h:02d}:{m:02d}:{s:02d}{sep}{milli:03d}"


def _blank(draw: st.DrawFn) -> str:
    return "\n" * draw(st.integers(min_value=2, max_value=3))


@st.composite
def srt_files(draw: st.DrawFn) -> tuple[str, list[Cue]]:
    items = draw(cues(numbered=True))
    parts = []
    for k, cue in enumerate(items):
        coords = draw(st.sampled_from(["", "", " X1:100 X2:600 Y1:10 Y2:50"]))
        cue.settings = coords.strip()
        block = ([cue.id] if cue.id is not None else []) + [
            f"{_ts(cue.start, ',')} --> {_ts(cue.end, ',')}{coords}"
        ]
        parts.append("\n".join(block + cue.lines))
        parts.append(
            _blank(draw) if k < len(items) - 1 else draw(st.sampled_from(["", "\n", "\n\n"]))
        )
    return "".join(parts), items


@st.composite
def vtt_files(draw: st.DrawFn) -> tuple[str, list[Cue]]:
    items = draw(cues(numbered=False))
    header = "WEBVTT" + draw(st.sampled_from(["", " - a title", "\nKind: captions\nLanguage: en"]))
    parts = [header, _blank(draw)]
    if draw(st.booleans()):
        parts += ["STYLE\n::cue {\n  color: white;\n}", _blank(draw)]
    if draw(st.booleans()):
        parts += ["REGION\nid:fred\nwidth:40%", _blank(draw)]
    for k, cue in enumerate(items):
        short = draw(st.booleans())
        cue.settings = draw(st.sampled_from(["", "align:start", "line:0 position:20% size:60%"]))
        timing = f"{_ts(cue.start, '.', short)} --> {_ts(cue.end, '.', short)}"
        timing += f" {cue.settings}" if cue.settings else ""
        parts.append("\n".join(([cue.id] if cue.id else []) + [timing] + cue.lines))
        if k < len(items) - 1:
            parts.append(_blank(draw))
            if draw(st.integers(min_value=0, max_value=4)) == 0:
                parts += ["NOTE a comment\nover two lines", _blank(draw)]
        else:
            parts.append(draw(st.sampled_from(["", "\n", "\n\nNOTE the end\n"])))
    return "".join(parts), items


def _check(text: str, items: list[Cue], fmt: str, newline: str, bom: bool) -> None:
    source = ("\ufeff" if bom else "") + text.replace("\n", newline)
    doc = parse_document(source, fmt)  # type: ignore[arg-type]
    # a one-line file (a lone timing line, no final newline) has no line ending to detect
    assert doc.newline == newline or "\n" not in text
    assert doc.encoding == ("utf-8-sig" if bom else "utf-8")
    assert render_document(doc) == source[1:] if bom else render_document(doc) == source
    assert [(s.id, s.start_ms, s.end_ms, s.settings) for s in doc.segments] == [
        (c.id, c.start, c.end, c.settings) for c in items
    ]
    assert [s.text for s in doc.segments] == ["\n".join(c.lines) for c in items]


@SETTINGS
@given(srt_files(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_srt_round_trip(file: tuple[str, list[Cue]], newline: str, bom: bool) -> None:
    _check(*file, "srt", newline, bom)


@SETTINGS
@given(vtt_files(), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_vtt_round_trip(file: tuple[str, list[Cue]], newline: str, bom: bool) -> None:
    _check(*file, "vtt", newline, bom)


@SETTINGS
@given(
    st.one_of(srt_files().map(lambda f: ("srt", f)), vtt_files().map(lambda f: ("vtt", f))),
    st.data(),
)
def test_with_texts_keeps_count_ids_timings(
    case: tuple[str, tuple[str, list[Cue]]], data: st.DataObject
) -> None:
    fmt, (text, items) = case
    doc = parse_document(text, fmt)  # type: ignore[arg-type]
    new = [data.draw(st.text(max_size=40)) for _ in doc.segments]
    out = parse_document(render_document(doc.with_texts(new)), fmt)  # type: ignore[arg-type]
    assert [(s.id, s.start_ms, s.end_ms, s.settings) for s in out.segments] == [
        (c.id, c.start, c.end, c.settings) for c in items
    ]
    assert [s.text for s in out.segments] == [s.text for s in doc.with_texts(new).segments]


_PLAIN_WORDS = st.text(alphabet="abcdefxyzàè'?!.,", min_size=1, max_size=6).filter(
    lambda w: w.strip(".,?!'")
)
_WRAPS = st.sampled_from(
    [
        ("", ""),
        ("<i>", "</i>"),
        ("<b>", "</b>"),
        ('<font color="red">', "</font>"),
        ("<c.red>", "</c>"),
        ("♪ ", " ♪"),
        ("[", "]"),
    ]
)


@st.composite
def cue_line(draw: st.DrawFn) -> str:
    """A realistic cue line: optional dash, a wrapper, words with perhaps one mid-sentence tag."""
    words = draw(st.lists(_PLAIN_WORDS, min_size=1, max_size=6))
    if len(words) > 2 and draw(st.booleans()):
        k = draw(st.integers(min_value=1, max_value=len(words) - 2))
        words[k] = f"<i>{words[k]}</i>"
    open_, close = draw(_WRAPS)
    dash = draw(st.sampled_from(["", "", "- ", "-"]))
    return f"{dash}{open_}{' '.join(words)}{close}"


@SETTINGS
@given(
    st.lists(cue_line(), min_size=1, max_size=3),
    st.sampled_from(["", "{\\an8}"]),
    st.sampled_from(["srt", "vtt"]),
)
def test_protect_restore_keeps_every_tag_or_reports_it(
    lines: list[str], code: str, fmt: str
) -> None:
    text = code + "\n".join(lines)
    prot = protect(text, fmt)  # type: ignore[arg-type]
    assert "<" not in prot.plain and "♪" not in prot.plain and "{" not in prot.plain
    restored = prot.restore_turns(list(prot.turn_texts))
    assert restored.startswith(code)
    again = protect(restored, fmt)  # type: ignore[arg-type]
    assert again.plain == prot.plain
    assert again.restore_turns(list(again.turn_texts)) == restored  # a fixed point after one step
    tags = set(re.findall(r"<[^>]*>|\{\\[^}]*\}", text))
    assert tags <= set(re.findall(r"<[^>]*>|\{\\[^}]*\}", restored)) | set(prot.lost)
