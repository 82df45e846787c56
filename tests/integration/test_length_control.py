"""System tier: tiny models trained here learn to produce the length they are asked for.

The cyclic-copy task (tests/support/nmt_helpers.py) gives every source several correct outputs of
different lengths, so only the length signal tells the model where to stop.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch
from factories import train_tiny
from nmt_helpers import DIGITS, digit_ids

from fitsub.backend import Request
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.checkpoint import save_checkpoint
from fitsub.nmt.search import beam_search

pytestmark = pytest.mark.slow
torch.set_num_threads(1)


def probe(n_sources: int = 40, seed: int = 5) -> list[list[str]]:
    rng = random.Random(seed)
    return [[rng.choice(DIGITS) for _ in range(rng.randint(4, 9))] for _ in range(n_sources)]


def test_ldpe_output_length_follows_the_requested_length_in_subwords() -> None:
    model, tok, cfg = train_tiny("ldpe", "subword")
    digits = digit_ids(tok)
    hits = exact = total = 0
    for src_digits in probe():
        s = [digits[int(d)] for d in src_digits]
        n = len(s)
        asks = [n - 2, n, n + 2]
        src = torch.tensor([[*s, tok.eos_id]] * 3)
        hyps = beam_search(model, src, torch.tensor(asks), beam=1, max_len=30)
        for ask, row in zip(asks, hyps, strict=True):
            got = len(row[0].ids)
            hits += abs(got - ask) <= 1
            exact += got == ask
            total += 1
    assert hits / total >= 0.8, f"within one token: {hits}/{total}"
    assert exact / total >= 0.5, f"exact: {exact}/{total}"


def test_the_same_source_gives_far_apart_lengths_on_request() -> None:
    model, tok, _ = train_tiny("ldpe", "subword")
    s = [digit_ids(tok)[int(d)] for d in "3141592"]
    src = torch.tensor([[*s, tok.eos_id]] * 2)
    short, long = beam_search(model, src, torch.tensor([4, 10]), beam=2, max_len=30)
    assert abs(len(short[0].ids) - 4) <= 1 and abs(len(long[0].ids) - 10) <= 1


def test_char_unit_ldpe_follows_a_length_in_characters() -> None:
    # Lakew's character positions over subwords: "3 1 4" is 3 pieces but 5 characters
    model, tok, cfg = train_tiny("ldpe", "char")
    digits = digit_ids(tok)
    hits = total = 0
    for src_digits in probe(30, seed=6):
        s = [digits[int(d)] for d in src_digits]
        asks = [2 * (len(s) + d) - 1 for d in (-2, 0, 2)]  # characters of n-2, n, n+2 digits
        src = torch.tensor([[*s, tok.eos_id]] * 3)
        for ask, row in zip(asks, beam_search(model, src, torch.tensor(asks), beam=1), strict=True):
            text = tok.decode(row[0].ids)
            hits += abs(len(text) - ask) <= 2  # within one piece
            total += 1
    assert hits / total >= 0.8, f"within one piece: {hits}/{total}"


def test_backend_asks_in_characters_and_keeps_order_budgets_and_n_best(tmp_path: Path) -> None:
    model, tok, cfg = train_tiny("ldpe", "subword")
    cfg.extra["chars_per_piece"] = 2.0  # "3 1 4": every digit after the first adds 2 characters
    ckpt = save_checkpoint(tmp_path / "digits", model, cfg, tok)
    backend = NMTBackend(ckpt, device="cpu", beam=3, batch_size=4)
    sources = [" ".join(d) for d in probe(10, seed=9)]
    reqs = []
    for i, text in enumerate(sources):
        n = len(text.split())
        want = n + (-2, 0, 2)[i % 3]
        reqs.append(Request(text, target_chars=2 * want, max_chars=None if i % 2 else 2 * want))
    reqs.append(Request("   ", target_chars=5))
    out = backend.translate(reqs, n_best=2)
    assert len(out) == len(reqs) and out[-1][0].text == ""
    close = 0
    for req, cands in zip(reqs[:-1], out[:-1], strict=True):
        assert 1 <= len(cands) <= 2
        best = cands[0]
        assert req.target_chars is not None
        close += abs(len(best.text) - req.target_chars) <= 2
        if req.max_chars is not None and best.fits:
            assert len(best.text) <= req.max_chars
        assert all(ch in DIGITS + " " for ch in best.text)
    assert close >= 7, f"{close}/10 within one digit of the request"
    one_by_one = [backend.translate([r], n_best=2)[0] for r in reqs]
    assert [[c.text for c in cs] for cs in one_by_one] == [[c.text for c in cs] for cs in out]
