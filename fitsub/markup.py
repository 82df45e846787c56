"""Markup is not text: protect subtitle and slide markup from translation, then restore it.

`protect(text, fmt)` peels markup off the *edges* of a cue and keeps it; `plain` is what the
model translates. `Protected.restore(translation)` puts the markup back around the translation.

What is kept and put back (subtitles, SRT and WebVTT):

- position codes at the start of a cue (``{\\an8}``, any ``{\\…}`` block);
- whole-cue wrappers: ``<i> <b> <u> <s> <font …> <c.class> <lang …> <ruby>`` whose closing tag
  ends the cue, also when every line carries the same wrapper (``<i>a</i>\\n<i>b</i>`` becomes
  ``<i>…</i>`` around the whole translation); a leading tag that is closed in a later cue, or a
  trailing closing tag opened in an earlier one (or a trailing opening tag), stays where it is;
- a leading voice span ``<v Speaker>`` (the speaker's name is not translated);
- speaker dashes: a line starting with ``-``, ``–`` or ``—`` starts a new speaker turn. A cue
  with two or more turns ("- Hi.\\n- Hello.") exposes them in `Protected.turns`; translate each
  turn separately and call `restore_turns`, which writes one line per turn with its own dash.
  `restore` on a dialogue cue splits the translation at sentence ends instead (best effort);
- song lines: ``♪`` / ``♫`` at the start and end of a turn (or of every line);
- a sound effect or caption wholly in brackets, ``[door slams]`` / ``(laughs)``: the brackets
  are kept, the words translated; an upper-case speaker label such as ``JOHN:`` is kept;
- entities (``&amp; &lt; &gt;``…) are decoded in `plain` (``&nbsp;`` becomes a plain space);
  the restored text is escaped again for WebVTT (always) and for SRT when the cue used entities.

Only the tags subtitles use are markup: ``b i u s c v lang ruby rt font`` (any case; ``c``, ``b``…
with ``.class`` suffixes; ``v``, ``lang`` and ``font`` with an annotation after a space), WebVTT
timestamps ``<00:00:01.500>`` and ``{\\…}`` codes. Any other ``<`` is text: "If a<b, swap them."
keeps every word, and so does "<3" or "<span>".

Tags in mid-sentence ("I <i>really</i> mean it") cannot follow a translation that reorders
words: they are removed from `plain`, NOT put back by `restore` (the emphasis is lost, the
text is clean), and listed in `Protected.lost` so the caller can warn.

Slides (.txt / .md lines): indentation, ``>`` quotes, headings ``#``, bullets (``- * + •``),
numbering (``1.`` ``a)``), task boxes ``[ ]``, whole-line emphasis (``**…**``, ``_…_``) and
trailing spaces are kept. Separator lines (``---``), code fences, table rows, HTML comments,
image lines and whole-line inline code have an empty `plain` (nothing to translate). Mid-line emphasis markers, inline code backticks and link targets
(``[text](url)`` keeps "text") are removed and listed in `lost`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from fitsub.document import Format
from fitsub.units import char_length

# A candidate tag; `_known` keeps only the tags subtitles use (anything else is text).
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\.[\w-]+)*(?:[ \t][^<>\n]*)?)>")
_PLAIN_TAGS = frozenset({"b", "i", "u", "s", "c", "ruby", "rt"})  # classes only: <c.yellow>
_ANNOTATED_TAGS = frozenset({"v", "lang", "font"})  # an annotation after a space: <v Anna>
_CODE = re.compile(r"\{\\[^}]*\}")
_TIMESTAMP = re.compile(r"<\d[\d:.]*>")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_SPACE = re.compile(r"\s+")
_DASH = re.compile(r"[-‐–—][ \t]*")
_MUSIC_START = re.compile(r"[♪♫]+[ \t]*")
_MUSIC_END = re.compile(r"[ \t]*[♪♫]+$")
_LABEL = re.compile(r"[A-Z][A-Z0-9 .'\-]{1,30}:[ \t]+")
_TURN_START = re.compile(
    r"^(?:\s|</?(?:b|i|u|s|c|v|lang|ruby|rt|font)(?:[.\s][^<>]*)?>|\{\\[^}]*\})*[-‐–—]", re.I
)
_BRACKETS = {"[": "]", "(": ")"}
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# Slides
_MD_LEAD = re.compile(
    r"[ \t]+|>[ \t]?|#{1,6}[ \t]+|[-*+•▪‣◦][ \t]+|(?:\d{1,3}|[A-Za-z])[.)][ \t]+|\[[ xX]\][ \t]+"
)
_MD_WRAP = ("**", "__", "*", "_", "~~")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)]*)\)")
_MD_EMPH = re.compile(r"(?<![\w*_~])(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*_~])")
_MD_CODE = re.compile(r"`([^`]*)`")
# Slide lines that hold no text to translate: separators, code fences, tables, comments, images.
_MD_FIXED = re.compile(
    r"^\s*(?:([-*_=~])(?:\s*\1){2,}\s*$|```|~~~|\||<!--|!\[[^\]]*\]\([^)]*\)\s*$)"
)

SUBTITLE_KINDS = frozenset({"space", "code", "wrap", "voice", "dash", "music", "bracket", "label"})
LINE_KINDS = frozenset({"space", "code", "wrap", "music"})
CUE_KINDS = frozenset({"space", "code", "wrap"})


@dataclass(frozen=True)
class Turn:
    """One speaker turn: the markup before and after its words, the words, markup it lost."""

    prefix: str
    plain: str
    suffix: str
    lost: tuple[str, ...] = ()


@dataclass(frozen=True)
class Protected:
    """A cue or slide line split into translatable words and the markup around them.

    `plain` is every turn's words joined by a space; `turns` holds them per speaker turn;
    `prefix` / `suffix` wrap the whole cue; `escape` says whether &, < and > in a translation
    must be written as entities; `original` is returned unchanged when there is nothing to
    translate.
    """

    plain: str
    turns: tuple[Turn, ...]
    prefix: str = ""
    suffix: str = ""
    escape: bool = False
    original: str = ""

    @property
    def turn_texts(self) -> tuple[str, ...]:
        """The words of each speaker turn (one element unless the cue is a dialogue)."""
        return tuple(turn.plain for turn in self.turns)

    @property
    def is_dialogue(self) -> bool:
        """Whether the cue has two or more speaker turns to translate separately."""
        return len(self.turns) > 1

    @property
    def joinable(self) -> bool:
        """Whether the cue may share a sentence with its neighbours.

        Not a dialogue, a sound effect (``[applause]``), a speaker label or a song line
        (``♪ … ♪``): those are units of their own, translated alone.
        """
        if len(self.turns) != 1 or not self.plain:
            return False
        turn = self.turns[0]
        edges = f"{self.prefix}{turn.prefix}{turn.suffix}{self.suffix}"
        if any(ch in edges for ch in "♪♫"):
            return False
        return not any(ch in turn.prefix for ch in _BRACKETS) and _LABEL.search(turn.prefix) is None

    @property
    def markup_chars(self) -> int:
        """Visible characters of the markup restored around the words, on subtitles.

        Dialogue dashes and their spaces, song signs, brackets, speaker labels: the viewer
        reads them with the translation (`fitsub.budget` counts them against line and speed).
        """
        parts = [self.prefix, self.suffix, *(t.prefix + t.suffix for t in self.turns)]
        return sum(char_length(html.unescape(_strip_markup(part))) for part in parts)

    @property
    def lost(self) -> tuple[str, ...]:
        """Mid-sentence markup that `restore` drops (see the module docstring)."""
        return tuple(tag for turn in self.turns for tag in turn.lost)

    def restore(self, translated: str) -> str:
        """Put the markup back around a translation of `plain`."""
        if not self.plain.strip():
            return self.original
        if len(self.turns) == 1:
            return self.restore_turns([translated])
        return self.restore_turns(_split_sentences(translated, len(self.turns)))

    def restore_turns(self, translated: Sequence[str]) -> str:
        """Put the markup back around one translation per turn; turns go on separate lines."""
        if not self.plain.strip():
            return self.original
        if len(translated) != len(self.turns):
            raise ValueError(
                f"restore_turns: {len(translated)} translations for {len(self.turns)} turns"
            )
        lines = []
        for turn, text in zip(self.turns, translated, strict=True):
            words = "\n".join(_SPACE.sub(" ", line).strip() for line in text.strip().split("\n"))
            if self.escape:
                words = words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            lines.append(f"{turn.prefix}{words}{turn.suffix}")
        return f"{self.prefix}{chr(10).join(lines)}{self.suffix}"


def _split_sentences(text: str, n: int) -> list[str]:
    """Split a translation into n turns at sentence ends (surplus joins the last turn).

    With fewer sentences than turns, the translation's own line breaks are used when there are
    exactly n lines; otherwise the missing turns are left empty.
    """
    flat = _SPACE.sub(" ", text).strip()
    parts = [p for p in _SENTENCE_END.split(flat) if p]
    if len(parts) < n and text.strip().count("\n") == n - 1:
        parts = text.strip().split("\n")
    if len(parts) >= n:
        return parts[: n - 1] + [" ".join(parts[n - 1 :])]
    return parts + [""] * (n - len(parts))


def protect(text: str, fmt: Format) -> Protected:
    """Split `text` into words to translate and the markup to restore (see the module docstring)."""
    if fmt == "slides":
        return _protect_slide(text)
    escape = fmt == "vtt" or _ENTITY.search(text) is not None
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


def visible_text(text: str, fmt: Format) -> str:
    """The text a viewer sees: tags and codes removed, entities decoded (slides: the words)."""
    if fmt == "slides":
        return _protect_slide(text).plain
    return html.unescape(_strip_markup(text))


def _known(m: re.Match[str]) -> bool:
    """Whether a `_TAG` match is a tag subtitles use (see the module docstring)."""
    closing, name, rest = m.group(1), m.group(2).lower(), m.group(3)
    if closing:  # `</c.yellow>` as some tools write it: a WebVTT parser drops it, never shows it
        dotted = rest.startswith(".") and not any(c.isspace() for c in rest)
        return name in _PLAIN_TAGS | _ANNOTATED_TAGS and (not rest.strip() or dotted)
    if name in _PLAIN_TAGS:
        return not rest or rest.startswith(".") and not any(c.isspace() for c in rest)
    return name in _ANNOTATED_TAGS


def _tags(s: str, lo: int, hi: int) -> list[re.Match[str]]:
    """The known tags in s[lo:hi], in order."""
    return [m for m in _TAG.finditer(s, lo, hi) if _known(m)]


def _tag_at(s: str, lo: int, hi: int) -> re.Match[str] | None:
    """The known tag starting at lo, if any."""
    m = _TAG.match(s, lo, hi)
    return m if m is not None and _known(m) else None


def _markup_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every tag, timestamp and code in `text`, in order."""
    spans = [m.span() for m in _tags(text, 0, len(text))]
    spans += [m.span() for m in _TIMESTAMP.finditer(text)]
    spans += [m.span() for m in _CODE.finditer(text)]
    return sorted(spans)


