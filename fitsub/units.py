"""The one definition of length in fitsub.

Every API that takes or returns a length names its unit: `chars` (Unicode code points of the
visible text, spaces included, markup excluded: what a subtitle line's CPL counts) or
`subwords` (SentencePiece pieces). The IWSLT 2022 isometric length compliance counts
characters *without* spaces: `chars_no_space`.
"""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction
from typing import Literal

LengthUnit = Literal["char", "subword"]
LENGTH_UNITS: tuple[LengthUnit, ...] = ("char", "subword")


def char_length(text: str) -> int:
    """Visible length in characters of plain text (NFC code points, newlines not counted)."""
    return len(unicodedata.normalize("NFC", text).replace("\n", "").replace("\r", ""))


def chars_no_space(text: str) -> int:
    """Length in characters without whitespace, as the IWSLT 2022 isometric task counts it."""
    return sum(1 for ch in unicodedata.normalize("NFC", text) if not ch.isspace())


# --- Conversions between units. Each one lives here, named with its unit and its rounding. ---

BoundUnit = Literal["char", "char_no_space"]
"""The unit of a request's hard bounds (`fitsub.backend.Request.bound_unit`): `char` counts
`char_length`, `char_no_space` counts `chars_no_space` (IWSLT 2022's length compliance)."""


def _decimal(ratio: float) -> Fraction:
    """The ratio as the decimal the user typed: 0.29 is 29/100, not 0.28999999999999998."""
    return Fraction(repr(float(ratio)))


def ratio_chars_floor(ratio: float, chars: int) -> int:
    """A length limit from a ratio of a source length: floor(ratio × chars), exact.

    Budgets, requested lengths and `fit` use this: the limit never exceeds the ratio."""
    return math.floor(_decimal(ratio) * chars)


def ratio_chars_ceil(ratio: float, chars: int) -> int:
    """A lower bound from a ratio of a source length: ceil(ratio × chars), exact.

    `--min-ratio` uses this: an output of this length is never shorter than the ratio."""
    return math.ceil(_decimal(ratio) * chars)


def ratio_band(ratio: float, chars: int, low: float, high: float) -> tuple[int, int]:
    """The lengths within `low`..`high` times ratio × chars: (ceil(low × ratio × chars),
    floor(high × ratio × chars)), exact (IWSLT 2022's ±10 % band is `low` 0.9, `high` 1.1)."""
    target = _decimal(ratio) * chars
    return math.ceil(_decimal(low) * target), math.floor(_decimal(high) * target)


def chars_in_time(cps: float, duration_ms: int) -> int:
    """The characters read in `duration_ms` at `cps` characters per second:
    floor(cps × duration_ms / 1000), exact (a reading-speed limit)."""
    return math.floor(_decimal(cps) * duration_ms / 1000)


def subword_target(chars: int, chars_per_subword: float) -> int:
    """The length in subwords asked of a model trained on subword lengths, for a requested
    length in characters: round(chars / chars_per_subword), at least 1 (a request, not a cap:
    the hard budget stays in characters)."""
    return max(1, round(chars / chars_per_subword))


def chars_to_no_space(chars: int, text: str) -> int:
    """A length in characters (with spaces) rescaled to characters without spaces by `text`'s
    own proportion: round(chars × chars_no_space(text) / char_length(text))."""
    return round(chars * chars_no_space(text) / max(char_length(text), 1))


SPACE_MARK = "\u2581"  # SentencePiece's word-boundary marker `▁`; a byte-level BPE uses "Ġ"


def piece_chars(piece: str, mark: str = SPACE_MARK) -> int:
    """Characters a vocabulary piece adds to detokenised text: its text with the word-boundary
    mark counted as one space (special pieces are the caller's to zero)."""
    return len(piece)


def piece_leading_space(piece: str, mark: str = SPACE_MARK) -> int:
    """1 when the piece starts with the word-boundary mark (the space detokenisation drops at
    the start of a text), else 0."""
    return 1 if piece.startswith(mark) else 0
