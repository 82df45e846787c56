"""Length conversions (`fitsub.units`): each named with its unit and rounding, exact on decimals."""

from __future__ import annotations

from fitsub.units import (
    chars_in_time,
    chars_to_no_space,
    ratio_band,
    ratio_chars_ceil,
    ratio_chars_floor,
    subword_target,
)


def test_ratios_are_the_decimals_typed() -> None:
    assert ratio_chars_floor(0.29, 100) == 29  # 0.29 * 100 is 28.999... in binary
    assert ratio_chars_floor(0.9, 11) == 9
    assert ratio_chars_ceil(0.5, 7) == 4
    assert ratio_chars_ceil(0.3, 10) == 3  # 0.3 * 10 is 3.0000000000000004 in binary


def test_the_isometric_band_is_ten_percent_either_side() -> None:
    assert ratio_band(1.0, 40, 0.9, 1.1) == (36, 44)
    assert ratio_band(0.8, 41, 0.9, 1.1) == (30, 36)  # 32.8 → [29.52, 36.08]


def test_reading_speed_in_characters() -> None:
    assert chars_in_time(17.0, 2500) == 42  # 42.5 characters in 2.5 s
    assert chars_in_time(14.7, 1000) == 14
    assert chars_in_time(17.0, 0) == 0


def test_subword_lengths() -> None:
    assert subword_target(42, 3.5) == 12
    assert subword_target(1, 3.5) == 1  # never 0


def test_chars_rescaled_without_spaces() -> None:
    assert chars_to_no_space(20, "ab cd ef gh") == 15  # 8 of 11 characters are not spaces
