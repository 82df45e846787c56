"""Markup is protected from translation and put back: wrappers, leading tags, position codes,
voices, classes, entities, speaker dashes, song lines, sound effects; mid-sentence tags are
dropped (documented) and reported in `lost`."""

from __future__ import annotations

import pytest

from fitsub.markup import protect, visible_text
from fitsub.markup.inline import InlineTag


@pytest.mark.parametrize(
    ("text", "plain", "translated", "restored"),
    [
        ("<i>I love you.</i>", "I love you.", "Ti amo.", "<i>Ti amo.</i>"),
        ("<b><i>Stop!</i></b>", "Stop!", "Fermo!", "<b><i>Fermo!</i></b>"),
        (
            '<font color="#ffff00">Run!</font>',
            "Run!",
            "Corri!",
            '<font color="#ffff00">Corri!</font>',
        ),
        ("{\\an8}Hello there.", "Hello there.", "Ciao.", "{\\an8}Ciao."),
        ("{\\an8}<i>Hello\nthere.</i>", "Hello there.", "Ciao.", "{\\an8}<i>Ciao.</i>"),
        ("<i>Hello</i>\n<i>there.</i>", "Hello there.", "Ciao a\ntutti.", "<i>Ciao a\ntutti.</i>"),
        ("<u>Hello</u>", "Hello", "Ciao", "<u>Ciao</u>"),
        (
            "♪ Happy birthday to you ♪",
            "Happy birthday to you",
            "Tanti auguri a te",
            "♪ Tanti auguri a te ♪",
        ),
        ("♪ Happy birthday\nto you ♪", "Happy birthday to you", "Tanti auguri", "♪ Tanti auguri ♪"),
        ("♪ la la\n♪ la la", "la la la la", "la la", "♪ la la"),
        ("[door slams]", "door slams", "porta sbatte", "[porta sbatte]"),
        ("(laughs)", "laughs", "ride", "(ride)"),
        ("JOHN: Come here.", "Come here.", "Vieni qui.", "JOHN: Vieni qui."),
        ("- Go home.", "Go home.", "Va' a casa.", "- Va' a casa."),
        ("<i>- Go home.</i>", "Go home.", "Va' a casa.", "<i>- Va' a casa.</i>"),
        ("Tom &amp; Mary", "Tom & Mary", "Tom & Maria", "Tom &amp; Maria"),
        ("Say it<i>", "Say it", "Dillo", "Say it<i>".replace("Say it", "Dillo")),
        ("over.</i>", "over.", "finito.", "finito.</i>"),
    ],
)
def test_srt_markup_is_restored_around_the_translation(
    text: str, plain: str, translated: str, restored: str
) -> None:
    prot = protect(text, "srt")
    assert prot.plain == plain
    assert prot.restore(translated) == restored
    assert prot.lost == ()


@pytest.mark.parametrize(
    ("text", "plain", "translated", "restored"),
    [
        (
            "<v Anna>Hello, how are you?",
            "Hello, how are you?",
            "Ciao, come stai?",
            "<v Anna>Ciao, come stai?",
        ),
        ("<v.loud Bob>Stop!</v>", "Stop!", "Fermo!", "<v.loud Bob>Fermo!</v>"),
        ("<c.yellow>I am hungry.</c>", "I am hungry.", "Ho fame.", "<c.yellow>Ho fame.</c>"),
        (
            "<lang en>Good & bad</lang>",
            "Good & bad",
            "Bene & male",
            "<lang en>Bene &amp; male</lang>",
        ),
        ("1 &lt; 2", "1 < 2", "1 < 2 & 3 > 0", "1 &lt; 2 &amp; 3 &gt; 0"),
        ("Wait&nbsp;here.", "Wait here.", "Aspetta qui.", "Aspetta qui."),  # nbsp: a plain space
    ],
)
def test_vtt_markup_is_restored_and_text_escaped(
    text: str, plain: str, translated: str, restored: str
) -> None:
    prot = protect(text, "vtt")
    assert prot.plain == plain
    assert prot.restore(translated) == restored


def test_srt_text_without_entities_is_not_escaped() -> None:
    assert protect("Tom and Mary", "srt").restore("Tom & Maria <3") == "Tom & Maria <3"


