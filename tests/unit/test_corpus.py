"""Parallel data: reading, filtering, dev split by source, encoding, token batches, sharding."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from fitsub.errors import InputError
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train import batches as B
from fitsub.train import corpus as D
from fitsub.units import char_length

WORDS = "cat dog house red blue big small runs eats sees the man woman child tree".split()


def toy_corpus(n: int, seed: int = 0) -> D.Corpus:
    """English-like word strings and a made-up 'Italian' (each word reversed plus `o`)."""
    rng = random.Random(seed)
    src, tgt = [], []
    for _ in range(n):
        ws = [rng.choice(WORDS) for _ in range(rng.randint(1, 9))]
        src.append(" ".join(ws))
        tgt.append(" ".join(w[::-1] + "ò" for w in ws))
    return D.Corpus(src, tgt)


def write_pair(d: Path, stem: str, corpus: D.Corpus) -> None:
    (d / f"{stem}.en").write_text("\n".join(corpus.src) + "\n", "utf-8")
    (d / f"{stem}.it").write_text("\n".join(corpus.tgt) + "\n", "utf-8")


def test_read_parallel_keeps_lines_and_strips_crlf(tmp_path: Path) -> None:
    (tmp_path / "a.en").write_bytes(b"Hello.\r\nGood bye\r\n")
    (tmp_path / "a.it").write_bytes(b"Ciao.\r\nArrivederci\r\n")
    c = D.read_parallel(tmp_path / "a.en", tmp_path / "a.it")
    assert c.src == ["Hello.", "Good bye"] and c.tgt == ["Ciao.", "Arrivederci"]


def test_misaligned_files_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.en").write_text("one\ntwo\nthree\n")
    (tmp_path / "a.it").write_text("uno\ndue\n")
    with pytest.raises(InputError) as err:
        D.read_parallel(tmp_path / "a.en", tmp_path / "a.it")
    assert "a.it" in str(err.value) and "2 lines" in str(err.value) and "3" in str(err.value)


def test_bad_utf8_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "a.en").write_bytes(b"ok\nfine\nbad \xff byte\n")
    (tmp_path / "a.it").write_text("x\ny\nz\n")
    with pytest.raises(InputError) as err:
        D.read_parallel(tmp_path / "a.en", tmp_path / "a.it")
    assert err.value.line == 3 and str(err.value).startswith(str(tmp_path / "a.en") + ":3:")


def test_data_dir_corpus_specs_select_and_weight(tmp_path: Path) -> None:
    write_pair(tmp_path, "big", toy_corpus(40, seed=1))
    write_pair(tmp_path, "small", toy_corpus(10, seed=2))
    (tmp_path / "orphan.en").write_text("no partner\n")
    both, sizes = D.load_data_dir(tmp_path, "en", "it", [], seed=0)
    assert sizes == {"big": 40, "small": 10} and len(both) == 50
    weighted, sizes = D.load_data_dir(tmp_path, "en", "it", ["small:2.5"], seed=0)
    assert sizes == {"small": 25}
    small = D.read_parallel(tmp_path / "small.en", tmp_path / "small.it")
    assert weighted.src[:20] == small.src + small.src  # two whole copies, then a random half
    assert set(weighted.src[20:]) <= set(small.src)
    with pytest.raises(InputError, match="no corpus 'nope'"):
        D.load_data_dir(tmp_path, "en", "it", ["nope"], seed=0)
    with pytest.raises(InputError, match="bad corpus spec"):
        D.parse_corpus_spec("big:x")


def test_filter_counts_each_reason() -> None:
    c = D.Corpus(
        ["Hi.", "", "A normal sentence here.", "x" * 50, "A short line"],
        [
            "Ciao!",
            "vuoto",
            "Una frase normale qui.",
            "y" * 50,
            "Una riga tradotta in modo troppo lungo!",
        ],
    )
    kept, counts = D.filter_pairs(c, 1 / 3, 3.0, max_chars=40)
    assert counts == {"empty": 1, "too_long": 1, "ratio": 1}
    assert kept.src == ["Hi.", "A normal sentence here."]  # short pairs skip the ratio check


def test_dev_split_never_shares_a_source() -> None:
    src = [f"sentence {i // 3}" for i in range(300)]  # every source has three translations
    c = D.Corpus(src, [f"frase {i}" for i in range(300)])
    train, dev = D.split_by_source(c, 50, seed=3)
    assert len(train) + len(dev) == 300
    assert 50 <= len(dev) <= 52 and len(dev) % 3 == 0
    assert not set(train.src) & set(dev.src)
    again_train, again_dev = D.split_by_source(c, 50, seed=3)
    assert again_dev.src == dev.src  # the seed fixes the split
    with pytest.raises(InputError, match="too little data"):
        D.split_by_source(D.Corpus(["a", "b"], ["c", "d"]), 5, seed=0)


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    c = toy_corpus(300)
    return Tokenizer.train(c.src + c.tgt, vocab_size=80, langs=("en", "it"))


def _encode(tok: Tokenizer, c: D.Corpus, unit: str) -> D.Encoded:
    pc = np.asarray(tok.piece_chars())
    lead = np.asarray(tok.leading_space())
    return D.encode_corpus(tok, c, unit, pc, lead)


def test_char_units_match_the_detokenised_text(tok: Tokenizer) -> None:
    c = toy_corpus(200, seed=5)
    enc = _encode(tok, c, "char")
    for i in range(len(c)):
        ids = enc.tgt_ids[enc.tgt_off[i] : enc.tgt_off[i + 1]].tolist()
        assert enc.tgt_units[i] == char_length(tok.decode(ids)) == char_length(c.tgt[i])
    sub = _encode(tok, c, "subword")
    assert sub.tgt_units.tolist() == [len(tok.encode(t)) for t in c.tgt]
    expected_ratio = [char_length(t) / char_length(s) for s, t in zip(c.src, c.tgt, strict=True)]
    assert np.allclose(enc.ratio, expected_ratio)


def test_subset_and_pad_rows_rebuild_the_sentences(tok: Tokenizer) -> None:
    c = toy_corpus(50, seed=6)
    enc = _encode(tok, c, "char")
    idx = np.array([7, 2, 30])
    sub = enc.subset(idx)
    rows = B.pad_rows(
        sub.src_ids, sub.src_off, np.arange(3), pad=0, prefix=np.array([5, 6, 7]), suffix=3
    )
    for r, i in enumerate(idx):
        pieces = tok.encode(c.src[i])
        want = [5 + r, *pieces, 3]
        assert rows[r, : len(want)].tolist() == want
        assert (rows[r, len(want) :] == 0).all()


def test_drop_long_removes_only_long_pairs(tok: Tokenizer) -> None:
    c = toy_corpus(100, seed=7)
    enc = _encode(tok, c, "char")
    limit = int(np.median(enc.src_lens))
    kept, dropped = D.drop_long(enc, limit)
    assert dropped == int(((enc.src_lens > limit) | (enc.tgt_lens > limit)).sum())
    assert kept.src_lens.max() <= limit and kept.tgt_lens.max() <= limit


def test_batches_cover_every_pair_once_within_the_token_limit() -> None:
    rng = np.random.default_rng(0)
    s = rng.integers(1, 60, size=2000)
    t = s + rng.integers(-5, 6, size=2000).clip(-s + 1)
    batches = B.make_batches(s, t, 1024, np.random.default_rng(1))
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(2000))
    padded = sum(len(b) * (s[b].max() + 1 + t[b].max() + 1) for b in batches)
    real = int((s + 1 + t + 1).sum())
    for b in batches:
        assert len(b) * (s[b].max() + 1 + t[b].max() + 1) <= 1024
    assert real / padded > 0.85  # length bucketing keeps padding small
    again = B.make_batches(s, t, 1024, np.random.default_rng(1))
    assert all((a == b).all() for a, b in zip(batches, again, strict=True))
    other = B.make_batches(s, t, 1024, np.random.default_rng(2))
    assert [len(b) for b in other] != [len(b) for b in batches]  # a new epoch, a new order


def test_shards_are_disjoint_and_equal_in_count() -> None:
    batches = [np.array([i]) for i in range(11)]
    shards = [B.shard(batches, r, 3) for r in range(3)]
    assert [len(x) for x in shards] == [3, 3, 3]
    seen = [int(b[0]) for sh in shards for b in sh]
    assert len(set(seen)) == 9


def test_dedupe_keeps_length_variety_only() -> None:
    c = D.Corpus(
        ["I'm tired.", "I'm tired.", "I'm tired. ", "I'm tired.", "I'm tired.", "Go."],
        ["Sono stanco.", "Sono stanca.", "Sono stanco.", "Io sono stanco.", "Sono stanco.", "Vai."],
    )
    kept, counts = D.dedupe(c)
    # "Sono stanca." has the kept one's length (12); "Io sono stanco." (15) is 3 longer: kept;
    # the third and fifth repeat the first pair (outer spaces stripped)
    assert list(zip(kept.src, kept.tgt, strict=True)) == [
        ("I'm tired.", "Sono stanco."),
        ("I'm tired.", "Io sono stanco."),
        ("Go.", "Vai."),
    ]
    assert counts == {"duplicate": 2, "same_length": 1}
    # 10 % of the longer: 40 vs 44 characters is not variety, 40 vs 45 is
    long = D.Corpus(["s"] * 3, ["x" * 40, "x" * 44, "x" * 45])
    assert [len(t) for t in D.dedupe(long)[0].tgt] == [40, 45]


def test_data_dir_dedupes_each_corpus_before_its_weight(tmp_path: Path) -> None:
    write_pair(tmp_path, "rep", D.Corpus(["Hello there."] * 2, ["Ciao a te."] * 2))
    dropped: dict[str, int] = {}
    both, sizes = D.load_data_dir(tmp_path, "en", "it", ["rep:3"], seed=0, dropped=dropped)
    assert sizes == {"rep": 3} and both.tgt == ["Ciao a te."] * 3
    assert dropped == {"duplicate": 1, "same_length": 0}
    plain, sizes = D.load_data_dir(tmp_path, "en", "it", ["rep:3"], seed=0)
    assert sizes == {"rep": 6}  # without `dropped`: read as it is
