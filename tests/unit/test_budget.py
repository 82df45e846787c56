"""Per-segment budgets: hand-computed limits, the binding one, the too-small flag, subwords."""

from __future__ import annotations

import json
import math

import pytest

from fitsub.budget import (
    LANGUAGE_LIMITS,
    Budget,
    Limits,
    is_too_short,
    limits_for,
    min_plausible_chars,
    segment_budget,
    summarize_budgets,
)
from fitsub.units import char_length

IT = LANGUAGE_LIMITS["it"]
EN = LANGUAGE_LIMITS["en"]


def test_netflix_defaults() -> None:
    assert LANGUAGE_LIMITS["it"] == Limits(cpl=42, lines=2, cps=17.0)
    assert LANGUAGE_LIMITS["en"] == Limits(cpl=42, lines=2, cps=20.0)
    for lang in ("de", "fr", "es"):
        assert LANGUAGE_LIMITS[lang] == Limits(cpl=42, lines=2, cps=17.0)


def test_italian_cue_bound_by_reading_speed() -> None:
    # 17 cps × 2.5 s = 42.5 -> 42; 42 × 2 = 84; 1.0 × 50 = 50: speed binds at 42.
    b = segment_budget(50, ratio=1.0, limits=IT, duration_ms=2500)
    assert (b.ratio_limit, b.layout_limit, b.speed_limit) == (50, 84, 42)
    assert (b.chars, b.binding, b.too_small) == (42, "speed", False)


def test_english_cue_bound_by_ratio() -> None:
    # 0.9 × 60 = 54; 84; 20 cps × 4 s = 80: ratio binds at 54.
    b = segment_budget(60, ratio=0.9, limits=EN, duration_ms=4000)
    assert (b.ratio_limit, b.layout_limit, b.speed_limit) == (54, 84, 80)
    assert (b.chars, b.binding) == (54, "ratio")


def test_long_cue_bound_by_layout() -> None:
    # 1.0 × 100 = 100; 84; 17 × 7.2 = 122.4 -> 122: layout binds at 84.
    b = segment_budget(100, ratio=1.0, limits=IT, duration_ms=7200)
    assert (b.ratio_limit, b.layout_limit, b.speed_limit) == (100, 84, 122)
    assert (b.chars, b.binding) == (84, "layout")


def test_limits_round_down_despite_float_error() -> None:
    # 2.3 × 100 is 229.99999999999997 in binary floating point; the budget is still 230.
    assert segment_budget(100, ratio=2.3, limits=None, duration_ms=None).chars == 230
    # 17 × 1.999 s = 33.983 -> 33 (a budget is a maximum: never rounded up).
    assert segment_budget(80, ratio=None, limits=IT, duration_ms=1999).chars == 33


def test_short_cue_is_flagged_too_small() -> None:
    # A 0.3 s cue: 17 × 0.3 = 5.1 -> 5 characters for a 20-character line (minimum 10).
    b = segment_budget(20, ratio=1.0, limits=IT, duration_ms=300)
    assert (b.speed_limit, b.chars, b.binding, b.too_small) == (5, 5, "speed", True)
    assert min_plausible_chars(20) == 10


def test_short_source_in_short_cue_is_not_flagged() -> None:
    # "Sì." (3 chars) in 0.3 s: ratio 3, speed 5 -> 3, which is the source's own length.
    b = segment_budget(char_length("Sì."), ratio=1.0, limits=IT, duration_ms=300)
    assert (b.chars, b.binding, b.too_small) == (3, "ratio", False)


def test_min_plausible_chars_rule() -> None:
    assert [min_plausible_chars(n) for n in (0, 2, 4, 6, 9, 11, 50)] == [0, 2, 4, 4, 5, 6, 25]
    assert segment_budget(50, ratio=0.49, limits=None, duration_ms=None).too_small  # 24 < 25
    assert not segment_budget(50, ratio=0.5, limits=None, duration_ms=None).too_small


