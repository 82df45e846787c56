"""The dubbing re-ask corrects a missed line's characters by its syllables, both ways."""

from __future__ import annotations

from fitsub.budget import SpeechWindow
from fitsub.glossary import Shielded
from fitsub.pipeline.respeak import _corrected
from fitsub.pipeline.work import Unit

WINDOW = SpeechWindow(
    seconds=2.0,
    target_syllables=12.0,
    max_syllables=12,
    min_syllables=11,
    max_chars=30,
    min_chars=27,
)


def unit() -> Unit:
    text = "We keep the bees on the roof."
    return Unit(Shielded(text), text, 30, (0,), (30,), 0, window=WINDOW)


def test_too_many_syllables_asks_for_fewer_characters() -> None:
    fixed = _corrected(unit(), 16)
    assert fixed is not None and fixed.window is not None
    assert (fixed.budget, fixed.window.max_chars, fixed.window.min_chars) == (22, 22, 21)
    assert fixed.request(fixed.budget).max_chars == 22


def test_too_few_syllables_asks_for_more_characters() -> None:
    fixed = _corrected(unit(), 8)  # 12 / 8: half as many characters again
    assert fixed is not None and fixed.window is not None
    assert (fixed.budget, fixed.window.max_chars, fixed.window.min_chars) == (45, 45, 41)
    req = fixed.request(fixed.budget)
    assert (req.target_chars, req.max_chars, req.min_chars) == (45, 45, 41)


def test_on_target_or_no_syllables_asks_nothing() -> None:
    assert _corrected(unit(), 12) is None
    assert _corrected(unit(), 0) is None
