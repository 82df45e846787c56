"""Inline markup (issue 29): tags inside a turn's words, paired, projected, written back."""

from __future__ import annotations

import html
import re

import pytest

from fitsub.markup import protect
from fitsub.markup.inline import InlineTag, insert_inline, split_inline
from fitsub.markup.project import project
from fitsub.markup.tags import strip_markup


def test_html_tags_pair_by_name_and_nest() -> None:
    plain, tags, lost = split_inline("The <b><i>old</i></b> dog sleeps <u>all day</u>.")
    assert plain == "The old dog sleeps all day." and lost == ()
    assert tags == (
        InlineTag("<b>", "</b>", 4, 7),
        InlineTag("<i>", "</i>", 4, 7),
        InlineTag("<u>", "</u>", 19, 26),
    )
    assert [plain[t.start : t.end] for t in tags] == ["old", "old", "all day"]


def test_a_class_closing_tag_closes_its_opening_tag() -> None:
    plain, tags, _ = split_inline("We kept bees in an <c.yellow>apiary</c> there.")
    assert tags == (InlineTag("<c.yellow>", "</c>", 19, 25),) and plain[19:25] == "apiary"


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("I {\\i1}really{\\i0} do.", (InlineTag("{\\i1}", "{\\i0}", 2, 8),)),
        ("a {\\b1}b{\\b} c", (InlineTag("{\\b1}", "{\\b}", 2, 3),)),
        ("The {\\c&H00FFFF&}old{\\c} dog", (InlineTag("{\\c&H00FFFF&}", "{\\c}", 4, 7),)),
        ("a {\\i1\\b1}b c{\\r} d", (InlineTag("{\\i1\\b1}", "{\\r}", 2, 5),)),
        ("a {\\fs30}big end", (InlineTag("{\\fs30}", "", 2, 9),)),  # left open: to the end
        ("still italic{\\i0} then not", (InlineTag("", "{\\i0}", 0, 12),)),  # opened earlier
    ],
)
def test_ass_override_blocks_pair_when_one_switches_off_the_other(
    text: str, tags: tuple[InlineTag, ...]
) -> None:
    assert split_inline(text)[1] == tags


def test_orphan_tags_cover_the_rest_and_timestamps_are_points() -> None:
    _, tags, _ = split_inline("ends here</i> and <b>goes on")
    assert tags == (InlineTag("", "</i>", 0, 9), InlineTag("<b>", "", 14, 21))
    assert split_inline("Never <00:00:01.500>gonna")[1] == (InlineTag("<00:00:01.500>", "", 6, 6),)
    assert InlineTag("<00:00:01.500>", "", 6, 6).point


@pytest.mark.parametrize(
    "core",
    [
        "a &amp; <i>b</i>  c",
        "  <i>x</i>\ny  ",
        "Row ♪ <b>row</b>\n\tyour &lt;boat&gt;",
        "If a<b, swap <i>them</i>.",
        "<i></i>",
        "a&nbsp;<u>b</u>",
    ],
)
def test_the_plain_text_is_the_visible_words_and_offsets_follow_it(core: str) -> None:
    """The words the model sees are what they were before issue 29 (budgets do not change)."""
    plain, tags, _ = split_inline(core)
    old = re.sub(r"[♪♫]", " ", strip_markup(core))
    assert plain == re.sub(r"\s+", " ", html.unescape(old).replace("\n", " ")).strip(" \t")
    for tag in tags:
        assert 0 <= tag.start <= tag.end <= len(plain)


def test_entities_shift_offsets_to_the_decoded_text() -> None:
    plain, tags, _ = split_inline("a &amp; <i>b</i> c")
    assert plain == "a & b c" and tags == (InlineTag("<i>", "</i>", 4, 5),)


def test_insert_writes_nested_and_adjacent_tags_in_order() -> None:
    tags = [InlineTag("<b>", "</b>", 0, 1), InlineTag("<i>", "</i>", 0, 1)]
    assert insert_inline("x y", tags, [(0, 1), (0, 1)], escape=False) == "<b><i>x</i></b> y"
    adjacent = [InlineTag("<i>", "</i>", 0, 1), InlineTag("<b>", "</b>", 1, 2)]
    assert insert_inline("ab", adjacent, [(0, 1), (1, 2)], escape=False) == "<i>a</i><b>b</b>"
    amp = [InlineTag("<i>", "</i>", 0, 1)]
    assert insert_inline("a & b", amp, [(4, 5)], escape=True) == "a &amp; <i>b</i>"


def test_the_same_words_give_every_tag_its_own_characters() -> None:
    source = "The old dog sleeps all day."
    _, tags, _ = split_inline("The <b><i>old</i></b> dog sleeps <u>all day</u>.")
    placed = project(source, tags, "The old\ndog sleeps  all day.")
    assert placed.spans == ((4, 7), (4, 7), (20, 27)) and placed.unplaced == ()


def test_copied_words_carry_the_tag() -> None:
    _, tags, _ = split_inline("We kept bees in an <i>apiary</i> behind the house.")
    placed = project("We kept bees in an apiary behind the house.", tags, "Api in un'apiary.")
    assert placed.spans == ((10, 16),) and placed.unplaced == ()


def test_the_tagged_words_translated_alone_are_found_despite_inflection_and_order() -> None:
    source = "My sister bought a red car last week."
    _, tags, _ = split_inline("My sister bought a <b>red car</b> last week.")
    text = "La settimana scorsa mia sorella ha comprato un'auto rossa."
    placed = project(source, tags, text, {"red car": ("macchina rosso auto",)})
    assert text[slice(*placed.spans[0])] == "auto rossa" and placed.unplaced == ()