def test_slides_without_limits_use_the_ratio_only() -> None:
    b = segment_budget(33, ratio=1.2, limits=None, duration_ms=None)  # 39.6 -> 39
    assert (b.ratio_limit, b.layout_limit, b.speed_limit, b.chars) == (39, None, None, 39)
    assert b.binding == "ratio"


def test_untimed_segment_with_limits_has_no_speed_limit() -> None:
    b = segment_budget(120, ratio=None, limits=IT, duration_ms=None)
    assert (b.ratio_limit, b.layout_limit, b.speed_limit) == (None, 84, None)
    assert (b.chars, b.binding) == (84, "layout")


def test_no_ratio_uses_layout_and_speed() -> None:
    b = segment_budget(30, ratio=None, limits=EN, duration_ms=1500)  # 20 × 1.5 = 30
    assert (b.ratio_limit, b.chars, b.binding) == (None, 30, "speed")


def test_no_active_limit_is_isometric() -> None:
    b = segment_budget(37, ratio=None, limits=None, duration_ms=None)
    assert (b.ratio_limit, b.chars, b.binding, b.too_small) == (37, 37, "ratio", False)


def test_ties_go_to_ratio_then_layout() -> None:
    # ratio 84 = layout 84 < speed 85 (17 × 5 s).
    b = segment_budget(84, ratio=1.0, limits=IT, duration_ms=5000)
    assert (b.chars, b.binding) == (84, "ratio")
    b = segment_budget(100, ratio=1.0, limits=Limits(cpl=40, lines=2, cps=16.0), duration_ms=5000)
    assert (b.layout_limit, b.speed_limit, b.binding) == (80, 80, "layout")


def test_zero_length_cue_has_zero_budget_and_is_flagged() -> None:
    b = segment_budget(12, ratio=1.0, limits=IT, duration_ms=0)
    assert (b.chars, b.too_small) == (0, True)


def test_overrides_replace_single_fields() -> None:
    assert limits_for("it", cpl=37) == Limits(cpl=37, lines=2, cps=17.0)
    assert limits_for("it", lines=1, cps=15) == Limits(cpl=42, lines=1, cps=15)
    assert limits_for("en-US") == EN
    assert limits_for("DE") == LANGUAGE_LIMITS["de"]


def test_unknown_language_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"'xx'.*de, en, es, fr, it"):
        limits_for("xx")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cpl": 0}, "characters per line"),
        ({"lines": 0}, "lines"),
        ({"cps": 0.0}, "characters per second"),
        ({"cps": float("nan")}, "characters per second"),
    ],
)
def test_bad_overrides_are_rejected(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        limits_for("it", **kwargs)  # type: ignore[arg-type]


def test_bad_segment_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="ratio"):
        segment_budget(10, ratio=0.0, limits=None, duration_ms=None)
    with pytest.raises(ValueError, match="duration"):
        segment_budget(10, ratio=1.0, limits=IT, duration_ms=-5)
    with pytest.raises(ValueError, match="source length"):
        segment_budget(-1, ratio=1.0, limits=None, duration_ms=None)


def test_budget_to_dict_is_json() -> None:
    b = segment_budget(50, ratio=1.0, limits=IT, duration_ms=2500)
    d = json.loads(json.dumps(b.to_dict()))
    assert d["chars"] == 42 and d["binding"] == "speed" and d["unit"] == "char"
    assert d["ratio_limit"] == 50 and d["min_plausible_chars"] == 25


def test_summary_counts_and_ratios() -> None:
    budgets: list[Budget] = [
        segment_budget(50, ratio=1.0, limits=IT, duration_ms=2500),  # 42 speed
        segment_budget(100, ratio=1.0, limits=IT, duration_ms=7200),  # 84 layout
        segment_budget(20, ratio=1.0, limits=IT, duration_ms=300),  # 5 speed, too small
        segment_budget(10, ratio=1.0, limits=IT, duration_ms=3000),  # 10 ratio
    ]
    s = summarize_budgets(budgets)
    assert (s.segments, s.too_small) == (4, 1)
    assert s.binding_counts == {"ratio": 1, "layout": 1, "speed": 2}
    assert (s.source_chars, s.budget_chars) == (180, 141)
    assert s.mean_budget_ratio == pytest.approx((42 / 50 + 84 / 100 + 5 / 20 + 1.0) / 4)
    assert s.min_budget_ratio == pytest.approx(0.25)
    assert json.loads(json.dumps(s.to_dict()))["binding_counts"]["speed"] == 2


