"""A tiny fairseq Transformer checkpoint built in the test, and its forward pass in plain torch
following fairseq's `TransformerModel` (fairseq/models/transformer, modules/multihead_attention,
modules/sinusoidal_positional_embedding): the reference the converted fitsub model must match.

Nothing here imports fairseq: the checkpoint is `torch.save` of a dict in fairseq's layout
({"args" or "cfg", "model": OrderedDict, "optimizer_history", "extra_state", ...}) with the
dictionary files and a SentencePiece model trained with SentencePiece's defaults (unk 0, bos 1,
eos 2, no pad), as fairseq users train them.
"""

from __future__ import annotations

import argparse
import io
import math
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sentencepiece as spm
import torch
import torch.nn.functional as F
from torch import Tensor

PAD, EOS, UNK = 1, 2, 3  # fairseq Dictionary: <s> 0, <pad> 1, </s> 2, <unk> 3

TEXT = [
    "the big dog runs in the park",
    "a small cat sees the red tree",
    "il cane grande corre nel parco",
    "un piccolo gatto vede l'albero rosso",
    "the children play with the ball",
    "i bambini giocano con la palla",
]


@dataclass
class Variant:
    """One fairseq configuration to build."""

    normalize_before: bool = False
    activation: str = "relu"
    share: str = "all"  # all: --share-all-embeddings; target: --share-decoder-input-output-embed
    legacy: bool = False  # fairseq < 0.9 names (in_proj_weight, layer_norms.N, embed_out) + args
    separate_dicts: bool = False  # dict.en.txt from the English lines, dict.it.txt the Italian
    d: int = 16
    heads: int = 2
    ffn: int = 24
    enc_layers: int = 2
    dec_layers: int = 2
    extra_args: dict[str, Any] = field(default_factory=dict)


def train_spm(folder: Path) -> spm.SentencePieceProcessor:
    """A unigram model with SentencePiece's default ids, saved as sentencepiece.bpe.model."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT * 20), model_writer=out, model_type="unigram",
        vocab_size=60, hard_vocab_limit=False, num_threads=1, minloglevel=2,
    )  # fmt: skip
    (folder / "sentencepiece.bpe.model").write_bytes(out.getvalue())
    return spm.SentencePieceProcessor(model_proto=out.getvalue())


def _dictionary(sp: spm.SentencePieceProcessor, lines: list[str]) -> tuple[list[str], str]:
    """fairseq-preprocess: pieces by count, padded to a multiple of 8 with madeupwordNNNN; the
    rarest piece is left out (fairseq maps it to <unk>). (symbols, dict.txt text)"""
    counts = Counter(p for line in lines for p in sp.encode(line, out_type=str))
    symbols = [p for p, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:-1]
    n = 0
    while (4 + len(symbols)) % 8:
        symbols.append(f"madeupword{n:04d}")
        n += 1
    return symbols, "".join(f"{s} {counts.get(s, 0)}\n" for s in symbols)


def write_dicts(
    folder: Path, sp: spm.SentencePieceProcessor, langs: tuple[str, str], separate: bool = False
) -> tuple[list[str], list[str]]:
    """dict.SRC.txt and dict.TGT.txt: one joined dictionary of all lines (--joined-dictionary),
    or each side's own: (source symbols, target symbols)."""
    sides = (TEXT[0::2], TEXT[1::2]) if separate else (TEXT, TEXT)
    out = []
    for lang, lines in zip(langs, sides, strict=True):
        symbols, body = _dictionary(sp, lines)
        (folder / f"dict.{lang}.txt").write_text(body, "utf-8")
        out.append(symbols)
    return out[0], out[1]


