"""Fine-tune a pretrained Hugging Face translation model with length information.

Lakew et al. 2019 (sec. 4, fine-tuning): a trained model learns length control in a short
fine-tuning run on its own data with the length information added.
* `tok` (Lakew's length-token method): each training pair's target/source character ratio
  picks `<short>` / `<normal>` / `<long>` with the thresholds of `fitsub.nmt.lengths`
  (1/3 and 2/3 quantiles of this data's ratios); the token is prepended to the source (after a
  Marian / T5 language prefix). New tokens are added to the tokenizer and the embeddings.
* `ldpe+pe` / `lrpe+pe` (Takase & Okazaki 2019, "+PE"): the decoder's sinusoidal position
  encoding gets the length-difference or length-ratio encoding added (`fitsub.hf.length_positions`), the
  length being the reference's number of pieces. Only for Marian, whose decoder positions are
  the fixed sinusoids `fitsub.hf.length_positions` wraps; other families are told to use `tok`.
The result, `OUT/best`, is an ordinary model directory (`save_pretrained`, safetensors) plus
`fitsub.json` naming the base model, the method, the thresholds and chars per piece, which
`fitsub translate --model OUT/best` loads (`fitsub.hf.backend.HFBackend`).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from fitsub.device import resolve_device
from fitsub.errors import InputError
from fitsub.hf.languages import Language, source_text, target_language
from fitsub.hf.length_positions import PE_METHODS, LengthPositions, attach, detach
from fitsub.hf.loading import META, META_FORMAT, load_pretrained
from fitsub.io.atomic import atomic_write_text
from fitsub.nmt.lengths import LENGTH_TOKENS, fit_thresholds, length_class
from fitsub.train.corpus import Corpus, filter_pairs
from fitsub.units import char_length

HF_METHODS = ("tok", *PE_METHODS)
Callback = Callable[[dict[str, Any]], None]


@dataclass
class FinetuneConfig:
    """What `fitsub train --init-from <HF model> --method ...` asks for."""

    base: str
    out_dir: str
    method: str = "tok"
    src_lang: str = "en"
    tgt_lang: str = "it"
    lr: float = 5e-5
    warmup: int = 100
    max_tokens: int = 4096  # padded source + target tokens per batch
    max_steps: int | None = None
    max_epochs: int | None = None
    max_time: float | None = None
    seed: int = 1
    device: str = "auto"
    threads: int | None = None
    precision: str = "auto"  # auto: bf16 autocast on a CUDA GPU that has it; fp32 on CPU


def _batches(lengths: list[int], max_tokens: int, rng: random.Random) -> list[list[int]]:
    """Indices grouped by length so that each batch's padded size stays under `max_tokens`."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    out: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        if cur and (len(cur) + 1) * lengths[i] > max_tokens:
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


@dataclass(frozen=True)
class _Encoded:
    """The training pairs as the model reads them, with what the saved model records."""

    src: list[list[int]]  # source ids (length token and language prefix included)
    tgt: list[list[int]]  # target ids
    content: list[int]  # each target's pieces, special tokens aside (the +PE length)
    thresholds: tuple[float, float]  # <short> / <normal> / <long> ratio thresholds
    chars_per_piece: float
    pairs: int  # pairs kept
    dropped: dict[str, int]  # pairs dropped, by reason (`fitsub.train.corpus.filter_pairs`)


def finetune(cfg: FinetuneConfig, pairs: Corpus, callback: Callback | None = None) -> Path:
    """Fine-tune `cfg.base` on `pairs` with `cfg.method`; returns `OUT/best`."""
    say = callback or (lambda ev: None)
    best = _check(cfg)
    device = resolve_device(cfg.device)
    if cfg.threads is not None and device.type == "cpu":
        torch.set_num_threads(cfg.threads)
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    net, tok, lang = _load(cfg)
    data = _encode(cfg, pairs, net=net, tok=tok, lang=lang)
    positions = attach(net, cfg.method) if cfg.method in PE_METHODS else None
    steps, loss = _train(cfg, net, tok.pad_token_id, data, positions, device, say)
    if positions is not None:
        positions.lengths = None
        detach(net)
    net.eval().to("cpu")
    _save(cfg, best, data, net=net, tok=tok, steps=steps, loss=loss)
    say({"event": "done", "step": steps, "reason": "end", "out": str(best)})
    return best


def _check(cfg: FinetuneConfig) -> Path:
    """`OUT/best`, once the method is one a Hugging Face model takes and OUT/best is new."""
    if cfg.method not in HF_METHODS:
        raise InputError(
            None,
            f"{cfg.method!r} cannot fine-tune a Hugging Face model; "
            f"choose from {', '.join(HF_METHODS)}",
            setting="method",
        )
    best = Path(cfg.out_dir) / "best"
    if best.exists():
        raise InputError(best, "already exists; choose a new --out")
    return best


