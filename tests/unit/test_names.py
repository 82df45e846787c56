"""One name, one translation within a file (issue 43, part 4)."""

from __future__ import annotations

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
    assert [unify(t, entry) for t in texts] == [
        "Scales è di nuovo in ritardo.",
        "Di' a Scales che la barca è qui.",
        "Aspettiamo Scales.",
    ]
    assert entries(["London"], ["A Londra.", "Da Londres."]) == {"London": "Londra"}
    assert unify("La scala è alta.", {"Scales": "Scales"}) == "La scala è alta."  # lower case


def test_a_cue_that_writes_the_name_keeps_its_other_capitalised_words() -> None:
    # German capitalises nouns: "Markt" (market) shares the first letters of "Marks"
    sources = ["Mr. Marks opened the market at six.", "Then Mr. Marks went home."]
    texts = ["Herr Marks öffnete den Markt um sechs.", "Dann ging Herr Marks nach Hause."]
    entry = entries(recurring_names(sources), texts)
    assert entry == {"Marks": "Marks"}
    assert [unify(t, entry) for t in texts] == texts
    assert unify("Frag Herrn Berger nach dem Berg.", {"Berger": "Berger"}).endswith("dem Berg.")
    assert unify("Dann ging Herr Markus.", {"Marks": "Marks"}) == "Dann ging Herr Marks."
