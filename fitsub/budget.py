"""Per-segment character budgets: how long a translation may be to fit its source's space.

A segment's budget, in characters (`fitsub.units.char_length`), is the minimum of the limits that
apply to it, each rounded down (a budget is a maximum):

    ratio_limit  = floor(ratio × source_chars)                   when a ratio is given
    layout_limit = cpl × lines − markup_chars                    when subtitle limits are given
    speed_limit  = floor(cps × duration_ms / 1000) − markup_chars   when limits are given, the
                                                                 cue is timed and the limits
                                                                 check reading speed
    room         = the characters a slide's box holds             a .pptx paragraph (bound as
                                                                 "layout"; `Segment.room`)
    chars        = min(active limits)                            (never below 0)

`markup_chars` is the visible markup the translation shares the screen with and that the viewer
reads: dialogue dashes and their spaces ("- " per turn), song signs ("♪ " … " ♪"), the brackets
of a sound effect, a speaker label. It does not count against the ratio (a ratio compares words
with words) but does against the line and the reading speed, which cover everything shown.

Two fitting modes (docs/fitting.md):

* *slot* (`SLOT`, the default for subtitles): no ratio is given, so the budget is the cue's slot
  alone, min(layout_limit, speed_limit) (or a slide box's room). A translation that fits the
  slot is never shortened towards the source's length.
* *isometric* (`ISOMETRIC`): a ratio is given (`--ratio`, `--min-ratio`, the dubbing profile),
  so the ratio limit applies too (Lakew et al. 2019 scale the source length), with any slot as
  a further cap.

Slides have no layout by default: the caller passes `limits=None` for them unless the user gave
CPL / lines flags. With no active limit at all, the budget is the isometric one at ratio 1.0:
`chars = source_chars`, bound by "ratio".

Per-language limits follow the Netflix Timed Text Style Guides (partnerhelp.netflixstudios.com:
"Timed Text Style Guide: General Requirements" and the per-language guides): 2 lines of at most
42 characters in all five languages; adult reading speed 17 characters per second for Italian,
German, French and Spanish (Castilian), 20 for English.

A budget is flagged `too_small` when it is below `min_plausible_chars(source_chars)`: no
translation keeps the meaning of a sentence in less than half of its source's characters, and
no word fits in fewer than 4 characters (short sources are only held to their own length). A
0.3 s Italian cue (floor(17 × 0.3) = 5 characters) under a 20-character line is flagged.

A cue is flagged `too_short` when its display time is below what any reader needs, whatever its
budget: under `MIN_WORD_CUE_MS` (5/6 s, the Netflix minimum duration of a subtitle event) for
any text, and under `MIN_CUE_MS` (1 s) for more than one word. A 0.6 s "Wow." and a 0.9 s
"Thank you." are both flagged; a 0.9 s "Wow." is not.

Subword budgets (for models whose length unit is the SentencePiece piece) divide the character
budget by a tokenizer's measured characters per subword, rounded down
(`fitsub.units.subword_budget`). Every rounding above is exact on the decimal typed
(`fitsub.units`): floor(0.29 × 100) is 29.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fitsub.units import char_length, chars_in_time, ratio_chars_ceil, ratio_chars_floor

BINDINGS: tuple[str, ...] = ("ratio", "layout", "speed")  # also the tie-break order
SLOT = "slot"  # the budget is the cue's slot (layout, reading speed, a box's room)
ISOMETRIC = "isometric"  # a ratio × the source's characters applies (and any slot caps it)
MODES: tuple[str, ...] = (SLOT, ISOMETRIC)
MIN_CHARS = 4  # the shortest plausible translation of a non-trivial segment, in characters
MIN_SHARE = 0.5  # a translation below half its source's characters cannot keep its meaning
DEFAULT_RATIO = 1.0  # used only when no limit at all is active
MIN_WORD_CUE_MS = 833  # Netflix: minimum duration 5/6 s per subtitle event (20 frames at 24 fps)
MIN_CUE_MS = 1000  # more than one word needs at least a second on screen


@dataclass(frozen=True)
class Limits:
    """Subtitle limits: characters per line, maximum lines, reading speed in characters per second.

    `min_duration_ms` is the shortest cue a reader can take in (the too-short flag);
    `min_gap_ms` the shortest gap between cues (reported, never changed); `reading_speed` False
    drops the speed limit (dubbing: the voice, not a reader, sets the pace). Named sets of
    limits are style profiles (`fitsub.profiles`).
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

    Style profiles (`fitsub.profiles`) set every field, for any language, instead.
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
    too_short: bool = False  # timed cue on screen too briefly to be read (see the docstring)
    markup_chars: int = 0  # visible markup counted against the layout and speed limits
    mode: str = SLOT  # `SLOT` or `ISOMETRIC`: whether a ratio applies (module docstring)

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


