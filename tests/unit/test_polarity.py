"""`meaning-reversed` (fitsub.quality.polarity): the issue's reversals are flagged, the
constructions that only look like a negation added or lost are not, per language."""

from __future__ import annotations

import pytest

from fitsub.budget import Budget
from fitsub.pipeline.assemble import SegmentResult, flag_segments
from fitsub.quality.polarity import polarity, reversed_words
from fitsub.quality.registry import FLAG_NAMES, MEANING_REVERSED

# Real reversals, from the issue's reading of the pipeline's outputs (not built from the rule's
# word lists): a negation added to "I have failed.", one dropped in German.
REVERSED = [
    ("I have failed.", "Non ho fallito.", "it", "non"),
    ("I have failed.", "No he fallado.", "es", "no"),
    ("I have failed.", "Vous n'avez pas échoué…", "fr", "ne … pas"),
    ("We have no time.", "Wir haben Zeit.", "de", "lost no"),
    ("This is not your fault.", "Das ist deine Schuld.", "de", "lost not"),
]


@pytest.mark.parametrize(("source", "output", "lang", "detail"), REVERSED)
def test_the_issues_reversals_are_flagged_naming_the_words(
    source: str, output: str, lang: str, detail: str
) -> None:
    assert reversed_words(source, output, lang) == detail


# Rule-built lines: each a construction the rule must read right, both ways where it can.
AGREE = [
    # a negation carried by a verb on one side ("forgot" / "non ricordo"): not a reversal
    ("I forgot.", "Non ricordo.", "it"),
    ("I forgot.", "Je ne me souviens pas.", "fr"),
    ("Don't forget me.", "Ricordati di me.", "it"),
    ("He failed the test.", "Er hat die Prüfung nicht bestanden.", "de"),
    ("I have failed.", "Ho fallito.", "it"),
    # double negation
    ("It's not impossible.", "È possibile.", "it"),
    ("Nothing is impossible.", "Todo es posible.", "es"),
    # negative concord: one negation however many words
    ("I didn't see anyone.", "Non ho visto nessuno.", "it"),
    ("I saw nobody.", "Je n'ai vu personne.", "fr"),
    ("Nobody knows.", "Personne ne sait.", "fr"),
    ("I never said that.", "Je n'ai jamais dit ça.", "fr"),
    # French: ne … que ("only"), expletive ne, n'importe, n'est-ce pas, de rien, a step
    ("I only have ten euros.", "Je n'ai que dix euros.", "fr"),
    ("There are only two left.", "Il ne reste plus que deux.", "fr"),
    ("Leave before he comes.", "Pars avant qu'il ne vienne.", "fr"),
    ("It is worse than it was.", "C'est pire qu'il ne l'était.", "fr"),
    ("Anything!", "N'importe quoi !", "fr"),
    ("It's nice, right?", "C'est beau, n'est-ce pas ?", "fr"),
    ("You're welcome.", "De rien.", "fr"),
    ("One step at a time.", "Un pas à la fois.", "fr"),
    ("It's not my fault.", "C'est pas ma faute.", "fr"),  # spoken: "pas" alone
    # Italian: mai = ever, non appena, finché non, come mai, non … che = only
    ("Have you ever seen a bee?", "Hai mai visto un'ape?", "it"),
    ("The best film ever made.", "Il miglior film mai fatto.", "it"),
    ("As soon as he arrives, call me.", "Non appena arriva, chiamami.", "it"),
    ("Wait until he comes.", "Aspetta finché non arriva.", "it"),
    ("Why?", "Come mai?", "it"),
    ("He's just a kid.", "Non è che un bambino.", "it"),
    ("It's nice, isn't it?", "È bello, vero?", "it"),
    # Spanish and German: tags, "de nada", "more than ever", "No. 1"
    ("Thanks. You're welcome.", "Gracias. De nada.", "es"),
    ("Right?", "Es así, ¿no?", "es"),
    ("Better than ever.", "Mejor que nunca.", "es"),
    ("It's good, isn't it?", "Es ist gut, nicht wahr?", "de"),
    ("He is No. 1 in the world.", "Er ist die Nummer 1 der Welt.", "de"),
    ("See https://example.org/has-no-space", "Vedi", "it"),  # a web address holds no negation
    ("It is unclear.", "Es ist nicht klar.", "de"),  # "un-" carries the negation
    ("Plant flowers, not lawns.", "Blumen pflanzen statt Rasen.", "de"),  # "instead of"
    # a copied line (`--model identity`) is the untranslated flag's business
    ("I don't know.", "I don't know.", "it"),
]


