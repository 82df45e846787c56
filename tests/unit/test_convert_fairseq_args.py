"""fairseq checkpoint arguments, fairseq dictionaries and the SentencePiece piece list: the
parts of `fitsub convert fairseq` that need no model."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
import sentencepiece as spm

from fitsub.convert.fairseq import read_arguments
from fitsub.convert.spm_proto import CONTROL, UNUSED, Piece, read_pieces, with_pieces
from fitsub.convert.vocab import fairseq_rows, joint_symbols, read_dictionary, side_rows
from fitsub.errors import InputError


def test_old_args_and_new_cfg_read_the_same() -> None:
    old = {"args": argparse.Namespace(arch="transformer", encoder_normalize_before=True,
                                      encoder_attention_heads=4, source_lang="en")}  # fmt: skip
    new = {
        "args": None,
        "cfg": {
            "model": {
                "_name": "transformer",
                "encoder": {"normalize_before": True, "attention_heads": 4},
            },  # fmt: skip
            "task": {"_name": "translation", "source_lang": "en"},
            "bpe": {"_name": "sentencepiece", "sentencepiece_model": "/x/spm.model"},
        },
    }
    for ckpt in (old, new):
        args = read_arguments(ckpt)
        assert args["arch"] == "transformer" and args["encoder_normalize_before"] is True
        assert args["encoder_attention_heads"] == 4 and args["source_lang"] == "en"
    assert read_arguments(new)["bpe"] == "sentencepiece"
    assert read_arguments(new)["sentencepiece_model"] == "/x/spm.model"
    # legacy models keep a Namespace as cfg.model
    legacy = {"cfg": {"model": argparse.Namespace(arch="transformer_iwslt_de_en")}}
    assert read_arguments(legacy)["arch"] == "transformer_iwslt_de_en"


def test_dictionary_lines_and_the_special_rows(tmp_path: Path) -> None:
    d = tmp_path / "dict.en.txt"
    d.write_text("▁the 120\n, 80\n▁the 3 #fairseq:overwrite\nmadeupword0000 0\n", "utf-8")
    assert read_dictionary(d) == ["▁the", ",", "▁the", "madeupword0000"]
    # fitsub id -> fairseq row: pad, unk, BOS from </s>, </s>, then the same ids
    assert fairseq_rows(7) == [1, 3, 2, 2, 4, 5, 6]
    # separate dictionaries: the target's ids first, then the source's own symbols; each side's
    # rows by symbol (<unk> 3 where it lacks one, the later of two entries as fairseq does)
    src, tgt = ["▁the", "▁dog", "▁the"], ["▁il", "▁the"]
    assert joint_symbols(src, tgt) == ["▁il", "▁the", "▁dog"]
    assert side_rows(["▁il", "▁the", "▁dog"], src) == [1, 3, 2, 2, 3, 6, 5]
    assert side_rows(["▁il", "▁the", "▁dog"], tgt) == [1, 3, 2, 2, 4, 5, 3]
    d.write_text("▁the 120\n▁the 3\n", "utf-8")
    with pytest.raises(InputError, match="duplicate symbol"):
        read_dictionary(d)
    d.write_text("▁the\n", "utf-8")
    with pytest.raises(InputError, match=r"dict.en.txt:1: not a fairseq dictionary line"):
        read_dictionary(d)


def test_piece_list_rewrite_keeps_the_rest_of_the_model() -> None:
    out = io.BytesIO()
    text = ["the cat sat on the mat", "a dog ran in the park"] * 30
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text), model_writer=out, vocab_size=30,
                                   hard_vocab_limit=False, minloglevel=2, num_threads=1)  # fmt: skip
    model = out.getvalue()
    pieces = read_pieces(model)
    assert [p.piece for p in pieces[:3]] == ["<unk>", "<s>", "</s>"]
    assert read_pieces(with_pieces(model, pieces)) == pieces  # round trip
    sp = spm.SentencePieceProcessor(model_proto=model)
    new = [Piece("<pad>", 0.0, CONTROL), *pieces, Piece("madeupword0000", 0.0, UNUSED)]
    sp2 = spm.SentencePieceProcessor(model_proto=with_pieces(model, new))
    assert (sp2.pad_id(), sp2.unk_id(), sp2.get_piece_size()) == (0, 1, len(pieces) + 2)
    line = "the dog sat in the park"
    assert sp2.encode(line, out_type=str) == sp.encode(line, out_type=str)
    assert sp2.is_unused(len(pieces) + 1)
    with pytest.raises(ValueError):
        read_pieces(b"\x0a\xff")