def is_too_short(duration_ms: int | None, source_words: int, min_ms: int = MIN_WORD_CUE_MS) -> bool:
    """Whether a cue of `source_words` words is shown too briefly to be read (module docstring).

    `min_ms`: the shortest cue for any text (a profile's minimum duration).
    """
    if duration_ms is None or source_words < 1:
        return False
    return duration_ms < min_ms or (source_words > 1 and duration_ms < max(MIN_CUE_MS, min_ms))


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
    speaking window, `fitsub.dubbing.budget`).
    """
    if source_chars < 0:
        raise ValueError(f"source length must be >= 0 characters, got {source_chars}")
    if markup_chars < 0:
        raise ValueError(f"markup length must be >= 0 characters, got {markup_chars}")
    if ratio is not None and (not ratio > 0 or math.isinf(ratio)):
        raise ValueError(f"length ratio must be a positive number, got {ratio}")
    if duration_ms is not None and duration_ms < 0:
        raise ValueError(f"cue duration must be >= 0 ms, got {duration_ms}")
    ratio_limit = None if ratio is None else ratio_chars_floor(ratio, source_chars)
    if ratio_chars is not None:
        ratio_limit = max(0, ratio_chars)
    layout_limit = None if limits is None else max(0, limits.cpl * limits.lines - markup_chars)
    if room is not None:
        layout_limit = max(0, room) if layout_limit is None else min(layout_limit, max(0, room))
    speed_limit = None
    if limits is not None and limits.reading_speed and duration_ms is not None:
        speed_limit = max(0, chars_in_time(limits.cps, duration_ms) - markup_chars)
    if ratio_limit is None and layout_limit is None and speed_limit is None:
        ratio_limit = ratio_chars_floor(DEFAULT_RATIO, source_chars)
    active = {
        name: value
        for name, value in zip(BINDINGS, (ratio_limit, layout_limit, speed_limit), strict=True)
        if value is not None
    }
    binding = min(active, key=lambda name: active[name])  # first of BINDINGS on a tie
    chars = active[binding]
    return Budget(
        source_chars=source_chars,
        ratio_limit=ratio_limit,
        layout_limit=layout_limit,
        speed_limit=speed_limit,
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
        mode=SLOT if ratio_limit is None else ISOMETRIC,
    )


def fitting_mode(budgets: Iterable[Budget | None], asked: str) -> str:
    """A document's fitting mode as its budgets apply it (each budget's mode is decided once, by
    `segment_budget`): the one mode of all of them, "mixed" when they differ, `asked` when no
    segment has a budget. Slides with no box and no `--ratio` are isometric at ratio 1.0."""
    modes = {b.mode for b in budgets if b is not None}
    if not modes:
        return asked
    return modes.pop() if len(modes) == 1 else "mixed"


class SupportsEncode(Protocol):
    """Anything that turns text into token ids (fitsub's Tokenizer, a SentencePieceProcessor...)."""

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`."""
        ...


def chars_per_subword(
    tokenizer: SupportsEncode, texts: Iterable[str], ignore_ids: Collection[int] = ()
) -> float:
    """Characters per subword measured on `texts`: Σ char_length / Σ pieces.

    Measure on target-language text when some is at hand; with a joint vocabulary the segments
    to translate themselves give a usable estimate. `ignore_ids` are ids not counted as pieces
    (BOS / EOS / length or language tokens the tokenizer's `encode` adds).
    """
    chars = 0
    pieces = 0
    for text in texts:
        chars += char_length(text)
        pieces += sum(1 for i in tokenizer.encode(text) if i not in ignore_ids)
    if chars == 0 or pieces == 0:
        raise ValueError("cannot measure characters per subword: no non-empty text was given")
    return chars / pieces


@dataclass(frozen=True)
class BudgetSummary:
    """What a pre-flight check reports over a document's budgets."""

    segments: int
    too_small: int
    too_short: int
    binding_counts: dict[str, int]
    mode_counts: dict[str, int]  # segments per fitting mode (`MODES`)
    source_chars: int  # total over segments
    budget_chars: int  # total over segments
    mean_budget_ratio: float | None  # mean of chars / source_chars over non-empty sources
    min_budget_ratio: float | None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (unit: characters)."""
        return {
            "unit": "char",
            "segments": self.segments,
            "too_small": self.too_small,
            "too_short": self.too_short,
            "binding_counts": dict(self.binding_counts),
            "mode_counts": dict(self.mode_counts),
            "source_chars": self.source_chars,
            "budget_chars": self.budget_chars,
            "mean_budget_ratio": self.mean_budget_ratio,
            "min_budget_ratio": self.min_budget_ratio,
        }


def summarize_budgets(budgets: Sequence[Budget]) -> BudgetSummary:
    """Counts, totals and budget/source ratios over `budgets` (every binding counted, even at 0)."""
    counts = {name: 0 for name in BINDINGS}
    modes = {name: 0 for name in MODES}
    for b in budgets:
        counts[b.binding] += 1
        modes[b.mode] += 1
    ratios = [b.chars / b.source_chars for b in budgets if b.source_chars > 0]
    return BudgetSummary(
        segments=len(budgets),
        too_small=sum(1 for b in budgets if b.too_small),
        too_short=sum(1 for b in budgets if b.too_short),
        binding_counts=counts,
        mode_counts=modes,
        source_chars=sum(b.source_chars for b in budgets),
        budget_chars=sum(b.chars for b in budgets),
        mean_budget_ratio=sum(ratios) / len(ratios) if ratios else None,
        min_budget_ratio=min(ratios) if ratios else None,
    )
