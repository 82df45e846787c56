"""Word links: which target words translate an English word (Dice over sentence pairs), the
`src_unlinked` signal, the file and the one-line errors of a bad one."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from fitsub.budget import Budget
from fitsub.errors import InputError
from fitsub.pipeline.assemble import SegmentResult, flag_segments
from fitsub.quality.links import (
    Measure,
    WordLinks,
    build_links,
    count_links,
    link_signals,
    links_bytes,
    read_links,
)

# a toy parallel text: "the" is the one function word (the most frequent English word); "cat"
# always comes with "gatto", "dog" with "cane", "red" with "rosso"
EN = ["the cat sleeps", "the dog sleeps", "the red cat", "the red dog", "a cat", "a dog"]
IT = ["il gatto dorme", "il cane dorme", "il gatto rosso", "il cane rosso", "un gatto", "un cane"]
TOY = Measure(min_count=2, min_pair=2, min_dice=0.8, function_words=1)


def _toy(tmp_path: Path) -> Path:
    data = tmp_path / "train"
    data.mkdir()
    (data / "toy.en").write_text("\n".join(EN) + "\n", "utf-8")
    (data / "toy.it").write_text("\n".join(IT) + "\n", "utf-8")
    return data


def test_links_are_the_word_pairs_that_go_together(tmp_path: Path) -> None:
    data = _toy(tmp_path)
    links, function, pairs = count_links([data / "toy.en"], [data / "toy.it"], TOY)
    assert pairs == 6 and function == ["the"]
    # dice(cat, gatto) = 2 * 3 / (3 + 3) = 1; dice(cat, il) = 2 * 2 / (3 + 4) = 0.57: no link
    assert links == {
        "cat": ["gatto"], "sleeps": ["dorme"], "dog": ["cane"], "red": ["rosso"], "a": ["un"],
    }  # fmt: skip


def test_unlinked_source_words_are_those_without_a_counterpart(tmp_path: Path) -> None:
    data = _toy(tmp_path)
    links = build_links(data, ["toy"], "it", tmp_path / "links.txt.gz", TOY)
    assert links.languages == ("en", "it") and links.function == {"the"}
    assert links.unlinked("The red cat sleeps.", "Il gatto rosso dorme.") == []
    # the dog lost, "sleeps" left without "dorme"; "the" needs no counterpart
    assert links.unlinked("The dog sleeps.", "Il gatto.") == ["dog", "sleeps"]
    # a name copied into the output is kept; an unknown word not copied is lost
    assert links.unlinked("Sintel sleeps", "Sintel dorme") == []
    assert links.unlinked("Sintel sleeps", "Lei dorme") == ["sintel"]
    assert link_signals("The dog sleeps.", "Il gatto.", links) == {"src_unlinked": 2.0}
    assert link_signals("The dog sleeps.", "Il gatto.", None) == {"src_unlinked": None}


def test_same_links_give_the_same_bytes_and_read_back(tmp_path: Path) -> None:
    a = links_bytes({"cat": ["gatto"], "dog": ["cane", "cani"]}, ["the"], language="it", source="s")
    b = links_bytes({"cat": ["gatto"], "dog": ["cane", "cani"]}, ["the"], language="it", source="s")
    assert a == b
    path = tmp_path / "links.txt.gz"
    path.write_bytes(a)
    got = read_links(path)
    assert dict(got.links) == {"cat": "gatto", "dog": "cane cani"}  # best first
    assert got.function == {"the"} and got.source == "s"


def test_lines_not_aligned_are_refused(tmp_path: Path) -> None:
    data = _toy(tmp_path)
    (data / "toy.it").write_text("\n".join(IT[:-1]) + "\n", "utf-8")
    with pytest.raises(InputError, match="not line-aligned"):
        build_links(data, ["toy"], "it", tmp_path / "links.txt.gz", TOY)
    assert not (tmp_path / "links.txt.gz").exists()
    with pytest.raises(InputError, match="no such training text"):
        build_links(data, ["nope"], "it", tmp_path / "links.txt.gz", TOY)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\x1f\x8bnot gzip", "corrupt word links file"),
        (b"# fitsub-lexicon 1\ncat\t3\n", "not a fitsub word links file"),
        (
            gzip.compress(b"# fitsub-links 1\n# function: the\ncat gatto\n", mtime=0),
            "expected 'word<TAB>words'",
        ),
        (gzip.compress(b"# fitsub-links 1\ncat\tgatto\n", mtime=0), "no '# function:' line"),
        (gzip.compress(b"# fitsub-links 1\n# function: the\ncat\tgatto  3\n", mtime=0), "got 'cat"),
        (
            gzip.compress(
                b"# fitsub-links 1\n# function: the\n# entries: 3\ncat\tgatto\n", mtime=0
            ),
            "header says 3",
        ),
    ],
)
def test_a_corrupt_or_foreign_file_is_one_input_error(
    tmp_path: Path, data: bytes, says: str
) -> None:
    path = tmp_path / "links.txt.gz"
    path.write_bytes(data)
    with pytest.raises(InputError, match=says) as err:
        read_links(path)
    assert "links.txt.gz" in str(err.value) and "\n" not in str(err.value)


def test_describe_names_the_file_and_the_pair() -> None:
    links = WordLinks(
        {"cat": frozenset({"gatto"})}, frozenset({"the"}), ("en", "it"), "s", Path("links.txt.gz")
    )
    assert links.describe() == "links.txt.gz (1 English words, en-it)"


def _seg(i: int, source: str, fitted: str, free: str, group: int = -1) -> SegmentResult:
    budget = Budget(len(source), len(source), None, None, len(source), "ratio", False)
    return SegmentResult(i, str(i + 1), source, budget, fitted, free, group=group)


def _dropped(seg: SegmentResult) -> str | None:
    return next((f.detail for f in seg.flags if f.name == "dropped-content"), None)


def test_dropped_content_names_what_fitting_removed(tmp_path: Path) -> None:
    links = build_links(_toy(tmp_path), ["toy"], "it", tmp_path / "links.txt.gz", TOY)
    segs = [
        _seg(0, "The red cat sleeps.", "Il gatto dorme.", "Il gatto rosso dorme."),  # red lost
        _seg(1, "The dog sleeps.", "Il cane dorme.", "Il cane dorme."),  # nothing lost
        _seg(2, "The dog sleeps.", "Il cane.", "Il gatto."),  # never there: not the fitting's
    ]
    flagged = flag_segments(segs, links=links)
    assert [_dropped(s) for s in flagged] == ["no counterpart for red", None, None]
    assert flag_segments(segs)[0].flags == ()  # without links: as before
    # a sentence over two cues: judged joined (a word may move to the other cue), flagged on
    # the cue whose source holds the word
    pair = [
        _seg(0, "The red", "Il", "Il gatto", group=0),
        _seg(1, "cat sleeps.", "gatto dorme.", "rosso dorme.", group=0),
    ]
    assert [_dropped(s) for s in flag_segments(pair, links=links)] == [
        "no counterpart for red",
        None,
    ]
