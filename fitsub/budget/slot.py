"""A cue's slot: the room a subtitle gives a translation, whatever its source's length.

The slot of a timed cue is two limits, in characters (`fitsub.units.char_length`), each rounded
down (a budget is a maximum):

    layout_limit = cpl × lines − markup_chars
    speed_limit  = floor(cps × duration_ms / 1000) − markup_chars   (when the limits check
                                                                    reading speed)

and a .pptx paragraph's slot is the characters its box holds (`Segment.room`, bound as
"layout"). `markup_chars` is the visible markup the translation shares the screen with and that
the viewer reads: dialogue dashes and their spaces ("- " per turn), song signs ("♪ " … " ♪"),
the brackets of a sound effect, a speaker label. It counts against the line and the reading
speed, which cover everything shown.

Per-language limits follow the Netflix Timed Text Style Guides (partnerhelp.netflixstudios.com:
"Timed Text Style Guide: General Requirements" and the per-language guides): 2 lines of at most
42 characters in all five languages; adult reading speed 17 characters per second for Italian,
German, French and Spanish (Castilian), 20 for English. Named sets of limits are style profiles
(`fitsub.budget.profiles`).

A cue is flagged `too-short` when its display time is below what any reader needs, whatever its
budget: under `MIN_WORD_CUE_MS` (5/6 s, the Netflix minimum duration of a subtitle event) for
any text, and under `MIN_CUE_MS` (1 s) for more than one word. A 0.6 s "Wow." and a 0.9 s
"Thank you." are both flagged; a 0.9 s "Wow." is not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fitsub.markup import Protected, visible_text
from fitsub.units import char_length, chars_in_time

MIN_WORD_CUE_MS = 833  # Netflix: minimum duration 5/6 s per subtitle event (20 frames at 24 fps)
MIN_CUE_MS = 1000  # more than one word needs at least a second on screen


@dataclass(frozen=True)
class Limits:
    """Subtitle limits: characters per line, maximum lines, reading speed in characters per second.

    `min_duration_ms` is the shortest cue a reader can take in (the too-short flag);
    `min_gap_ms` the shortest gap between cues (reported, never changed); `reading_speed` False
    drops the speed limit (dubbing: the voice, not a reader, sets the pace). Named sets of
    limits are style profiles (`fitsub.budget.profiles`).
    """

    cpl: int
    lines: int
    cps: float
    min_duration_ms: int = MIN_WORD_CUE_MS
    min_gap_ms: int = 0
    reading_speed: bool = True

    def __post_init__(self) -> None:
        if self.cpl < 1:
            raise ValueError(f"characters per line must be at least 1, got {self.cpl}")
        if self.lines < 1:
            raise ValueError(f"lines must be at least 1, got {self.lines}")
        if not self.cps > 0 or math.isinf(self.cps):
            raise ValueError(f"characters per second must be a positive number, got {self.cps}")
        if self.min_duration_ms < 0 or self.min_gap_ms < 0:
            raise ValueError("minimum duration and gap must be >= 0 ms")


# Netflix Timed Text Style Guides (adult programmes): see the module docstring.
LANGUAGE_LIMITS: dict[str, Limits] = {
    "en": Limits(cpl=42, lines=2, cps=20.0),
    "it": Limits(cpl=42, lines=2, cps=17.0),
    "de": Limits(cpl=42, lines=2, cps=17.0),
    "fr": Limits(cpl=42, lines=2, cps=17.0),
    "es": Limits(cpl=42, lines=2, cps=17.0),
}


def limits_for(
    lang: str, cpl: int | None = None, lines: int | None = None, cps: float | None = None
) -> Limits:
    """The language's default limits with any given field replaced (`en-US` and `EN` mean `en`).

    Style profiles (`fitsub.budget.profiles`) set every field, for any language, instead.
    """
    code = lang.strip().lower().replace("_", "-").split("-")[0]
    if code not in LANGUAGE_LIMITS:
        known = ", ".join(sorted(LANGUAGE_LIMITS))
        raise ValueError(f"no subtitle limits for language {lang!r}; known languages: {known}")
    base = LANGUAGE_LIMITS[code]
    return Limits(
        cpl=base.cpl if cpl is None else cpl,
        lines=base.lines if lines is None else lines,
        cps=base.cps if cps is None else cps,
    )


def layout_limit(limits: Limits | None, markup_chars: int, room: int | None) -> int | None:
    """cpl × lines − `markup_chars` (never below 0) under `limits`, capped by a slide box's
    `room`; None when neither applies."""
    layout = None if limits is None else max(0, limits.cpl * limits.lines - markup_chars)
    if room is not None:
        layout = max(0, room) if layout is None else min(layout, max(0, room))
    return layout


def speed_limit(limits: Limits | None, duration_ms: int | None, markup_chars: int) -> int | None:
    """floor(cps × duration_ms / 1000) − `markup_chars` (never below 0): what a reader takes in
    while the cue is shown; None without limits that check reading speed or without a timing."""
    if limits is None or not limits.reading_speed or duration_ms is None:
        return None
    return max(0, chars_in_time(limits.cps, duration_ms) - markup_chars)


def is_too_short(duration_ms: int | None, source_words: int, min_ms: int = MIN_WORD_CUE_MS) -> bool:
    """Whether a cue of `source_words` words is shown too briefly to be read (module docstring).

    `min_ms`: the shortest cue for any text (a profile's minimum duration).
    """
    if duration_ms is None or source_words < 1:
        return False
    return duration_ms < min_ms or (source_words > 1 and duration_ms < max(MIN_CUE_MS, min_ms))


def visible_chars(markup: str) -> int:
    """Characters of the visible part of a piece of markup ("♪ ", "- ")."""
    return char_length(visible_text(markup, "srt"))


def line_room(prot: Protected, limits: Limits) -> int:
    """Characters per line left for the words once the line's visible markup ("♪ ") is in."""
    turn = prot.turns[0]
    edge = max(visible_chars(prot.prefix + turn.prefix), visible_chars(turn.suffix + prot.suffix))
    return max(1, limits.cpl - edge)
