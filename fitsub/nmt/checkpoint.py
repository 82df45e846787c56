"""Self-describing checkpoint directories: `config.json` + `model.safetensors` + `spm.model`.

Layout (see docs/ARCHITECTURE.md): `config.json` holds {"fitsub_version", "format", "model":
ModelConfig.to_dict(), "train": {...}, "weights_dtype", "extra_tensors": [...]}; weights are
safetensors (never pickled, never `torch.load`); the tokenizer is the SentencePiece model.
Extra tensor groups (e.g. optimizer state) are stored as `NAME.safetensors`.

Saving writes a temporary sibling directory and renames it into place (an existing checkpoint
is renamed away first and deleted last), so a reader never sees a half-written checkpoint.
Files of an existing checkpoint that the new one does not write (`train_log.jsonl`,
`MODEL_CARD.md`, …) are carried over unless `keep_existing=False`.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from fitsub import __version__
from fitsub.errors import InputError
from fitsub.nmt.config import ModelConfig
from fitsub.nmt.model import Transformer, unwrap
from fitsub.nmt.tokenizer import Tokenizer

CONFIG, WEIGHTS, SPM = "config.json", "model.safetensors", "spm.model"
FORMAT = "fitsub-checkpoint-1"
_DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}


def build_model(cfg: ModelConfig, tokenizer: Tokenizer) -> Transformer:
    """A fresh model whose character tables come from `tokenizer` (use this, not bare Transformer)."""
    if cfg.vocab_size != tokenizer.vocab_size:
        raise ValueError(
            f"config vocab_size {cfg.vocab_size} != tokenizer's {tokenizer.vocab_size}"
        )
    return Transformer(cfg, tokenizer.piece_chars(), tokenizer.leading_space())


def _tensors(state: dict[str, Tensor], dtype: torch.dtype | None) -> dict[str, Tensor]:
    out = {}
    for k, v in state.items():
        v = v.detach().to("cpu")
        if dtype is not None and v.is_floating_point():
            v = v.to(dtype)
        out[k] = v.contiguous()
    return out


def save_checkpoint(
    path: str | Path,
    model: nn.Module,
    cfg: ModelConfig,
    tokenizer: Tokenizer,
    extra: dict[str, Any] | None = None,
    *,
    extra_tensors: dict[str, dict[str, Tensor]] | None = None,
    dtype: str = "float32",
    keep_existing: bool = True,
) -> Path:
    """Write a checkpoint directory atomically; returns its path.

    `extra` goes to config.json["train"]; `extra_tensors` {NAME: state} to `NAME.safetensors`;
    `dtype` ("float32", "float16", "bfloat16") is the dtype the weights are stored in.
    """
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; choose from {sorted(_DTYPES)}")
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700; a checkpoint is an ordinary directory
    try:
        state = unwrap(model).state_dict()
        save_file(_tensors(state, _DTYPES[dtype]), str(tmp / WEIGHTS), metadata={"format": "pt"})
        names = sorted(extra_tensors or {})
        for name in names:
            if name in ("model", "config") or "/" in name or name.startswith("."):
                raise ValueError(f"bad extra tensor group name {name!r}")
            save_file(_tensors((extra_tensors or {})[name], None), str(tmp / f"{name}.safetensors"))
        tokenizer.save(tmp / SPM)
        meta = {
            "fitsub_version": __version__,
            "format": FORMAT,
            "model": cfg.to_dict(),
            "train": dict(extra or {}),
            "weights_dtype": dtype,
            "extra_tensors": names,
        }
        (tmp / CONFIG).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", "utf-8")
        if keep_existing and dest.is_dir():
            for old in dest.iterdir():
                if old.is_file() and not (tmp / old.name).exists():
                    shutil.copy2(old, tmp / old.name)
        _swap_in(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _swap_in(tmp: Path, dest: Path) -> None:
    """Rename `tmp` to `dest`, moving an existing `dest` away first and deleting it last."""
    old: Path | None = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        os.rmdir(old)
        os.replace(dest, old)
    os.replace(tmp, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def read_config(path: str | Path) -> dict[str, Any]:
    """The parsed config.json of a checkpoint directory (InputError if it is not one)."""
    d = Path(path)
    if not d.is_dir():
        raise InputError(d, "not a checkpoint directory (no such directory)")
    missing = [n for n in (CONFIG, WEIGHTS, SPM) if not (d / n).is_file()]
    if missing:
        raise InputError(d, f"not a checkpoint directory (missing {', '.join(missing)})")
    try:
        meta = json.loads((d / CONFIG).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(d / CONFIG, f"unreadable checkpoint config: {err}") from err
    if not isinstance(meta, dict) or not isinstance(meta.get("model"), dict):
        raise InputError(d / CONFIG, "checkpoint config has no 'model' section")
    return meta


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu"
) -> tuple[Transformer, Tokenizer, ModelConfig, dict[str, Any]]:
    """(model in eval mode, float32, on `device`; tokenizer; config; the whole config.json)."""
    d = Path(path)
    meta = read_config(d)
    try:
        cfg = ModelConfig.from_dict(meta["model"])
    except (TypeError, ValueError) as err:
        raise InputError(d / CONFIG, f"bad model config: {err}") from err
    if cfg.extra.get("arch", "ar") != "ar":  # e.g. a CMLM: loaded by fitsub.nat.checkpoint
        raise InputError(d, f"a {cfg.extra['arch']} checkpoint, not an autoregressive model")
    tokenizer = Tokenizer.load(d / SPM)
    try:
        model = build_model(cfg, tokenizer)
    except ValueError as err:
        raise InputError(d, f"checkpoint does not match its tokenizer: {err}") from err
    try:
        state = load_file(str(d / WEIGHTS))
    except (SafetensorError, OSError) as err:
        raise InputError(d / WEIGHTS, f"unreadable weights: {err}") from err
    state = {k: v.to(torch.float32) if v.is_floating_point() else v for k, v in state.items()}
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(d / WEIGHTS, f"weights do not match the config: {first}") from err
    model.to(device).eval()
    return model, tokenizer, cfg, meta


def load_extra_tensors(path: str | Path, name: str, device: str = "cpu") -> dict[str, Tensor]:
    """A tensor group saved with `save_checkpoint(extra_tensors={name: ...})`."""
    f = Path(path) / f"{name}.safetensors"
    if not f.is_file():
        raise InputError(f, f"checkpoint has no '{name}' tensors")
    return load_file(str(f), device=device)


def export_checkpoint(src: str | Path, dest: str | Path, dtype: str = "float16") -> Path:
    """Copy a training checkpoint into a shippable one: weights only, stored in `dtype`.

    The optimizer state and other extra tensor groups are left behind; the training metadata
    (config.json["train"]) and the training log are kept. An existing `dest` is replaced as a
    whole: nothing of it (an old `MODEL_CARD.md` describing other weights) is carried over.
    `fitsub export` asks for --force before replacing a non-empty directory.
    """
    model, tokenizer, cfg, meta = load_checkpoint(src)
    out = save_checkpoint(
        dest, model, cfg, tokenizer, meta.get("train"), dtype=dtype, keep_existing=False
    )
    log = Path(src) / "train_log.jsonl"
    if log.is_file():
        shutil.copy2(log, out / "train_log.jsonl")
    return out