def _load(cfg: FinetuneConfig) -> tuple[Any, Any, Language]:
    """The base model, its tokenizer set to the target language, and how that language reaches
    the model; a +PE method only on Marian's sinusoidal positions."""
    net, tok, config, _ = load_pretrained(cfg.base)
    kind = str(getattr(config, "model_type", ""))
    if cfg.method in PE_METHODS and kind != "marian":
        raise InputError(
            cfg.base,
            f"{cfg.method} adds a length encoding to sinusoidal decoder positions "
            f"(Marian); a {kind} model needs --method tok",
            setting="method",
        )
    lang = target_language(tok, config, lang=cfg.tgt_lang, src_lang=cfg.src_lang, model=cfg.base)
    if lang.forced_bos is not None and hasattr(tok, "tgt_lang") and lang.code:
        tok.tgt_lang = lang.code[2:-2] if lang.code.startswith("__") else lang.code
    return net, tok, lang


def _encode(cfg: FinetuneConfig, pairs: Corpus, *, net: Any, tok: Any, lang: Language) -> _Encoded:
    """The filtered pairs encoded: under `tok` each source with its length class's token (Lakew
    et al. 2019, thresholds from this data's ratios)."""
    data, dropped = filter_pairs(pairs)
    if len(data) == 0:
        raise InputError(None, "no training pairs left after filtering (empty or too long)")
    src_chars = [char_length(s) for s in data.src]
    tgt_chars = [char_length(t) for t in data.tgt]
    ratios = [t / max(s, 1) for s, t in zip(src_chars, tgt_chars, strict=True)]
    thresholds = fit_thresholds(ratios)
    tokens: list[str | None] = [None] * len(data)
    if cfg.method == "tok":
        _add_length_tokens(net, tok, cfg.base)
        tokens = [length_class(s, t, thresholds) for s, t in zip(src_chars, tgt_chars, strict=True)]
    texts = [source_text(s, lang, k) for s, k in zip(data.src, tokens, strict=True)]
    enc_src = tok(texts)["input_ids"]
    enc_tgt = tok(text_target=list(data.tgt))["input_ids"]
    special = set(tok.all_special_ids) | (
        {lang.forced_bos} if lang.forced_bos is not None else set()
    )
    content = [sum(1 for x in t if x not in special) for t in enc_tgt]
    per_piece = sum(tgt_chars) / max(1, sum(content))
    return _Encoded(
        src=enc_src,
        tgt=enc_tgt,
        content=content,
        thresholds=thresholds,
        chars_per_piece=per_piece,
        pairs=len(data),
        dropped=dropped,
    )


def _add_length_tokens(net: Any, tok: Any, base: str) -> None:
    """`<short>`, `<normal>` and `<long>` added to the tokenizer and the embeddings, as new ids."""
    vocab_before = int(net.get_output_embeddings().weight.shape[0])
    tok.add_tokens(list(LENGTH_TOKENS), special_tokens=True)
    ids = tok.convert_tokens_to_ids(list(LENGTH_TOKENS))
    taken = [i for i in ids if i < vocab_before]
    if taken or tok.convert_ids_to_tokens(ids) != list(LENGTH_TOKENS):
        raise InputError(
            base,
            "its tokenizer cannot take new length tokens without reusing ids of the model "
            "(M2M-100's language ids); fine-tune Marian, NLLB, mBART-50 or T5 with tok",
        )
    net.resize_token_embeddings(max(ids) + 1)


def _train(
    cfg: FinetuneConfig,
    net: Any,
    pad: int,
    data: _Encoded,
    positions: LengthPositions | None,
    device: torch.device,
    say: Callback,
) -> tuple[int, float]:
    """AdamW with linear warm-up over length-sorted batches until a step, time or epoch limit
    (one epoch when none is given); (updates made, the loss's moving average)."""
    bf16 = device.type == "cuda" and cfg.precision in ("auto", "bf16")
    bf16 = bf16 and torch.cuda.is_bf16_supported()
    net.to(device).train()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    lengths = [len(s) + len(t) for s, t in zip(data.src, data.tgt, strict=True)]
    rng = random.Random(cfg.seed)
    max_epochs = cfg.max_epochs or (None if (cfg.max_steps or cfg.max_time) else 1)
    say(
        {
            "event": "data",
            "train_pairs": data.pairs,
            "dropped": data.dropped,
            "thresholds": list(data.thresholds),
            "chars_per_piece": data.chars_per_piece,
            "method": cfg.method,
            "base": cfg.base,
        }
    )
    step, epoch, start, loss_avg = 0, 0, time.monotonic(), math.nan
    while True:
        for batch in _batches(lengths, cfg.max_tokens, rng):
            src, labels = _tensors(data, batch, pad, device)
            if positions is not None:  # the reference's length in pieces (Takase & Okazaki)
                positions.lengths = torch.tensor([data.content[i] for i in batch], device=device)
            lr = cfg.lr * min(1.0, (step + 1) / max(1, cfg.warmup))
            for group in opt.param_groups:
                group["lr"] = lr
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                loss = net(input_ids=src, attention_mask=src.ne(pad), labels=labels).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            step += 1
            value = float(loss.detach())
            loss_avg = value if math.isnan(loss_avg) else 0.9 * loss_avg + 0.1 * value
            say({"event": "step", "step": step, "loss": loss_avg, "lr": lr})
            elapsed = time.monotonic() - start
            if (cfg.max_steps and step >= cfg.max_steps) or (
                cfg.max_time and elapsed >= cfg.max_time
            ):
                return step, loss_avg
        epoch += 1
        if max_epochs is not None and epoch >= max_epochs:
            return step, loss_avg


