"""One segment's budget (`Budget`): how long its translation may be to fit its source's space.

A segment's budget, in characters (`fitsub.units.char_length`), is the minimum of the limits that
apply to it, each rounded down (a budget is a maximum):

    ratio_limit  = floor(ratio × source_chars)                   when a ratio is given
                                                                 (`fitsub.budget.ratio`)
    layout_limit = cpl × lines − markup_chars                    when subtitle limits are given
                                                                 (`fitsub.budget.slot`)
    speed_limit  = floor(cps × duration_ms / 1000) − markup_chars   when limits are given, the
                                                                 cue is timed and the limits
                                                                 check reading speed
    room         = the characters a slide's box holds             a .pptx paragraph (bound as
                                                                 "layout"; `Segment.room`)
    chars        = min(active limits)                            (never below 0)

With no active limit at all, the budget is the isometric one at ratio 1.0: `chars =
source_chars`, bound by "ratio". A dubbing budget gives the ratio limit in characters instead:
its speaking window's (`fitsub.budget.speech`).

A budget is flagged `too_small` when it is below `min_plausible_chars(source_chars)`: no
translation keeps the meaning of a sentence in less than half of its source's characters, and
no word fits in fewer than 4 characters (short sources are only held to their own length). A
0.3 s Italian cue (floor(17 × 0.3) = 5 characters) under a 20-character line is flagged. A
timed cue is flagged `too_short` when it is on screen too briefly to be read
(`fitsub.budget.slot.is_too_short`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fitsub.budget.ratio import DEFAULT_RATIO, ISOMETRIC, SLOT, ratio_limit
from fitsub.budget.slot import Limits, is_too_short, layout_limit, speed_limit
from fitsub.budget.speech import SpeechWindow
from fitsub.document import Segment
from fitsub.markup import Protected
from fitsub.units import char_length, ratio_chars_ceil, ratio_chars_floor

BINDINGS: tuple[str, ...] = ("ratio", "layout", "speed")  # also the tie-break order
MIN_CHARS = 4  # the shortest plausible translation of a non-trivial segment, in characters
MIN_SHARE = 0.5  # a translation below half its source's characters cannot keep its meaning


def min_plausible_chars(source_chars: int) -> int:
    """The smallest budget not flagged as too small: min(source, max(4, ceil(0.5 × source)))."""
    return min(source_chars, max(MIN_CHARS, ratio_chars_ceil(MIN_SHARE, source_chars)))


@dataclass(frozen=True)
class Budget:
    """One segment's budget in characters: every limit, the binding one and the flags."""

    source_chars: int
    ratio_limit: int | None
    layout_limit: int | None
    speed_limit: int | None
    chars: int
    binding: str
    too_small: bool
    too_short: bool = False  # timed cue on screen too briefly to be read (`slot.is_too_short`)
    markup_chars: int = 0  # visible markup counted against the layout and speed limits
    mode: str = SLOT  # `SLOT` or `ISOMETRIC`: whether a ratio applies (`fitsub.budget.ratio`)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (unit: characters)."""
        return {
            "unit": "char",
            "source_chars": self.source_chars,
            "ratio_limit": self.ratio_limit,
            "layout_limit": self.layout_limit,
            "speed_limit": self.speed_limit,
            "chars": self.chars,
            "binding": self.binding,
            "too_small": self.too_small,
            "too_short": self.too_short,
            "markup_chars": self.markup_chars,
            "mode": self.mode,
            "min_plausible_chars": min_plausible_chars(self.source_chars),
        }


def segment_budget(
    source_chars: int,
    *,
    ratio: float | None,
    limits: Limits | None,
    duration_ms: int | None,
    markup_chars: int = 0,
    source_words: int | None = None,
    room: int | None = None,
    ratio_chars: int | None = None,
) -> Budget:
    """The budget of one segment of `source_chars` visible characters (see the module docstring).

    `markup_chars`: visible markup shown with the translation (dialogue dashes...);
    `source_words`: words of the source, for the too-short flag (None: counted as one word
    when the source is not empty); `room`: the characters a slide's box holds (a layout limit);
    `ratio_chars`: the ratio limit given in characters instead of a ratio (a dubbing budget's
    speaking window, `fitsub.budget.speech`).
    """
    if source_chars < 0:
        raise ValueError(f"source length must be >= 0 characters, got {source_chars}")
    if markup_chars < 0:
        raise ValueError(f"markup length must be >= 0 characters, got {markup_chars}")
    if ratio is not None and (not ratio > 0 or math.isinf(ratio)):
        raise ValueError(f"length ratio must be a positive number, got {ratio}")
    if duration_ms is not None and duration_ms < 0:
        raise ValueError(f"cue duration must be >= 0 ms, got {duration_ms}")
    by_ratio = ratio_limit(source_chars, ratio, ratio_chars)
    layout = layout_limit(limits, markup_chars, room)
    speed = speed_limit(limits, duration_ms, markup_chars)
    if by_ratio is None and layout is None and speed is None:
        by_ratio = ratio_chars_floor(DEFAULT_RATIO, source_chars)
    active = {
        name: value
        for name, value in zip(BINDINGS, (by_ratio, layout, speed), strict=True)
        if value is not None
    }
    binding = min(active, key=lambda name: active[name])  # first of BINDINGS on a tie
    chars = active[binding]
    return Budget(
        source_chars=source_chars,
        ratio_limit=by_ratio,
        layout_limit=layout,
        speed_limit=speed,
        chars=chars,
        binding=binding,
        too_small=chars < min_plausible_chars(source_chars),
        too_short=limits is not None
        and is_too_short(
            duration_ms,
            int(source_chars > 0) if source_words is None else source_words,
            limits.min_duration_ms,
        ),
        markup_chars=markup_chars if limits is not None else 0,
        mode=SLOT if by_ratio is None else ISOMETRIC,
    )


def budget_for(
    prot: Protected,
    seg: Segment,
    *,
    timed: bool,
    ratio: float | None,
    limits: Limits,
    window: SpeechWindow | None = None,
) -> Budget:
    """The budget of a document's segment whose text, markup protected, is `prot`: the cue's
    slot when the document is `timed` (its limits, duration and visible markup; slides get
    none), a slide box's room, the ratio, or a speaking `window`'s characters (dubbing)."""
    return segment_budget(
        char_length(prot.plain),
        ratio_chars=None if window is None else window.max_chars,
        ratio=ratio,
        limits=limits if timed else None,
        duration_ms=seg.duration_ms if timed else None,
        markup_chars=prot.markup_chars if timed else 0,
        source_words=len(prot.plain.split()),
        room=seg.room,  # a .pptx text box's share
    )