def _strip_markup(text: str) -> str:
    """`text` without its tags, timestamps and codes."""
    out, pos = [], 0
    for start, end in _markup_spans(text):
        if start < pos:  # a code inside a tag's annotation, say: already removed
            continue
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


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
        if "code" in kinds and (m := _CODE.match(s, lo, hi)):
            lo = m.end()
        if "wrap" in kinds:
            lo, hi = _peel_tags(s, lo, hi, "voice" in kinds)
        if "dash" in kinds and not dash_done and (m := _DASH.match(s, lo, hi)):
            lo, dash_done = m.end(), True
        if "music" in kinds:
            if m := _MUSIC_START.match(s, lo, hi):
                lo = m.end()
            if m := _MUSIC_END.search(s[lo:hi]):
                hi = lo + m.start()
        if "label" in kinds and (m := _LABEL.match(s, lo, hi)):
            lo = m.end()
        if "bracket" in kinds and hi - lo >= 2 and s[lo] in _BRACKETS:
            close = _BRACKETS[s[lo]]
            inner = s[lo + 1 : hi - 1]
            if s[hi - 1] == close and s[lo] not in inner and close not in inner:
                lo, hi = lo + 1, hi - 1
        if (lo, hi) == start:
            break
    return lo, hi


def _peel_tags(s: str, lo: int, hi: int, voice: bool) -> tuple[int, int]:
    """Peel one wrapper / leading tag at lo, or an orphan closing (or trailing opening) tag at hi."""
    m = _tag_at(s, lo, hi)
    if m and not m.group(1):
        name = m.group(2).lower()
        close = _matching_close(s, m.end(), hi, name)
        if close is not None and not s[close[1] : hi].strip():
            return m.end(), close[0]
        if close is None and (voice or name not in ("v",)):
            return m.end(), hi
    tail = s[lo:hi].rstrip()
    end = lo + len(tail)
    closing = _tags(s, lo, end)
    if closing and closing[-1].end() == end:
        last = closing[-1]
        name = last.group(2).lower()
        opened = any(t.group(2).lower() == name and not t.group(1) for t in closing[:-1])
        if not last.group(1) or not opened:  # an orphan closing tag, or an opening one at the end
            return lo, last.start()
    return lo, hi


