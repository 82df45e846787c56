"""Which source nouns become dictionary terms (`fitsub.quality.dictionary_terms`), their forms
(`fitsub.quality.word_forms`) and how the bilingual dictionary is read
(`fitsub.quality.bilingual`), on a tiny dictionary made here."""

from __future__ import annotations

import pytest

from fitsub.errors import InputError
from fitsub.quality.bilingual import COLUMNS, BilingualDictionary, parse_bilingual
from fitsub.quality.dictionary_terms import Term, candidates, choose_terms
from fitsub.quality.word_forms import pluralise, same_stem

ROWS = [
    ("bee", "n", "1", "1", "a flying insect", "ape|pecchia", "f|f", ""),
    ("deal", "n", "1", "1", "an agreement", "accordo", "m", ""),
    ("red", "adj", "1", "1", "a colour", "rosso", "m", ""),
    ("wine", "n", "1", "1", "a drink", "vino", "m", ""),
    ("feed", "v", "1", "1", "to give food", "nutrire", "", ""),
    ("feed", "n", "1", "1", "food for animals", "mangime", "m", ""),
    ("comb", "n", "1", "0", "a tool for hair", "pettine", "m", ""),
    ("comb", "n", "2", "0", "wax cells", "favo", "m", ""),
    ("mate", "n", "1", "1", "a friend", "compagno/a|amico", "m|m", ""),
    ("the", "article", "1", "1", "definite article", "il", "m", ""),
]


def tiny(rows: list[tuple[str, ...]] = ROWS, lang: str = "it") -> BilingualDictionary:
    text = "# made up\n" + "\t".join(COLUMNS) + "\n" + "".join("\t".join(r) + "\n" for r in rows)
    return parse_bilingual(text, lang)


DIC = tiny()


def words(text: str) -> list[tuple[str, str, bool]]:
    return [(c.form, c.lemma, c.plural) for c in candidates(text, DIC)]


def test_the_candidates_are_nouns_in_a_noun_context() -> None:
    assert words("I keep bees.") == [("bees", "bee", True)]
    assert words("We have to deal with it.") == []  # after "to": a verb
    assert words("That was a good deal.") == [("deal", "deal", False)]
    assert words("I feed the bee.") == [("bee", "bee", False)]  # "feed the": a verb
    assert words("Red wine and Bee Gees.") == [("wine", "wine", False)]  # adjective; names
    assert words("Bees!") == [("Bees", "bee", True)]  # capitalised at the start: a word


def test_a_word_becomes_a_term_where_the_output_mostly_lacks_it() -> None:
    segments = [
        ("I keep bees.", "Io tengo api."),  # a form of "ape"
        ("Bees sting.", "Le pecchie pungono."),
        ("The bees are here.", "I cosi sono qui."),
    ]
    terms, records = choose_terms(segments, DIC, None, frozenset())
    assert terms == [] and (records[0].segments, records[0].untranslated) == (3, 1)
    segments[1] = ("Bees sting.", "Bicchieri pungono.")  # untranslated in 2 of 3
    terms, _ = choose_terms(segments, DIC, None, frozenset())
    assert terms == [Term("bees", "ape", "a flying insect"), Term("Bees", "Ape", "a flying insect")]
    terms, _ = choose_terms(segments, DIC, None, frozenset(), plural=True)
    assert [t.target for t in terms] == ["api", "Api"]


def test_the_word_links_a_copy_or_a_function_word_count_as_translated() -> None:
    segments = [("I keep bees.", "Io tengo insetti.")]
    links = {"bee": "insetti insetto"}
    assert choose_terms(segments, DIC, links, frozenset())[0] == []
    assert choose_terms([("A bee.", "Un bee.")], DIC, None, frozenset())[0] == []
    assert choose_terms(segments, DIC, None, frozenset({"bees"}))[0] == []


def test_the_target_is_the_first_usable_translation_of_the_first_sense() -> None:
    mate, _ = choose_terms([("My mate.", "Il mio tizio.")], DIC, None, frozenset())
    assert mate == [Term("mate", "amico", "a friend")]  # "compagno/a" cannot be written as is
    zipf = {"pettine": 3.0, "favo": 2.0}
    comb, _ = choose_terms([("A comb.", "Un coso.")], DIC, None, (), zipf=lambda w, _: zipf[w])
    assert comb == [Term("comb", "pettine", "a tool for hair")]  # no first sense: the commoner


def test_forms_and_plurals() -> None:
    assert same_stem("ape", "api", "it") and not same_stem("ape", "apertura", "it")
    assert same_stem("biene", "honigbiene", "de") and not same_stem("biene", "honigbiene", "it")
    assert [pluralise(w, g, "it") for w, g in (("ape", "f"), ("arnia", "f"), ("vino", "m"))] == [
        "api",
        "arnie",
        "vini",
    ]
    assert pluralise("ruche", "f", "fr") == "ruches" and pluralise("Biene", "f", "de") == "Biene"


def test_another_file_is_not_read_as_a_dictionary() -> None:
    with pytest.raises(InputError, match="not a bilingual dictionary"):
        parse_bilingual("en\tit\nbee\tape\n", "it")