def fairseq_weights(v: Variant, vocab: tuple[int, int], seed: int = 0) -> OrderedDict[str, Tensor]:
    """Random weights (LayerNorms too, so a swapped norm shows) in fairseq's key layout."""
    g = torch.Generator().manual_seed(seed)

    def r(*shape: int, scale: float = 0.3) -> Tensor:
        return torch.randn(*shape, generator=g) * scale

    d, w = v.d, OrderedDict()
    enc = r(vocab[0], d, scale=d**-0.5)
    enc[PAD] = 0
    dec = enc if v.share == "all" else r(vocab[1], d, scale=d**-0.5)
    w["encoder.embed_tokens.weight"] = enc
    w["encoder.embed_positions._float_tensor"] = torch.zeros(1)

    def attn(prefix: str) -> None:
        if v.legacy:
            w[f"{prefix}.in_proj_weight"], w[f"{prefix}.in_proj_bias"] = r(3 * d, d), r(3 * d)
        else:
            for p in ("k_proj", "v_proj", "q_proj"):
                w[f"{prefix}.{p}.weight"], w[f"{prefix}.{p}.bias"] = r(d, d), r(d)
        w[f"{prefix}.out_proj.weight"], w[f"{prefix}.out_proj.bias"] = r(d, d), r(d)

    def norm(name: str) -> None:
        w[f"{name}.weight"], w[f"{name}.bias"] = 1 + r(d), r(d)

    for i in range(v.enc_layers):
        p = f"encoder.layers.{i}"
        attn(f"{p}.self_attn")
        norm(f"{p}.layer_norms.0" if v.legacy else f"{p}.self_attn_layer_norm")
        w[f"{p}.fc1.weight"], w[f"{p}.fc1.bias"] = r(v.ffn, d), r(v.ffn)
        w[f"{p}.fc2.weight"], w[f"{p}.fc2.bias"] = r(d, v.ffn), r(d)
        norm(f"{p}.layer_norms.1" if v.legacy else f"{p}.final_layer_norm")
    if v.normalize_before:
        norm("encoder.layer_norm")
    w["encoder.version"] = torch.tensor([3.0])
    w["decoder.embed_tokens.weight"] = dec
    w["decoder.embed_positions._float_tensor"] = torch.zeros(1)
    for i in range(v.dec_layers):
        p = f"decoder.layers.{i}"
        attn(f"{p}.self_attn")
        norm(f"{p}.self_attn_layer_norm")
        attn(f"{p}.encoder_attn")
        norm(f"{p}.encoder_attn_layer_norm")
        w[f"{p}.fc1.weight"], w[f"{p}.fc1.bias"] = r(v.ffn, d), r(v.ffn)
        w[f"{p}.fc2.weight"], w[f"{p}.fc2.bias"] = r(d, v.ffn), r(d)
        norm(f"{p}.final_layer_norm")
    if v.normalize_before:
        norm("decoder.layer_norm")
    out = dec if v.share in ("all", "target") else r(vocab[1], d, scale=d**-0.5)
    if v.legacy:
        if v.share == "none":
            w["decoder.embed_out"] = out
    else:
        w["decoder.output_projection.weight"] = out
    w["decoder.version"] = torch.tensor([3.0])
    return w


def save_checkpoint(
    path: Path, v: Variant, weights: OrderedDict[str, Tensor], langs: tuple[str, str]
) -> None:
    """torch.save in fairseq's layout: `args` (legacy) or `cfg` with a model Namespace."""
    model_args: dict[str, Any] = {
        "arch": "transformer", "encoder_embed_dim": v.d, "decoder_embed_dim": v.d,
        "encoder_attention_heads": v.heads, "decoder_attention_heads": v.heads,
        "encoder_ffn_embed_dim": v.ffn, "decoder_ffn_embed_dim": v.ffn,
        "encoder_layers": v.enc_layers, "decoder_layers": v.dec_layers,
        "encoder_normalize_before": v.normalize_before,
        "decoder_normalize_before": v.normalize_before, "activation_fn": v.activation,
        "share_all_embeddings": v.share == "all",
        "share_decoder_input_output_embed": v.share in ("all", "target"), "dropout": 0.3,
        "max_source_positions": 1024, "max_target_positions": 1024, **v.extra_args,
    }  # fmt: skip
    task = {"_name": "translation", "source_lang": langs[0], "target_lang": langs[1]}
    ckpt: dict[str, Any] = {
        "model": weights,
        "optimizer_history": [{"criterion_name": "LabelSmoothedCrossEntropyCriterion",
                               "optimizer_name": "FairseqAdam", "lr_scheduler_state":
                               {"best": 3.25}, "num_updates": 1200}],
        "extra_state": {"epoch": 3, "val_loss": 3.25, "train_iterator": {"epoch": 3}},
    }  # fmt: skip
    if v.legacy:
        ckpt["args"] = argparse.Namespace(
            **model_args,
            **{"source_lang": langs[0], "target_lang": langs[1], "bpe": "sentencepiece"},
        )
    else:
        ckpt["args"] = None
        bpe = {"_name": "sentencepiece", "sentencepiece_model": "/data/sentencepiece.bpe.model"}
        ckpt["cfg"] = {"model": argparse.Namespace(**model_args), "task": task, "bpe": bpe}
    torch.save(ckpt, path)


def build(
    folder: Path, v: Variant, langs: tuple[str, str] = ("en", "it")
) -> tuple[Path, OrderedDict[str, Tensor], tuple[list[str], list[str]], spm.SentencePieceProcessor]:
    """checkpoint.pt + dict files + SentencePiece model in `folder`: (path, weights, (source
    symbols, target symbols), sp)."""
    sp = train_spm(folder)
    symbols = write_dicts(folder, sp, langs, v.separate_dicts)
    weights = fairseq_weights(v, (4 + len(symbols[0]), 4 + len(symbols[1])))
    path = folder / "checkpoint_best.pt"
    save_checkpoint(path, v, weights, langs)
    return path, weights, symbols, sp


