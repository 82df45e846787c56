"""Apply a reviewer's edits to a translated file, and check each edited line against its limits.

Each edited segment gets its new words inside the markup it has in the file (tags, position
codes, dashes, brackets, song signs: `fitsub.markup`); every other segment, its id and timing,
the file's layout, encoding and line endings stay as they are (the document is written by the
same writers as `fitsub translate`). Lines of a subtitle: the reviewer's own line breaks are
kept when they fit the slot (at most `lines` lines, each within the line's room, CPL less the
visible markup on it), else the text is re-flowed into the slot as `translate` lays it out
(`fitsub.reflow`); a dialogue keeps one line per speaker turn. Slide text stays one line.

Every edited line is checked again: characters against its budget, the longest line against
the room, the number of lines, and the reading speed (characters with the visible markup, per
second on screen) against the CPS limit; and, given the source, for the flags that need no
model (`fitsub.quality.recheck`: `untranslated`, `number-changed`, `meaning-reversed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fitsub.budget import Limits, line_room
from fitsub.document import Document
from fitsub.errors import InputError
from fitsub.formats.markdown import escape_translation, opens_line
from fitsub.markup import Protected, protect
from fitsub.pipeline.names import file_names
from fitsub.quality.dictionary import Dictionary
from fitsub.quality.flags import Flag
from fitsub.quality.recheck import text_flags
from fitsub.reflow import reflow
from fitsub.review.edits import Edit, edit_chars, flat
from fitsub.units import char_length


@dataclass(frozen=True)
class Checked:
    """One edited segment as written: its lengths against its limits, and what breaks."""

    index: int
    id: str | None
    text: str  # the segment's new text, markup included
    chars: int
    budget: int | None
    lines: int
    longest: int  # characters of the longest line
    room: int | None  # characters a line holds (None: slides)
    cps: float | None  # reading speed of the edited cue (None: untimed)
    reflowed: bool = False  # the reviewer's line breaks did not fit and were replaced
    problems: tuple[str, ...] = field(default_factory=tuple)
    flags: tuple[Flag, ...] = ()  # the word checks of the new text (`fitsub.quality.recheck`)


@dataclass(frozen=True)
class Applied:
    """The document with the edits in, and each edited segment checked."""

    document: Document
    checked: tuple[Checked, ...]

    @property
    def broken(self) -> list[Checked]:
        """The edited segments that still break a limit."""
        return [c for c in self.checked if c.problems]

    @property
    def flagged(self) -> list[Checked]:
        """The edited segments the word checks flag."""
        return [c for c in self.checked if c.flags]


def _lines(text: str) -> list[str]:
    return [flat(line) for line in text.split("\n") if line.strip()]


def _problems(
    chars: int, budget: int | None, lines: list[str], room: int | None, limits: Limits | None
) -> list[str]:
    out = []
    if budget is not None and chars > budget:
        out.append(f"{chars} characters, budget {budget}")
    if room is not None and limits is not None:
        if len(lines) > limits.lines:
            out.append(f"{len(lines)} lines, at most {limits.lines}")
        longest = max((char_length(line) for line in lines), default=0)
        if longest > room:
            out.append(f"a line of {longest} characters, at most {room}")
    return out


def apply_edits(
    doc: Document,
    edits: Sequence[Edit],
    limits: Limits | None,
    lang: str = "it",
    source: Document | None = None,
    dictionary: Dictionary | None = None,
) -> Applied:
    """`doc` with each edit's text in its segment (markup kept, lines laid out) and the checks.

    `limits` None: no line or speed check (slides have none either). With the `source`
    document, each new text's word checks too (`fitsub.quality.recheck.text_flags`; English
    left with the target's `dictionary`). The edits must come from
    `fitsub.review.edits.match_edits` (indexes in range, one per segment).
    """
    texts = list(doc.texts)
    checked = []
    plain = (
        [] if source is None else [protect(s.text, source.markup).plain for s in source.segments]
    )
    names = file_names(plain)
    for edit in sorted(edits, key=lambda e: e.index):
        seg = doc.segments[edit.index]
        prot = protect(seg.text, doc.markup)
        timed = doc.timed and limits is not None
        room = line_room(prot, limits) if timed and limits is not None else None
        new, shown, reflowed = _laid_out(edit, doc, prot, room=room, limits=limits, lang=lang)
        texts[edit.index] = new
        flags: list[Flag] = []
        if source is not None:
            flags = text_flags(
                plain[edit.index], flat(edit.text), lang, dictionary=dictionary, names=names
            )
        chars = edit_chars("\n".join(shown))
        cps, problems = _limits_broken(
            chars=chars,
            budget=edit.budget,
            lines=shown,
            room=room,
            duration=seg.duration_ms,
            markup=prot.markup_chars,
            limits=limits if timed else None,
        )
        checked.append(
            Checked(
                index=edit.index,
                id=edit.id,
                text=new,
                chars=chars,
                budget=edit.budget,
                lines=len(shown),
                longest=max((char_length(x) for x in shown), default=0),
                room=room,
                cps=cps,
                reflowed=reflowed,
                problems=tuple(problems),
                flags=tuple(flags),
            )
        )
    return Applied(doc.with_texts(texts), tuple(checked))


def _laid_out(
    edit: Edit,
    doc: Document,
    prot: Protected,
    *,
    room: int | None,
    limits: Limits | None,
    lang: str,
) -> tuple[str, list[str], bool]:
    """The edit's words inside the segment's markup: (the new text, its lines as shown, whether
    the reviewer's line breaks were re-flowed into the slot of `room` × `limits.lines`)."""
    lines = _lines(edit.text)
    if not lines:
        where = f"segment {edit.id or edit.index + 1}"
        raise InputError(None, f"{where}: the edit is empty (a segment keeps its words)")
    if prot.is_dialogue:  # one line per speaker turn when they match, else the turns re-split
        turns = lines if len(lines) == len(prot.turns) else None
        new = prot.restore_turns(turns) if turns else prot.restore("\n".join(lines))
        return new, _lines(new) if turns is None else lines, False
    reflowed = False
    if limits is not None and room is not None:
        fits = len(lines) <= limits.lines and all(char_length(x) <= room for x in lines)
        if not fits:
            lines = reflow(" ".join(lines), room, limits.lines, lang=lang)
            reflowed = True
        words = "\n".join(lines)
    else:
        words = " ".join(lines)
    if doc.format == "markdown":
        gap = doc.gaps[edit.index] if doc.gaps else ""
        words = escape_translation(words, opens_line(gap), prot.turns[0].kept_texts)
    return prot.restore_turns([words]), lines, reflowed


def _limits_broken(
    *,
    chars: int,
    budget: int | None,
    lines: list[str],
    room: int | None,
    duration: int | None,
    markup: int,
    limits: Limits | None,
) -> tuple[float | None, list[str]]:
    """(the reading speed of the edited cue, the limits its text breaks); `limits` None: untimed."""
    problems = _problems(chars=chars, budget=budget, lines=lines, room=room, limits=limits)
    cps = None
    if limits is not None and duration:
        cps = (chars + markup) * 1000 / duration
        if limits.reading_speed and cps > limits.cps:
            problems.append(f"{cps:.1f} characters per second, at most {limits.cps:g}")
    return cps, problems
