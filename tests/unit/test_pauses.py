"""The pause marks a speaker stops at inside a line (`fitsub.budget.speech.pause_counts`) and
the speaking-time estimate built on them (issue 60, item 2)."""

from __future__ import annotations

import pytest

from fitsub.budget.speech import (
    ARTICULATION_RATES,
    PAUSE_SECONDS,
    SPEECH_RATES,
    articulation_rate,
    pause_counts,
    pause_seconds,
    speaking_seconds,
)
from fitsub.dubbing.speech import SyllableCounter, espeak_available
from fitsub.metrics.speaking import SpeechScoring


@pytest.mark.parametrize(
    ("text", "comma", "brk"),
    [
        ("Well, I — I don't know... Wait. Go!", 1, 3),
        ("It costs 3.50 dollars, 1,000 in all.", 1, 0),  # no pause inside a number
        ("Hi!", 0, 0),  # the last mark is not a pause inside the line
        ("So.... what?", 0, 1),  # an ellipsis is one break, not a stop and dots
        ("Sì: vieni; subito - adesso!", 2, 1),
        ("well-known e-mail", 0, 0),  # a hyphen inside a word is no dash
        ("N'importe quoi… C'est pas grave.", 0, 1),
        ("", 0, 0),
    ],
)
def test_pause_counts(text: str, comma: int, brk: int) -> None:
    assert pause_counts(text) == {"comma": comma, "break": brk}


def test_speaking_seconds_adds_the_pauses_to_the_syllables() -> None:
    assert speaking_seconds("Sì, ho aspettato.", 6, "it") == pytest.approx(
        6 / ARTICULATION_RATES["it"] + PAUSE_SECONDS["it"]["comma"]
    )
    assert pause_seconds("No pause here.", "de") == 0.0
    # the articulation rate is faster than the published rate, which spreads the pauses
    assert all(ARTICULATION_RATES[k] > SPEECH_RATES[k] for k in ARTICULATION_RATES)


def test_a_speech_rate_override_scales_the_articulation_rate() -> None:
    doubled = articulation_rate("fr", 2 * SPEECH_RATES["fr"])
    assert doubled == pytest.approx(2 * ARTICULATION_RATES["fr"])
    assert articulation_rate("fr") == ARTICULATION_RATES["fr"]


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed (make espeak)")
def test_eval_and_dub_check_measure_seconds_with_the_pauses() -> None:
    scoring = SpeechScoring("seconds", src_lang="en", lang="it")
    text = "Sì, ho aspettato. Poi sono partito."
    syllables = SyllableCounter("it").count(text)
    expected = syllables / ARTICULATION_RATES["it"] + sum(PAUSE_SECONDS["it"].values())
    assert scoring.lengths([text], source=False) == [pytest.approx(expected)]
    plain = scoring.lengths(["Sì ho aspettato poi sono partito"], source=False)[0]
    assert plain == pytest.approx(syllables / ARTICULATION_RATES["it"])