def test_the_trailing_punctuation_of_the_tagged_words_comes_along() -> None:
    _, tags, _ = split_inline("<i>In 1928,</i> my father built it.")
    text = "Nel 1928, mio padre la costruì."
    placed = project("In 1928, my father built it.", tags, text, {"In 1928,": ("Nel 1928",)})
    assert text[slice(*placed.spans[0])] == "Nel 1928,"


def test_a_tag_that_cannot_be_found_wraps_the_whole_turn_and_is_reported() -> None:
    _, tags, _ = split_inline("I <i>really</i> mean it.")
    placed = project("I really mean it.", tags, "Lo penso davvero.", {"really": ("veramente",)})
    assert placed.spans == ((0, 17),) and placed.unplaced == (0,)


def test_an_inner_tag_stays_inside_its_outer_tag() -> None:
    source = "I saw the big red car today."
    _, tags, _ = split_inline("I saw <b>the big <i>red</i> car</b> today.")
    text = "Oggi ho visto la grande auto rossa."
    placed = project(
        source, tags, text, {"the big red car": ("la grande auto rossa",), "red": ("oggi",)}
    )
    outer, inner = placed.spans
    assert text[slice(*outer)] == "la grande auto rossa"
    # "oggi" is outside the outer tag: the inner tag is not placed there, it takes the outer span
    assert inner == outer and placed.unplaced == (1,)


def test_spans_that_would_cross_are_not_placed() -> None:
    source = "one two three four"
    _, tags, _ = split_inline("<i>one two</i> <b>three four</b>")
    text = "uno tre due quattro"
    placed = project(
        source, tags, text, {"one two": ("uno tre due",), "three four": ("tre due quattro",)}
    )
    # the longer span is placed first; the other would cross it: around the whole turn
    assert placed.spans[1] == (4, 19) and placed.unplaced == (0,)
    assert placed.spans[0] == (0, len(text))


def test_a_point_goes_before_the_word_at_the_same_relative_place() -> None:
    _, tags, _ = split_inline("Never <00:00:01.500>gonna give")
    placed = project("Never gonna give", tags, "Mai e poi mai")
    assert placed.spans == ((4, 4),)  # after 1 word of 3: before word round(4 / 3) = 1, "e"


def test_restore_puts_tags_on_laid_out_lines_and_escapes_between_them() -> None:
    prot = protect("We kept bees &amp; <i>honey</i> here.", "srt")
    assert prot.plain == "We kept bees & honey here." and prot.escape
    out = prot.restore_turns(["Api &\nmiele qui."], [[(6, 11)]])
    assert out == "Api &amp;\n<i>miele</i> qui."


def test_voice_spans_on_one_line_are_turns() -> None:
    prot = protect("<v Anna>Hello!</v> <v Marco>Good morning.</v>", "vtt")
    assert prot.turn_texts == ("Hello!", "Good morning.") and prot.inline == ()
    assert prot.restore_turns(["Ciao!", "Buongiorno."]) == (
        "<v Anna>Ciao!</v>\n<v Marco>Buongiorno.</v>"
    )


def test_a_speaker_label_stays_at_the_start_and_the_italics_on_their_words() -> None:
    prot = protect("[Alba] <i>In 1928,</i> my father built a house.", "srt")
    assert prot.plain == "In 1928, my father built a house."
    assert prot.turns[0].prefix == "[Alba] "
    assert prot.inline == (InlineTag("<i>", "</i>", 0, 8),)
    whole = protect("[Alba] <i>In 1928, my father built a house.</i>", "srt")
    assert whole.inline == () and whole.restore("Nel 1928.") == "[Alba] <i>Nel 1928.</i>"


def test_an_ass_event_that_closes_its_italics_at_the_end_is_a_whole_line_wrapper() -> None:
    prot = protect("{\\i1}I have never been to the sea.{\\i0}", "srt")
    assert prot.inline == () and prot.lost == ()
    assert prot.restore("Mai stato al mare.") == "{\\i1}Mai stato al mare.{\\i0}"


def test_the_next_translation_of_the_tagged_words_is_tried_when_the_first_is_not_there() -> None:
    _, tags, _ = split_inline("The sources <u>have</u> said so.")
    text = "Le fonti hanno detto così."
    placed = project("The sources have said so.", tags, text, {"have": ("avere", "hanno")})
    assert text[slice(*placed.spans[0])] == "hanno" and placed.unplaced == ()


@pytest.mark.parametrize(
    ("want", "found"),
    [("breve", "brevemente"), ("rosso", "rossa"), ("Casa", "case"), ("il", "il")],
)
def test_a_word_matches_its_inflections_and_derivations(want: str, found: str) -> None:
    text = f"Una {found} qui."
    _, tags, _ = split_inline("A <i>word</i> here.")
    placed = project("A word here.", tags, text, {"word": (want,)})
    assert text[slice(*placed.spans[0])] == found


@pytest.mark.parametrize(("want", "other"), [("casa", "cane"), ("per", "perché"), ("bre", "breve")])
def test_a_word_does_not_match_a_word_that_only_begins_alike(want: str, other: str) -> None:
    _, tags, _ = split_inline("A <i>word</i> here.")
    placed = project("A word here.", tags, f"Una {other} qui.", {"word": (want,)})
    assert placed.unplaced == (0,)


def test_a_function_word_alone_does_not_stand_for_a_span_with_a_long_word() -> None:
    _, tags, _ = split_inline("A <u>healthy ecosystem</u> helps.")
    text = "Un ecosisto aiuta di molto."
    placed = project("A healthy ecosystem helps.", tags, text, {"healthy ecosystem": ("di sano",)})
    assert placed.unplaced == (0,)
    short = project("A healthy ecosystem helps.", tags, text, {"healthy ecosystem": ("di",)})
    assert text[slice(*short.spans[0])] == "di"  # a translation of short words only: they do