def test_dialogue_turns_are_translated_and_restored_separately() -> None:
    prot = protect("- Is this seat free?\n- Yes, please sit down.", "srt")
    assert prot.is_dialogue and not prot.joinable
    assert prot.turn_texts == ("Is this seat free?", "Yes, please sit down.")
    assert prot.plain == "Is this seat free? Yes, please sit down."
    assert prot.restore_turns(["È libero?", "Sì, siediti."]) == "- È libero?\n- Sì, siediti."
    # restore() on the whole plain text splits it at sentence ends
    assert prot.restore("È libero? Sì, prego, siediti.") == "- È libero?\n- Sì, prego, siediti."
    # more sentences than turns: the surplus stays with the last turn
    assert prot.restore("No. Sì. Siediti.") == "- No.\n- Sì. Siediti."
    # fewer sentences than turns, but one line per turn: the lines are used
    assert prot.restore("Libero\nsiediti") == "- Libero\n- siediti"
    with pytest.raises(ValueError, match="1 translations for 2 turns"):
        prot.restore_turns(["solo uno"])


def test_dialogue_variants() -> None:
    first_unmarked = protect("Where are you?\n- At home.", "srt")
    assert first_unmarked.turn_texts == ("Where are you?", "At home.")
    assert first_unmarked.restore_turns(["Dove sei?", "A casa."]) == "Dove sei?\n- A casa."
    wrapped = protect("<i>- Hi.\n- Hello.</i>", "srt")
    assert wrapped.restore_turns(["Ciao.", "Salve."]) == "<i>- Ciao.\n- Salve.</i>"
    per_line = protect("<i>- Hi.</i>\n<i>- Hello.</i>", "srt")
    assert per_line.restore_turns(["Ciao.", "Salve."]) == "<i>- Ciao.</i>\n<i>- Salve.</i>"
    dashes = protect("– Hi.\n—Hello.", "srt")
    assert dashes.restore_turns(["Ciao.", "Salve."]) == "– Ciao.\n—Salve."
    continued = protect("- This sentence goes on\nover two lines.", "srt")
    assert not continued.is_dialogue and continued.plain == "This sentence goes on over two lines."


def test_a_mid_sentence_tag_is_kept_with_its_words_or_around_the_line() -> None:
    prot = protect("I <i>really</i> mean it.", "srt")
    assert prot.plain == "I really mean it." and prot.lost == ()
    assert prot.inline == (InlineTag("<i>", "</i>", 2, 8),)
    # nothing says where "really" went: the tag is kept around the whole line, never dropped
    assert prot.restore("Lo penso davvero.") == "<i>Lo penso davvero.</i>"
    assert prot.restore("I really mean it.") == "I <i>really</i> mean it."
    partial = protect("<i>Hello</i> there.", "srt")  # opens at the start, closes mid-sentence
    assert partial.plain == "Hello there." and partial.inline == (InlineTag("<i>", "</i>", 0, 5),)
    karaoke = protect("Never <00:00:01.500>gonna", "vtt")
    assert karaoke.plain == "Never gonna" and karaoke.lost == ()
    assert karaoke.inline == (InlineTag("<00:00:01.500>", "", 6, 6),)
    assert karaoke.restore("Mai e poi mai") == "Mai e <00:00:01.500>poi mai"
    song = protect("Row, row ♪ your boat", "srt")  # a song sign is text: dropped, reported
    assert song.plain == "Row, row your boat" and song.lost == ("♪",)


def test_nothing_to_translate_restores_the_original() -> None:
    for text in ("♪", "♪♪", "{\\an8}", "<i></i>", ""):
        prot = protect(text, "srt")
        assert prot.plain == ""
        assert prot.restore("anything") == text
        assert not prot.joinable


def test_joinable_cues() -> None:
    assert protect("Last year I went to Rome", "srt").joinable
    assert protect("<i>with my sister</i>", "srt").joinable
    assert not protect("[phone rings]", "srt").joinable
    assert not protect("ANNA: Hi.", "srt").joinable


def test_restore_keeps_the_reflowed_line_break() -> None:
    prot = protect("<i>Thank you for coming\nto my talk today.</i>", "srt")
    assert prot.restore("Grazie di essere venuti\nal mio discorso oggi.") == (
        "<i>Grazie di essere venuti\nal mio discorso oggi.</i>"
    )


def test_visible_text_counts_what_the_viewer_sees() -> None:
    assert visible_text("{\\an8}<i>Tom &amp; Mary</i>", "srt") == "Tom & Mary"
    assert visible_text("- Hi.\n- <b>Hello.</b>", "srt") == "- Hi.\n- Hello."
    assert visible_text("<v Anna>♪ la la ♪</v>", "vtt") == "♪ la la ♪"
    assert visible_text("  - **Read the menu.**", "slides") == "Read the menu."


