"""Self-describing checkpoint directories: `config.json` + `model.safetensors` + `spm.model`.

A shipped model also holds `lexicon.txt.gz` (`fitsub.quality.lexicon`: the target words of its training
text, which its search keeps to; `load_lexicon`) and `links.txt.gz` (`fitsub.quality.links`: the
target words that translate each English word, for the quality score), copied by
`export_checkpoint`.

Layout (see docs/development.md): `config.json` holds {"fitsub_version", "format", "model":
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
import warnings
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from fitsub import __version__
from fitsub.errors import InputError
from fitsub.nmt.config import Arch, ModelConfig
from fitsub.nmt.model import Transformer, uninitialised, unwrap
from fitsub.nmt.model_files import AR_ARCHS as AR_ARCHS  # (their home, torch-free; re-exported)
from fitsub.nmt.model_files import AR_WRONG_ARCH, open_checkpoint
from fitsub.nmt.model_files import CONFIG as CONFIG
from fitsub.nmt.model_files import SPM as SPM
from fitsub.nmt.model_files import WEIGHTS as WEIGHTS
from fitsub.nmt.model_files import check_vocab as check_vocab
from fitsub.nmt.model_files import language_files as language_files
from fitsub.nmt.model_files import load_lexicon as load_lexicon
from fitsub.nmt.model_files import read_config as read_config
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.lexicon import LEXICON_FILE, read_lexicon
from fitsub.quality.links import LINKS_FILE, read_links

FORMAT = "fitsub-checkpoint-1"
M = TypeVar("M", bound=nn.Module)
_DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}


def quantize_weight(w: Tensor) -> tuple[Tensor, Tensor]:
    """Symmetric per-output-channel int8: (q (out, in) int8, scale (out,) float32), w ~ q * scale."""
    w = w.detach().float()
    scale = w.abs().amax(dim=1).clamp(min=1e-12) / 127.0  # (out,)
    q = torch.round(w / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale


def int8_linear(q: Tensor, scale: Tensor, bias: Tensor | None) -> nn.Module:
    """A dynamically quantised linear layer (int8 weights, activations quantised per batch)."""
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    with warnings.catch_warnings():  # torch >= 2.9 calls quantized tensors deprecated
        warnings.simplefilter("ignore", UserWarning)
        make: Any = DynamicLinear  # untyped in torch's stubs
        m = make(q.size(1), q.size(0), bias_=bias is not None, dtype=torch.qint8)
        zero = torch.zeros(scale.numel(), dtype=torch.long)
        qw = torch._make_per_channel_quantized_tensor(q.cpu(), scale.double().cpu(), zero, 0)
        m.set_weight_bias(qw, None if bias is None else bias.detach().float().cpu())
    layer: nn.Module = m
    return layer


def _linears(model: nn.Module) -> list[tuple[nn.Module, str, str]]:
    """(parent, attribute, qualified name) of every nn.Linear under `model`."""
    out = []
    for name, mod in model.named_modules():
        for child, sub in mod.named_children():
            if isinstance(sub, nn.Linear):
                out.append((mod, child, f"{name}.{child}" if name else child))
    return out


def int8_tensors(model: Transformer) -> dict[str, Tensor]:
    """The int8 export of a float model: each linear weight as `NAME.weight` (int8) +
    `NAME.weight_scale`, every other tensor as it is (`quantize_model` reads them back)."""
    state = {k: v.detach() for k, v in model.state_dict().items()}
    for _, _, name in _linears(model):
        q, scale = quantize_weight(state[f"{name}.weight"])
        state[f"{name}.weight"], state[f"{name}.weight_scale"] = q, scale
    return state


def quantize_model(model: Transformer, state: dict[str, Tensor] | None = None) -> Transformer:
    """Replace every linear layer (and the tied output projection) by a dynamic int8 one (CPU).

    `state`: an int8 export's tensors (`int8_tensors`); None quantises the model's own weights.
    Activations are quantised per call (fbgemm / qnnpack), accumulation is int32.
    """
    for parent, child, name in _linears(model):
        lin = getattr(parent, child)
        if state is not None and f"{name}.weight_scale" in state:
            q, scale = state[f"{name}.weight"], state[f"{name}.weight_scale"]
        else:
            q, scale = quantize_weight(lin.weight)
        setattr(parent, child, int8_linear(q, scale, lin.bias))
    model.out_proj = int8_linear(*quantize_weight(model.output_weight), None)
    return model


def build_model(cfg: ModelConfig, tokenizer: Tokenizer) -> Transformer:
    """A fresh model whose character tables come from `tokenizer` (use this, not bare Transformer)."""
    check_vocab(cfg, tokenizer)
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
    int8: bool = False,
) -> Path:
    """Write a checkpoint directory atomically; returns its path.

    `extra` goes to config.json["train"]; `extra_tensors` {NAME: state} to `NAME.safetensors`;
    `dtype` ("float32", "float16", "bfloat16") is the dtype the weights are stored in; `int8`
    stores the linear weights as int8 with their scales (float32) instead (`int8_tensors`).
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
        plain = unwrap(model)
        if int8:
            if not isinstance(plain, Transformer) or plain.out_proj is not None:
                raise ValueError("an int8 checkpoint is written from a float Transformer")
            state = int8_tensors(plain)
            scales = {
                k: state.pop(k).float().contiguous() for k in list(state) if k.endswith("_scale")
            }
            tensors = {**_tensors(state, _DTYPES[dtype]), **scales}
        else:
            tensors = _tensors(plain.state_dict(), _DTYPES[dtype])
        save_file(tensors, str(tmp / WEIGHTS), metadata={"format": "pt"})
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
            "weights_dtype": "int8" if int8 else dtype,
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


