"""The Transformer: cache == full forward, character positions, the length signal, accounting."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from factories import word_texts, word_tokenizer

from fitsub.nmt.checkpoint import build_model
from fitsub.nmt.config import METHODS, ModelConfig
from fitsub.nmt.layers import _attend, dropout, keep_mask
from fitsub.nmt.model import Transformer

torch.set_num_threads(1)


def small(method: str = "ldpe", unit: str = "char", **kw: object) -> Transformer:
    tok = word_tokenizer()
    cfg = ModelConfig(
        vocab_size=tok.vocab_size,
        d_model=32,
        n_heads=4,
        enc_layers=2,
        dec_layers=2,
        d_ff=64,
        dropout=0.0,
        method=method,
        length_unit=unit,
        **kw,  # type: ignore[arg-type]
    )
    torch.manual_seed(0)
    return build_model(cfg, tok).eval()


def batch() -> tuple[torch.Tensor, torch.Tensor]:
    tok = word_tokenizer()
    texts = word_texts(3, seed=5)
    rows = [tok.source_ids(t) for t in texts]
    src = torch.zeros(3, max(map(len, rows)), dtype=torch.long)
    for i, r in enumerate(rows):
        src[i, : len(r)] = torch.tensor(r)
    tgt = [[tok.bos_id, *tok.encode(t)][:7] for t in word_texts(3, seed=6)]
    tgt_in = torch.zeros(3, 7, dtype=torch.long)
    for i, r in enumerate(tgt):
        tgt_in[i, : len(r)] = torch.tensor(r)
    return src, tgt_in


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("unit", ["char", "subword"])
def test_incremental_decoding_with_cache_equals_full_forward(method: str, unit: str) -> None:
    model = small(method, unit, length_thresholds=(0.9, 1.1))
    src, tgt_in = batch()
    tgt_len = torch.tensor([20, -1, 9])
    with torch.inference_mode():
        full = model(src, tgt_in, tgt_len)
        memory, pad = model.encode(src)
        cache = model.new_cache()
        steps = [model.decode(tgt_in[:, t : t + 1], memory, pad, tgt_len, cache) for t in range(3)]
        rest = model.decode(tgt_in[:, 3:], memory, pad, tgt_len, cache)  # a multi-token chunk
    assert torch.allclose(full, torch.cat([*steps, rest], dim=1), atol=1e-4)


def test_char_positions_count_the_detokenised_prefix() -> None:
    tok = word_tokenizer()
    model = small("ldpe", "char")
    text = "kato rimè solu nepa"
    ids = [tok.bos_id, *tok.encode(text)]
    pos = model.unit_positions(torch.tensor([ids]))[0].tolist()
    assert pos[0] == 0  # BOS: nothing emitted yet
    for t in range(1, len(ids)):
        assert pos[t] == len(tok.decode(ids[1 : t + 1]))
    assert pos[-1] == len(text)  # remaining len - pos reaches 0 where EOS is due


def test_subword_positions_count_pieces() -> None:
    model = small("ldpe", "subword")
    pos = model.unit_positions(torch.tensor([[2, 40, 41, 42]]), start_step=0)
    assert pos.tolist() == [[0, 1, 2, 3]]


def test_length_signal_changes_the_output_and_negative_means_none() -> None:
    model = small("ldpe+pe", "char")
    src, tgt_in = batch()
    with torch.inference_mode():
        a = model(src, tgt_in, torch.tensor([10, 10, 10]))
        b = model(src, tgt_in, torch.tensor([30, 30, 30]))
        none = model(src, tgt_in, None)
        neg = model(src, tgt_in, torch.tensor([-1, -1, -1]))
        mixed = model(src, tgt_in, torch.tensor([-1, 30, -1]))
    assert not torch.allclose(a, b)
    assert torch.allclose(none, neg)
    assert torch.allclose(mixed[1], b[1], atol=1e-5) and torch.allclose(
        mixed[0], none[0], atol=1e-5
    )


def test_baseline_ignores_the_length() -> None:
    model = small("baseline", "char")
    src, tgt_in = batch()
    with torch.inference_mode():
        a = model(src, tgt_in, torch.tensor([5, 5, 5]))
        b = model(src, tgt_in, torch.tensor([50, 50, 50]))
    assert torch.equal(a, b)


def test_source_padding_does_not_change_a_row() -> None:
    model = small("ldpe", "char")
    src, tgt_in = batch()
    padded = torch.cat([src, torch.zeros(3, 5, dtype=torch.long)], dim=1)
    tgt_len = torch.tensor([12, 12, 12])
    with torch.inference_mode():
        assert torch.allclose(
            model(src, tgt_in, tgt_len), model(padded, tgt_in, tgt_len), atol=1e-5
        )


def test_output_projection_is_tied_to_the_embedding() -> None:
    model = small("lrpe", "subword")
    names = [n for n, _ in model.named_parameters()]
    assert "embed.weight" in names and not any("lm_head" in n or "out_proj" in n for n in names)
    src, tgt_in = batch()
    with torch.inference_mode():
        logits = model(src, tgt_in, torch.tensor([4, 4, 4]))
        memory, pad = model.encode(src)
    bump = torch.randn(32)
    model.embed.weight.data[7] += (
        bump  # id 7 is the <2en> tag: in no input, so only its logit moves
    )
    assert 7 not in tgt_in.tolist()
    with torch.inference_mode():
        changed = model.decode(tgt_in, memory, pad, torch.tensor([4, 4, 4]))
        hidden = changed[..., 7] - logits[..., 7]
    assert hidden.abs().max() > 1e-3
    others = [v for v in range(model.cfg.vocab_size) if v != 7]
    assert torch.allclose(logits[..., others], changed[..., others], atol=1e-5)


def test_parameter_count_and_flops_estimate() -> None:
    model = small("ldpe", "char")
    V, D, F, L = model.cfg.vocab_size, 32, 64, 2
    attn = 4 * D * D + 4 * D
    ff = D * F + F + F * D + D
    ln = 2 * D
    enc = L * (attn + ff + 2 * ln)
    dec = L * (2 * attn + ff + 3 * ln)
    expected = V * D + enc + dec + 2 * ln
    assert model.num_parameters() == expected
    assert model.flops_per_token(64) == 6 * expected + 12 * (2 + 4) * D * 64


def test_dropout_keeps_the_asked_share_and_the_mean() -> None:
    torch.manual_seed(3)
    x = torch.ones(1000, 1000, requires_grad=True)
    y = dropout(x, 0.1, training=True)
    kept = y.ne(0)
    assert abs(kept.float().mean().item() - 0.9) < 0.002  # 1e6 draws: sd of the share 3e-4
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / 0.9), rtol=1e-4)
    assert abs(y.mean().item() - 1.0) < 0.005
    y.sum().backward()  # the gradient is the same mask and scale
    assert x.grad is not None and torch.equal(x.grad, y.detach())
    assert dropout(x, 0.1, training=False) is x and dropout(x, 0.0, training=True) is x
    torch.manual_seed(3)
    assert torch.equal(dropout(x, 0.1, training=True), y)  # reproducible from the seed


def test_dropout_masks_vary_within_a_row_of_bits() -> None:
    # 4 masks come from each 64-bit draw: neighbouring elements must still be independent
    torch.manual_seed(0)
    keep = keep_mask((400_000,), 0.5, torch.device("cpu")).view(-1, 4).float()
    both = (keep[:, 0] * keep[:, 1]).mean().item()
    assert abs(both - 0.25) < 0.005 and abs(keep.mean().item() - 0.5) < 0.005


@pytest.mark.parametrize("causal", [False, True])
def test_training_attention_is_sdpa_without_dropout(causal: bool) -> None:
    torch.manual_seed(1)
    q, k, v = (torch.randn(3, 4, 6, 8) for _ in range(3))
    mask = torch.ones(3, 1, 1, 6, dtype=torch.bool)
    mask[0, ..., 4:] = False  # a padded source row
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    assert torch.allclose(_attend(q, k, v, mask, causal, 0.0), ref, atol=1e-5)
    dropped = _attend(q, k, v, mask, causal, 0.5)
    assert not torch.allclose(dropped, ref, atol=1e-3)


def test_hidden_states_times_the_embedding_are_the_logits() -> None:
    model = small("ldpe+pe", "char")
    src, tgt_in = batch()
    tgt_len = torch.tensor([12, -1, 7])
    with torch.inference_mode():
        logits = model(src, tgt_in, tgt_len)
        hidden = model(src, tgt_in, tgt_len, hidden=True)
        projected = hidden @ model.embed.weight.t()
    assert hidden.shape[-1] == model.cfg.d_model
    assert torch.allclose(projected, logits, atol=1e-5)


def test_training_mode_without_dropout_computes_the_inference_function() -> None:
    model = small("lrpe", "subword")  # dropout 0.0: training mode must not change the function
    src, tgt_in = batch()
    with torch.inference_mode():
        ref = model(src, tgt_in, torch.tensor([5, 5, 5]))
    model.train()
    with torch.no_grad():
        out = model(src, tgt_in, torch.tensor([5, 5, 5]))
    assert torch.allclose(out, ref, atol=1e-5)
