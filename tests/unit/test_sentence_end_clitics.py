"""French and Spanish clitics cannot close a sentence (issue 43, part 3; the lines that
failed in the de/fr/es measurements of docs/results/real-words.md)."""

from __future__ import annotations

from fitsub.quality.sentence_end import dangling_end

PRICE = "Clean crates, fresh biscuits and a price they can't refuse."
WINTER = "The winter had been too long and too wet."


def test_a_sentence_ending_on_a_negation_or_a_clitic_is_cut() -> None:
    assert dangling_end(PRICE, "Les caisses propres, et un prix qu'ils ne", "fr") == "ne"
    assert dangling_end(WINTER, "El invierno había estado demasiado larga y nos", "es") == "nos"
    assert dangling_end("Tell me.", "Alors je", "fr") == "je"
    assert dangling_end("He left.", "Él se", "es") == "se"
    assert dangling_end("Not this, not that.", "Ni esto ni", "es") == "ni"


def test_a_clitic_joined_to_its_verb_or_a_stressed_word_ends_well() -> None:
    assert dangling_end("Where is he?", "Où est-il ?", "fr") is None
    assert dangling_end("Is there one?", "Y en a-t-il ?", "fr") is None
    assert dangling_end("I know.", "Ya lo sé.", "es") is None  # "sé", to know, not "se"
    assert dangling_end("A tea.", "Un té.", "es") is None
    assert dangling_end("Who are you?", "Wer bist du?", "de") is None  # not listed: ends well
    assert dangling_end("Open it", "Y nos", "es") is None  # the source closes no sentence
