"""Sentences cut mid-phrase (issue 43, part 3): the word a fitted sentence ends on."""

from __future__ import annotations

from fitsub.quality.sentence_end import closes_sentence, dangling_end

WEEKS = "Each of them lives only a few weeks."


def test_a_sentence_ending_on_an_article_preposition_or_determiner_is_cut() -> None:
    assert dangling_end(WEEKS, "Ciascuna di loro vive solo qualche", "it") == "qualche"
    assert dangling_end("It weighs twenty kilos.", "Pesa venti chili in un.", "it") == "un"
    assert dangling_end("In the pictures.", "Nelle quadri del", "it") == "del"
    assert dangling_end("Sie lebt nur wenige Wochen.", "Sie lebt nur einen", "de") == "einen"
    assert dangling_end("She lives in the house.", "Elle vit dans la", "fr") == "la"
    assert dangling_end("She lives in the house.", "Vive en la casa de", "es") == "de"


def test_sentences_that_end_well_or_were_left_open_are_not_cut() -> None:
    assert dangling_end(WEEKS, "Ognuna vive poche settimane.", "it") is None
    assert dangling_end("It was built in 1652.", "Fu costruito nel 1652.", "it") is None
    assert dangling_end("Take it.", "Prends-le.", "fr") is None  # a pronoun after its verb
    assert dangling_end("Stop it!", "Hör auf!", "de") is None  # a separable particle
    assert dangling_end("And then...", "E poi il", "it") is None  # the source leaves it open
    assert dangling_end("Sail away, little boat", "Piccola barca del", "it") is None
    assert dangling_end(WEEKS, "Vive solo qualche", "nl") is None  # no list: not judged
    assert closes_sentence('He said, "Go."') and not closes_sentence("Wait…")