def _matching_close(s: str, pos: int, hi: int, name: str) -> tuple[int, int] | None:
    depth = 1
    for t in _tags(s, pos, hi):
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
    """Split a cue into speaker turns: a line starting with a dash starts a new turn."""
    groups: list[list[str]] = []
    for line in core.split("\n"):
        if not groups or _TURN_START.match(line):
            groups.append([line])
        else:
            groups[-1].append(line)
    return ["\n".join(g) for g in groups]


def _turn(text: str) -> Turn:
    lo, hi = _peel(text, 0, len(text), SUBTITLE_KINDS)
    plain, lost = _clean(text[lo:hi])
    return Turn(prefix=_one_line(text[:lo]), plain=plain, suffix=_one_line(text[hi:]), lost=lost)


def _clean(core: str) -> tuple[str, tuple[str, ...]]:
    """Remove mid-sentence markup (returned as lost), decode entities, join lines."""
    lost = tuple(core[a:b] for a, b in _markup_spans(core))
    lost += tuple(m.group(0) for m in re.finditer(r"[♪♫]", core))
    text = re.sub(r"[♪♫]", " ", _strip_markup(core))
    return _SPACE.sub(" ", html.unescape(text).replace("\n", " ")).strip(" \t"), lost


def _protect_slide(text: str) -> Protected:
    if _MD_FIXED.match(text):
        return Protected(plain="", turns=(Turn(text, "", ""),), original=text)
    lo, hi = 0, len(text)
    while lo < hi and (m := _MD_LEAD.match(text, lo, hi)):
        lo = m.end()
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    changed = True
    while changed:
        changed = False
        for marker in _MD_WRAP:
            n = len(marker)
            inner = text[lo + n : hi - n]
            if (
                hi - lo > 2 * n
                and text.startswith(marker, lo)
                and text.endswith(marker, lo, hi)
                and marker not in inner
            ):
                if inner[:1].isspace() or inner[-1:].isspace():
                    continue
                lo, hi, changed = lo + n, hi - n, True
                break
    core = text[lo:hi]
    lost: list[str] = []
    if core.startswith("`") and core.endswith("`") and core.count("`") == 2:
        core_plain = ""  # a whole line of code is not translated
    else:
        core_plain = _MD_LINK.sub(lambda m: _keep(lost, m.group(0), m.group(1)), core)
        core_plain = _MD_EMPH.sub(lambda m: _keep(lost, m.group(1), m.group(2)), core_plain)
        core_plain = _MD_CODE.sub(lambda m: _keep(lost, "`", m.group(1)), core_plain)
        core_plain = _SPACE.sub(" ", core_plain).strip()
    turn = Turn(prefix=text[:lo], plain=core_plain, suffix=text[hi:], lost=tuple(lost))
    return Protected(plain=core_plain, turns=(turn,), original=text)


def _keep(lost: list[str], markup: str, text: str) -> str:
    """Record removed markup in `lost` and return the text it wrapped."""
    lost.append(markup)
    return text
