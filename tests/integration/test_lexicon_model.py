"""A model's lexicon end to end: built by `fitsub lexicon`, loaded, exported, kept to by the
search, the `unknown-word` flag when nothing keeps to it, and a bad or missing lexicon."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from cli_helpers import assert_refused_in_one_line, run, translate_toy_srt
from factories import tiny_checkpoint

from fitsub.backend import Request
from fitsub.nmt import model_files
from fitsub.nmt.backend import NMTBackend
from fitsub.quality.lexicon import LEXICON_FILE, Lexicon, lexicon_bytes, unknown_words


def _write(path: Path, words: dict[str, int], language: str = "it") -> None:
    path.write_bytes(
        lexicon_bytes(words, min_count=1, language=language, source="test", lines=len(words))
    )


def test_build_load_and_export(tmp_path: Path) -> None:
    model = tiny_checkpoint(tmp_path)
    data = tmp_path / "train"
    data.mkdir()
    (data / "toy.it").write_text("kato so kato\nlu ne so\n", "utf-8")
    code = run(["lexicon", str(model), "--data", str(data), "--corpus", "toy:0.5"])
    assert code == 0
    backend = NMTBackend(model, device="cpu", beam=2, threads=1)
    assert backend.lexicon is not None and dict(backend.lexicon.counts) == {"kato": 2, "so": 2}
    assert backend.lexicon_note is None
    out = tmp_path / "shipped"
    assert run(["export", str(model), str(out)]) == 0
    assert (out / LEXICON_FILE).read_bytes() == (model / LEXICON_FILE).read_bytes()


def test_fitted_words_keep_to_the_lexicon_and_the_source(tmp_path: Path) -> None:
    model = tiny_checkpoint(tmp_path)
    free = NMTBackend(model, device="cpu", beam=3, threads=1, lexicon="off")
    texts = ["ka to ri mè so", "lu ne pa zé qui vo ga", "so lu ne"]
    reqs = [Request(t, target_chars=30, max_chars=40) for t in texts]
    made = {w for cands in free.translate(reqs, n_best=3) for c in cands for w in c.text.split()}
    # a lexicon of half of what the untrained model writes: the other half is invented
    lex = sorted(made)[::2]
    _write(model / LEXICON_FILE, dict.fromkeys(lex, 3))
    kept = NMTBackend(model, device="cpu", beam=3, threads=1)
    assert kept.lexicon is not None
    outs = kept.translate(reqs, n_best=3)
    alone = free.translate(reqs, n_best=3)
    for text, cands, plain in zip(texts, outs, alone, strict=True):
        for c in cands:
            if unknown_words(c.text, [text], kept.lexicon):  # only the flagged fallback
                assert [x.text for x in cands] == [x.text for x in plain]
    assert any(
        not unknown_words(c[0].text, [t], kept.lexicon) for t, c in zip(texts, outs, strict=True)
    )


def test_nothing_satisfies_the_lexicon_the_segment_is_flagged_unknown_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the lexicon alone: without the Italian word list, some of the tiny model's random
    # fragments are listed words ("fitsub.quality.dictionary")
    monkeypatch.setattr(model_files, "with_dictionary", lambda lexicon, lang=None: lexicon)
    model = tiny_checkpoint(tmp_path)
    _write(model / LEXICON_FILE, {"qqqq": 1})  # no word the model can write
    code, report = translate_toy_srt(tmp_path, model)
    assert code == 0 and report is not None
    segs = [s for s in report["segments"] if s["flags"] is not None]
    flagged = [f for s in segs for f in s["flags"] if f["name"] == "unknown-word"]
    assert flagged and all(f["detail"] for f in flagged)
    words = {w.strip() for f in flagged for w in f["detail"].split(",")}
    lexicon = Lexicon({"qqqq": 1})
    fitted = " ".join(s["fitted"] for s in segs)
    assert words == set(
        unknown_words(fitted, ["the big dog runs a small cat sees the red tree"], lexicon)
    )
    assert (tmp_path / "toy.it.srt").is_file()


@pytest.mark.parametrize(
    "data",
    [
        b"\x1f\x8bnot gzip",
        b"# other-format 1\nkato\t3\n",
        gzip.compress(b"# fitsub-lexicon 1\nkato 3\n"),
        # issue 44: a gzip bomb (a 40 MiB line from 40 KB), refused at the 32 MiB limit
        gzip.compress(b"# fitsub-lexicon 1\n" + b"a" * (40 * 2**20), compresslevel=1),
    ],
    ids=["not-gzip", "other-format", "no-tab", "bomb"],
)
def test_a_corrupt_or_foreign_lexicon_is_one_line_exit_2(
    tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_checkpoint(tmp_path)
    (model / LEXICON_FILE).write_bytes(data)
    assert_refused_in_one_line(tmp_path, model, LEXICON_FILE, capsys)


def test_a_lexicon_of_another_language_is_refused(tmp_path: Path) -> None:
    model = tiny_checkpoint(tmp_path)
    _write(model / LEXICON_FILE, {"haus": 1}, language="de")
    code, report = translate_toy_srt(tmp_path, model)
    assert code == 2 and report is None


def test_a_model_without_a_lexicon_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_checkpoint(tmp_path)
    srt = tmp_path / "toy.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nthe big dog\n", "utf-8")
    assert run(["translate", str(srt), "--model", str(model), "--table-format", "tsv"]) == 0
    err = capsys.readouterr().err
    assert err.count("no lexicon.txt.gz") == 1


def test_a_corrupt_word_list_is_one_line_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import fitsub.quality.dictionary as dictionary

    model = tiny_checkpoint(tmp_path)
    _write(model / LEXICON_FILE, {"casa": 3})
    corrupt = tmp_path / "large_it.msgpack.gz"
    corrupt.write_bytes(b"\x1f\x8b\x08\x00 truncated")
    monkeypatch.setattr(dictionary, "list_path", lambda lang: corrupt)
    dictionary._cached_list.cache_clear()
    dictionary.load_dictionary.cache_clear()
    try:
        assert_refused_in_one_line(tmp_path, model, "large_it.msgpack.gz", capsys)
    finally:
        dictionary._cached_list.cache_clear()
        dictionary.load_dictionary.cache_clear()