def _tensors(
    data: _Encoded, batch: list[int], pad: int, device: torch.device
) -> tuple[Tensor, Tensor]:
    """(source ids padded with `pad`, target labels padded with -100) of `batch`, on `device`."""
    s_len = max(len(data.src[i]) for i in batch)
    t_len = max(len(data.tgt[i]) for i in batch)
    src = torch.full((len(batch), s_len), pad, dtype=torch.long)
    labels = torch.full((len(batch), t_len), -100, dtype=torch.long)
    for row, i in enumerate(batch):
        src[row, : len(data.src[i])] = torch.tensor(data.src[i])
        labels[row, : len(data.tgt[i])] = torch.tensor(data.tgt[i])
    return src.to(device), labels.to(device)


def _save(
    cfg: FinetuneConfig,
    best: Path,
    data: _Encoded,
    *,
    net: Any,
    tok: Any,
    steps: int,
    loss: float,
) -> None:
    """OUT/best: the model (safetensors), its tokenizer and `fitsub.json` (what it learned)."""
    best.mkdir(parents=True)
    net.save_pretrained(best, safe_serialization=True)
    tok.save_pretrained(best)
    meta = {
        "format": META_FORMAT,
        "base_model": cfg.base,
        "method": cfg.method,
        "length_thresholds": list(data.thresholds),
        "length_tokens": list(LENGTH_TOKENS) if cfg.method == "tok" else [],
        "length_unit": "subword",
        "chars_per_piece": data.chars_per_piece,
        "src_lang": cfg.src_lang,
        "tgt_lang": cfg.tgt_lang,
        "steps": steps,
        "train_pairs": data.pairs,
        "final_loss": loss,
        "paper": "Lakew et al. 2019 (tok); Takase & Okazaki 2019 (ldpe+pe, lrpe+pe)",
    }
    atomic_write_text(best / META, json.dumps(meta, indent=2) + "\n")


def read_pairs(
    data: Path | None, corpus: list[str], prefixes: list[str], src: str, tgt: str, seed: int
) -> Corpus:
    """The training pairs `fitsub train` names (`--data` [+ `--corpus`] and / or `--train`), each
    corpus deduplicated as for fitsub's own models (`fitsub.train.corpus.dedupe`)."""
    from fitsub.train.corpus import count_into, dedupe, load_data_dir, read_prefix

    pairs, dropped = Corpus(), dict[str, int]()
    if data is not None:
        pairs.extend(
            load_data_dir(
                data_dir=data, src_lang=src, tgt_lang=tgt, specs=corpus, seed=seed, dropped=dropped
            )[0]
        )
    for prefix in prefixes:
        pairs.extend(count_into(dedupe(read_prefix(prefix, src, tgt)), dropped))
    if data is None and not prefixes:
        raise InputError(None, "fine-tuning needs training data: --data DIR or --train PREFIX")
    return pairs


def run_from_cli(cfg: FinetuneConfig, pairs: Corpus, quiet: bool, lr_given: bool) -> Path:
    """`fitsub train --init-from <HF model>`: fine-tune, printing progress on stderr."""
    from rich.console import Console

    console = Console(stderr=True, quiet=quiet)
    if not lr_given:
        cfg.lr, cfg.warmup = FinetuneConfig.lr, min(cfg.warmup, FinetuneConfig.warmup)
    every = 50

    def show(ev: dict[str, Any]) -> None:
        if ev["event"] == "data":
            t_short, t_long = ev["thresholds"]
            console.print(
                f"fine-tuning {ev['base']} with {ev['method']}: {ev['train_pairs']} pairs, "
                f"<short> < {t_short:.3f} <= <normal> <= {t_long:.3f} < <long>, "
                f"{ev['chars_per_piece']:.2f} chars/piece, lr {cfg.lr:g}",
                highlight=False,
            )
        elif ev["event"] == "step" and ev["step"] % every == 0:
            console.print(f"step {ev['step']}: loss {ev['loss']:.3f}", highlight=False)
        elif ev["event"] == "done":
            console.print(f"stopped at step {ev['step']}", highlight=False)

    return finetune(cfg, pairs, show)