def load_model(
    path: str | Path,
    device: str | torch.device,
    *,
    archs: Collection[Arch],
    wrong_arch: str,
    build: Callable[[ModelConfig, Tokenizer], M],
) -> tuple[M, Tokenizer, ModelConfig, dict[str, Any], dict[str, Tensor]]:
    """The load-and-validate steps every fitsub checkpoint shares, autoregressive or not.

    config.json read and checked, its arch one of `archs` (else InputError `wrong_arch`, where
    `{arch}` names the checkpoint's), the tokenizer (`open_checkpoint`), a fresh model (`build`)
    and its weights (`load_weights`). Returns (model, tokenizer, config, the whole config.json,
    the int8 export's stored tensors, empty for a float checkpoint).
    """
    cfg, tokenizer, meta = open_checkpoint(path, archs=archs, wrong_arch=wrong_arch)
    model, int8_state = load_weights(path, cfg, tokenizer, device, build)
    return model, tokenizer, cfg, meta, int8_state


def load_weights(
    path: str | Path,
    cfg: ModelConfig,
    tokenizer: Tokenizer,
    device: str | torch.device,
    build: Callable[[ModelConfig, Tokenizer], M],
) -> tuple[M, dict[str, Tensor]]:
    """A fresh model (`build`) holding the checkpoint's weights (float32; an int8 export's are
    q × scale), in eval mode on `device`, and the int8 export's stored tensors (empty for a
    float checkpoint: `quantize_model` rebuilds its int8 layers from them).

    The weights are read one tensor at a time (`_stored_tensor`) and copied into the model's
    parameters, as `load_state_dict(strict=True)` would: loading holds the parameters and one
    stored tensor (issue 59: before, every stored tensor, its float32 copy and the parameters
    at once, 5 times a float16 file: the en-it model's load peaked 160 MB over what it keeps).
    """
    d = Path(path)
    try:
        with uninitialised():  # every weight is loaded below (strict)
            model = build(cfg, tokenizer)
    except ValueError as err:
        raise InputError(d, f"checkpoint does not match its tokenizer: {err}") from err
    params = model.state_dict()  # name -> the parameter's own storage
    try:
        with safe_open(str(d / WEIGHTS), framework="pt") as stored:
            names = list(stored.keys())
        scaled = {k[: -len("_scale")] for k in names if k.endswith(".weight_scale")}
        int8_state = {k: _stored_tensor(d / WEIGHTS, k) for k in names} if scaled else {}
        _check_names(d / WEIGHTS, set(params), set(names) - {f"{k}_scale" for k in scaled})
        for name in params:
            if name in scaled:  # an int8 export: float weights are q * scale
                q, scale = int8_state[name], int8_state[f"{name}_scale"]
                _copy_in(d / WEIGHTS, name, params[name], q.float() * scale.float()[:, None])
            else:
                _copy_in(d / WEIGHTS, name, params[name], _stored_tensor(d / WEIGHTS, name))
    except (SafetensorError, OSError) as err:
        raise InputError(d / WEIGHTS, f"unreadable weights: {err}") from err
    model.to(device).eval()
    return model, int8_state


