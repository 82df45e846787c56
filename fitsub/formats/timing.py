"""SRT and WebVTT timing lines, which differ only in their decimal separator (``,`` / ``.``).

Times are integer milliseconds. A format module matches its own timestamps (SRT takes 1-3 hour
digits and either separator; WebVTT optional hours and ``.`` only) and hands the eight groups
to `times_of`; `timing_line` and `render_timing` write a cue's timing line back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fitsub.document import Segment

# Longest hour field accepted (999,999,999 hours): longer ones are rejected as broken timestamps
# before `int()` (whose digit limit would otherwise raise a ValueError on thousands of digits).
MAX_HOUR_DIGITS = 9

TimingParser = Callable[[str], tuple[int, int, str] | None]


def timing_tail(rest: str) -> str | None:
    """The settings after a timing line's end time, or None when the tail is not valid.

    `rest` is what follows the second timestamp. It must be empty or blank, or start with a space
    or tab; the settings are `rest` without surrounding whitespace. Done without a regular
    expression: a lazy ``(.*?)[ \t]*$`` is quadratic on a long run of spaces.
    """
    if not rest.strip(" \t"):
        return ""
    if rest[0] not in " \t" or "-->" in rest:  # settings never hold an arrow: a third time?
        return None
    return rest.strip()


def to_ms(hours: str | None, minutes: str, seconds: str, fraction: str) -> int:
    """Milliseconds from ASCII timestamp fields (hours may be absent; at most 9 hour digits);
    `fraction`: the digits after the decimal separator, a decimal fraction of a second ("46"
    is 460 ms, "5" is 500 ms, as pysubs2 reads them)."""
    if hours is not None and len(hours) > MAX_HOUR_DIGITS:
        raise ValueError(f"hour field has {len(hours)} digits")
    millis = int((fraction + "00")[:3])  # "46" -> 460, "5" -> 500, "007" -> 7
    return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + millis


def format_ms(ms: int, decimal: str) -> str:
    """``HH:MM:SS<decimal>mmm`` for a non-negative time in milliseconds."""
    seconds, millis = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{decimal}{millis:03d}"


def times_of(groups: Sequence[str | None]) -> tuple[int, int] | None:
    """(start ms, end ms) from a timing line's eight groups (hours, minutes, seconds, millis of
    each time; hours may be None), or None when an hour field is too long or a minute or
    second field is over 59."""
    h1, m1, s1, f1, h2, m2, s2, f2 = (g or "" for g in groups)
    if len(h1) > MAX_HOUR_DIGITS or len(h2) > MAX_HOUR_DIGITS:
        return None
    if max(int(m1), int(s1), int(m2), int(s2)) > 59:
        return None
    return to_ms(h1, m1, s1, f1), to_ms(h2, m2, s2, f2)


def timing_line(start_ms: int, end_ms: int, settings: str, decimal: str) -> str:
    """The canonical timing line ``HH:MM:SS<decimal>mmm --> HH:MM:SS<decimal>mmm [settings]``."""
    line = f"{format_ms(start_ms, decimal)} --> {format_ms(end_ms, decimal)}"
    return f"{line} {settings}" if settings else line


def render_timing(seg: Segment, decimal: str, parse: TimingParser) -> str:
    """A cue's timing line: as written while it still gives the cue's times and settings
    (`parse`: the format's own reader), else the canonical one."""
    assert seg.start_ms is not None and seg.end_ms is not None
    if seg.timing is not None and parse(seg.timing) == (seg.start_ms, seg.end_ms, seg.settings):
        return seg.timing
    return timing_line(seg.start_ms, seg.end_ms, seg.settings, decimal)