@pytest.mark.parametrize(("source", "output", "lang"), AGREE)
def test_constructions_that_keep_the_polarity_are_not_flagged(
    source: str, output: str, lang: str
) -> None:
    assert reversed_words(source, output, lang) is None


@pytest.mark.parametrize(
    ("source", "output", "lang", "detail"),
    [
        ("It's not my fault.", "C'est ma faute.", "fr", "lost not"),
        ("I can see it.", "Je ne le vois pas.", "fr", "ne … pas"),
        ("I know.", "Je sais pas.", "fr", "pas"),  # spoken negation added
        ("I know what to do.", "Non so che fare.", "it", "non"),  # "che" without "only"
        ("I have seen a bee.", "Non ho mai visto un'ape.", "it", "non, mai"),
        ("I don't know.", "Lo sé.", "es", "lost don't"),
        ("Nobody's ever seen one.", "Alle haben eins gesehen.", "de", "lost nobody"),
    ],
)
def test_the_same_constructions_reversed_are_flagged(
    source: str, output: str, lang: str, detail: str
) -> None:
    assert reversed_words(source, output, lang) == detail


def test_polarity_reads_soft_and_lexical_negations_apart() -> None:
    p = polarity("Je n'ai que dix euros.", "fr")
    assert p.strict == () and p.soft == ("n'",) and p.negated
    assert polarity("Ho dimenticato la chiave.", "it").lexical == ("dimenticato",)
    assert polarity("I'm unable to come.", "en").lexical == ("unable",)
    assert polarity("under the bridge", "en").lexical == ()  # "under" is no "un-" word


def test_no_flag_without_a_known_target_language() -> None:
    assert reversed_words("I have failed.", "Non ho fallito.", None) is None
    assert reversed_words("I have failed.", "Non ho fallito.", "ja") is None


def _seg(i: int, source: str, fitted: str, group: int = -1) -> SegmentResult:
    budget = Budget(
        source_chars=len(source),
        ratio_limit=40,
        layout_limit=None,
        speed_limit=None,
        chars=40,
        binding="ratio",
        too_small=False,
    )
    return SegmentResult(
        index=i, id=str(i + 1), source=source, budget=budget, fitted=fitted, group=group
    )


def test_the_pipeline_flags_a_cue_and_judges_a_sentence_over_cues_whole() -> None:
    assert MEANING_REVERSED in FLAG_NAMES
    out = flag_segments(
        [
            _seg(0, "I have failed.", "Non ho fallito."),
            _seg(1, "We have", "Non abbiamo", group=1),  # the negation moved to the first cue
            _seg(2, "no time.", "tempo.", group=1),
        ],
        lang="it",
    )
    flags = {r.index: {f.name: f.detail for f in r.flags} for r in out}
    assert flags[0][MEANING_REVERSED] == "non"
    assert MEANING_REVERSED not in flags[1] and MEANING_REVERSED not in flags[2]
    pair = [_seg(3, "We have", "Wir haben", group=2), _seg(4, "no time.", "Zeit.", group=2)]
    out_de = flag_segments(pair, lang="de")
    assert [MEANING_REVERSED in {f.name for f in r.flags} for r in out_de] == [False, True]
    assert {f.name: f.detail for f in out_de[1].flags}[MEANING_REVERSED] == "lost no"
