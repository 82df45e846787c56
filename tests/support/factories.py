"""Every tiny model the tests use, built in the test run (never downloaded): one place.

fitsub checkpoints: `word_tokenizer` / `digit_tokenizer` (SentencePiece over generated text),
`tiny_config`, `tiny_checkpoint` (real plumbing, meaningless words) and `train_tiny` (the
cyclic-copy task of `nmt_helpers`, trained in seconds). Hugging Face models: `make_marian`,
`make_m2m` (a tiny Marian / M2M-100 saved with `save_pretrained`, trained briefly on the toy
pairs of `hf_helpers`).
"""

from __future__ import annotations

import functools
import json
import random
import warnings
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from hf_helpers import toy_lines
from nmt_helpers import DIGITS, make_batch

from fitsub.nmt.checkpoint import build_model, save_checkpoint
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.lengths import perturb
from fitsub.nmt.model import Transformer
from fitsub.nmt.tokenizer import Tokenizer


def word_texts(n: int = 400, seed: int = 0) -> list[str]:
    """Pseudo-sentences of made-up words with accents, for tokenizer tests."""
    rng = random.Random(seed)
    syll = ["ka", "to", "ri", "mè", "so", "lu", "ne", "pa", "zé", "qui", "vo", "ga"]
    words = ["".join(rng.choice(syll) for _ in range(rng.randint(1, 3))) for _ in range(60)]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) for _ in range(n)]


@functools.cache
def word_tokenizer(vocab_size: int = 120) -> Tokenizer:
    """A small SentencePiece model over `word_texts` (multi-character pieces)."""
    return Tokenizer.train(word_texts(), vocab_size=vocab_size, langs=("en", "it"))


@functools.cache
def digit_tokenizer() -> Tokenizer:
    """A SentencePiece model in which every digit of "3 1 4" is one piece `▁3`."""
    rng = random.Random(1)
    texts = [" ".join(rng.choice(DIGITS) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    tok = Tokenizer.train(texts, vocab_size=30, langs=("en", "it"))
    assert [tok.sp.id_to_piece(i) for i in tok.encode("3 1 4")] == ["▁3", "▁1", "▁4"]
    return tok


def tiny_config(tok: Tokenizer, **kw: object) -> ModelConfig:
    """A model small enough to train in seconds on one CPU thread."""
    base: dict[str, object] = dict(
        vocab_size=tok.vocab_size,
        d_model=64,
        n_heads=4,
        enc_layers=2,
        dec_layers=2,
        d_ff=128,
        dropout=0.0,
        method="ldpe",
        length_unit="subword",
        length_thresholds=(0.85, 1.15),
    )
    base.update(kw)
    return ModelConfig(**base)  # type: ignore[arg-type]


def tiny_checkpoint(folder: Path, name: str = "tiny", seed: int = 0, **kw: object) -> Path:
    """An untrained checkpoint `folder/name` over `word_tokenizer` (char-unit LDPE+PE unless
    `kw` says otherwise): real plumbing, meaningless words."""
    torch.manual_seed(seed)
    tok = word_tokenizer()
    settings: dict[str, object] = {
        "method": "ldpe+pe",
        "length_unit": "char",
        "length_dropout": 0.2,
    }
    cfg = tiny_config(tok, **{**settings, **kw})
    path = folder / name
    save_checkpoint(path, build_model(cfg, tok), cfg, tok)
    return path


def train_tiny(
    method: str = "ldpe",
    length_unit: str = "subword",
    steps: int = 300,
    seed: int = 0,
    **kw: object,
) -> tuple[Transformer, Tokenizer, ModelConfig]:
    """Train a tiny model on the cyclic-copy task (about 10-20 s on one thread)."""
    return _train_cached(method, length_unit, steps, seed, tuple(sorted(kw.items())))


@functools.cache
def _train_cached(
    method: str, length_unit: str, steps: int, seed: int, kw: tuple[tuple[str, object], ...]
) -> tuple[Transformer, Tokenizer, ModelConfig]:
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = digit_tokenizer()
    cfg = tiny_config(tok, method=method, length_unit=length_unit, **dict(kw))
    model = build_model(cfg, tok)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) * max(0.05, 1 - s / steps)
    )
    gen = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(steps):
        src, tgt_in, tgt_out, lens = make_batch(tok, cfg, 64, rng)
        lens = perturb(lens, cfg.noise, cfg.noise_mode, gen)
        if cfg.length_dropout > 0:
            drop = torch.rand(lens.shape, generator=gen) < cfg.length_dropout
            lens = torch.where(drop, torch.full_like(lens, -1), lens)
        logits = model(src, tgt_in, lens)
        loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
    model.eval()
    return model, tok, cfg


