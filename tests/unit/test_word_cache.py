"""The word lists' cache (issue 59): derived once, read back equal, rebuilt when its inputs or
its file change, and a cache that cannot be written costs only time."""

from __future__ import annotations

from pathlib import Path

import pytest

import fitsub.quality.dictionary as dictionary
from fitsub.quality import word_cache
from fitsub.quality.lexicon import Lexicon


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "fitsub" / "words"


def test_a_table_is_built_once_then_read_back_equal(cache: Path) -> None:
    built: list[int] = []
    table = {"ape": 4.37, "apiari": 2.01, "città": 5.5, "zz": 0.0}

    def build() -> dict[str, float]:
        built.append(1)
        return dict(table)

    first = word_cache.cached_table("zipf-xx", [b"list", b"code"], build)
    again = word_cache.cached_table("zipf-xx", [b"list", b"code"], build)
    assert first == again == table and list(again) == list(table)  # values exact, order kept
    assert built == [1]
    other = word_cache.cached_table("zipf-xx", [b"list", b"new code"], build)
    assert other == table and built == [1, 1]  # other inputs: another file
    assert len(list(cache.iterdir())) == 2


def test_a_damaged_file_is_rebuilt_and_replaced(cache: Path) -> None:
    word_cache.cached_table("t", [b"a"], lambda: {"uno": 1.0, "due": 2.0})
    (path,) = cache.iterdir()
    path.write_bytes(path.read_bytes()[:-3])  # truncated: a word short
    assert word_cache.cached_table("t", [b"a"], lambda: {"uno": 1.0, "due": 2.0}) == {
        "uno": 1.0,
        "due": 2.0,
    }
    assert word_cache.cached_table("t", [b"a"], lambda: {}) == {"uno": 1.0, "due": 2.0}
    path.write_bytes(b"not a table")
    assert word_cache.cached_table("t", [b"a"], lambda: {"tre": 3.0}) == {"tre": 3.0}


def test_an_unwritable_cache_still_gives_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")  # $XDG_CACHE_HOME is a file: fitsub/words cannot be made
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert word_cache.cached_table("t", [b"a"], lambda: {"uno": 1.0}) == {"uno": 1.0}


def test_the_dictionary_read_from_the_cache_equals_the_one_built(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fresh() -> dictionary.Dictionary:
        for fn in (dictionary.load_dictionary, dictionary._cached_list):
            fn.cache_clear()
        it = dictionary.load_dictionary("it")
        assert it is not None
        return it

    built = fresh()
    words, listed = dict(built.target), built.search_list
    assert listed == tuple(sorted(listed)) and "apiari" in listed and "blade" not in listed
    assert sorted(p.name.split("-")[0] for p in cache.iterdir()) == ["search", "zipf", "zipf"]

    def no_build(*args: object) -> object:
        raise AssertionError("built again instead of read from the cache")

    monkeypatch.setattr(dictionary, "_zipf_by_word", no_build)
    read = fresh()
    assert dict(read.target) == words and read.search_list == listed
    lexicon = Lexicon({"apiario": 3, "zzzq": 2}, language="it", dictionary=read)
    assert lexicon.has_prefix("zzz") and lexicon.has_prefix("apiar")
    expected = sorted({"apiario", *(w for w in listed if w.startswith("apiari"))})
    assert list(lexicon.starting_with("apiari")) == expected
