"""The CMLM student (`fitsub.nat`): toy accuracy, exact piece counts, the hard budget, checkpoints."""

from __future__ import annotations

import functools
import json
import random
import shutil
from pathlib import Path

import pytest
import torch
from factories import digit_tokenizer, tiny_config, word_texts, word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st
from nmt_helpers import digit_ids

from fitsub.backend import Request
from fitsub.cli.registry import open_model
from fitsub.errors import InputError
from fitsub.nat.backend import NATBackend
from fitsub.nat.checkpoint import build_cmlm, checkpoint_arch, cmlm_config, load_cmlm
from fitsub.nat.decode import mask_predict, min_costs
from fitsub.nat.model import CMLM
from fitsub.nmt.checkpoint import load_checkpoint, save_checkpoint
from fitsub.nmt.loss import projected_nll
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.flags import KnowsWords
from fitsub.train.batches import Batch
from fitsub.train.nat_batches import cmlm_batch
from fitsub.units import char_length, chars_no_space

torch.set_num_threads(1)


def reverse_batch(tok: Tokenizer, rng: random.Random, n: int) -> tuple[Batch, list[list[int]]]:
    """The toy task: the target is the source's digits reversed."""
    digits = digit_ids(tok)
    srcs = [[rng.choice(digits) for _ in range(rng.randint(3, 10))] for _ in range(n)]
    tgts = [s[::-1] for s in srcs]
    src = torch.zeros(n, max(map(len, srcs)) + 1, dtype=torch.long)
    tgt_in = torch.zeros(n, max(map(len, tgts)) + 1, dtype=torch.long)
    for b, (s, t) in enumerate(zip(srcs, tgts, strict=True)):
        src[b, : len(s) + 1] = torch.tensor([*s, tok.eos_id])
        tgt_in[b, : len(t) + 1] = torch.tensor([tok.bos_id, *t])
    return Batch(src, tgt_in, tgt_in, None, 0, 0), tgts


@functools.cache
def trained(steps: int = 300) -> tuple[CMLM, Tokenizer]:
    """A tiny LDPE CMLM trained on the reverse task with perturbed lengths [0, 2] (~8 s)."""
    torch.manual_seed(0)
    tok = digit_tokenizer()
    cfg = cmlm_config(tiny_config(tok, method="ldpe", noise=2, noise_mode="positive"))
    model = build_cmlm(cfg, tok)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * max(0.05, 1 - s / steps)
    )
    rng, gen = random.Random(0), torch.Generator().manual_seed(0)
    model.train()
    for _ in range(steps):
        b = cmlm_batch(reverse_batch(tok, rng, 64)[0], cfg, gen)
        hidden = model(b.src, b.tgt_in, b.tgt_len, hidden=True)
        loss = projected_nll(hidden, model.embed.weight, b.tgt_out, cfg.pad_id, 0.0) / b.n_tgt
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    model.eval()
    return model, tok


def test_cmlm_batch_masks_between_one_and_all_pieces() -> None:
    tok = digit_tokenizer()
    cfg = cmlm_config(tiny_config(tok, noise=0))
    b, tgts = reverse_batch(tok, random.Random(3), 200)
    cb = cmlm_batch(b, cfg, torch.Generator().manual_seed(0))
    masked = cb.tgt_in.eq(cfg.bos_id)
    n = torch.tensor([len(t) for t in tgts])
    assert bool((masked.sum(1) >= 1).all()) and bool((masked.sum(1) <= n).all())
    assert bool((masked.sum(1) == n).any()) and bool((masked.sum(1) == 1).any())
    assert cb.n_tgt == int(masked.sum()) == int(cb.tgt_out.ne(cfg.pad_id).sum())
    assert torch.equal(cb.tgt_out[masked], b.tgt_in[:, 1:][masked])  # loss on masked only
    assert cb.tgt_len is not None and torch.equal(cb.tgt_len, n)  # no noise: the piece count


def test_tiny_cmlm_learns_the_reverse_task() -> None:
    model, tok = trained()
    b, tgts = reverse_batch(tok, random.Random(1), 200)
    lengths = torch.tensor([len(t) for t in tgts])
    for iterations in (1, 4):
        out = mask_predict(model, b.src, lengths, iterations).tokens.tolist()
        hits = sum(
            a == c
            for row, t in zip(out, tgts, strict=True)
            for a, c in zip(row[: len(t)], t, strict=True)
        )
        exact = sum(row[: len(t)] == t for row, t in zip(out, tgts, strict=True))
        assert hits / int(lengths.sum()) > 0.95, iterations
        assert exact / len(tgts) > 0.8, iterations


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=6), st.integers(1, 6))
def test_mask_predict_gives_exactly_the_asked_piece_count(lens: list[int], iters: int) -> None:
    model, tok = trained()
    b, _ = reverse_batch(tok, random.Random(len(lens)), len(lens))
    out = mask_predict(model, b.src, torch.tensor(lens), iters)
    for row, n in zip(out.tokens.tolist(), lens, strict=True):
        assert all(not tok.is_special(i) for i in row[:n])  # n real pieces, no EOS / pad
        assert all(i == tok.pad_id for i in row[n:])