# ---- the reference forward pass (fairseq semantics) ---------------------------------------------
def _positions(tokens: Tensor, d: int) -> Tensor:
    """SinusoidalPositionalEmbedding: make_positions + get_embedding (sin / cos halves,
    frequencies 10000^(-i/(d/2-1)))."""
    mask = tokens.ne(PAD).long()
    pos = torch.cumsum(mask, dim=1) * mask + PAD  # (B, T): padding_idx + 1, + 2, ...
    half = d // 2
    freq = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(10000) / (half - 1)))
    ang = torch.arange(int(pos.max()) + 1, dtype=torch.float)[:, None] * freq[None, :]
    table = torch.cat([torch.sin(ang), torch.cos(ang)], dim=1)
    table[PAD] = 0
    return table[pos]


def _mha(
    w: dict[str, Tensor],
    p: str,
    q_in: Tensor,
    kv_in: Tensor,
    heads: int,
    key_pad: Tensor,
    causal: bool,
) -> Tensor:
    B, T, D = q_in.shape
    S, hd = kv_in.size(1), D // heads
    if f"{p}.in_proj_weight" in w:
        qw, kw, vw = w[f"{p}.in_proj_weight"].chunk(3)
        qb, kb, vb = w[f"{p}.in_proj_bias"].chunk(3)
    else:
        qw, kw, vw = (w[f"{p}.{n}_proj.weight"] for n in "qkv")
        qb, kb, vb = (w[f"{p}.{n}_proj.bias"] for n in "qkv")
    q = F.linear(q_in, qw, qb) * hd**-0.5
    k, v = F.linear(kv_in, kw, kb), F.linear(kv_in, vw, vb)
    q = q.view(B, T, heads, hd).transpose(1, 2)
    k = k.view(B, S, heads, hd).transpose(1, 2)
    v = v.view(B, S, heads, hd).transpose(1, 2)
    s = q @ k.transpose(-1, -2)  # (B, H, T, S)
    if causal:
        s = s + torch.triu(torch.full((T, S), float("-inf")), 1)
    s = s.masked_fill(key_pad[:, None, None, :], float("-inf"))
    y = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
    return F.linear(y, w[f"{p}.out_proj.weight"], w[f"{p}.out_proj.bias"])


def _ln(w: dict[str, Tensor], name: str, x: Tensor) -> Tensor:
    return F.layer_norm(x, x.shape[-1:], w[f"{name}.weight"], w[f"{name}.bias"], 1e-5)


def reference_logits(w: dict[str, Tensor], v: Variant, src: Tensor, prev: Tensor) -> Tensor:
    """fairseq TransformerModel(src_tokens, prev_output_tokens) logits (B, T, V), eval mode.

    `src`: fairseq ids ending in </s>; `prev`: </s> then the target (move_eos_to_beginning).
    """
    act = F.relu if v.activation == "relu" else F.gelu
    pre = v.normalize_before
    enc_ln0 = "layer_norms.0" if v.legacy else "self_attn_layer_norm"
    enc_ln1 = "layer_norms.1" if v.legacy else "final_layer_norm"

    def sub(x: Tensor, norm: str, f: Any) -> Tensor:  # residual block, pre- or post-norm
        return x + f(_ln(w, norm, x)) if pre else _ln(w, norm, x + f(x))

    def ffn(p: str) -> Any:
        return lambda h: F.linear(act(F.linear(h, w[f"{p}.fc1.weight"], w[f"{p}.fc1.bias"])),
                                  w[f"{p}.fc2.weight"], w[f"{p}.fc2.bias"])  # fmt: skip

    scale = math.sqrt(v.d)
    src_pad = src.eq(PAD)
    x = scale * w["encoder.embed_tokens.weight"][src] + _positions(src, v.d)
    for i in range(v.enc_layers):
        p = f"encoder.layers.{i}"
        x = sub(
            x,
            f"{p}.{enc_ln0}",
            lambda h, p=p: _mha(w, f"{p}.self_attn", h, h, v.heads, src_pad, False),
        )
        x = sub(x, f"{p}.{enc_ln1}", ffn(p))
    memory = _ln(w, "encoder.layer_norm", x) if pre else x
    tgt_pad = prev.eq(PAD)
    y = scale * w["decoder.embed_tokens.weight"][prev] + _positions(prev, v.d)
    for i in range(v.dec_layers):
        p = f"decoder.layers.{i}"
        y = sub(
            y,
            f"{p}.self_attn_layer_norm",
            lambda h, p=p: _mha(w, f"{p}.self_attn", h, h, v.heads, tgt_pad, True),
        )
        y = sub(
            y,
            f"{p}.encoder_attn_layer_norm",
            lambda h, p=p: _mha(w, f"{p}.encoder_attn", h, memory, v.heads, src_pad, False),
        )
        y = sub(y, f"{p}.final_layer_norm", ffn(p))
    if pre:
        y = _ln(w, "decoder.layer_norm", y)
    out = w.get(
        "decoder.output_projection.weight",
        w.get("decoder.embed_out", w["decoder.embed_tokens.weight"]),
    )
    return y @ out.t()