def train_briefly(model: Any, tok: Any, steps: int, prefix: str = "", seed: int = 0) -> None:
    """A few hundred Adam steps on the toy pairs: the model then writes real (toy) words."""
    import torch

    torch.manual_seed(seed)
    pairs = toy_lines(512, seed=seed + 1)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for step in range(steps):
        batch = pairs[(step * 32) % 512 : (step * 32) % 512 + 32]
        enc = tok(
            [prefix + s for s, _ in batch],
            text_target=[t for _, t in batch],
            return_tensors="pt",
            padding=True,
        )
        labels = enc["labels"].masked_fill(enc["labels"] == tok.pad_token_id, -100)
        loss = model(
            input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels=labels
        ).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()


def train_spm(directory: Path, vocab_size: int = 80) -> Path:
    """A unigram SentencePiece model over the toy lines; returns the .model path."""
    import sentencepiece as spm

    directory.mkdir(parents=True, exist_ok=True)
    text = directory / "corpus.txt"
    lines = [s for pair in toy_lines() for s in pair]
    text.write_text("\n".join(lines) + "\n", encoding="utf-8")
    prefix = directory / "spm"
    spm.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=1.0,
        bos_id=-1,
        eos_id=-1,
        unk_id=0,
        pad_id=-1,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return prefix.with_suffix(".model")


def _pieces(model: Path) -> list[str]:
    import sentencepiece as spm

    proc = spm.SentencePieceProcessor(model_file=str(model))
    return [proc.id_to_piece(i) for i in range(proc.get_piece_size())]


def make_marian(
    out: Path,
    languages: tuple[str, ...] = (),
    d_model: int = 32,
    seed: int = 0,
    steps: int = 300,
) -> Path:
    """A tiny MarianMT model + tokenizer in `out`; `languages` (e.g. ("ita", "deu")) adds
    `>>ita<<`-style target-language tokens (a multilingual Marian)."""
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    work = out.parent / f"{out.name}-spm"
    model_file = train_spm(work)
    vocab = {"</s>": 0, "<unk>": 1}
    for code in languages:
        vocab[f">>{code}<<"] = len(vocab)
    for piece in _pieces(model_file):
        if piece not in vocab:
            vocab[piece] = len(vocab)
    vocab["<pad>"] = len(vocab)
    vocab_path = work / "vocab.json"
    vocab_path.write_text(json.dumps(vocab), encoding="utf-8")
    with warnings.catch_warnings():  # "Recommended: pip install sacremoses"
        warnings.simplefilter("ignore")
        tok = MarianTokenizer(str(model_file), str(model_file), str(vocab_path))
    n = len(vocab)
    cfg = MarianConfig(
        vocab_size=n,
        d_model=d_model,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=2 * d_model,
        decoder_ffn_dim=2 * d_model,
        max_position_embeddings=256,
        pad_token_id=n - 1,
        eos_token_id=0,
        decoder_start_token_id=n - 1,
        forced_eos_token_id=0,
        num_beams=1,
        max_length=64,
    )
    torch.manual_seed(seed)
    model = MarianMTModel(cfg)
    prefix = f">>{languages[0]}<< " if languages else ""
    train_briefly(model, tok, steps, prefix, seed)
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    return out


def make_m2m(out: Path, d_model: int = 32, seed: int = 0, steps: int = 300) -> Path:
    """A tiny M2M-100 model + tokenizer (language tokens `__it__`, forced as the first target token)."""
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    work = out.parent / f"{out.name}-spm"
    model_file = train_spm(work)
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for piece in _pieces(model_file):
        if piece not in vocab:
            vocab[piece] = len(vocab)
    vocab_path = work / "vocab.json"
    vocab_path.write_text(json.dumps(vocab), encoding="utf-8")
    tok = M2M100Tokenizer(str(vocab_path), str(model_file), src_lang="en", tgt_lang="it")
    # the language tokens (and 8 spare "madeupword" ids) come after the pieces
    n = max(max(tok.get_vocab().values()), max(tok.lang_token_to_id.values())) + 9
    cfg = M2M100Config(
        vocab_size=n,
        d_model=d_model,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=2 * d_model,
        decoder_ffn_dim=2 * d_model,
        max_position_embeddings=256,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        max_length=64,
    )
    torch.manual_seed(seed)
    model = M2M100ForConditionalGeneration(cfg)
    train_briefly(model, tok, steps, "", seed)
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    return out
