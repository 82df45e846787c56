"""The lexicon file: words, counts, header, and the one-line errors of a bad file."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from fitsub.errors import InputError
from fitsub.quality.lexicon import (
    Lexicon,
    build_lexicon,
    lexicon_bytes,
    read_lexicon,
    unknown_words,
    words_of,
    write_lexicon,
)


def test_words_are_letter_runs_normalised_and_lower_cased() -> None:
    assert words_of("Dell'anno 2019, COVID-19 e mp3: ﬁne!") == [
        "dell", "anno", "covid", "e", "mp", "fine",
    ]  # fmt: skip


def test_write_then_read_keeps_words_counts_and_header(tmp_path: Path) -> None:
    counts = Counter({"casa": 5, "cane": 2, "gatto": 1})
    lex = write_lexicon(
        tmp_path / "lexicon.txt.gz", counts, min_count=2, language="it", source="toy", lines=3
    )
    assert dict(lex.counts) == {"casa": 5, "cane": 2}  # seen once: left out
    assert (lex.language, lex.source, lex.min_count) == ("it", "toy", 2)
    text = gzip.decompress((tmp_path / "lexicon.txt.gz").read_bytes()).decode()
    assert text.splitlines()[:2] == ["# fitsub-lexicon 1", "# language: it"]
    assert text.splitlines()[6:] == ["casa\t5", "cane\t2"]  # most frequent first


def test_same_counts_give_the_same_bytes() -> None:
    kw = dict(min_count=1, language="it", source="s", lines=1)
    assert lexicon_bytes({"a": 1, "b": 2}, **kw) == lexicon_bytes({"b": 2, "a": 1}, **kw)  # type: ignore[arg-type]


def test_prefixes_and_ranges() -> None:
    lex = Lexicon({"casa": 3, "casale": 1, "cane": 2})
    assert lex.knows("casa") and not lex.knows("cas")
    assert lex.has_prefix("cas") and lex.has_prefix("casal") and not lex.has_prefix("casx")
    assert list(lex.starting_with("cas")) == ["casa", "casale"]
    assert list(lex.starting_with("")) == ["cane", "casa", "casale"]


def test_unknown_words_skip_source_and_glossary_words() -> None:
    lex = Lexicon({"questi": 1, "sono": 1})
    found = unknown_words("Questi sono terrestri, Sintel, Pianiamo.", ["These are, Sintel."], lex)
    assert found == ["terrestri", "Pianiamo"]
    assert unknown_words("Questi sono Pianiamo", [], lex, extra=["Pianiamo"]) == []


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x1f\x8b\x08\x00garbage", "corrupt lexicon"),
        (b"# something else 1\ncasa\t3\n", "not a fitsub lexicon"),
        (b"# fitsub-lexicon 2\ncasa\t3\n", "not a fitsub lexicon"),
        (b"# fitsub-lexicon 1\ncasa 3\n", "expected 'word<TAB>count'"),
        (b"# fitsub-lexicon 1\n# words: 2\ncasa\t3\n", "header says 2 words"),
        (b"\xff\xfe\x00", "corrupt lexicon"),
    ],
)
def test_a_corrupt_or_foreign_file_is_one_input_error(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    bad = tmp_path / "lexicon.txt.gz"
    bad.write_bytes(data)
    with pytest.raises(InputError) as err:
        read_lexicon(bad)
    assert problem in err.value.message
    assert str(bad) in err.value.message and "\n" not in err.value.message


def test_build_counts_the_named_corpora_of_the_target_language(tmp_path: Path) -> None:
    (tmp_path / "a.it").write_text("La casa. La casa!\n", "utf-8")
    (tmp_path / "b.it").write_text("la CASA del cane\n", "utf-8")
    (tmp_path / "a.en").write_text("the house\n", "utf-8")
    lex = build_lexicon(tmp_path, ["a", "b"], "it", tmp_path / "out.txt.gz", min_count=2)
    assert dict(lex.counts) == {"la": 3, "casa": 3}
    with pytest.raises(InputError, match="no such training text"):
        build_lexicon(tmp_path, ["c"], "it", tmp_path / "x.txt.gz")
