"""The length ratio and the two fitting modes (docs/fitting.md).

    ratio_limit = floor(ratio × source_chars)      when a ratio is given

* *slot* (`SLOT`, the default for subtitles): no ratio is given, so the budget is the cue's slot
  alone (`fitsub.budget.slot`: layout and reading speed, or a slide box's room). A translation
  that fits the slot is never shortened towards the source's length.
* *isometric* (`ISOMETRIC`): a ratio is given (`--ratio`, `--min-ratio`, the dubbing profile)
  or a speaking window sets the length (`fitsub.budget.speech`), so the ratio limit applies
  too (Lakew et al. 2019 scale the source length), with any slot as a further cap.

The ratio does not count visible markup (a ratio compares words with words). Slides have no
slot by default; with no limit at all, the budget is the isometric one at `DEFAULT_RATIO` 1.0:
the source's length. The rounding is exact on the decimal typed (`fitsub.units`):
floor(0.29 × 100) is 29.
"""

from __future__ import annotations

from fitsub.units import ratio_chars_floor

SLOT = "slot"  # the budget is the cue's slot (layout, reading speed, a box's room)
ISOMETRIC = "isometric"  # a ratio × the source's characters applies (and any slot caps it)
MODES: tuple[str, ...] = (SLOT, ISOMETRIC)
DEFAULT_RATIO = 1.0  # used only when no limit at all is active


def ratio_limit(
    source_chars: int, ratio: float | None, ratio_chars: int | None = None
) -> int | None:
    """floor(ratio × source_chars), or `ratio_chars` (never below 0) when the limit is given in
    characters (a speaking window's, `fitsub.budget.speech`); None when neither is given."""
    if ratio_chars is not None:
        return max(0, ratio_chars)
    return None if ratio is None else ratio_chars_floor(ratio, source_chars)


def asked_mode(ratio: float | None, speaking: bool) -> str:
    """The mode options ask for: `ISOMETRIC` when a ratio or a speaking window (`speaking`)
    applies, else `SLOT` (slides without a box then use the isometric ratio 1.0)."""
    return SLOT if ratio is None and not speaking else ISOMETRIC