def test_empty_summary() -> None:
    s = summarize_budgets([])
    assert (s.segments, s.too_small, s.mean_budget_ratio) == (0, 0, None)
    assert s.binding_counts == {"ratio": 0, "layout": 0, "speed": 0}


def test_dialogue_dashes_count_against_layout_and_speed_not_ratio() -> None:
    # "- Is this seat free?\n- Yes, please sit down." for 1.5 s: 40 characters of words and
    # 4 of dashes; the viewer reads all 44, so the speed limit is floor(17 × 1.5) − 4 = 21.
    b = segment_budget(40, ratio=1.0, limits=IT, duration_ms=1500, markup_chars=4)
    assert (b.ratio_limit, b.layout_limit, b.speed_limit) == (40, 80, 21)
    assert (b.chars, b.binding, b.markup_chars) == (21, "speed", 4)
    assert b.chars + b.markup_chars <= math.floor(IT.cps * 1.5)
    # without limits (slides) nothing is taken off
    assert segment_budget(40, ratio=1.0, limits=None, duration_ms=None, markup_chars=4).chars == 40
    # never below zero
    tiny = segment_budget(10, ratio=1.0, limits=IT, duration_ms=100, markup_chars=4)
    assert (tiny.speed_limit, tiny.chars, tiny.too_small) == (0, 0, True)
    with pytest.raises(ValueError, match="markup"):
        segment_budget(10, ratio=1.0, limits=IT, duration_ms=1000, markup_chars=-1)


@pytest.mark.parametrize(
    ("duration_ms", "words", "short"),
    [
        (600, 1, True),  # "Wow." for 0.6 s: under the 5/6 s minimum
        (833, 1, False),
        (900, 1, False),
        (900, 2, True),  # "Thank you." for 0.9 s: more than a word in under a second
        (999, 5, True),
        (1000, 5, False),
        (0, 3, True),
    ],
)
def test_too_short_cues_are_flagged(duration_ms: int, words: int, short: bool) -> None:
    assert is_too_short(duration_ms, words) is short
    b = segment_budget(4 * words, ratio=1.0, limits=IT, duration_ms=duration_ms, source_words=words)
    assert b.too_short is short
    assert b.to_dict()["too_short"] is short


def test_untimed_segments_are_never_too_short() -> None:
    assert not segment_budget(20, ratio=1.0, limits=IT, duration_ms=None, source_words=4).too_short
    assert not segment_budget(20, ratio=1.0, limits=None, duration_ms=None).too_short


def test_summary_counts_too_short() -> None:
    budgets = [
        segment_budget(10, ratio=1.0, limits=IT, duration_ms=600, source_words=2),
        segment_budget(10, ratio=1.0, limits=IT, duration_ms=3000, source_words=2),
    ]
    assert summarize_budgets(budgets).too_short == 1
    assert summarize_budgets(budgets).to_dict()["too_short"] == 1


def test_the_fitting_mode_of_a_document_is_its_budgets_mode() -> None:
    from fitsub.budget import ISOMETRIC, SLOT, fitting_mode, segment_budget

    slide = segment_budget(source_chars=20, ratio=None, limits=None, duration_ms=None)
    assert slide.mode == ISOMETRIC  # a slide with no box and no ratio: ratio 1.0
    assert fitting_mode([slide, None], asked=SLOT) == ISOMETRIC  # what the report now says
    cue = segment_budget(source_chars=20, ratio=None, limits=limits_for("it"), duration_ms=2000)
    assert cue.mode == SLOT
    assert fitting_mode([cue, slide], asked=SLOT) == "mixed"
    assert fitting_mode([None], asked=SLOT) == SLOT
