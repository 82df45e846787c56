"""The lower bound (dubbing: as long as the source) together with the hard upper budget."""

from __future__ import annotations

import torch
from factories import train_tiny, word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st
from nmt_helpers import digit_ids
from test_search import random_model, sources

from fitsub.nmt.search import beam_search
from fitsub.units import chars_no_space

torch.set_num_threads(1)


@settings(max_examples=20, deadline=None)
@given(
    lows=st.lists(st.integers(min_value=0, max_value=40), min_size=3, max_size=3),
    room=st.lists(st.integers(min_value=0, max_value=20), min_size=3, max_size=3),
    seed=st.integers(min_value=0, max_value=30),
)
def test_outputs_keep_both_bounds_when_they_can(
    lows: list[int], room: list[int], seed: int
) -> None:
    model = random_model()
    highs = [lo + r for lo, r in zip(lows, room, strict=True)]
    hyps = beam_search(
        model, sources(3, seed), torch.tensor([30, 30, 30]), highs, beam=3, max_len=40,
        min_chars=lows,
    )  # fmt: skip
    for row, hi in zip(hyps, highs, strict=True):
        assert row
        for h in row:
            if h.fits:
                assert h.chars <= hi  # the upper bound is never given up


def test_lower_bound_lengthens_a_trained_models_outputs() -> None:
    model, tok, _ = train_tiny("ldpe", "char")  # the cyclic-copy model of test_length_control
    digits = digit_ids(tok)
    met = 0
    for n in range(4, 10):
        s = [digits[i % 10] for i in range(n)] + [tok.eos_id]
        src = torch.tensor([s])
        ask = 2 * n - 1  # characters of n digits "3 1 4 …"
        floor = ask + 6  # three digits more than asked
        row = beam_search(model, src, torch.tensor([ask]), [floor + 4], beam=2, min_chars=[floor])
        assert row[0][0].fits and row[0][0].chars <= floor + 4
        met += row[0][0].chars >= floor
    assert met == 6


@settings(max_examples=15, deadline=None)
@given(
    budgets=st.lists(st.integers(min_value=0, max_value=40), min_size=3, max_size=3),
    seed=st.integers(min_value=0, max_value=30),
)
def test_no_space_bounds_count_characters_without_spaces(budgets: list[int], seed: int) -> None:
    tok, model = word_tokenizer(), random_model()
    hyps = beam_search(
        model, sources(3, seed), torch.tensor([30, 30, 30]), budgets, beam=3, max_len=30,
        no_space=[True, True, True],
    )  # fmt: skip
    for row, budget in zip(hyps, budgets, strict=True):
        for h in row:
            assert chars_no_space(tok.decode(h.ids)) <= h.chars
            if h.fits:
                assert h.chars <= budget


def test_a_no_space_row_counts_its_spaces_out_and_the_next_row_in() -> None:
    model, tok, _ = train_tiny("ldpe", "char")  # writes digits separated by spaces
    digits = digit_ids(tok)
    s = [digits[i % 10] for i in range(6)] + [tok.eos_id]
    src = torch.tensor([s, s])  # the same source twice, no budget: the same output
    a, b = beam_search(model, src, torch.tensor([11, 11]), beam=2, no_space=[True, False])
    text = tok.decode(a[0].ids)
    assert a[0].ids == b[0].ids and text.count(" ") >= 3
    assert b[0].chars - a[0].chars == text.count(" ")
    assert a[0].chars == chars_no_space(text)
    # the same bounds mean different outputs in the two units: at most 4 digits either way
    c, d = beam_search(model, src, torch.tensor([11, 11]), [4, 4], beam=2, no_space=[True, False])
    assert chars_no_space(tok.decode(c[0].ids)) <= 4 and c[0].fits
    assert len(tok.decode(d[0].ids)) <= 4 and d[0].fits
    assert c[0].chars > d[0].chars - tok.decode(d[0].ids).count(" ")


def test_no_space_bounds_steer_the_length_without_spaces() -> None:
    model, tok, _ = train_tiny("ldpe", "char")
    digits = digit_ids(tok)
    for n in range(4, 8):
        src = torch.tensor([[digits[i % 10] for i in range(n)] + [tok.eos_id]])
        row = beam_search(
            model, src, torch.tensor([2 * n - 1]), [n + 3], beam=2, min_chars=[n + 2],
            no_space=[True],
        )  # fmt: skip
        text = tok.decode(row[0][0].ids)
        assert row[0][0].fits and n + 2 <= chars_no_space(text) <= n + 3  # 2-3 digits more