def _check_names(path: Path, wanted: set[str], stored: set[str]) -> None:
    """InputError naming what the model lacks or does not know, as strict loading would."""
    missing, unexpected = sorted(wanted - stored), sorted(stored - wanted)
    parts = [f"missing {', '.join(missing[:3])}"] if missing else []
    parts += [f"unexpected {', '.join(unexpected[:3])}"] if unexpected else []
    if parts:
        raise InputError(path, f"weights do not match the config: {'; '.join(parts)}")


def _copy_in(path: Path, name: str, param: Tensor, value: Tensor) -> None:
    """`value` into `param` (float32: a float16 value converts exactly); InputError on a shape
    the config does not give."""
    if value.shape != param.shape:
        raise InputError(
            path,
            f"weights do not match the config: {name} is {tuple(value.shape)}, "
            f"the config makes it {tuple(param.shape)}",
        )
    with torch.no_grad():
        param.copy_(value)


def _stored_tensor(path: Path, name: str) -> Tensor:
    """One tensor of a safetensors file, the file mapped only while it is read: its pages do not
    stay in the process's memory beside the parameters (56 MB of the float16 en-it)."""
    with safe_open(str(path), framework="pt") as stored:
        tensor: Tensor = stored.get_tensor(name)
    return tensor


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu", int8: bool = False
) -> tuple[Transformer, Tokenizer, ModelConfig, dict[str, Any]]:
    """(model in eval mode, float32, on `device`; tokenizer; config; the whole config.json).

    `int8` (CPU only): linear layers and the output projection dynamically quantised to int8
    (`quantize_model`). An int8 export (`weights_dtype` "int8") is rebuilt from its stored int8
    weights and scales on CPU, and dequantised to float32 elsewhere or when `int8` is False.
    """
    model, tokenizer, cfg, meta, int8_state = load_model(
        path,
        device,
        archs=AR_ARCHS,
        wrong_arch=AR_WRONG_ARCH,
        build=build_model,
    )
    if int8 and torch.device(device).type == "cpu":
        quantize_model(model, int8_state or None)
    return model, tokenizer, cfg, meta


def load_extra_tensors(path: str | Path, name: str, device: str = "cpu") -> dict[str, Tensor]:
    """A tensor group saved with `save_checkpoint(extra_tensors={name: ...})`."""
    f = Path(path) / f"{name}.safetensors"
    if not f.is_file():
        raise InputError(f, f"checkpoint has no '{name}' tensors")
    return load_file(str(f), device=device)


def export_checkpoint(
    src: str | Path, dest: str | Path, dtype: str = "float16", int8: bool = False
) -> Path:
    """Copy a training checkpoint into a shippable one: weights only, stored in `dtype`.

    `int8`: linear weights stored as int8 + per-channel float32 scales (`int8_tensors`), the
    other tensors in `dtype`; `weights_dtype` is then "int8" and loading rebuilds the int8 layers.

    The optimizer state and other extra tensor groups are left behind; the training metadata
    (config.json["train"]) and the training log are kept. An existing `dest` is replaced as a
    whole: nothing of it (an old `MODEL_CARD.md` describing other weights) is carried over.
    `fitsub export` asks for --force before replacing a non-empty directory.
    """
    model, tokenizer, cfg, meta = load_checkpoint(src)
    out = save_checkpoint(
        dest, model, cfg, tokenizer, meta.get("train"), dtype=dtype, keep_existing=False, int8=int8
    )
    for name in ("train_log.jsonl", LEXICON_FILE, LINKS_FILE):
        f = Path(src) / name
        if f.is_file():
            if name == LEXICON_FILE:
                read_lexicon(f)  # a corrupt lexicon is not shipped
            if name == LINKS_FILE:
                read_links(f)  # nor corrupt word links
            shutil.copy2(f, out / name)
    return out
