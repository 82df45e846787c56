"""Tiny Hugging Face models for the `fitsub.hf` tests, built offline from configs.

A SentencePiece vocabulary is trained on a few hundred generated English / Italian lines, a
Marian or M2M-100 model of a few thousand parameters is initialised from its config, and both
are saved with `save_pretrained` (safetensors) into a directory that fitsub then loads through
the same path as a downloaded model.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Any

DICT = {
    "the": "il", "a": "una", "small": "piccola", "big": "grande", "boat": "barca",
    "boats": "barche", "house": "casa", "dog": "cane", "cat": "gatto", "river": "fiume",
    "city": "citta", "bored": "annoiato", "sailor": "marinaio", "walks": "cammina",
    "sees": "vede", "very": "molto", "old": "vecchio", "new": "nuovo", "was": "ero",
}  # fmt: skip
EN = list(DICT)


def toy_lines(n: int = 400, seed: int = 0) -> list[tuple[str, str]]:
    """n (english, italian) pairs: random words, translated word by word."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(EN, k=rng.randint(2, 8))
        out.append((" ".join(words), " ".join(DICT[w] for w in words)))
    return out


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
