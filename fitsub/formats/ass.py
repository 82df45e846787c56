"""Advanced SubStation Alpha (.ass) and SubStation Alpha (.ssa), edited in place.

fitsub reads the script itself (`script_events`: the ``[Events]`` section, its ``Format:`` line,
one event per line) and writes it back by replacing only the text field of each ``Dialogue``
line whose translation differs from its source, in the file's own text. Every other byte stays
as it was: other sections (known or not) and their ``;`` comment lines, ``Picture:``,
``Sound:``, ``Movie:`` and ``Command:`` events, the layer, times as written (``0:00:16.005``,
``9:59:59.99``, ``-0:00:01.00``), style, name, margins as written (``0010``), effect, colours,
line endings (mixed ones too), BOM and encoding. With ``--model identity`` the output is the
input byte for byte.

Every ``Dialogue`` and ``Comment`` event is one segment, in file order: ``Dialogue`` events are
translated; ``Comment`` events, drawings (``{\\p1}…``) and whitespace-only events are kept as
written (``translatable=False``) and count towards no length limit. A script without events
(no ``[Events]`` section, or an empty one) is valid: it is written back as read. Times are read into integer milliseconds for the budget (ASS
writes centiseconds; more digits are read as the fraction they are) and never written.

In the event text, ASS's hard line break ``\\N`` (and the soft break ``\\n``) is a line break of
the segment and ``\\h`` a no-break space; a translated event is written with ``\\N`` breaks and
``\\h`` for a no-break space, an untranslated one keeps its own. Override blocks ``{\\…}`` are
markup: a block at the start of the event (``{\\an8}``, ``{\\pos(…)}``, ``{\\fad(…)}``) is kept
and put back, blocks at the very end of a translated event (the ``{\\i0}`` of
``{\\i1}…{\\i0}``) are put back at its end; a block in mid-sentence follows the rules of
`fitsub.markup`. A ``{…}`` block without a backslash is a translator's comment (``{TN: pun on
key}``), never shown on screen: it is taken out of the text the model sees and put back
unchanged, at the start of the event when it stood there, else at the end of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fitsub.document import Document, Segment
from fitsub.errors import InputError
from fitsub.formats.blocks import Parsed, cap_warnings, check_cues

DEFAULT_GAPS = ("", "", "")  # unused: ASS is edited in its source text (`render`)
# Fields of an event line when the [Events] section has no Format line (ASS v4+ and SSA v4).
_ASS_FIELDS = ("layer", "start", "end", "style", "name", "marginl", "marginr", "marginv",
               "effect", "text")  # fmt: skip
_SSA_FIELDS = ("marked", *_ASS_FIELDS[1:])
_SEGMENT_KINDS = ("dialogue", "comment")  # other events (Picture, Sound, Movie, Command) stay
_EVENT = re.compile(r"[ \t]*(Dialogue|Comment|Picture|Sound|Movie|Command)[ \t]*:[ \t]?", re.I)
_FORMAT = re.compile(r"[ \t]*Format[ \t]*:(.*)", re.I)
_SECTION = re.compile(r"[ \t]*\[([^\]]*)\][ \t]*$")
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_TIME = re.compile(r"[ \t]*(-?)(\d{1,6}):(\d{1,2}):(\d{1,2})(?:[.,:](\d{1,9}))?[ \t]*")
_TRAILING_CODES = re.compile(r"(?:\{\\[^}]*\})+$")
NOTE = re.compile(r"\{[^}\\]*\}")  # a translator's comment: a {…} block without a backslash
_NOTE_AND_SPACE = re.compile(r"(?<= )\{[^}\\]*\} |\{[^}\\]*\}")  # "the {TN} keys": "the keys"
_LEADING_NOTES = re.compile(r"(?:\{[^}\\]*\}|[ \t])*")


@dataclass(frozen=True)
class Event:
    """One event line: its kind, 1-based line number, the text field's place in the source."""

    kind: str  # lower case: dialogue, comment, picture, sound, movie, command
    line: int
    text_start: int  # offsets of the text field in the script's text
    text_end: int
    start_ms: int
    end_ms: int
    style: str

    def text(self, script: str) -> str:
        """The event's text field as written."""
        return script[self.text_start : self.text_end]


