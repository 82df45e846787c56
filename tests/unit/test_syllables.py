"""Syllables and speaking time (`fitsub.budget.speech`, `fitsub.dubbing.speech`): vowel nuclei of espeak-ng's
phonemes, the speech-rate table and its bounds, and the counter against hand-counted words.

The nucleus logic runs on given phoneme strings and needs no espeak-ng; the tests that run the
program skip, saying why, where it is not installed (`make espeak`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fitsub.budget import SPEECH_RATES, seconds_of_syllables, speech_rate_problem
from fitsub.dubbing.speech import (
    HOW_TO_GET,
    SyllableCounter,
    count_nuclei,
    espeak_available,
    require_espeak,
    synthesize_seconds,
    voice_for,
    words_of,
)
from fitsub.errors import InputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "syllables"
needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)


def hand_counts(lang: str) -> list[tuple[str, int]]:
    """The fixture's words and their hand counts ("N: word word ..." lines)."""
    words: list[tuple[str, int]] = []
    for line in (FIXTURES / f"{lang}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        count, _, text = line.partition(":")
        words += [(word, int(count)) for word in text.split()]
    return words


@pytest.mark.parametrize(
    ("phonemes", "lang", "expected"),
    [
        ("h ə l ˈəʊ", "en", 2),  # a diphthong is one phoneme
        ("p ˈoʊ ɪ t ɹ i", "en", 3),  # po-e-try: English keeps the hiatus
        ("w ˈɒ z n̩ t", "en", 2),  # a syllabic n
        ("ɹ ᵻ m ˈɛ m b ɚ", "en", 3),  # the barred i of en-us is a vowel
        ("n ˈo i", "it", 1),  # noi: the unstressed i after a vowel glides
        ("n ˈo i", "en", 2),  # ... only in the languages that glide
        ("p a ˈʊ r a", "it", 3),  # pa-u-ra: a stressed u is its own syllable
        ("n ʊ ˈɔ v o", "it", 2),  # nuo-vo
        ("s t ˈɔ r i  a", "it", 2),  # sto-ria, across espeak-ng's empty token
        ("θ j u ð ˈa d", "es", 2),  # ciu-dad
        ("k y i z ˈi n", "fr", 2),  # cui-sine: the rising diphthong takes the first
        ("ɡ ə b ˈ?? t s t ɑː k", "de", 3),  # a stressed phoneme without IPA is a nucleus
        ("(en) ð ə (fr)", "fr", 1),  # language-switch marks are not phonemes
        ("", "en", 0),
    ],
)
def test_vowel_nuclei_of_given_phonemes(phonemes: str, lang: str, expected: int) -> None:
    assert count_nuclei(phonemes, lang) == expected


@pytest.mark.parametrize("rate", [0.0, -1.0, 20.01, float("nan")])
def test_a_speech_rate_out_of_bounds_is_refused(rate: float) -> None:
    problem = speech_rate_problem(rate)
    assert problem is not None and "syllables/s" in problem
    with pytest.raises(ValueError, match="speech rate"):
        seconds_of_syllables(10, rate)


def test_speaking_time_from_syllables() -> None:
    assert speech_rate_problem(20.0) is None
    assert seconds_of_syllables(14, 7.0) == 2.0
    assert seconds_of_syllables(0, SPEECH_RATES["de"]) == 0.0


def test_the_rate_table_has_pellegrinos_figures() -> None:
    # Pellegrino, Coupé & Marsico 2011, table 1 (syllables/s).
    assert SPEECH_RATES == {"en": 6.19, "it": 6.99, "de": 5.97, "fr": 7.18, "es": 7.82}


def test_spoken_words() -> None:
    assert words_of("«L'anno è 2016», disse — <i>sì</i>.") == [
        "L'anno",
        "è",
        "2016",
        "disse",
        "i",
        "sì",
        "i",
    ]
    assert words_of("") == []


def test_a_language_without_a_counter_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no syllable counter for language 'xx'"):
        voice_for("xx")


def test_missing_espeak_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(InputError) as caught:
        require_espeak("in.srt")
    assert caught.value.problem == HOW_TO_GET
    assert "apt-get install espeak-ng" in str(caught.value)


@needs_espeak
@pytest.mark.parametrize(
    ("lang", "least"), [("it", 0.97), ("de", 0.97), ("fr", 0.97), ("es", 0.97), ("en", 0.97)]
)
def test_the_counter_agrees_with_hand_counts(lang: str, least: float) -> None:
    words = hand_counts(lang)
    assert len(words) >= 200
    counted = SyllableCounter(lang).count_words([w for w, _ in words])
    agree = sum(1 for (_, n), got in zip(words, counted, strict=True) if n == got)
    assert agree / len(words) >= least


@needs_espeak
def test_a_text_counts_its_words_once() -> None:
    counter = SyllableCounter("it")
    assert counter.count("La paura, la paura!") == 2 * (1 + 3)
    assert counter.count_many(["mio zio", "", "Grazie."]) == [4, 0, 2]


@needs_espeak
def test_synthesized_duration_grows_with_the_text() -> None:
    short = synthesize_seconds("Sì.", "it")
    long = synthesize_seconds("Sì, domani mattina andiamo tutti insieme al mare.", "it")
    assert 0 < short < long
    slower = synthesize_seconds("Sì, domani mattina andiamo tutti insieme al mare.", "it", wpm=120)
    assert slower > long
