"""BERT2RND (bert2rnd): a tiny random BERT built here, its packed cased sources, the
model's shapes, the cached-states path against the live encoder, and a loss that falls."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the study's bert2rnd package

from pathlib import Path

import numpy as np
import pytest
import torch
from bert2rnd.case import ALLCAPS, CAPITALISED, LOWER, N_CASES, NO_LETTERS

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.loss import projected_nll
from fitsub.nmt.search import beam_search

pytest.importorskip("transformers")

from bert2rnd.encoder import corpus_states, load_encoder, packed_sources  # noqa: E402
from bert2rnd.model import Bert2Rnd  # noqa: E402

WORDS = ["the", "cat", "sees", "a", "dog", "rome", "nasa", "in", "big", ",", "."]
HIDDEN = 32


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random uncased BERT and its WordPiece vocabulary, saved as transformers saves them."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("minibert")
    vocab = path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    words = vocab.read_text().split()
    BertTokenizerFast(vocab={w: i for i, w in enumerate(words)}).save_pretrained(str(path))
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(WORDS) + 5,
        hidden_size=HIDDEN,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(cfg).save_pretrained(str(path), safe_serialization=True)
    return path


def tiny_config() -> ModelConfig:
    return ModelConfig(
        vocab_size=24, d_model=16, n_heads=2, dec_layers=2, d_ff=32, method="ldpe+pe", dropout=0.0
    )


def padded(rows: list[list[int]]) -> torch.Tensor:
    out = torch.zeros(len(rows), max(map(len, rows)), dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r)
    return out


def test_packed_sources_carry_the_casing(encoder_dir: Path) -> None:
    tok, _ = load_encoder(encoder_dir)
    (row,) = packed_sources(tok, ["The cat sees NASA in Rome."])
    cases = [p % N_CASES for p in row]
    # [CLS] the cat sees nasa in rome . [SEP]
    assert cases == [
        NO_LETTERS, CAPITALISED, LOWER, LOWER, ALLCAPS, LOWER, CAPITALISED, NO_LETTERS, NO_LETTERS,
    ]  # fmt: skip
    assert [p // N_CASES for p in row][0] == tok.cls_token_id
    ids = [p // N_CASES for p in row]
    assert ids == tok("the cat sees nasa in rome.")["input_ids"]
    assert packed_sources(tok, ["the CAT"])[0] != packed_sources(tok, ["the cat"])[0]


def test_forward_shapes_and_frozen_encoder(encoder_dir: Path) -> None:
    tok, bert = load_encoder(encoder_dir)
    model = Bert2Rnd(tiny_config(), bert, HIDDEN)
    src = padded(packed_sources(tok, ["the cat sees a dog .", "Rome"]))
    memory, src_pad = model.encode(src)
    assert memory.shape == (2, src.size(1), 16)
    assert src_pad.tolist()[1] == [False] * 3 + [True] * (src.size(1) - 3)
    tgt_in = torch.tensor([[2, 5, 6, 7], [2, 8, 0, 0]])
    logits = model.decode(tgt_in, memory, src_pad, torch.tensor([12, -1]))
    assert logits.shape == (2, 4, 24)
    assert not any(p.requires_grad for p in model.encoder.parameters())  # type: ignore[union-attr]
    assert model.num_parameters() > model.trainable_parameters() > 0
    hyps = beam_search(model, src, tgt_len=torch.tensor([-1, 10]), beam=2, max_len=6)
    assert len(hyps) == 2 and all(len(h) == 1 for h in hyps)


def test_cached_states_give_the_live_memory(encoder_dir: Path) -> None:
    tok, bert = load_encoder(encoder_dir)
    model = Bert2Rnd(tiny_config(), bert, HIDDEN).eval()
    texts = ["the cat sees a big dog in Rome .", "NASA", "a dog , a cat"]
    rows = packed_sources(tok, texts)
    flat, off = corpus_states(bert, rows, HIDDEN, batch_tokens=16)
    assert flat.dtype == np.float16 and off.tolist()[-1] == sum(map(len, rows))
    src = padded(rows)
    live, pad = model.encode(src)
    states = torch.zeros(len(rows), src.size(1), HIDDEN)
    for i in range(len(rows)):
        states[i, : len(rows[i])] = torch.from_numpy(flat[off[i] : off[i + 1]].astype(np.float32))
    cached, _ = model.memory(states, src % N_CASES, pad)
    keep = ~pad
    assert torch.allclose(cached[keep], live[keep], atol=2e-2)


def test_loss_falls_and_the_case_embedding_learns(encoder_dir: Path) -> None:
    tok, bert = load_encoder(encoder_dir)
    torch.manual_seed(1)
    model = Bert2Rnd(tiny_config(), bert, HIDDEN)
    bert_before = [p.clone() for p in bert.parameters()]
    # the target depends on the casing alone: "rome" -> 5, "Rome" -> 9, "nasa" -> 6, "NASA" -> 10
    src = padded(packed_sources(tok, ["rome", "Rome", "nasa", "NASA"]))
    tgt_out = torch.tensor([[5, 3], [9, 3], [6, 3], [10, 3]])
    tgt_in = torch.tensor([[2, 5], [2, 9], [2, 6], [2, 10]])
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-2)
    losses = []
    for _ in range(100):
        memory, pad = model.encode(src)
        hidden = model.decode_hidden(tgt_in, memory, pad, torch.tensor([4, 4, 4, 4]))
        loss = projected_nll(
            hidden=hidden, weight=model.output_weight, target=tgt_out, pad=0, eps=0.0
        )
        opt.zero_grad()
        (loss / 8).backward()
        opt.step()
        losses.append(float(loss.detach()) / 8)
    assert losses[-1] < 0.2 * losses[0]
    assert model.case_embed.weight.abs().sum() > 0  # started at zero: trained
    assert all(torch.equal(a, b) for a, b in zip(bert_before, bert.parameters(), strict=True))
    with torch.no_grad():
        memory, pad = model.encode(src)
        first = model.decode(tgt_in[:, :1], memory, pad, torch.tensor([4, 4, 4, 4]))[:, 0]
    assert first.argmax(-1).tolist() == [5, 9, 6, 10]
