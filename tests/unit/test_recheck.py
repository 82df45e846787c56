"""The word checks `fitsub apply` runs on an edited line (fitsub.quality.recheck): the same
flags as `fitsub translate` computes, without the model."""

from __future__ import annotations

from fitsub.quality.flags import segment_flags
from fitsub.quality.recheck import text_flags
from fitsub.quality.registry import RECHECKED


def _names(source: str, text: str, lang: str = "it") -> list[str]:
    return [f.name for f in text_flags(source, text, lang)]


def test_a_good_edit_carries_no_flag() -> None:
    assert text_flags("We have no time, it's 10 pm.", "Non abbiamo tempo, sono le 22.", "it") == []


def test_each_word_check_fires_on_an_edit_that_breaks_it_in_flag_order() -> None:
    flags = text_flags("We go home at 5.", "Non andiamo a casa alle 6.", "it")
    assert [(f.name, f.detail) for f in flags] == [
        ("number-changed", "missing 5; added 6"),
        ("meaning-reversed", "non"),
    ]
    assert _names("Yes, go home now and this is it.", "Yes, go home now and this is it.") == [
        "untranslated"
    ]
    assert _names("This is not your fault.", "Das ist deine Schuld.", "de") == ["meaning-reversed"]


def test_a_name_kept_alone_is_the_reviewers_choice() -> None:
    assert _names("Scales?", "Scales?") == []  # a name: no unconstrained translation to ask
    assert _names("Where is the library now?", "Where is the library now?") == ["untranslated"]


def test_the_checks_agree_with_translate_on_the_same_line() -> None:
    source, text = "I have failed 3 times.", "Non ho fallito 4 volte."
    at_translate = [
        f for f in segment_flags(source, text, None, None, tgt_lang="it") if f.name in RECHECKED
    ]
    # segment_flags leaves meaning-reversed to the pipeline (a sentence over cues is one)
    assert at_translate == [
        f for f in text_flags(source, text, "it") if f.name != "meaning-reversed"
    ]


def test_the_files_names_are_no_english_left() -> None:
    from fitsub.quality.dictionary import load_dictionary

    it = load_dictionary("it")
    flags = text_flags("Scales is late.", "Scales è in ritardo.", "it", it)
    assert [(f.name, f.detail) for f in flags] == [("untranslated", "English left: scales")]
    assert text_flags("Scales is late.", "Scales è in ritardo.", "it", it, names={"scales"}) == []
