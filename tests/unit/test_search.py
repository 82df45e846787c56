"""Beam search: hard budgets are never exceeded, greedy == beam 1, re-ranking, forced end."""

from __future__ import annotations

import functools

import pytest
import torch
from factories import word_texts, word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st

from fitsub.nmt.checkpoint import build_model
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.model import Transformer
from fitsub.nmt.search import beam_search, normalised_score, rerank_key
from fitsub.units import char_length

torch.set_num_threads(1)


@functools.cache
def random_model(method: str = "ldpe+pe") -> Transformer:
    """Untrained weights over a vocabulary of multi-character pieces: lengths vary a lot."""
    tok = word_tokenizer()
    cfg = ModelConfig(
        vocab_size=tok.vocab_size,
        d_model=32,
        n_heads=2,
        enc_layers=1,
        dec_layers=1,
        d_ff=64,
        method=method,
        length_unit="char",
    )
    torch.manual_seed(1)
    return build_model(cfg, tok).eval()


def sources(n: int, seed: int = 0) -> torch.Tensor:
    tok = word_tokenizer()
    rows = [tok.source_ids(t) for t in word_texts(n, seed=seed)]
    src = torch.zeros(n, max(map(len, rows)), dtype=torch.long)
    for i, r in enumerate(rows):
        src[i, : len(r)] = torch.tensor(r)
    return src


@settings(max_examples=25, deadline=None)
@given(
    budgets=st.lists(st.integers(min_value=0, max_value=60), min_size=3, max_size=3),
    beam=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=50),
)
def test_hard_budget_is_never_exceeded(budgets: list[int], beam: int, seed: int) -> None:
    tok, model = word_tokenizer(), random_model()
    src = sources(3, seed)
    hyps = beam_search(
        model, src, torch.tensor([40, 40, 40]), budgets, beam=beam, max_len=30, n_best=beam
    )
    for row, budget in zip(hyps, budgets, strict=True):
        assert row, "every source gets at least one candidate"
        flags = {h.fits for h in row}
        assert len(flags) == 1  # either all fit, or it is the flagged fallback list
        for h in row:
            text = tok.decode(h.ids)
            assert char_length(text) <= h.chars  # the counted length never under-counts
            if h.fits:
                assert h.chars <= budget and text
        if flags == {False}:  # nothing fits: shortest non-empty candidates first
            assert [h.chars for h in row] == sorted(h.chars for h in row)


def test_a_budget_too_small_for_any_piece_returns_the_shortest_flagged() -> None:
    tok, model = word_tokenizer(), random_model()
    src = sources(2, seed=3)
    free = beam_search(model, src, None, None, beam=4, max_len=30, n_best=4)
    tight = beam_search(model, src, None, [0, 500], beam=4, max_len=30, n_best=4)
    assert all(not h.fits for h in tight[0]) and tight[0][0].chars > 0
    assert tight[0][0].chars == min(h.chars for h in free[0] if h.chars)
    assert all(h.fits for h in tight[1])
    assert tok.decode(tight[0][0].ids)


def test_greedy_is_beam_one_and_matches_a_plain_argmax_loop() -> None:
    model = random_model()
    src = sources(1, seed=4)
    tgt_len = torch.tensor([25])
    best = beam_search(model, src, tgt_len, beam=1, max_len=12)[0][0]
    ids, cur, eos = [], [model.cfg.bos_id], model.cfg.eos_id
    banned = (model.piece_chars == 0).nonzero().flatten().tolist()
    with torch.inference_mode():
        for _ in range(11):  # max_len 12 counts the EOS
            logits = model(src, torch.tensor([cur]), tgt_len)[0, -1]
            logits[[b for b in banned if b != eos]] = float("-inf")
            nxt = int(logits.argmax())
            if nxt == eos:
                break
            ids.append(nxt)
            cur.append(nxt)
    assert best.ids == ids


def test_max_len_forces_an_end() -> None:
    model = random_model()
    for h in beam_search(model, sources(3), None, beam=3, max_len=4, n_best=3)[0]:
        assert len(h.ids) <= 3  # step 4 may only be EOS


