"""Subtitle markup (SRT and WebVTT): peel it off a cue's edges, per speaker turn.

See `fitsub.markup` for what is kept and put back, and what is lost.
"""

from __future__ import annotations

import re

from fitsub.markup.inline import split_inline
from fitsub.markup.protected import BRACKETS, LABEL, Protected, Turn
from fitsub.markup.tags import CODE, tag_at, tags

ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_VOICE = re.compile(r"<v[ .]", re.I)
_CODE_END = re.compile(r"\{\\[^}]*\}$")  # a code block ending the cue: `{\i0}`
_DASH = re.compile(r"[-‐–—][ \t]*")
_MUSIC_START = re.compile(r"[♪♫]+[ \t]*")
_MUSIC_END = re.compile(r"[ \t]*[♪♫]+$")
_TURN_START = re.compile(
    r"^(?:\s|</?(?:b|i|u|s|c|v|lang|ruby|rt|font)(?:[.\s][^<>]*)?>|\{\\[^}]*\})*[-‐–—]", re.I
)

SUBTITLE_KINDS = frozenset({"space", "code", "wrap", "voice", "dash", "music", "bracket", "label"})
LINE_KINDS = frozenset({"space", "code", "wrap", "music"})
CUE_KINDS = frozenset({"space", "code", "wrap"})


def protect_cue(text: str, escape: bool) -> Protected:
    """Split a cue into words to translate and the markup to restore (`fitsub.markup`);
    `escape`: whether a translation's &, < and > are written back as entities."""
    lo, hi = _peel(text, 0, len(text), CUE_KINDS)
    prefix, core, suffix = text[:lo], text[lo:hi], text[hi:]
    groups = _turn_groups(core)
    line_prefix = line_suffix = ""
    if len(groups) == 1:  # dialogue turns peel their own per-line markup
        line_prefix, core, line_suffix = _uniform_lines(core)
        groups = [core]
    turns = tuple(_turn(group) for group in groups)
    plain = " ".join(t.plain for t in turns if t.plain)
    return Protected(
        plain=plain,
        turns=turns,
        prefix=_one_line(prefix + line_prefix),
        suffix=_one_line(line_suffix + suffix),
        escape=escape,
        original=text,
    )


def _one_line(markup: str) -> str:
    return markup.replace("\n", "") if not markup.strip() else re.sub(r"\s*\n\s*", "", markup)


def _peel(s: str, lo: int, hi: int, kinds: frozenset[str]) -> tuple[int, int]:
    """Move lo / hi inwards past the markup kinds allowed, until nothing more comes off."""
    dash_done = False
    while lo < hi:
        start = (lo, hi)
        if "space" in kinds:
            while lo < hi and s[lo].isspace():
                lo += 1
            while hi > lo and s[hi - 1].isspace():
                hi -= 1
        if "code" in kinds and (m := CODE.match(s, lo, hi)):
            lo = m.end()
        if "code" in kinds and (m := _CODE_END.search(s, lo, hi)):
            hi = m.start()
        if "wrap" in kinds:
            lo, hi = _peel_tags(s, lo, hi, "voice" in kinds)
        if "dash" in kinds and not dash_done and (m := _DASH.match(s, lo, hi)):
            lo, dash_done = m.end(), True
        if "music" in kinds:
            if m := _MUSIC_START.match(s, lo, hi):
                lo = m.end()
            if m := _MUSIC_END.search(s[lo:hi]):
                hi = lo + m.start()
        if "label" in kinds and (m := LABEL.match(s, lo, hi)):
            lo = m.end()
        if "bracket" in kinds and hi - lo >= 2 and s[lo] in BRACKETS:
            close = BRACKETS[s[lo]]
            inner = s[lo + 1 : hi - 1]
            if s[hi - 1] == close and s[lo] not in inner and close not in inner:
                lo, hi = lo + 1, hi - 1
        if (lo, hi) == start:
            break
    return lo, hi


def _peel_tags(s: str, lo: int, hi: int, voice: bool) -> tuple[int, int]:
    """Peel one wrapper / leading tag at lo, or an orphan closing (or trailing opening) tag at hi."""
    m = tag_at(s, lo, hi)
    if m and not m.group(1):
        name = m.group(2).lower()
        close = _matching_close(s, m.end(), hi, name)
        if close is not None and not s[close[1] : hi].strip():
            return m.end(), close[0]
        if close is None and (voice or name not in ("v",)):
            return m.end(), hi
    tail = s[lo:hi].rstrip()
    end = lo + len(tail)
    closing = tags(s, lo, end)
    if closing and closing[-1].end() == end:
        last = closing[-1]
        name = last.group(2).lower()
        opened = any(t.group(2).lower() == name and not t.group(1) for t in closing[:-1])
        if not last.group(1) or not opened:  # an orphan closing tag, or an opening one at the end
            return lo, last.start()
    return lo, hi


def _matching_close(s: str, pos: int, hi: int, name: str) -> tuple[int, int] | None:
    depth = 1
    for t in tags(s, pos, hi):
        if t.group(2).lower() != name:
            continue
        depth += -1 if t.group(1) else 1
        if depth == 0:
            return t.start(), t.end()
    return None


def _uniform_lines(core: str) -> tuple[str, str, str]:
    """Strip markup every line carries identically (``<i>a</i>\\n<i>b</i>``); return it once."""
    lines = core.split("\n")
    if len(lines) < 2:
        return "", core, ""
    spans = [_peel(line, 0, len(line), LINE_KINDS) for line in lines]
    prefixes = {line[:lo].strip() for line, (lo, _) in zip(lines, spans, strict=True)}
    suffixes = {line[hi:].strip() for line, (_, hi) in zip(lines, spans, strict=True)}
    if len(prefixes) != 1 or len(suffixes) != 1 or not (prefixes | suffixes) - {""}:
        return "", core, ""
    first, last = lines[0], lines[-1]
    inner = "\n".join(line[lo:hi] for line, (lo, hi) in zip(lines, spans, strict=True))
    return first[: spans[0][0]], inner, last[spans[-1][1] :]


def _turn_groups(core: str) -> list[str]:
    """Split a cue into speaker turns: a line starting with a dash starts a new turn, and so
    does each voice span of a line that holds two or more (``<v Anna>Hi!</v> <v Bo>Hey.</v>``)."""
    groups: list[list[str]] = []
    for line in core.split("\n"):
        voices = [m.start() for m in _VOICE.finditer(line) if tag_at(line, m.start(), len(line))]
        cuts = [0, *voices[1:]] if len(voices) > 1 else [0]
        for k, (a, b) in enumerate(zip(cuts, [*cuts[1:], len(line)], strict=True)):
            part = line[a:b].rstrip() if k < len(cuts) - 1 else line[a:b]
            if not groups or k > 0 or _TURN_START.match(part):
                groups.append([part])
            else:
                groups[-1].append(part)
    return ["\n".join(g) for g in groups]


def _turn(text: str) -> Turn:
    lo, hi = _peel(text, 0, len(text), SUBTITLE_KINDS)
    plain, inline, lost = split_inline(text[lo:hi])
    return Turn(
        prefix=_one_line(text[:lo]),
        plain=plain,
        suffix=_one_line(text[hi:]),
        lost=lost,
        inline=inline,
    )
