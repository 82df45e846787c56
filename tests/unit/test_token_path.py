"""The length-token path (fitsub.nmt.token_path): fitted rows answered from CTranslate2's n-best
under a length token, filtered by the row's bounds and lexicon, the rest left to fitsub's search;
and the training side that makes such a model (token dropout, rows without a token)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from factories import train_tiny
from nmt_helpers import digit_ids

from fitsub.backend import Request
from fitsub.errors import InputError
from fitsub.nmt import token_path
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.checkpoint import save_checkpoint
from fitsub.nmt.config import ModelConfig
from fitsub.quality.lexicon import Lexicon
from fitsub.train.batches import pad_rows
from fitsub.train.config import TrainConfig


def test_candidates_are_kept_to_both_bounds_in_the_rows_unit_and_ranked_by_fitsubs_key() -> None:
    req = Request("a b c d e f", target_chars=10, max_chars=12, min_chars=8)
    hyps = [
        ("much too long here", -1.0),  # 18 > 12
        ("short", -0.5),  # 5 < 8
        ("ten chars!", -3.0),  # 10: on target
        ("eleven char", -2.0),  # 11
        ("eleven char", -2.5),  # a repeat: once
        ("   ", -0.1),  # empty
    ]
    got = token_path.filter_candidates(req, hyps, 10, 1.0, None)
    # key = score - |chars - 10| / 10: -3.0 and -2.1
    assert [c.text for c in got] == ["eleven char", "ten chars!"]
    assert all(c.fits for c in got) and got[0].score == -2.0
    spaces = Request("x", target_chars=6, max_chars=6, bound_unit="char_no_space")
    assert [c.text for c in token_path.filter_candidates(spaces, [("ab cd ef", 0.0)], 6, 1.0, None)]
    assert token_path.filter_candidates(spaces, [("abc defg", 0.0)], 6, 1.0, None) == []


def test_a_candidate_with_a_word_neither_lexicon_nor_source_has_is_dropped_when_asked() -> None:
    lex = Lexicon({"il": 5, "gatto": 3, "dorme": 2})
    req = Request("Felix sleeps", target_chars=20, max_chars=30, lexicon=True)
    hyps = [("Il gatto dormme", -1.0), ("Felix dorme", -2.0), ("Il gatto dorme", -3.0)]
    got = token_path.filter_candidates(req, hyps, 20, 0.0, lex)
    assert [c.text for c in got] == ["Felix dorme", "Il gatto dorme"]  # "dormme" invented
    free = Request("Felix sleeps", target_chars=20, max_chars=30, lexicon=False)
    assert len(token_path.filter_candidates(free, hyps, 20, 0.0, lex)) == 3


def test_only_a_token_model_trained_without_its_length_has_the_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cfg(**kw: object) -> ModelConfig:
        return ModelConfig(vocab_size=10, length_thresholds=(0.9, 1.1), **kw)  # type: ignore[arg-type]

    both = cfg(method="tok+ldpe+pe", length_dropout=0.3, token_dropout=0.3)
    assert token_path.has_token_path(both)
    assert not token_path.has_token_path(cfg(method="ldpe+pe", length_dropout=0.3))
    # the token was always there with the length: never trained to act alone
    assert not token_path.has_token_path(cfg(method="tok+ldpe+pe", length_dropout=0.0))
    assert not token_path.has_token_path(cfg(method="tok+ldpe+pe", length_dropout=0.3))
    # opt-in: the study found it no faster on the project's CPU
    monkeypatch.delenv(token_path.TOKEN_PATH_ENV, raising=False)
    assert not token_path.token_path_on(both)
    monkeypatch.setenv(token_path.TOKEN_PATH_ENV, "on")
    assert token_path.token_path_on(both)
    assert not token_path.token_path_on(cfg(method="ldpe+pe", length_dropout=0.3))


def test_rows_without_a_token_start_with_their_pieces() -> None:
    ids = np.array([11, 12, 13, 21, 22], dtype=np.int64)
    off = np.array([0, 3, 5])
    out = pad_rows(ids, off, np.array([0, 1]), 0, prefix=np.array([-1, 7]), suffix=3)
    assert out.tolist() == [[11, 12, 13, 3], [7, 21, 22, 3]]
    out = pad_rows(ids, off, np.array([1, 0]), 0, prefix=np.array([-1, -1]), suffix=3)
    assert out.tolist() == [[21, 22, 3, 0], [11, 12, 13, 3]]


def test_token_dropout_needs_a_token_method_and_a_share_below_one() -> None:
    def run(**kw: object) -> TrainConfig:
        return TrainConfig.from_options(out_dir="x", data_dir="d", **kw)

    run(method="tok+ldpe+pe", token_dropout=0.3).validate()
    with pytest.raises(InputError, match="no length token"):
        run(method="ldpe+pe", token_dropout=0.3).validate()
    with pytest.raises(InputError, match=r"\[0, 1\)"):
        run(method="tok+ldpe+pe", token_dropout=1.0).validate()


@pytest.fixture(scope="module")
def token_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny copy model trained with the token and LDPE, each absent from 30 % of rows."""
    model, tok, cfg = train_tiny(
        "tok+ldpe+pe", "char", steps=300, length_dropout=0.3, token_dropout=0.3
    )
    return save_checkpoint(tmp_path_factory.mktemp("tok") / "tok", model, cfg, tok)


