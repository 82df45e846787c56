"""The Levenshtein Transformer student (`fitsub.nat.levt*`): the expert's edits, toy accuracy,
the hard budget, checkpoints, and distill -> train --arch levt -> translate / eval via the CLI."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import pytest
import torch
from cli_helpers import translate_toy_srt
from factories import digit_tokenizer, tiny_config, word_texts, word_tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st
from nmt_helpers import digit_ids
from test_distill import TINY, run, write_toy

from fitsub.backend import Request
from fitsub.cli.registry import open_model
from fitsub.errors import InputError
from fitsub.nat.backend import NATBackend
from fitsub.nat.checkpoint import build_nat, checkpoint_arch, levt_config, load_levt
from fitsub.nat.decode import min_costs
from fitsub.nat.levt import LevT
from fitsub.nat.levt_decode import _cap, levt_decode
from fitsub.nat.levt_oracle import edits, random_deletion
from fitsub.nmt.checkpoint import load_checkpoint, save_checkpoint
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.batches import Batch
from fitsub.train.nat_batches import levt_batch
from fitsub.units import char_length, chars_no_space

torch.set_num_threads(1)

PAD, BOS, EOS = 0, 2, 3


def padded(rows: list[list[int]]) -> torch.Tensor:
    width = max(map(len, rows))
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


def test_expert_edits_on_hand_computed_examples() -> None:
    x = padded(
        [
            [BOS, 5, EOS],  # -> 4 5 6: insert one before and one after 5
            [BOS, 5, 9, 7, EOS],  # -> 5 7: delete 9
            [BOS, EOS],  # -> 4 4: two placeholders in the only slot
            [BOS, 6, 5, EOS],  # -> 5 6: one of them goes, then comes back on the other side
            [BOS, 8, 9, 9, 8, EOS],  # -> 9 8 9: keep "8 9", delete the rest, a 9 in front
        ]
    )
    y = padded(
        [
            [BOS, 4, 5, 6, EOS],
            [BOS, 5, 7, EOS],
            [BOS, 4, 4, EOS],
            [BOS, 5, 6, EOS],
            [BOS, 9, 8, 9, EOS],
        ]
    )
    e = edits(x, y, PAD)
    assert e.delete.tolist() == [
        [False] * 5 + [False] * 1,
        [False, False, True, False, False, False],
        [False] * 6,
        [False, False, True, False, False, False],
        [False, False, True, False, True, False],
    ]
    assert e.insert.tolist() == [
        [1, 1, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],  # "5" into slot 0, before the kept "6"
        [1, 0, 0, 0, 0],  # kept: BOS 8 9 EOS; the new "9" before the 8 (slot 0)
    ]
    assert e.placeholder.tolist() == [
        [False, True, False, True, False],
        [False] * 5,
        [False, True, True, False, False],
        [False, True, False, False, False],
        [False, True, False, False, False],
    ]
    assert e.distance.tolist() == [2, 1, 2, 2, 3]


def levenshtein_ins_del(a: list[int], b: list[int]) -> int:
    """The textbook distance with insertions and deletions only (no substitution)."""
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = prev if a[i - 1] == b[j - 1] else 1 + min(d[j], d[j - 1])
            prev = cur
    return d[-1]


tokens = st.lists(st.integers(4, 7), max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(tokens, tokens), min_size=1, max_size=6))
def test_expert_edits_turn_the_sequence_into_the_target(
    pairs: list[tuple[list[int], list[int]]],
) -> None:
    x = padded([[BOS, *a, EOS] for a, _ in pairs])
    y = padded([[BOS, *b, EOS] for _, b in pairs])
    e = edits(x, y, PAD)
    for k, (a, b) in enumerate(pairs):
        assert int(e.distance[k]) == levenshtein_ins_del(a, b)  # optimal
        full = [BOS, *a, EOS]
        kept = [t for t, d in zip(full, e.delete[k].tolist(), strict=False) if not d]
        assert kept[0] == BOS and kept[-1] == EOS  # never deleted
        rebuilt: list[int] = []
        fill = iter(t for t, p in zip([BOS, *b, EOS], e.placeholder[k].tolist(), strict=False) if p)
        for s, t in enumerate(kept):
            rebuilt.append(t)
            if s < len(kept) - 1:
                rebuilt += [next(fill) for _ in range(int(e.insert[k, s]))]
        assert rebuilt == [BOS, *b, EOS]
        assert int(e.insert[k, len(kept) - 1 :].sum()) == 0


def test_random_deletion_keeps_a_strict_subsequence_with_bos_and_eos() -> None:
    y = padded([[BOS, *range(4, 4 + n), EOS] for n in (1, 3, 8, 0)] * 50)
    prev = random_deletion(y, PAD, BOS, EOS, torch.Generator().manual_seed(0))
    kept = []
    for row, full in zip(prev.tolist(), y.tolist(), strict=True):
        row = [t for t in row if t != PAD]
        inner = [t for t in full if t not in (PAD, BOS, EOS)]
        assert row[0] == BOS and row[-1] == EOS and row[1:-1] == sorted(row[1:-1])
        assert set(row[1:-1]) <= set(inner) and (len(row) - 2 < len(inner) or not inner)
        kept.append(len(row) - 2)
    assert max(kept) == 7 and min(kept) == 0  # anything from none to all but one


def test_placeholder_cap_keeps_the_surest_placeholders() -> None:
    probs = torch.zeros(1, 3, 6)
    probs[0, 0, 3], probs[0, 0, 1] = 0.6, 0.4  # P(>=1) = 1.0, P(>=2) = P(>=3) = 0.6
    probs[0, 1, 2], probs[0, 1, 0] = 0.9, 0.1  # P(>=1) = P(>=2) = 0.9
    probs[0, 2, 1], probs[0, 2, 0] = 0.55, 0.45  # P(>=1) = 0.55
    logp = probs.clamp(min=1e-12).log()
    counts = logp.argmax(-1)
    assert counts.tolist() == [[3, 2, 1]]
    assert _cap(counts, logp, torch.tensor([6])).tolist() == [[3, 2, 1]]  # no cut needed
    assert _cap(counts, logp, torch.tensor([5])).tolist() == [[3, 2, 0]]
    assert _cap(counts, logp, torch.tensor([4])).tolist() == [[2, 2, 0]]
    assert _cap(counts, logp, torch.tensor([3])).tolist() == [[1, 2, 0]]
    assert _cap(counts, logp, torch.tensor([0])).tolist() == [[0, 0, 0]]


# ---- a tiny model on the reverse task --------------------------------------------------------


def reverse_batch(tok: Tokenizer, rng: random.Random, n: int) -> tuple[Batch, list[list[int]]]:
    """Targets are the source's digits reversed (2-6 digits)."""
    digits = digit_ids(tok)
    srcs = [[rng.choice(digits) for _ in range(rng.randint(2, 6))] for _ in range(n)]
    tgts = [s[::-1] for s in srcs]
    src = torch.zeros(n, 7, dtype=torch.long)
    tgt_in = torch.zeros(n, 7, dtype=torch.long)
    tgt_out = torch.zeros(n, 7, dtype=torch.long)
    for b, (s, t) in enumerate(zip(srcs, tgts, strict=True)):
        src[b, : len(s) + 1] = torch.tensor([*s, tok.eos_id])
        tgt_in[b, : len(t) + 1] = torch.tensor([tok.bos_id, *t])
        tgt_out[b, : len(t) + 1] = torch.tensor([*t, tok.eos_id])
    n_tgt = sum(len(t) + 1 for t in tgts)
    return Batch(src, tgt_in, tgt_out, None, n_tgt, 0), tgts


