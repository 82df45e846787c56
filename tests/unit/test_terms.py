"""The accepted-form matcher of the term checks (`fitsub/eval/terms.py`)."""

from __future__ import annotations

import unicodedata

import pytest

from fitsub.eval.terms import count_matches, find_spans, matches, parse_forms


def test_parse_forms_splits_and_drops_blanks() -> None:
    assert parse_forms("api| ape |") == ("api", "ape")
    assert parse_forms("") == ()


def test_whole_word_only() -> None:
    assert matches("Allevo api da anni.", ["api"])
    assert not matches("Non ho capito.", ["api"])  # inside a word
    assert not matches("apicoltore", ["api"])
    assert matches("Uccidi un'ape.", ["ape"])  # after an elided article
    assert matches("l'alveare", ["alveare"])
    assert not matches("Bienenstock", ["Biene"])


def test_prefix_and_suffix_stems() -> None:
    assert matches("Die Bienen summen.", ["Biene*"])
    assert matches("Der Bienenstock", ["Biene*"])
    assert not matches("Die Honigbiene", ["Biene*"])  # a stem matches at a word's start only
    assert matches("Die Honigbiene", ["*biene"])
    assert matches("Waldhonig schmeckt.", ["*honig"])
    assert not matches("Waldhonigs", ["*honig"])


def test_case_insensitive_and_sharp_s() -> None:
    assert matches("ÄRZTIN", ["Ärztin"])
    assert matches("Der Hund bellt.", ["hund*"])
    assert matches("Mein FUSS tut weh.", ["Fuß"])


def test_accents_are_kept_but_normalised() -> None:
    assert matches("un café", ["café"])
    assert not matches("un cafe", ["café"])
    decomposed = unicodedata.normalize("NFD", "la forêt")
    assert matches(decomposed, ["forêt"])
    assert matches("Abeilles!", ["abeilles"])  # punctuation is a word boundary
    assert matches("«abeja»", ["abeja"])


def test_several_words_and_counting() -> None:
    assert matches("des pommes  de\nterre", ["pommes de terre"])
    assert not matches("des pommes de terres", ["pommes de terre"])
    assert (
        count_matches("Un alveare calmo ronza. Un alveare arrabbiato ruggisce.", ["alveare"]) == 2
    )
    # overlapping forms count once
    assert find_spans("Bienenstock", ["Biene*", "Bienenstock"]) == [(0, 11)]


def test_a_bare_star_is_an_error() -> None:
    with pytest.raises(ValueError):
        matches("x", ["*"])
