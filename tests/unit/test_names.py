"""One name, one translation within a file (issue 43, part 4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fitsub.pipeline.names import entries, recurring_names, renderings, unify

SOURCES = [
    "Scales is late again.",
    "Tell Scales the boat is here.",
    "Then we wait for Scales.",
    "Then the bell rang.",
    "My neighbour, Mr. Okafor, laughed.",
    "Mr. Okafor kept bees.",
]


def test_recurring_names_are_capitalised_words_seen_inside_a_cue_in_two_cues() -> None:
    assert recurring_names(SOURCES) == ["Scales", "Okafor"]  # "Then" opens cues only
    assert recurring_names(SOURCES, exempt={"scales"}) == ["Okafor"]  # a glossary term
    assert recurring_names(["The cat is Grey.", "the Grey sky"]) == ["Grey"]
    assert recurring_names(["I saw Grey.", "A grey sky, Grey."]) == []  # also lower case


def test_one_rendering_the_name_kept_when_a_translation_keeps_it() -> None:
    texts = [
        "Scala è di nuovo in ritardo.",
        "Di' a Scales che la barca è qui.",
        "Aspettiamo Scala.",
    ]
    assert renderings("Scales", texts[0]) == ["Scala"]
    entry = entries(["Scales"], texts)
    assert entry == {"Scales": "Scales"}
    sources = [SOURCES[0], SOURCES[1], SOURCES[2]]
    assert [unify([t], s, entry) for t, s in zip(texts, sources, strict=True)] == [
        ["Scales è di nuovo in ritardo."],
        ["Di' a Scales che la barca è qui."],
        ["Aspettiamo Scales."],
    ]
    assert entries(["London"], ["A Londra.", "Da Londres."]) == {"London": "Londra"}
    lower = unify(["La scala è alta da Scala."], "Scales' ladder is high.", {"Scales": "Scales"})
    assert lower == ["La scala è alta da Scales."]  # the lower-case "scala" is no name


def test_a_cue_that_writes_the_name_keeps_its_other_capitalised_words() -> None:
    # German capitalises nouns: "Markt" (market) shares the first letters of "Marks"
    sources = ["Mr. Marks opened the market at six.", "Then Mr. Marks went home."]
    texts = ["Herr Marks öffnete den Markt um sechs.", "Dann ging Herr Marks nach Hause."]
    entry = entries(recurring_names(sources), texts)
    assert entry == {"Marks": "Marks"}
    assert [unify([t], s, entry) for t, s in zip(texts, sources, strict=True)] == [
        [t] for t in texts
    ]
    berg = unify(["Frag Herrn Berger nach dem Berg."], "Ask Mr Berger.", {"Berger": "Berger"})
    assert berg == ["Frag Herrn Berger nach dem Berg."]
    marks = {"Marks": "Marks"}
    assert unify(["Dann ging Herr Markus."], "Then Mr. Marks went.", marks) == [
        "Dann ging Herr Marks."
    ]
    # two candidates for one name: which one renders it is not certain, nothing is changed
    both = ["Herr Markus öffnete den Markt."]
    assert unify(both, "Mr. Marks opened the market.", marks) == both


def test_the_entry_anywhere_in_the_cue_leaves_the_cue_as_it_is() -> None:
    # issue 55: the guard saw one speaker turn, and "Mr Johnson" became "Mr Johnny"
    turns = ["Is that Mr Johnson?", "No, it is Johnny."]
    source = "Is that Mr Johnson? No, it is Johnny."
    assert unify(turns, source, {"Johnny": "Johnny"}) == turns
    assert unify(["È il signor Johnson?", "No, è Johnnie."], source, {"Johnny": "Johnny"}) == [
        "È il signor Johnson?",
        "No, è Johnny.",
    ]  # the rendering is mended, the source's own "Johnson" kept


def test_a_word_of_the_cue_source_is_never_replaced() -> None:
    # pysrt's utf-8.srt: "- San Diegoans. / - San Diegans." lost its "Diegoans"
    source = "San Diegoans. San Diegans."
    turns = ["San Diegoans.", "San Diegans."]
    assert unify(turns, source, {"Diegans": "Diegans"}) == turns
    assert unify(["Die Diegoaner."], "The Diegoans.", {"Diegans": "Diegans"}) == [
        "Die Diegoaner."
    ]  # the cue's source does not write the name: no rendering of it to mend
    # a copy of the source is never changed, whatever the entry
    copy = ["Scala met Scales."]
    assert unify(copy, "Scala met Scales.", {"Scales": "Scala"}) == copy


_NAMES = ["Johnny", "Johnson", "Johnnie", "Diego", "Diegoans", "Diegans", "Marks", "Markus"]
_FILLER = ["Is", "that", "Mr", "no", "it", "is", "left", "San", "Markt", "wait", "for"]


@st.composite
def _cue(draw: st.DrawFn) -> tuple[list[str], list[str], dict[str, str]]:
    """(source turns, translated turns, entry_of): a translation that keeps, drops or renders
    (by another word of the same first letters) each word of its source."""
    words = st.sampled_from(_NAMES + _FILLER)
    source = draw(st.lists(st.lists(words, min_size=1, max_size=6), min_size=1, max_size=2))
    translated = [[draw(st.sampled_from([w, w, draw(words)])) for w in t] for t in source]
    name = draw(st.sampled_from(_NAMES))
    entry = draw(st.sampled_from([name, draw(st.sampled_from(_NAMES))]))
    return (
        [" ".join(t) + "." for t in source],
        [" ".join(t) + "." for t in translated],
        {name: entry},
    )


@settings(max_examples=300, deadline=None)
@given(cue=_cue())
def test_unify_touches_only_renderings_that_are_not_words_of_the_source(
    cue: tuple[list[str], list[str], dict[str, str]],
) -> None:
    source_turns, turns, entry_of = cue
    source = " ".join(source_turns)
    ((name, entry),) = entry_of.items()
    got = unify(turns, source, entry_of)
    src_words = set(source.rstrip(".").replace(". ", " ").split())
    words = [w for t in turns for w in t.rstrip(".").split()]
    if entry in words or (entry != name and entry in src_words) or turns == source_turns:
        assert got == turns
    assert len(got) == len(turns)
    for before, after in zip(turns, got, strict=True):
        for old, new in zip(before.split(), after.split(), strict=True):
            if old != new:  # only a rendering of the name, never a word of the source
                assert old.rstrip(".") not in src_words
                assert (
                    old[:4].lower() == name[:4].lower()
                    and new == entry + old[len(old.rstrip(".")) :]
                )