def reverse_accuracy(model: LevT, tok: Tokenizer) -> tuple[float, float]:
    """(exact sequences, pieces right at their position) over 200 held-out rows."""
    b, tgts = reverse_batch(tok, random.Random(1), 200)
    out = levt_decode(model, b.src, torch.tensor([len(t) for t in tgts]), 10)
    rows = [r[: int(n)] for r, n in zip(out.tokens.tolist(), out.lengths.tolist(), strict=True)]
    exact = sum(r == t for r, t in zip(rows, tgts, strict=True)) / len(tgts)
    hits = sum(a == c for r, t in zip(rows, tgts, strict=True) for a, c in zip(r, t, strict=False))
    return exact, hits / sum(map(len, tgts))


def fresh_levt(seed: int = 0) -> tuple[LevT, Tokenizer]:
    torch.manual_seed(seed)
    tok = digit_tokenizer()
    cfg = levt_config(tiny_config(tok, method="ldpe", noise=2, noise_mode="positive"))
    model = build_nat(cfg, tok)
    assert isinstance(model, LevT)
    return model.eval(), tok


@functools.cache
def trained(steps: int = 200) -> tuple[LevT, Tokenizer]:
    """A tiny LevT + perLDPE [0, 2] trained by imitation learning on the reverse task (~10 s)."""
    model, tok = fresh_levt()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * max(0.05, 1 - s / steps)
    )
    rng, gen = random.Random(0), torch.Generator().manual_seed(0)
    model.train()
    for _ in range(steps):
        b = levt_batch(reverse_batch(tok, rng, 64)[0], model.cfg, gen)
        terms = model(b.src, b.tgt, b.prev, b.tgt_len, 0.0)
        opt.zero_grad(set_to_none=True)
        terms.loss.backward()
        opt.step()
        sched.step()
    model.eval()
    return model, tok


