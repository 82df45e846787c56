"""Fewer false flags: names, interjections and short kept words are not `untranslated`; a
shorter fitted line that keeps its meaning-bearing tokens is not `dropped-content`."""

from __future__ import annotations

from fitsub.quality.flags import dropped_content, is_untranslated, segment_flags
from fitsub.quality.registry import DROPPED_CONTENT, UNTRANSLATED


def test_a_name_the_unconstrained_translation_keeps_is_not_untranslated() -> None:
    assert not is_untranslated("Scales?", "Scales?", "Scales?")
    assert not is_untranslated("Sintel!", "Sintel!", "Sintel, dai!")
    assert [f.name for f in segment_flags("Scales?", "Scales?", "Scales?", 10)] == []


def test_interjections_are_not_untranslated() -> None:
    assert not is_untranslated("OK.", "OK.")
    assert not is_untranslated("Hmm, okay.", "Hmm, okay.", None)


def test_a_copy_the_unconstrained_translation_translates_is_untranslated() -> None:
    assert is_untranslated("Thanks.", "Thanks.", "Grazie.")
    assert is_untranslated("Thanks.", "Thanks.")  # nothing says the word is kept on purpose
    # a long line copied by both is still untranslated: the short-line rule does not apply
    long = "I love this city so much."
    assert is_untranslated(long, long, long)


def test_a_short_but_whole_translation_is_not_dropped_content() -> None:
    # "Danke." for "Vielen Dank!": half the characters, no meaning lost
    assert dropped_content("Thank you very much.", "Danke.", "Vielen Dank!", 20) is None
    names = [f.name for f in segment_flags("Thank you very much.", "Danke.", "Vielen Dank!", 20)]
    assert DROPPED_CONTENT not in names and UNTRANSLATED not in names


def test_dropped_names_numbers_and_content_words_are_flagged() -> None:
    src = "These are dragon lands, Sintel."
    detail = dropped_content(
        src, "Sono terre di draghi.", "Queste sono terre di draghi, Sintel.", 40
    )
    assert detail == "lost sintel"
    detail = dropped_content("I waited 20 minutes.", "Ho aspettato.", "Ho aspettato 20 minuti.", 30)
    assert detail is not None and "20" in detail
    free = "Abbiamo camminato lungo il fiume fino alla vecchia stazione abbandonata."
    detail = dropped_content("We walked along the river to the old abandoned station.",
                             "Abbiamo camminato.", free, 60)  # fmt: skip
    assert detail is not None and detail.startswith("0.")
