"""Training the length predictor's head (`fitsub train-length`) and measuring its accuracy.

The encoder stays frozen (Oka et al. 2020 fine-tune BERT; on a shared CPU we cannot, and a
frozen encoder with a small head keeps the shipped predictor small): features are computed once
per text set and cached as safetensors under a cache directory (`runs/` by default, git-ignored).
The head regresses r = log(target length / source characters) with a smooth-L1 loss and Adam;
the epoch with the lowest held-out loss is kept. Accuracy is reported as in Oka et al. 2020
Table 2 (mean absolute error, error variance, Pearson correlation against the reference length)
plus the share of predictions within ±10 % of the reference length, next to the same figures
for the source length (`src_len`).
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from fitsub.errors import InputError
from fitsub.lengthpred.encoder import Encoder, EncoderSpec
from fitsub.lengthpred.predictor import UNITS, Head, LengthPredictor, PredictorConfig
from fitsub.metrics.length import accuracy
from fitsub.units import char_length

Log = Callable[[str], None]


@dataclass(frozen=True)
class HeadOptions:
    """How the head is trained."""

    epochs: int = 60
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    hidden: int = 256
    dropout: float = 0.1
    seed: int = 1


def cached_features(
    encoder: Encoder, texts: Sequence[str], cache_dir: Path | None, log: Log | None = None
) -> Tensor:
    """`encoder.features(texts)`, read from / written to `cache_dir` (safetensors) when given."""
    if cache_dir is None:
        return encoder.features(texts)
    from safetensors.torch import load_file, save_file

    h = hashlib.sha256(encoder.identity().encode())
    for t in texts:
        h.update(t.encode("utf-8") + b"\n")
    path = Path(cache_dir) / f"features-{h.hexdigest()[:20]}.safetensors"
    if path.is_file():
        feats = load_file(str(path))["features"]
        if feats.shape == (len(texts), encoder.dim):
            if log is not None:
                log(f"features of {len(texts)} texts from {path}")
            return feats
    t0 = time.perf_counter()
    feats = encoder.features(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    save_file({"features": feats.contiguous()}, str(tmp))
    tmp.replace(path)
    if log is not None:
        log(f"features of {len(texts)} texts in {time.perf_counter() - t0:.0f} s → {path}")
    return feats


def log_ratios(srcs: Sequence[str], lengths: Sequence[int]) -> Tensor:
    """log(target length / source characters): the head's regression target."""
    return torch.tensor(
        [math.log(max(n, 1) / max(char_length(s), 1)) for s, n in zip(srcs, lengths, strict=True)],
        dtype=torch.float32,
    )