def digit_lines(model: Path) -> list[str]:
    from fitsub.nmt.tokenizer import Tokenizer

    tok = Tokenizer.load(model / "spm.model")
    pieces = [tok.sp.id_to_piece(i)[1:] for i in digit_ids(tok)]
    rng = np.random.default_rng(5)
    return [" ".join(rng.choice(pieces, size=int(rng.integers(4, 10)))) for _ in range(16)]


def test_fitted_rows_are_answered_on_ctranslate2_within_budget_and_the_rest_searched(
    token_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = digit_lines(token_model)
    asked = [Request(t, target_chars=len(t), max_chars=len(t)) for t in lines]
    monkeypatch.setenv(token_path.TOKEN_PATH_ENV, "on")
    on = NMTBackend(token_model, device="cpu", beam=4)
    assert on.ct2 is not None and on.token_path
    got = on.translate(asked)
    assert on.token_served >= len(lines) // 2  # most rows: CTranslate2's n-best
    assert all(
        c[0].text and (len(c[0].text) <= len(t) or not c[0].fits)
        for c, t in zip(got, lines, strict=True)
    )
    assert all(c[0].fits for c in got)
    monkeypatch.delenv(token_path.TOKEN_PATH_ENV)  # the default: fitsub's search
    off = NMTBackend(token_model, device="cpu", beam=4)
    assert off.ct2 is not None and not off.token_path
    calls: list[int] = []
    real = off.ct2.translate_rows
    monkeypatch.setattr(
        off.ct2, "translate_rows", lambda src, *a: calls.append(len(src)) or real(src, *a)
    )
    searched = off.translate(asked)
    assert calls == [] and off.token_served == 0
    assert all(len(c[0].text) <= len(t) for c, t in zip(searched, lines, strict=True))


def test_a_row_that_missed_one_way_is_asked_with_the_next_token_that_way() -> None:
    classes = [5, 6, 7]  # <short> <normal> <long>
    assert token_path.next_token([6, 11, 12, 3], classes, -1) == [5, 11, 12, 3]
    assert token_path.next_token([6, 11, 12, 3], classes, 1) == [7, 11, 12, 3]
    assert token_path.next_token([5, 11, 3], classes, -1) is None  # nothing shorter
    assert token_path.next_token([7, 11, 3], classes, 1) is None
    assert token_path.next_token([6, 11, 3], classes, 0) is None
    assert token_path.next_token([11, 3], classes, -1) is None  # no token
    req = Request("abcdefghij", target_chars=10, max_chars=10, min_chars=8)
    assert token_path.miss_direction(req, [("abcdefghijk", -1.0), ("abcdefghijklm", -2.0)]) == -1
    assert token_path.miss_direction(req, [("abc", -1.0), ("abcdefg", -2.0)]) == 1
    assert token_path.miss_direction(req, [("abc", -1.0), ("abcdefghijklm", -2.0)]) == 0


def test_a_row_asked_for_a_ratio_on_a_class_edge_asks_for_that_class() -> None:
    edges = (1.0, 1.155)
    assert token_path.budget_token(40, 40, edges) == "<short>"  # exactly the source's length
    assert token_path.budget_token(40, 41, edges) == "<normal>"
    assert token_path.budget_token(100, 115, edges) == "<normal>"
    assert token_path.budget_token(100, 116, edges) == "<long>"
    assert token_path.budget_token(40, 30, edges) == "<short>"
