"""Sentence grouping across cues and the sharing of a translation among them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fitsub.markup import protect
from fitsub.pipeline.across_cues import (
    CueSpan,
    distribute,
    ends_sentence,
    group_cues,
    overflow,
    resplit,
)
from fitsub.reflow import fits_layout, reflow


def test_ends_sentence_on_final_punctuation_and_closing_quotes() -> None:
    assert ends_sentence("I am here.")
    assert ends_sentence('He said "go!"')
    assert ends_sentence("♪ la la ♪")
    assert not ends_sentence("When I was young,")
    assert not ends_sentence("and then we")


def test_group_joins_a_sentence_running_across_three_cues() -> None:
    cues = [
        CueSpan("Hello.", 0, 1000),
        CueSpan("When we arrived at the station,", 1100, 2500),
        CueSpan("the train had already left", 2600, 4000),
        CueSpan("without us.", 4100, 5000),
        CueSpan("Too bad.", 5200, 6000),
    ]
    assert group_cues(cues) == [[0], [1, 2, 3], [4]]


def test_group_breaks_on_long_gaps_and_unjoinable_cues() -> None:
    cues = [
        CueSpan("When we arrived", 0, 1000),
        CueSpan("it was late.", 5000, 6000),  # 4 s gap: a new sentence
        CueSpan("And then", 6100, 7000),
        CueSpan("Hi. Hello.", 7100, 8000, joinable=False),  # a dialogue cue stays alone
    ]
    assert group_cues(cues) == [[0], [1], [2], [3]]


def test_distribute_follows_budgets_and_prefers_punctuation() -> None:
    parts = distribute("Quando siamo arrivati, il treno era già partito", [20, 30])
    assert parts == ["Quando siamo arrivati,", "il treno era già partito"]


def test_distribute_returns_none_with_fewer_words_than_cues() -> None:
    assert distribute("Ciao", [10, 10]) is None


@given(
    st.lists(st.text(alphabet="abcdefgh,.", min_size=1, max_size=9), min_size=3, max_size=30),
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=3),
)
def test_distribute_keeps_every_word_in_order(words: list[str], budgets: list[int]) -> None:
    text = " ".join(words)
    parts = distribute(text, budgets)
    assert parts is not None
    assert len(parts) == len(budgets)
    assert all(p for p in parts)
    assert " ".join(parts).split() == text.split()


def test_distribute_fits_each_part_when_possible() -> None:
    words = "uno due tre quattro cinque sei sette otto nove dieci".split()
    parts = distribute(" ".join(words), [20, 20, 20])
    assert parts is not None
    assert [len(p) <= b for p, b in zip(parts, [20, 20, 20], strict=True)] == [True] * 3


def test_resplit_moves_words_so_every_part_fits_its_lines() -> None:
    text = "Quando siamo arrivati alla stazione, il treno era già partito senza di noi."
    budgets = [22, 28, 32]

    def two_lines_of_14(k: int, part: str) -> bool:
        return fits_layout(reflow(part, 14, 2), 14, 2)

    proportional = distribute(text, budgets)
    assert proportional == [
        "Quando siamo arrivati",
        "alla stazione, il treno",
        "era già partito senza di noi.",  # 29 characters: not on two lines of 14
    ]
    assert overflow(proportional, budgets) == 0 and not two_lines_of_14(2, proportional[2])
    parts = resplit(text, budgets, two_lines_of_14)
    assert parts == [
        "Quando siamo arrivati",
        "alla stazione, il treno era",
        "già partito senza di noi.",
    ]
    assert all(two_lines_of_14(k, part) for k, part in enumerate(parts))


def test_resplit_respects_the_callers_layout_check() -> None:
    text = "uno due tre quattro cinque sei"
    # any part of more than two words is refused (a stand-in for a line layout check)
    parts = resplit(text, [30, 30, 30], lambda k, part: len(part.split()) <= 2)
    assert parts == ["uno due", "tre quattro", "cinque sei"]
    assert resplit(text, [30, 30], lambda k, part: len(part.split()) <= 2) is None


def test_resplit_is_none_when_no_split_fits() -> None:
    assert resplit("L'anno scorso sono andata a Roma con la mia sorella.", [10, 10, 10]) is None
    assert resplit("Ciao", [10, 10]) is None


@given(
    st.lists(st.text(alphabet="abcdefgh,.", min_size=1, max_size=9), min_size=3, max_size=30),
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=3),
)
def test_resplit_keeps_every_word_and_fits_when_it_answers(
    words: list[str], budgets: list[int]
) -> None:
    text = " ".join(words)
    parts = resplit(text, budgets)
    if parts is None:
        # then no split fits: in particular the proportional one does not
        proportional = distribute(text, budgets)
        assert proportional is not None and overflow(proportional, budgets) > 0
        return
    assert len(parts) == len(budgets) and all(parts)
    assert " ".join(parts).split() == text.split()
    assert overflow(parts, budgets) == 0


def test_song_lines_and_effects_are_never_joined() -> None:
    # what the pipeline builds for samples/talk.vtt cues 9-10: a song line does not end with
    # punctuation, yet the next cue is a sentence of its own
    song = protect("♪ Row, row, row your boat ♪", "vtt")
    effect = protect("[door closes]", "vtt")
    line = protect("<c.yellow>I am very hungry.</c>", "vtt")
    assert not song.joinable and not effect.joinable and line.joinable
    cues = [
        CueSpan("My brother lives", 0, 1000),
        CueSpan(effect.plain, 1100, 2000, effect.joinable),
        CueSpan(song.plain, 2100, 3000, song.joinable),
        CueSpan(line.plain, 3100, 4000, line.joinable),
    ]
    assert group_cues(cues) == [[0], [1], [2], [3]]