def fit_head(
    feats: Tensor,
    targets: Tensor,
    dev_feats: Tensor | None,
    dev_targets: Tensor | None,
    options: HeadOptions,
    log: Log | None = None,
) -> tuple[Head, dict[str, Any]]:
    """Train the head on (features, log ratio); keep the epoch with the best held-out loss."""
    if len(feats) == 0:
        raise InputError(None, "no training pairs for the length predictor")
    torch.manual_seed(options.seed)
    head = Head(feats.shape[1], options.hidden, options.dropout)
    mean = feats.mean(0)
    std = feats.std(0, unbiased=False).clamp(min=1e-4)
    head.get_buffer("feat_mean").copy_(mean)
    head.get_buffer("feat_std").copy_(std)
    opt = torch.optim.AdamW(head.parameters(), lr=options.lr, weight_decay=options.weight_decay)
    steps_total = options.epochs * math.ceil(len(feats) / options.batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=options.lr, total_steps=max(steps_total, 1), pct_start=0.1
    )
    loss_fn = torch.nn.SmoothL1Loss(beta=0.1)
    gen = torch.Generator().manual_seed(options.seed)
    best: tuple[float, int, dict[str, Tensor]] | None = None
    history: list[dict[str, float]] = []
    t0 = time.perf_counter()
    step = 0
    for epoch in range(1, options.epochs + 1):
        head.train()
        perm = torch.randperm(len(feats), generator=gen)
        total = 0.0
        for start in range(0, len(perm), options.batch_size):
            idx = perm[start : start + options.batch_size]
            loss = loss_fn(head(feats[idx]), targets[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += loss.item() * len(idx)
        train_loss = total / len(feats)
        head.eval()
        dev_loss = train_loss
        if dev_feats is not None and dev_targets is not None and len(dev_feats):
            with torch.no_grad():
                dev_loss = float(loss_fn(head(dev_feats), dev_targets))
        history.append({"epoch": epoch, "train_loss": train_loss, "dev_loss": dev_loss})
        if best is None or dev_loss < best[0]:
            state = {k: v.detach().clone() for k, v in head.state_dict().items()}
            best = (dev_loss, epoch, state)
        if log is not None and (epoch % 10 == 0 or epoch == options.epochs):
            log(f"epoch {epoch}: train loss {train_loss:.4f}, held-out loss {dev_loss:.4f}")
    assert best is not None
    head.load_state_dict(best[2])
    head.eval()
    info = {
        "epochs": options.epochs,
        "steps": step,
        "best_epoch": best[1],
        "best_dev_loss": best[0],
        "head_seconds": round(time.perf_counter() - t0, 1),
    }
    return head, info


def fit_predictor(
    encoder: Encoder,
    srcs: Sequence[str],
    lengths: Sequence[int],
    *,
    src_lang: str,
    tgt_lang: str,
    unit: str = "char",
    encoder_spec: EncoderSpec | None = None,
    chars_per_unit: float = 1.0,
    options: HeadOptions = HeadOptions(),
    dev_size: int = 0,
    cache_dir: Path | None = None,
    log: Log | None = None,
) -> tuple[LengthPredictor, dict[str, Any]]:
    """A predictor for `encoder` trained on (source, target length in `unit`) pairs.

    `dev_size` pairs (random, seeded) are held out for the best epoch and the accuracy figures.
    """
    if unit not in UNITS:
        raise InputError(None, f"length unit must be one of {', '.join(UNITS)}, got {unit!r}")
    if len(srcs) != len(lengths):
        raise ValueError(f"{len(srcs)} sources but {len(lengths)} lengths")
    order = list(range(len(srcs)))
    random.Random(options.seed).shuffle(order)
    dev_idx = sorted(order[:dev_size]) if 0 < dev_size < len(srcs) else []
    held = set(dev_idx)
    train_idx = [i for i in range(len(srcs)) if i not in held]
    feats = cached_features(encoder, list(srcs), cache_dir, log)
    targets = log_ratios(srcs, lengths)
    dev_f = feats[dev_idx] if dev_idx else None
    dev_t = targets[dev_idx] if dev_idx else None
    head, info = fit_head(
        feats=feats[train_idx],
        targets=targets[train_idx],
        dev_feats=dev_f,
        dev_targets=dev_t,
        options=options,
        log=log,
    )
    spec = encoder_spec or EncoderSpec(package=None, max_tokens=encoder.max_tokens)
    cfg = PredictorConfig(
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        unit=unit,
        encoder=spec,
        dim=encoder.dim,
        hidden=options.hidden,
        dropout=options.dropout,
        chars_per_unit=chars_per_unit,
    )
    predictor = LengthPredictor(cfg, head, encoder)
    info.update({"train_pairs": len(train_idx), "heldout_pairs": len(dev_idx)})
    if dev_idx:
        d_srcs = [srcs[i] for i in dev_idx]
        d_ref = [lengths[i] for i in dev_idx]
        pred = predictor.predict_from_features(feats[dev_idx], d_srcs)
        base = [round(char_length(s) / chars_per_unit) for s in d_srcs]
        info["heldout"] = {
            "predicted": accuracy(pred, d_ref).to_dict(),
            "src_len": accuracy(base, d_ref).to_dict(),
        }
    cfg.train = dict(info)
    return predictor, info


def count_units(texts: Sequence[str], unit: str, model_dir: Path | None) -> list[int]:
    """Lengths of `texts` in `unit`: characters, or pieces of the model's `spm.model`."""
    if unit == "char":
        return [char_length(t) for t in texts]
    spm = None if model_dir is None else Path(model_dir) / "spm.model"
    if spm is None or not spm.is_file():
        raise InputError(model_dir, "a subword-unit model needs its spm.model to count lengths")
    import sentencepiece

    proc = sentencepiece.SentencePieceProcessor(model_file=str(spm))
    return [len(ids) for ids in proc.encode(list(texts))]


def parse_corpora(specs: Sequence[str]) -> list[tuple[str, int | None]]:
    """`NAME` (every pair) or `NAME:N` (at most N pairs, sampled with the seed)."""
    out: list[tuple[str, int | None]] = []
    for spec in specs:
        name, sep, count = spec.strip().partition(":")
        if not name or (sep and not count.isdigit()):
            raise InputError(None, f"bad corpus {spec!r}: expected NAME or NAME:N (a pair count)")
        out.append((name, int(count) if sep else None))
    return out


def sample_pairs(
    data_dir: Path,
    src_lang: str,
    tgt_lang: str,
    specs: Sequence[tuple[str, int | None]],
    seed: int,
) -> tuple[list[str], list[str], dict[str, int]]:
    """Read the named corpora (all of `data_dir` when none), filter, sample; sizes by name."""
    from fitsub.train.corpus import filter_pairs, find_corpora, read_parallel

    available = find_corpora(data_dir, src_lang, tgt_lang)
    chosen = list(specs) or [(name, None) for name in available]
    rng = random.Random(seed)
    srcs: list[str] = []
    tgts: list[str] = []
    sizes: dict[str, int] = {}
    for name, count in chosen:
        if name not in available:
            raise InputError(data_dir, f"no corpus {name!r}; available: {', '.join(available)}")
        corpus, _ = filter_pairs(read_parallel(*available[name]))
        idx = list(range(len(corpus)))
        if count is not None and count < len(idx):
            idx = sorted(rng.sample(idx, count))
        srcs.extend(corpus.src[i] for i in idx)
        tgts.extend(corpus.tgt[i] for i in idx)
        sizes[name] = len(idx)
    if not srcs:
        raise InputError(data_dir, "no training pairs left after filtering")
    return srcs, tgts, sizes