def test_levt_batch_has_bos_eos_targets_a_roll_in_and_the_perturbed_length() -> None:
    model, tok = fresh_levt()
    ar, tgts = reverse_batch(tok, random.Random(2), 300)
    b = levt_batch(ar, model.cfg, torch.Generator().manual_seed(0))
    for row, t in zip(b.tgt.tolist(), tgts, strict=True):
        assert row[: len(t) + 2] == [tok.bos_id, *t, tok.eos_id]
    assert int(b.prev.ne(tok.pad_id).sum()) < int(b.tgt.ne(tok.pad_id).sum())
    n = torch.tensor([len(t) for t in tgts])
    assert b.tgt_len is not None and set((b.tgt_len - n).tolist()) == {0, 1, 2}  # perLDPE [0, 2]
    dev = levt_batch(ar, model.cfg, torch.Generator().manual_seed(0), train=False)
    assert dev.tgt_len is not None and torch.equal(dev.tgt_len, n)


def test_tiny_levt_learns_the_reverse_task() -> None:
    untrained = reverse_accuracy(*fresh_levt())
    assert untrained[0] < 0.05 and untrained[1] < 0.3
    model, tok = trained()
    exact, hits = reverse_accuracy(model, tok)
    assert exact > 0.6 and hits > 0.8, (exact, hits)


# ---- the hard budget ------------------------------------------------------------------------


@functools.cache
def wild_levt() -> tuple[LevT, Tokenizer]:
    """An untrained LevT over multi-character pieces with large random heads: it deletes and
    asks for many placeholders at random; the budget must hold whatever it does."""
    torch.manual_seed(1)
    tok = word_tokenizer()
    model = build_nat(levt_config(tiny_config(tok, method="ldpe+pe")), tok)
    assert isinstance(model, LevT)
    model.plh_head.weight.data.normal_(std=1.0)
    model.del_head.weight.data.normal_(std=0.5)
    return model.eval(), tok


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-1, 12), st.integers(0, 60), st.booleans()), min_size=1, max_size=5
    ),
    st.integers(1, 6),
    st.integers(0, 10_000),
)
def test_decoding_never_exceeds_the_budget(
    rows: list[tuple[int, int, bool]], iters: int, seed: int
) -> None:
    model, tok = wild_levt()
    texts = word_texts(len(rows), seed)
    ids = [tok.source_ids(t) for t in texts]
    src = torch.zeros(len(ids), max(map(len, ids)), dtype=torch.long)
    for i, row in enumerate(ids):
        src[i, : len(row)] = torch.tensor(row)
    signal = torch.tensor([r[0] for r in rows])
    budget = torch.tensor([r[1] for r in rows])
    bare = torch.tensor([r[2] for r in rows])
    out = levt_decode(model, src, signal, iters, budget, bare)
    least_first, _ = min_costs(model)
    steps = [(out.tokens, out.lengths), *((t, t.ne(0).sum(1)) for t, _ in out.history)]
    for k, (_, limit, no_space) in enumerate(rows):
        if limit < least_first:
            continue  # not even one piece fits: the backend flags it
        for toks, lengths in steps:  # every iteration, not only the last
            text = tok.decode(toks[k, : int(lengths[k])].tolist())
            length = chars_no_space(text) if no_space else char_length(text)
            assert length <= limit, (text, limit, no_space)
        assert int(out.chars[k]) <= limit
    assert int(out.lengths.max()) <= 2 * int(src.ne(0).sum(1).max()) + 10


# ---- checkpoints and the backend -------------------------------------------------------------


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model, tok = trained()
    model.cfg.extra["chars_per_piece"] = 2.0
    return save_checkpoint(tmp_path_factory.mktemp("levt") / "levt", model, model.cfg, tok)


