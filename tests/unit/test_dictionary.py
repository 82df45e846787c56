"""The word lists beside the lexicon (issue 43): real words, English told from the target
language by frequency, German compounds split, a broken list refused in one line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import fitsub.quality.dictionary as dictionary
from fitsub.errors import InputError
from fitsub.quality.dictionary import english_left, load_dictionary, with_dictionary
from fitsub.quality.lexicon import Lexicon, unknown_words


def test_real_italian_words_the_lexicon_lacks_are_known_and_made_up_ones_are_not() -> None:
    it = load_dictionary("it")
    assert it is not None
    assert all(it.knows(w) for w in ("apiari", "accediamo", "impia", "bagna"))
    assert not any(it.knows(w) for w in ("pescere", "comprono", "jartiene", "cinquantamiere"))


def test_english_is_told_from_italian_by_frequency_with_loanwords_kept() -> None:
    it = load_dictionary("it")
    assert it is not None
    assert [w for w in ("blade", "hive", "twelve", "kilos", "beekeepers") if it.is_english(w)] == [
        "blade",
        "hive",
        "twelve",
        "kilos",
        "beekeepers",
    ]
    assert not any(it.is_english(w) for w in ("computer", "film", "weekend", "scala", "apiari"))
    assert "blade" not in it.search_words and "apiari" in it.search_words


def test_german_compounds_of_listed_words_are_real() -> None:
    de = load_dictionary("de")
    assert de is not None
    assert de.compound("bienenstockwaage") == ["bienenstock", "waage"]
    assert de.knows("arbeitszeitmodell")
    assert not de.knows("blablubxyz") and de.compound("qwertzuiopas") is None


def test_names_interjections_and_glossary_terms_are_not_english_left() -> None:
    it = load_dictionary("it")
    assert it is not None
    src = "My neighbour, Mr. Okafor, said hey to the Honey Makers."
    out = "Il mio vicino, il signor Okafor, ha detto hey agli Honey Makers e buy."
    assert english_left(src, out, it) == ["buy"]
    assert english_left("Subtitles: Nora Bellweather Project", "Subtitles: Nora", it) == [
        "subtitles"
    ]
    assert english_left("Buy honey.", "Buy miele.", it, terms=["Buy"]) == []
    sign = "THE BAKERY - OPEN AT SIX"  # capitals are no sign of a name
    assert english_left(sign, sign, it) == ["the", "bakery", "open", "at", "six"]


def test_a_lexicon_with_its_dictionary_calls_no_real_word_unknown() -> None:
    lexicon = with_dictionary(Lexicon({"ogni": 3, "collina": 2}, language="it"))
    assert unknown_words("Accediamo ogni collina, pescere.", ["We"], lexicon) == ["pescere"]
    assert lexicon.knows("accediamo") and not lexicon.knows("blade") and lexicon.real("blade")
    assert lexicon.has_prefix("accedia") and lexicon.counts.keys() == {"ogni", "collina"}
    assert with_dictionary(Lexicon({"x": 2}, language="nl")).dictionary is None


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read the word list"),
        (b"not gzip at all", "not readable gzip"),
        (gzip.compress(b"\xc1\xc1", mtime=0), "cannot read the word list"),
        (gzip.compress(b"\x92\x81\xa6format\xa2xx\x90", mtime=0), "bad header"),
        (gzip.compress(b"\x91\x82\xa6format\xa2cB\xa7version\x01", mtime=0), "is empty"),
    ],
)
def test_a_missing_or_corrupt_word_list_is_one_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes | None, says: str
) -> None:
    path = tmp_path / "large_es.msgpack.gz"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setattr(dictionary, "list_path", lambda lang: path)
    dictionary._cached_list.cache_clear()
    load_dictionary.cache_clear()
    try:
        with pytest.raises(InputError) as err:
            load_dictionary("es")
        assert "large_es.msgpack.gz" in str(err.value) and says in str(err.value)
        assert "\n" not in str(err.value)
    finally:
        dictionary._cached_list.cache_clear()
        load_dictionary.cache_clear()


def test_the_shipped_lists_read_without_importing_wordfreq() -> None:
    """The lists are read straight from wordfreq's data folder (its import is slow); what comes
    out is what wordfreq itself reads."""
    import subprocess
    import sys

    code = (
        "import sys; from fitsub.quality.dictionary import load_dictionary; "
        "d = load_dictionary('it'); print(d.knows('apiari'), 'wordfreq' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "False"]
    import wordfreq

    buckets = dictionary.read_cbpack(dictionary.list_path("it"))

    assert buckets == wordfreq.get_frequency_list("it", wordlist=dictionary.WORDLIST)


def test_a_cbpack_list_reads_as_zipf_with_each_words_highest_frequency() -> None:
    """Bucket i holds words of frequency 10^(-i/100): zipf 9 - i/100; an entry of several words
    gives its letter runs, a word seen in two buckets keeps the more frequent one."""
    buckets: list[list[str]] = [[] for _ in range(400)]
    buckets[300] = ["casa"]  # zipf 6.0
    buckets[350] = ["dell'anno", "gatto", "00"]  # zipf 5.5
    buckets[399] = ["anno", "Casa"]  # zipf 4.01: "anno" keeps 5.5, "casa" keeps 6.0
    z = dictionary._zipf_by_word(buckets)
    assert z == pytest.approx({"casa": 6.0, "dell": 5.5, "anno": 5.5, "gatto": 5.5})


@pytest.mark.parametrize(
    ("lang", "source", "output", "english"),
    [
        ("fr", "You thought about it.", "Tu as pensé à ce sujet.", []),
        ("fr", "The winter was too long.", "L'hiver avait été trop long.", []),
        ("es", "I have heard.", "He oído.", []),
        ("de", "Every floor.", "Jeden Stock.", []),
        ("it", "Bread and butter.", "Bread and butter.", ["bread", "and", "butter"]),
        ("it", "I heard the bell.", "Ho sentito il bell.", ["bell"]),
        ("de", "My neighbour, Mr. Okafor, laughed.", "Mein Nachbar, Mr. Okafor, lachte.", ["mr"]),
        ("es", "Mr. Okafor laughed.", "El señor Okafor se rió.", []),
    ],
)
def test_a_common_target_word_spelled_as_english_is_english_only_beside_english(
    lang: str, source: str, output: str, english: list[str]
) -> None:
    """French "as", Spanish "he", German "Stock" are the target language's words alone; "and"
    between English words is English; an English title is no name even mid-sentence."""
    dictionary_ = load_dictionary(lang)
    assert dictionary_ is not None
    assert english_left(source, output, dictionary_) == english