@pytest.mark.parametrize(
    ("line", "plain", "restored"),
    [
        ("# Learning Italian", "Learning Italian", "# IT"),
        ("  - Talk to people.", "Talk to people.", "  - IT"),
        ("* **Bold point**", "Bold point", "* **IT**"),
        ("1. Learn ten words.", "Learn ten words.", "1. IT"),
        ("b) Second option", "Second option", "b) IT"),
        ("> _Practice makes perfect._", "Practice makes perfect.", "> _IT_"),
        ("- [x] Done task", "Done task", "- [x] IT"),
        ("• Plain bullet  ", "Plain bullet", "• IT  "),
        # inline markup whose words the translation lacks: around the whole line, never lost
        ("Read the [guide](http://x.org) now", "Read the guide now", "[IT](http://x.org)"),
        ("Use `pip` and **care** here", "Use pip and care here", "`**IT**`"),
        ("snake_case_name stays", "snake_case_name stays", "IT"),
    ],
)
def test_slide_markers_are_kept(line: str, plain: str, restored: str) -> None:
    prot = protect(line, "slides")
    assert prot.plain == plain
    assert prot.restore("IT") == restored


@pytest.mark.parametrize(
    "line",
    ["---", "***", "   ", "```python", "| a | b |", "<!-- note -->", "![x](y.png)", "`code()`"],
)
def test_slide_lines_without_text(line: str) -> None:
    prot = protect(line, "slides")
    assert prot.plain == ""
    assert prot.restore("IT") == line


@pytest.mark.parametrize(
    ("text", "plain", "tags"),
    [
        # issue 18: "<b, swap them. <i>" is not a tag; only "<i>Now!</i>" is markup
        ("If a<b, swap them. <i>Now!</i>", "If a<b, swap them. Now!", ("<i>", "</i>")),
        ("If a<b swap them. <i>Now!</i>", "If a<b swap them. Now!", ("<i>", "</i>")),
        ("I <3 you", "I <3 you", ()),
        ("x <y and z> w", "x <y and z> w", ()),
        ("a <b and c> d", "a <b and c> d", ()),  # <b> takes no annotation
        ("a <span>b</span> c", "a <span>b</span> c", ()),  # not a subtitle tag: text
        ("It is <B>big</B>.", "It is big.", ("<B>", "</B>")),
    ],
)
def test_a_less_than_sign_that_opens_no_known_tag_is_text(
    text: str, plain: str, tags: tuple[str, ...]
) -> None:
    prot = protect(text, "srt")
    assert prot.plain == plain
    assert tuple(m for tag in prot.inline for m in (tag.open, tag.close)) == tags
    assert visible_text(text, "srt") == text.replace("<i>", "").replace("</i>", "").replace(
        "<B>", ""
    ).replace("</B>", "")


def test_a_less_than_sign_is_escaped_in_webvtt_and_kept_as_is_in_srt() -> None:
    vtt = protect("<i>If a<b, swap them.</i>", "vtt")
    assert vtt.plain == "If a<b, swap them." and vtt.lost == ()
    assert vtt.restore("Se a<b, scambiali.") == "<i>Se a&lt;b, scambiali.</i>"
    srt = protect("If a<b, swap them.", "srt")
    assert srt.restore("Se a<b, scambiali.") == "Se a<b, scambiali."


def test_known_tags_with_classes_and_annotations_are_still_markup() -> None:
    assert protect("<c.yellow.bg>Hi.</c>", "vtt").plain == "Hi."
    assert protect("<lang it>Ciao.</lang>", "vtt").plain == "Ciao."
    assert protect("<ruby>Kan<rt>kan</rt></ruby>", "vtt").inline == (
        InlineTag("<rt>", "</rt>", 3, 6),
    )


def test_song_lines_are_units_of_their_own() -> None:
    assert not protect("♪ Row, row, row your boat ♪", "vtt").joinable
    assert not protect("♪ la la la", "srt").joinable
    assert not protect("<i>♪ Happy birthday\nto you ♪</i>", "srt").joinable
    assert protect("<i>Row your boat</i>", "srt").joinable


@pytest.mark.parametrize(
    ("text", "chars"),
    [
        ("- Hi.\n- Hello.", 4),
        ("–Hi.\n—Hello.", 2),
        ("<i>- Hi.</i>\n<i>- Hello.</i>", 4),
        ("♪ Happy birthday to you ♪", 4),
        ("[door slams]", 2),
        ("JOHN: Come here.", 6),
        ("{\\an8}<i>Hello there.</i>", 0),
        ("<v Anna>Hello", 0),
        ("Plain words.", 0),
    ],
)
def test_markup_chars_count_what_the_viewer_reads(text: str, chars: int) -> None:
    assert protect(text, "srt").markup_chars == chars