def _lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(1-based number, offset, content without its line end) of every line."""
    number = 0
    for m in _LINE.finditer(text):
        if not m.group(0):
            break
        number += 1
        yield number, m.start(), m.group(1)


def _time_ms(value: str, line: int, path: Path | None) -> int:
    m = _TIME.fullmatch(value)
    if m is None:
        raise InputError(path, f"broken timestamp {value.strip()!r} in an event", line)
    sign, h, mi, s, frac = m.groups()
    ms = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1000
    if frac:
        ms += round(int(frac) * 1000 / 10 ** len(frac))
    return -ms if sign else ms


def _default_fields(text: str) -> tuple[str, ...]:
    ssa = re.search(r"^[ \t]*\[V4 Styles\]", text, re.I | re.M) is not None
    return _SSA_FIELDS if ssa else _ASS_FIELDS


def script_events(text: str, path: Path | None = None) -> list[Event]:
    """Every event line of the ``[Events]`` section, in file order; `InputError` if broken."""
    fields = _default_fields(text)
    in_events = seen_section = False
    events: list[Event] = []
    for number, offset, line in _lines(text):
        if (section := _SECTION.match(line)) is not None:
            in_events = section.group(1).strip().lower() == "events"
            seen_section = True
            continue
        if not in_events:
            continue
        if (fmt := _FORMAT.match(line)) is not None:
            fields = tuple(f.strip().lower() for f in fmt.group(1).split(","))
            missing = {"start", "end", "text"} - set(fields)
            if missing or fields[-1] != "text":
                raise InputError(
                    path,
                    "the [Events] Format line must name Start and End and end with Text",
                    number,
                )
            continue
        if (ev := _EVENT.match(line)) is None:
            continue  # a ; comment, a blank line, anything else: kept as written
        parts = line[ev.end() :].split(",", len(fields) - 1)
        if len(parts) < len(fields):
            raise InputError(
                path,
                f"{ev.group(1)} event has {len(parts)} fields; the Format line names {len(fields)}",
                number,
            )
        values = dict(zip(fields, parts, strict=True))
        text_start = offset + len(line) - len(parts[-1])
        kind = ev.group(1).lower()
        timed = kind in _SEGMENT_KINDS
        events.append(
            Event(
                kind=kind,
                line=number,
                text_start=text_start,
                text_end=offset + len(line),
                start_ms=_time_ms(values["start"], number, path) if timed else 0,
                end_ms=_time_ms(values["end"], number, path) if timed else 0,
                style=values.get("style", "").strip(),
            )
        )
    if not seen_section:  # a script without events is valid, one without any section is not
        raise InputError(path, "not a valid ASS/SSA script: no [Script Info] or [Events] section")
    return [e for e in events if e.kind in _SEGMENT_KINDS]


def to_segment_text(raw: str) -> str:
    """ASS event text as a segment's text: ``\\N`` / ``\\n`` → newline, ``\\h`` → no-break space,
    translator's comments ``{…}`` removed."""
    text = _NOTE_AND_SPACE.sub("", raw)
    return text.replace("\\N", "\n").replace("\\n", "\n").replace("\\h", "\u00a0")


def to_event_text(text: str) -> str:
    """A segment's text as ASS event text (the inverse of `to_segment_text`, breaks as ``\\N``)."""
    return text.replace("\r", "").replace("\n", "\\N").replace("\u00a0", "\\h")


def _is_drawing(raw: str) -> bool:
    return re.search(r"\{[^}]*\\p[1-9]", raw) is not None


def parse(text: str, path: Path | None = None) -> Parsed:
    """Parse an ASS / SSA script into one segment per event; `InputError` on a broken script."""
    events = script_events(text, path)  # none: a valid empty script, written back as read
    segments = []
    for i, event in enumerate(events):
        body = to_segment_text(event.text(text))
        segments.append(
            Segment(
                index=i,
                id=None,
                start_ms=event.start_ms,
                end_ms=event.end_ms,
                text=body,
                translatable=event.kind == "dialogue"
                and not _is_drawing(event.text(text))
                and bool(body.strip()),
                settings=event.style,
                line=event.line,
            )
        )
    warnings = check_cues(segments, "ass", path)
    return Parsed(segments, [], cap_warnings(warnings))


def render_block(seg: Segment) -> str:
    """One event's text as ASS writes it (the whole script is rendered by `render`)."""
    return to_event_text(seg.text)


def new_event_text(raw: str, text: str) -> str:
    """The event text field for translation `text` of the event written `raw`: its translator's
    comments and closing override blocks put back."""
    new = to_event_text(text)
    closing = _TRAILING_CODES.search(NOTE.sub("", raw))
    if closing is not None and not new.endswith(closing.group(0)):
        new += closing.group(0)  # `{\i1}…{\i0}`: the closing block goes back at the end
    lead = _LEADING_NOTES.match(raw)
    leading = NOTE.findall(lead.group(0)) if lead is not None else []
    rest = NOTE.findall(raw)[len(leading) :]
    if rest:
        tail = _TRAILING_CODES.search(new)
        cut = tail.start() if tail is not None else len(new)
        space = " " if cut and not new[cut - 1].isspace() else ""
        new = new[:cut] + space + "".join(rest) + new[cut:]
    return "".join(leading) + new


def _as_read(raw: str) -> tuple[str, str]:
    """An event's segment text, as read and as `Document.with_texts` makes it safe for SRT
    (blank lines dropped, ``-->`` → ``->``): either means the text was not changed."""
    text = to_segment_text(raw)
    safe = "\n".join(line.replace("-->", "->") for line in text.split("\n") if line.strip())
    return text, safe


def render(doc: Document) -> str:
    """The script with each changed event's text field replaced; every other byte as read."""
    if not isinstance(doc.source, str):
        raise ValueError("an ASS document needs its source text")
    source = doc.source
    events = script_events(source, doc.path)
    if len(events) != len(doc.segments):
        raise ValueError(f"{len(doc.segments)} segments for {len(events)} events")
    parts, pos = [], 0
    for event, seg in zip(events, doc.segments, strict=True):
        raw = event.text(source)
        if not seg.translatable or seg.text in _as_read(raw):
            continue  # never translated, or unchanged: the line stays as written
        parts += [source[pos : event.text_start], new_event_text(raw, seg.text)]
        pos = event.text_end
    parts.append(source[pos:])
    return "".join(parts)
