"""Line breaking: CPL and line limits, good break points, bottom-heavy shape, nothing dropped."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitsub.reflow import break_cost, fits_layout, reflow
from fitsub.units import char_length


def _layouts(words: list[str], max_lines: int) -> list[list[str]]:
    """Every way to lay the words out over 1..max_lines non-empty lines (brute force)."""
    out = []
    n = len(words)
    for k in range(1, min(max_lines, n) + 1):
        for cuts in itertools.combinations(range(1, n), k - 1):
            bounds = [0, *cuts, n]
            out.append([" ".join(words[a:b]) for a, b in itertools.pairwise(bounds)])
    return out


def test_one_line_when_it_fits() -> None:
    text = "Ci vediamo domani, va bene?"  # 27 characters
    assert reflow(text, 42, 2) == [text]
    assert reflow("  Ci  vediamo\ndomani ", 42, 2) == ["Ci vediamo domani"]


def test_exactly_cpl_is_one_line() -> None:
    text = "a" * 20 + " " + "b" * 21  # 42 characters
    assert reflow(text, 42, 2) == [text]


def test_empty_text_has_no_lines() -> None:
    assert reflow("   ", 42, 2) == []


def test_long_italian_line_respects_cpl_and_keeps_words() -> None:
    text = "Non so se riuscirò a venire alla festa di domani sera con gli amici."
    out = reflow(text, 42, 2, "it")
    assert len(out) == 2 and fits_layout(out, 42, 2)
    assert " ".join(out) == text
    assert out == ["Non so se riuscirò a venire alla festa", "di domani sera con gli amici."]


def test_break_after_punctuation_beats_balance() -> None:
    # The comma gives 16 | 33 characters; a balanced break would be near the middle.
    text = "Sono arrivato tardi, ma nessuno se ne è accorto davvero"
    out = reflow(text, 42, 2, "it")
    assert out == ["Sono arrivato tardi,", "ma nessuno se ne è accorto davvero"]


def test_break_before_conjunction() -> None:
    out = reflow("I went to the store and bought some apples for the pie.", 42, 2, "en")
    assert out == ["I went to the store", "and bought some apples for the pie."]


def test_never_after_an_article_even_at_the_balanced_point() -> None:
    # Words balance best as "abcde fghij il" | "libro nuovo mn" (14 | 14); "il" must stay with "libro".
    out = reflow("abcde fghij il libro nuovo mn", 20, 2, "it")
    assert fits_layout(out, 20, 2)
    assert not any(line.split()[-1] == "il" for line in out[:-1])
    assert out == ["abcde fghij", "il libro nuovo mn"]
    out = reflow("we bought the car yesterday", 17, 2, "en")
    assert out == ["we bought", "the car yesterday"]


def test_articulated_preposition_stays_with_its_noun() -> None:
    out = reflow("Lo abbiamo trovato dentro alla vecchia casa", 24, 2, "it")
    assert fits_layout(out, 24, 2)
    assert all(line.split()[-1] != "alla" for line in out)


def test_prefers_bottom_heavy() -> None:
    # Neutral words: 9 | 14 and 14 | 9 are equally balanced; the longer line goes below.
    assert reflow("aaaa bbbb cccc dddd eeee", 20, 2) == ["aaaa bbbb", "cccc dddd eeee"]


def test_elision_is_one_word() -> None:
    out = reflow("Ho incontrato l'amico dell'avvocato ieri", 22, 2, "it")
    words = [w for line in out for w in line.split()]
    assert "l'amico" in words and "dell'avvocato" in words
    assert fits_layout(out, 22, 2)


def test_dialogue_lines_each_start_with_their_dash() -> None:
    out = reflow("- Ciao, come stai? - Bene, grazie, e tu?", 30, 2, "it")
    assert out == ["- Ciao, come stai?", "- Bene, grazie, e tu?"]


def test_fewest_lines_that_fit_are_used() -> None:
    text = "one two three four five six seven eight"  # 39 characters: 2 lines of 30
    out = reflow(text, 30, 4, "en")
    assert len(out) == 2 and fits_layout(out, 30, 4)


def test_three_lines_for_slides() -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
    out = reflow(text, 22, 3, "en")
    assert len(out) == 3 and fits_layout(out, 22, 3) and " ".join(out) == text


def test_text_too_long_overflows_without_dropping_words() -> None:
    text = " ".join(["parola"] * 20)  # 139 characters > 2 × 42
    out = reflow(text, 42, 2, "it")
    assert len(out) == 2 and " ".join(out) == text
    assert not fits_layout(out, 42, 2)
    # The overflow is spread: no line is longer than needed for two lines.
    assert max(char_length(line) for line in out) == 69


def test_word_longer_than_cpl_overflows_its_line() -> None:
    out = reflow("il supercalifragilistichespiralidoso gatto", 20, 2, "it")
    assert " ".join(out) == "il supercalifragilistichespiralidoso gatto"
    assert len(out) == 2 and not fits_layout(out, 20, 2)


def test_single_line_limit_returns_the_text() -> None:
    assert reflow("troppo lungo per una riga", 10, 1) == ["troppo lungo per una riga"]


def test_fits_layout() -> None:
    assert fits_layout(["abc", "de"], 3, 2)
    assert not fits_layout(["abcd"], 3, 2)
    assert not fits_layout(["a", "b", "c"], 3, 2)
    assert fits_layout(["città"], 5, 1)  # characters, not bytes


def test_break_costs_rank_the_rules() -> None:
    assert break_cost("finito.", "Poi", "it") < break_cost("finito", "poi", "it")
    assert break_cost("casa", "e", "it") < break_cost("casa", "rossa", "it")
    assert break_cost("casa", "rossa", "it") < break_cost("di", "casa", "it")
    assert break_cost("la", "casa", "it") >= 1000
    assert break_cost("the", "house", "en") >= 1000


def test_bad_limits_are_rejected() -> None:
    with pytest.raises(ValueError):
        reflow("ciao", 0, 2)


_WORD = st.text(alphabet="bcdfghkmnp", min_size=1, max_size=9)  # no vowels: no function word


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(_WORD, min_size=1, max_size=8),
    cpl=st.integers(min_value=3, max_value=30),
    lines=st.integers(min_value=1, max_value=3),
)
def test_property_fits_when_possible_and_keeps_words(
    words: list[str], cpl: int, lines: int
) -> None:
    out = reflow(" ".join(words), cpl, lines, "it")
    assert " ".join(out) == " ".join(words)
    assert 1 <= len(out) <= lines
    if any(fits_layout(layout, cpl, lines) for layout in _layouts(words, lines)):
        assert fits_layout(out, cpl, lines)


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(
        st.one_of(_WORD, st.sampled_from(["il", "la", "gli", "una"])), min_size=2, max_size=8
    ),
    cpl=st.integers(min_value=5, max_value=25),
    lines=st.integers(min_value=2, max_value=3),
)
def test_property_no_break_after_article_when_avoidable(
    words: list[str], cpl: int, lines: int
) -> None:
    articles = {"il", "la", "gli", "una"}

    def clean(layout: list[str]) -> bool:
        return fits_layout(layout, cpl, lines) and all(
            line.split()[-1] not in articles for line in layout[:-1]
        )

    out = reflow(" ".join(words), cpl, lines, "it")
    if any(clean(layout) for layout in _layouts(words, lines)):
        assert clean(out)


def test_a_line_never_breaks_at_a_no_break_space() -> None:
    text = "Il a dit «\u00a0rentre\u00a0» et il est parti très loin."
    lines = reflow(text, cpl=12, lines=4, lang="fr")
    assert "«\u00a0rentre\u00a0»" in lines[1:2] + [w for x in lines for w in x.split(" ")]
    assert " ".join(lines) == text
