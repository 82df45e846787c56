"""Whole words only: under a hard budget the search never ends (or leaves) a word the model is
still spelling, never glues an unlikely fragment onto a word, and still keeps the budget."""

from __future__ import annotations

import functools

import torch
from factories import word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search import random_model, sources

from fitsub.nmt.bounds import WORD_MARGIN, WordTable, continuation_pieces, word_table
from fitsub.nmt.search import Hypothesis, beam_search
from fitsub.units import SPACE_MARK

torch.set_num_threads(1)
MAX_LEN = 40


@functools.cache
def word_pieces() -> tuple[bool, ...]:
    return tuple(continuation_pieces(word_tokenizer()))


@functools.cache
def table() -> WordTable:
    return word_table(word_tokenizer())


def test_word_table_lists_the_proper_prefix_pieces() -> None:
    tok, t = word_tokenizer(), table()
    assert t.continues.tolist() == list(word_pieces())
    checked = 0
    for i in range(tok.vocab_size):
        piece = tok.sp.id_to_piece(i)
        got = {tok.sp.id_to_piece(j) for j in t.prefixes[i].tolist() if j != tok.pad_id}
        want = set()
        if not tok.is_special(i):
            want = {piece[:k] for k in range(1, len(piece)) if tok.sp.piece_to_id(piece[:k]) != 0}
            want = {w for w in want if not tok.is_special(tok.sp.piece_to_id(w))}
            want = {w for w in want if tok.sp.id_to_piece(tok.sp.piece_to_id(w)) == w}
        assert got == want, piece
        checked += bool(got)
    assert checked > 5


def test_continuation_pieces_are_word_inner_text_pieces() -> None:
    tok, cont = word_tokenizer(), word_pieces()
    assert len(cont) == tok.vocab_size
    for i in range(tok.vocab_size):
        piece = tok.sp.id_to_piece(i)
        if tok.is_special(i) or piece.startswith(SPACE_MARK):
            assert not cont[i], piece
        elif piece[:1].isalnum():
            assert cont[i], piece
    assert any(cont) and not all(cont)


def violations(
    src: torch.Tensor, tgt_len: torch.Tensor | None, h: Hypothesis, budget: int | None = None
) -> list[str]:
    """Where `h` breaks the rule, judged by a fresh teacher-forced pass of the model."""
    model, cont, tok = random_model(), torch.tensor(word_pieces()), word_tokenizer()
    pc, lead = model.piece_chars.tolist(), model.leading_space.tolist()
    seq = [model.cfg.bos_id, *h.ids]
    with torch.inference_mode():
        logits = model(src[None], torch.tensor([seq]), tgt_len)[0].float()
    logp = torch.log_softmax(logits, -1)
    logp[:, model.piece_chars.eq(0)] = float("-inf")
    logp[:, model.cfg.eos_id] = torch.log_softmax(logits, -1)[:, model.cfg.eos_id]
    out = []
    for t, nxt in enumerate([*h.ids, model.cfg.eos_id]):
        best = int(logp[t].argmax())
        after_text = t > 0
        if after_text and bool(cont[best]) and not bool(cont[nxt]):
            out.append(f"step {t}: word left unfinished")
        if bool(cont[nxt]) and float(logp[t, nxt]) < float(logp[t, best]) - WORD_MARGIN - 1e-3:
            out.append(f"step {t}: unlikely fragment glued on")
        if budget is not None and best != model.cfg.eos_id:
            used = tok.chars_of(h.ids[:t])
            if used + pc[best] - (lead[best] if t == 0 else 0) > budget:  # best cannot fit
                word, piece = tok.sp.id_to_piece(best), tok.sp.id_to_piece(nxt)
                if nxt != model.cfg.eos_id and word.startswith(piece) and word != piece:
                    out.append(f"step {t}: {piece!r} starts {word!r}, which cannot fit")
    return out


@settings(max_examples=20, deadline=None)
@given(
    budgets=st.lists(st.integers(min_value=1, max_value=50), min_size=3, max_size=3),
    beam=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=40),
)
def test_fitted_hypotheses_are_whole_words_within_budget(
    budgets: list[int], beam: int, seed: int
) -> None:
    src = sources(3, seed)
    lens = torch.tensor([30, 30, 30])
    hyps = beam_search(
        random_model(), src, lens, budgets, beam=beam, max_len=MAX_LEN, n_best=beam,
        words=table(),
    )  # fmt: skip
    for b, (row, budget) in enumerate(zip(hyps, budgets, strict=True)):
        assert row
        for h in row:
            if h.fits:
                assert 0 < h.chars <= budget
            if len(h.ids) < MAX_LEN - 1:  # ended by the model, not by the forced end
                assert violations(src[b], lens[b : b + 1], h, budget if h.fits else None) == []


def test_without_the_rule_words_are_cut_and_with_it_they_are_not() -> None:
    src = sources(8, seed=5)
    lens = torch.full((8,), 30)
    cut = {False: 0, True: 0}
    for budget in range(4, 40, 3):
        for whole in (False, True):
            hyps = beam_search(
                random_model(), src, lens, [budget] * 8, beam=3, max_len=MAX_LEN,
                words=table() if whole else None,
            )  # fmt: skip
            for b, row in enumerate(hyps):
                h = row[0]
                if h.fits and len(h.ids) < MAX_LEN - 1:
                    cut[whole] += bool(violations(src[b], lens[b : b + 1], h, budget))
    assert cut[False] > 0  # the plain budget mask does cut words on this model
    assert cut[True] == 0


def test_nothing_whole_fits_gives_the_shortest_whole_candidate_flagged() -> None:
    src = sources(2, seed=3)
    lens = torch.tensor([30, 30])
    tight = beam_search(
        random_model(), src, lens, [1, 1], beam=3, max_len=MAX_LEN, n_best=3,
        words=table(),
    )  # fmt: skip
    free = beam_search(
        random_model(), src, lens, None, beam=3, max_len=MAX_LEN, n_best=3,
        words=table(),
    )  # fmt: skip
    for b, (row, unbounded) in enumerate(zip(tight, free, strict=True)):
        for h in row:
            if not h.fits:
                assert h.chars > 1
                if len(h.ids) < MAX_LEN - 1:
                    assert violations(src[b], lens[b : b + 1], h) == []
        if not row[0].fits:
            assert row[0].chars <= min(h.chars for h in unbounded if h.chars)


def test_word_table_must_match_the_vocabulary() -> None:
    small = WordTable(torch.tensor([True, False]), torch.zeros(2, 1, dtype=torch.long))
    try:
        beam_search(random_model(), sources(1), None, [10], words=small)
    except ValueError as err:
        assert "vocab_size" in str(err)
    else:
        raise AssertionError("a word_pieces table of the wrong size was accepted")