@functools.cache
def word_cmlm() -> tuple[CMLM, Tokenizer]:
    """An untrained CMLM over multi-character pieces: the budget must hold whatever it predicts."""
    torch.manual_seed(1)
    tok = word_tokenizer()
    model = build_cmlm(cmlm_config(tiny_config(tok, method="ldpe+pe")), tok).eval()
    return model, tok


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 12), st.integers(0, 60), st.booleans()), min_size=1, max_size=5
    ),
    st.integers(1, 4),
    st.integers(0, 10_000),
)
def test_budget_is_never_exceeded(rows: list[tuple[int, int, bool]], iters: int, seed: int) -> None:
    model, tok = word_cmlm()
    texts = word_texts(len(rows), seed)
    ids = [tok.source_ids(t) for t in texts]
    src = torch.zeros(len(ids), max(map(len, ids)), dtype=torch.long)
    for i, row in enumerate(ids):
        src[i, : len(row)] = torch.tensor(row)
    n = torch.tensor([r[0] for r in rows])
    budget = torch.tensor([r[1] for r in rows])
    bare = torch.tensor([r[2] for r in rows])
    out = mask_predict(model, src, n, iters, budget, bare)
    least_first, least_later = min_costs(model)
    for k, ((pieces, limit, no_space), row) in enumerate(
        zip(rows, out.tokens.tolist(), strict=True)
    ):
        text = tok.decode(row[:pieces])
        length = chars_no_space(text) if no_space else char_length(text)
        assert length == int(out.chars[k]) or not no_space and length <= int(out.chars[k])
        if least_first + (pieces - 1) * least_later <= limit:  # room for N pieces' fewest chars
            assert length <= limit, (text, limit)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model, tok = trained()
    model.cfg.extra["chars_per_piece"] = 2.0
    return save_checkpoint(tmp_path_factory.mktemp("nat") / "cmlm", model, model.cfg, tok)


def test_checkpoint_round_trips(ckpt: Path) -> None:
    model, tok = trained()
    loaded, tok2, cfg, meta = load_cmlm(ckpt)
    assert checkpoint_arch(ckpt) == cfg.arch == meta["model"]["arch"] == "cmlm"
    assert meta["model"]["extra"] == {"chars_per_piece": 2.0}  # the arch is a field, not extra
    assert tok2.to_bytes() == tok.to_bytes()
    a, b = model.state_dict(), loaded.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    src, tgts = reverse_batch(tok, random.Random(5), 8)
    lengths = torch.tensor([len(t) for t in tgts])
    assert torch.equal(
        mask_predict(model, src.src, lengths, 3).tokens,
        mask_predict(loaded, src.src, lengths, 3).tokens,
    )
    with pytest.raises(InputError, match="a cmlm checkpoint, not an autoregressive"):
        load_checkpoint(ckpt)


def test_a_checkpoint_from_before_the_arch_field_loads_unchanged(
    ckpt: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    shutil.copytree(ckpt, old)
    meta = json.loads((old / "config.json").read_text(encoding="utf-8"))
    meta["model"]["extra"]["arch"] = meta["model"].pop("arch")  # where it used to be written
    (old / "config.json").write_text(json.dumps(meta), encoding="utf-8")
    model, _, cfg, _ = load_cmlm(ckpt)
    legacy, _, legacy_cfg, _ = load_cmlm(old)
    assert legacy_cfg == cfg and checkpoint_arch(old) == "cmlm"
    a, b = model.state_dict(), legacy.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    requests = [Request("3 1 4 1 5", target_chars=9), Request("2 7", max_chars=3)]
    new_out = open_model(ckpt, src_lang="en", lang="it", device="cpu").translate(requests, 2)
    old_out = open_model(old, src_lang="en", lang="it", device="cpu").translate(requests, 2)
    assert old_out == new_out


def test_backend_translates_within_budget_and_flags_the_impossible(ckpt: Path) -> None:
    backend = open_model(ckpt, src_lang="en", lang="it", device="cpu", batch_size=4)
    assert isinstance(backend, NATBackend) and backend.name.startswith("nat:")
    assert isinstance(backend, KnowsWords) and "5" not in backend.known_words()
    text = "3 1 4 1 5"  # reversed: "5 1 4 1 3", 9 characters
    out = backend.translate(
        [
            Request(text, target_chars=9),
            Request(text, target_chars=9, max_chars=9),
            Request(text, target_chars=9, max_chars=5),
            Request(text, target_chars=9, max_chars=0),
            Request(text),
            Request("   "),
        ],
        n_best=2,
    )
    assert out[0][0].text == "5 1 4 1 3" and out[0][0].fits
    assert out[1][0].text == "5 1 4 1 3" and out[1][0].fits
    assert all(c.fits and 0 < char_length(c.text) <= 5 for c in out[2])
    assert len(out[2]) == 2 and out[2][0].score >= out[2][1].score - 5.0
    assert out[3] and not any(c.fits for c in out[3])  # no piece fits in 0 characters: flagged
    assert out[4][0].text  # no length asked: the length from the source
    assert out[5][0].text == "" and out[5][0].fits