def test_checkpoint_round_trips(ckpt: Path) -> None:
    model, tok = trained()
    loaded, tok2, cfg, _ = load_levt(ckpt)
    assert checkpoint_arch(ckpt) == "levt" and cfg.arch == "levt"
    assert tok2.to_bytes() == tok.to_bytes()
    a, b = model.state_dict(), loaded.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert "plh_head.weight" in a and "del_head.weight" in a
    batch, tgts = reverse_batch(tok, random.Random(5), 16)
    n = torch.tensor([len(t) for t in tgts])
    one, two = levt_decode(model, batch.src, n, 10), levt_decode(loaded, batch.src, n, 10)
    assert torch.equal(one.tokens, two.tokens) and torch.equal(one.logp, two.logp)
    with pytest.raises(InputError, match="a levt checkpoint, not an autoregressive"):
        load_checkpoint(ckpt)


def test_backend_translates_within_budget_and_flags_the_impossible(ckpt: Path) -> None:
    backend = open_model(ckpt, src_lang="en", lang="it", device="cpu", batch_size=4)
    assert isinstance(backend, NATBackend) and backend.name.startswith("nat:levt:levt-")
    text = "3 1 4 1"  # reversed: "1 4 1 3", 7 characters
    out = backend.translate(
        [
            Request(text, target_chars=7),
            Request(text, target_chars=7, max_chars=7),
            Request(text, target_chars=7, max_chars=4),
            Request(text, target_chars=7, max_chars=0),
            Request(text),
            Request("   "),
        ]
    )
    assert out[0][0].text == "1 4 1 3" and out[0][0].fits
    assert out[1][0].text == "1 4 1 3" and out[1][0].fits
    assert out[2][0].fits and 0 < char_length(out[2][0].text) <= 4
    assert out[3] and not any(c.fits for c in out[3])  # no piece fits in 0 characters: flagged
    assert out[4][0].text  # no length asked: the length from the source
    assert out[5][0].text == "" and out[5][0].fits


# ---- through the CLI -------------------------------------------------------------------------


def test_distill_train_levt_translate_eval_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toy = write_toy(tmp_path / "toy", n=200)
    teacher = tmp_path / "teacher"
    args = ["train", "--out", str(teacher), "--data", str(toy), "--method", "ldpe", *TINY]
    assert run([*args, "--max-steps", "80", "--eval-every", "80", "--bleu-sentences", "0"]) == 0
    dist = tmp_path / "dist"
    distill_args = ["distill", str(toy / "toy.en"), "--reference", str(toy / "toy.it")]
    distill_args += ["--model", str(teacher / "best"), "-o", str(dist), "--noise", "2"]
    distill_args += ["--beam", "1", "--batch-size", "32", "--threads", "1", "--limit", "80", "-q"]
    assert run(distill_args) == 0
    assert len((tmp_path / "dist.it").read_text().splitlines()) == 80

    student = tmp_path / "student"
    args = ["train", "--out", str(student), "--train", str(dist), "--arch", "levt"]
    args += ["--method", "ldpe", "--noise", "2", "--noise-mode", "positive", *TINY]
    assert run([*args, "--init-from", str(teacher / "best"), "--max-steps", "8"]) == 0
    assert checkpoint_arch(student / "best") == checkpoint_arch(student / "last") == "levt"
    _, _, cfg, meta = load_levt(student / "last")
    assert cfg.length_unit == "subword" and cfg.noise_mode == "positive" and cfg.noise == 2
    assert meta["train"]["config"]["arch"] == "levt" and cfg.extra["length_ratio"] > 0
    log = [json.loads(x) for x in (student / "train_log.jsonl").read_text().splitlines()]
    evals = [e for e in log if e["event"] == "eval"]
    assert [e["step"] for e in evals] == [8] and evals[0]["dev_loss"] > 0 and "dev_bleu" in evals[0]
    assert run(["train", "--out", str(student), "--resume", "--max-steps", "10", "-q"]) == 0

    code, data = translate_toy_srt(tmp_path, student / "best")
    assert code == 0 and data is not None, capsys.readouterr().err
    assert data["meta"]["model"].startswith("nat:") and "levt" in data["meta"]["model"]
    assert (tmp_path / "toy.it.srt").is_file()
    rows = [r for r in data["segments"] if r["translated"]]
    assert rows and all(r["fits"] or not r["model_fits"] for r in rows)

    ev = tmp_path / "ev.json"
    code = run(
        ["eval", "--model", str(student / "best"), "--src", str(toy / "toy.en"), "--ref"]
        + [str(toy / "toy.it"), "--max-segments", "8", "--json", str(ev), "-q"]
    )
    assert code == 0, capsys.readouterr().err
    rows = json.loads(ev.read_text())["rows"]
    assert [r["mode"] for r in rows] == ["unconstrained", "length"]
    assert all(r["metrics"]["n"] == 8 for r in rows)