def test_beam_returns_n_best_sorted_and_a_wider_beam_scores_no_worse() -> None:
    model = random_model()
    src = sources(4, seed=8)
    one = beam_search(model, src, torch.full((4,), 30), beam=1, max_len=15, length_weight=0.0)
    five = beam_search(
        model, src, torch.full((4,), 30), beam=5, max_len=15, length_weight=0.0, n_best=5
    )
    for a, b in zip(one, five, strict=True):
        keys = [normalised_score(h.score, len(h.ids)) for h in b]  # no length target
        assert [h.rank for h in b] == keys == sorted(keys, reverse=True)
        assert max(h.score for h in b) >= a[0].score - 1e-4


def test_rows_without_a_target_are_ranked_by_the_length_normalised_score() -> None:
    # GNMT's lp: a 7-piece output at -12 ties a 1-piece one at -6 ((5 + 7) / 6 = 2)
    assert normalised_score(-6.0, 1) == normalised_score(-12.0, 7) == -6.0
    assert normalised_score(-12.0, 7, alpha=0.0) == -12.0
    model = random_model()
    plain = beam_search(model, sources(6, seed=3), None, beam=6, max_len=20, n_best=6)
    for cands in plain:
        keys = [normalised_score(h.score, len(h.ids)) for h in cands]
        assert len(cands) >= 2 and [h.rank for h in cands] == keys == sorted(keys, reverse=True)


def test_reranking_prefers_the_length_closest_to_the_target() -> None:
    model = random_model()
    src = sources(4, seed=9)
    plain = beam_search(model, src, None, beam=6, max_len=20, n_best=6, length_weight=0.0)
    checked = 0
    for row, cands in enumerate(plain):
        if len({h.chars for h in cands}) < 2:
            continue
        target = max(h.chars for h in cands)
        ranked = beam_search(
            model,
            src[row : row + 1],
            None,
            beam=6,
            max_len=20,
            n_best=6,
            length_weight=1e6,
            target_chars=[target],
        )[0]
        assert ranked[0].chars == target and plain[row][0].chars != target
        checked += 1
    assert checked >= 2
    assert rerank_key(-2.0, 12, 10, 5.0) == -2.0 - 5.0 * 2 / 10
    assert rerank_key(-2.0, 12, None, 5.0) == -2.0


def test_a_wrapped_model_searches_like_the_plain_one() -> None:
    model = random_model()

    class Wrapper(torch.nn.Module):  # as DistributedDataParallel holds its model
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.module = inner

    src = sources(2, seed=12)
    a = beam_search(model, src, torch.tensor([20, 30]), beam=2, max_len=10)
    b = beam_search(Wrapper(model), src, torch.tensor([20, 30]), beam=2, max_len=10)
    assert a == b


def test_free_rows_search_the_same_alone_as_beside_other_rows() -> None:
    model, src = random_model("baseline"), sources(5, seed=4)
    free = [True, False, True, True, False]
    budgets = [None, 30, None, None, 20]
    mixed = beam_search(model, src, None, budgets, beam=3, max_len=12, n_best=3, free=free)
    for b in range(5):
        alone = beam_search(
            model, src[b : b + 1], None, budgets[b : b + 1], beam=3, max_len=12, n_best=3,
            free=free[b : b + 1],
        )[0]  # fmt: skip
        assert [h.ids for h in alone] == [h.ids for h in mixed[b]]
    plain = beam_search(model, src[[1, 4]], None, [30, 20], beam=3, max_len=12, n_best=3)
    assert [[h.ids for h in r] for r in plain] == [[h.ids for h in mixed[b]] for b in (1, 4)]
    for row in (mixed[0], mixed[2], mixed[3]):  # n-best by the length-normalised score
        assert len(row) == 3 and all(h.fits for h in row)
        keys = [h.rank for h in row]  # of the score searched: the special pieces suppressed
        assert keys == sorted(keys, reverse=True)
        # the score returned is the full softmax's, lower by the suppressed pieces' mass
        assert all(h.rank >= normalised_score(h.score, len(h.ids)) - 1e-6 for h in row)


def test_a_free_row_with_a_bound_is_refused() -> None:
    model, src = random_model("baseline"), sources(2)
    with pytest.raises(ValueError, match="free row"):
        beam_search(model, src, None, [None, 10], beam=2, max_len=8, free=[True, True])
