"""Names are not English (issue 58): a name of the file kept as it is never makes a line
`untranslated`; a Title-Case heading's capitals name nothing."""

from __future__ import annotations

from fitsub.budget import Budget
from fitsub.pipeline.assemble import SegmentResult, flag_segments
from fitsub.pipeline.names import file_names
from fitsub.quality.dictionary import load_dictionary
from fitsub.quality.lexicon import Lexicon


def test_file_names_are_recurring_said_to_or_alone_never_lower_case_nor_headings() -> None:
    assert file_names(["Scales!", "Where are you?"]) == {"scales"}  # alone with "!"
    assert file_names(["Come here, Scales.", "Now."]) == {"scales"}  # said to someone
    assert file_names(["Tell Scales now.", "Then Scales came."]) == {"scales"}  # recurring
    assert file_names(["Look, it is late.", "Listen!"]) == {"listen"}  # alone: a name or a verb
    assert file_names(["Scales!", "the scales of a fish"]) == set()  # written in lower case
    assert file_names(["The Library Of Bees", "Inside The Library Of Bees"]) == set()


def _seg(i: int, source: str, fitted: str) -> SegmentResult:
    budget = Budget(
        source_chars=len(source),
        ratio_limit=None,
        layout_limit=None,
        speed_limit=None,
        chars=99,
        binding="speed",
        too_small=False,
    )
    return SegmentResult(index=i, id=str(i + 1), source=source, budget=budget, fitted=fitted)


def _untranslated(lang: str, pairs: list[tuple[str, str]]) -> list[str | None]:
    lexicon = Lexicon(counts={}, language=lang, dictionary=load_dictionary(lang))
    segs = [_seg(i, s, f) for i, (s, f) in enumerate(pairs)]
    out = flag_segments(segs, lexicon=lexicon, lang=lang)
    return [next((f.detail for f in r.flags if f.name == "untranslated"), None) for r in out]


def test_a_name_kept_is_not_english_and_real_english_still_is() -> None:
    pairs = [
        ("Scales!", "Scales!"),  # the dragon's name, kept as the human Italian keeps it
        ("Not now, Scales.", "Non adesso, Scales."),
        ("The Library Of Bees", "La Library delle api"),  # a heading: "Library" is English
        ("We go home now, and this is it.", "We go home now, and this is it."),
    ]
    assert _untranslated("it", pairs) == [
        None,
        None,
        "English left: library",
        "100 % copied; English left: we, go, home, now, and, this, is, it",
    ]


def test_a_copied_line_of_names_and_target_words_is_not_untranslated() -> None:
    # samples/film.srt cue 1 and its human German: "Winter" is German too
    assert _untranslated("de", [("Porto Lume, winter 1987", "Porto Lume, Winter 1987")]) == [None]


def test_a_name_kept_in_some_cues_and_in_no_form_in_others_is_one_warning() -> None:
    from fitsub.pipeline.names import inconsistent_names

    cues = [
        ("1", "Scales is late.", "Scales est en retard."),
        ("2", "Tell Scales the boat is here.", "Dis à Échelles que le bateau est là."),
        ("3", "Then we wait for Scales.", "Puis on attend Scales."),
    ]
    assert inconsistent_names(cues) == [
        "name 'Scales' kept in 2 cue(s), in no form in segment(s) 2 (translated or dropped "
        "there): one name, one rendering"
    ]
    renamed = [
        (i, s, t.replace("Scales", "Scala").replace("Échelles", "Scala")) for i, s, t in cues
    ]
    assert inconsistent_names(renamed) == []  # one rendering everywhere: consistent
    assert inconsistent_names([(i, s, t.replace("Scales", "Échelles")) for i, s, t in cues]) == []
