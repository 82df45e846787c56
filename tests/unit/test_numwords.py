"""Numbers written as words (`fitsub.quality.numbers`) and the `number-changed` flag that reads them."""

from __future__ import annotations

import pytest

from fitsub.quality.flags import number_changes, numbers, segment_flags
from fitsub.quality.numbers import number_words
from fitsub.quality.registry import NUMBER_CHANGED


@pytest.mark.parametrize(
    ("lang", "text", "values"),
    [
        ("en", "It can hold fifty thousand workers.", ["50000"]),
        ("en", "two hundred and five people, a million stars", ["205", "1000000"]),
        ("it", "può tenere cinquantamila lavoratori, duecento, ventitré", ["50000", "200", "23"]),
        ("de", "fünfzigtausend Arbeiter, einundzwanzig, eine Million", ["50000", "21", "1000000"]),
        ("fr", "quatre-vingt-dix-neuf, vingt et un, cinquante mille", ["99", "21", "50000"]),
        ("es", "cincuenta mil, veintiuno, treinta y dos, doscientos", ["50000", "21", "32", "200"]),
        ("de-AT", "zwölf", ["12"]),
    ],
)
def test_number_words_read_as_values(lang: str, text: str, values: list[str]) -> None:
    assert number_words(text, lang) == values


def test_articles_pronouns_and_lookalikes_are_not_numbers() -> None:
    assert number_words("one of them took one", "en") == []
    assert number_words("tu sei un uomo, una casa", "it") == []
    assert number_words("un livre neuf", "fr") == []
    assert number_words("ein Haus, eine Frau", "de") == []
    assert number_words("often, tension, settembre, centro", "it") == []
    assert number_words("thousands of people", "en") == []  # an amount, not a number
    assert number_words("two and three", "en") == ["2", "3"]
    assert number_words("fifty", "xx") == []  # a language without a table reads none


def test_number_changed_sees_a_number_written_as_words() -> None:
    src = "The stadium can hold fifty thousand workers."
    assert number_changes(src, "Lo stadio può tenere cinquantamila lavoratori.", "en", "it") == (
        [],
        [],
    )
    assert number_changes(src, "Lo stadio può tenere 50.000 lavoratori.", "en", "it") == ([], [])
    lost, added = number_changes(src, "Lo stadio può tenermi.", "en", "it")
    assert (lost, added) == (["50000"], [])
    flags = segment_flags(src, "Lo stadio può tenermi.", None, 60, tgt_lang="it")
    assert [f.name for f in flags] == [NUMBER_CHANGED]
    assert "50000" in flags[0].detail


def test_times_and_whole_hours() -> None:
    assert numbers("at 3 pm") == ["15"]
    assert numbers("at 12 am and 10:30 a.m.") == ["0", "10", "30"]
    assert number_changes("We meet at 3 pm.", "Ci vediamo alle 15:00.") == ([], [])
    assert number_changes("It opens at 9:00.", "Apre alle 9.") == ([], [])
    assert number_changes("We meet at 3 pm.", "Ci vediamo alle 13.") == (["15"], ["13"])


def test_a_number_inside_a_compound_or_an_ambiguous_word_is_not_missing() -> None:
    src = "She tried to kill her two-year-old daughter."
    assert number_changes(src, "Ha cercato di uccidere la figlia zweijährige.", "en", "de") == (
        [],
        [],
    )
    assert number_changes("Six other journalists.", "Sei altre giornaliste.", "en", "it") == (
        [],
        [],
    )
    assert number_changes("only 11 percent", "solo l'11 per cento", "en", "it") == ([], [])
    assert number_changes("six million years ago", "vor sechs Jahren", "en", "de") == (
        ["6000000"],
        ["6"],
    )


@pytest.mark.parametrize(
    ("text", "lang"),
    [("Grazie mille.", "it"), ("Mille grazie!", "it"), ("Merci mille fois.", "fr"),
     ("Mil gracias.", "es"), ("Tausend Dank!", "de")],
)  # fmt: skip
def test_thanks_with_a_number_word_hold_no_number(text: str, lang: str) -> None:
    assert number_words(text, lang) == []


def test_the_same_word_outside_the_idiom_is_a_number() -> None:
    assert number_words("Costa mille euro, grazie mille.", "it") == ["1000"]
