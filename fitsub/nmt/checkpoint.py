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
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from fitsub import __version__
from fitsub.errors import InputError
from fitsub.nmt.config import Arch, ModelConfig
from fitsub.nmt.model import Transformer, uninitialised, unwrap
from fitsub.nmt.model_files import CONFIG as CONFIG  # (their home; re-exported)
from fitsub.nmt.model_files import SPM as SPM
from fitsub.nmt.model_files import WEIGHTS as WEIGHTS
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.dictionary import with_dictionary
from fitsub.quality.lexicon import LEXICON_FILE, Lexicon, read_lexicon
from fitsub.quality.links import LINKS_FILE, read_links

FORMAT = "fitsub-checkpoint-1"
M = TypeVar("M", bound=nn.Module)
AR_ARCHS: tuple[Arch, ...] = ("ar",)  # what `load_checkpoint` opens (a CMLM: fitsub.nat.checkpoint)
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


def check_vocab(cfg: ModelConfig, tokenizer: Tokenizer) -> None:
    """ValueError when `cfg` and `tokenizer` disagree on the vocabulary's size."""
    if cfg.vocab_size != tokenizer.vocab_size:
        raise ValueError(
            f"config vocab_size {cfg.vocab_size} != tokenizer's {tokenizer.vocab_size}"
        )


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
    `{arch}` names the checkpoint's), the tokenizer, a fresh model (`build`) and its weights
    (float32; an int8 export's are q × scale), in eval mode on `device`. Returns (model,
    tokenizer, config, the whole config.json, the tensors as stored).
    """
    d = Path(path)
    meta = read_config(d)
    try:
        cfg = ModelConfig.from_dict(meta["model"])
    except (TypeError, ValueError) as err:
        raise InputError(d / CONFIG, f"bad model config: {err}") from err
    if cfg.arch not in archs:
        raise InputError(d, wrong_arch.format(arch=cfg.arch))
    tokenizer = Tokenizer.load(d / SPM)
    try:
        with uninitialised():  # every weight is loaded below (strict)
            model = build(cfg, tokenizer)
    except ValueError as err:
        raise InputError(d, f"checkpoint does not match its tokenizer: {err}") from err
    try:
        stored = load_file(str(d / WEIGHTS))
    except (SafetensorError, OSError) as err:
        raise InputError(d / WEIGHTS, f"unreadable weights: {err}") from err
    scales = {k[: -len("_scale")] for k in stored if k.endswith(".weight_scale")}
    state = {k: v.to(torch.float32) if v.is_floating_point() else v for k, v in stored.items()}
    for name in scales:  # an int8 export: float weights are q * scale
        state[name] = state[name].float() * state.pop(f"{name}_scale")[:, None]
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(d / WEIGHTS, f"weights do not match the config: {first}") from err
    model.to(device).eval()
    return model, tokenizer, cfg, meta, stored


def load_checkpoint(
    path: str | Path, device: str | torch.device = "cpu", int8: bool = False
) -> tuple[Transformer, Tokenizer, ModelConfig, dict[str, Any]]:
    """(model in eval mode, float32, on `device`; tokenizer; config; the whole config.json).

    `int8` (CPU only): linear layers and the output projection dynamically quantised to int8
    (`quantize_model`). An int8 export (`weights_dtype` "int8") is rebuilt from its stored int8
    weights and scales on CPU, and dequantised to float32 elsewhere or when `int8` is False.
    """
    model, tokenizer, cfg, meta, stored = load_model(
        path,
        device,
        archs=AR_ARCHS,
        wrong_arch="a {arch} checkpoint, not an autoregressive model",
        build=build_model,
    )
    if int8 and torch.device(device).type == "cpu":
        exported = any(k.endswith(".weight_scale") for k in stored)
        quantize_model(model, stored if exported else None)
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


def language_files(model_dir: str | Path, shipped: Path, src: str, lang: str | None) -> Path:
    """The folder of a model's per-language files (its lexicon and word links): its own, or,
    for a multilingual model without them (`models/en-multi`), the shipped model of the language
    asked for (`shipped/SRC-LANG`): both are facts of the pair's training text, which the
    multilingual model was trained on too, not of one model."""
    own = Path(model_dir)
    if lang is None or (own / LEXICON_FILE).is_file():
        return own
    pair = shipped / f"{src}-{lang}"
    return pair if (pair / LEXICON_FILE).is_file() else own


def load_lexicon(
    model_dir: str | Path, choice: str | Path = "auto", languages: tuple[str, ...] = ()
) -> tuple[Lexicon | None, str | None]:
    """(the lexicon a model's search keeps to, a note to say once when it has none).

    `choice`: "auto" (the checkpoint's `lexicon.txt.gz`; none: the constraint is off, and the
    note says so), "off", or a lexicon file. A corrupt or foreign file, or a lexicon of another
    language than `languages` (the model's targets), is an InputError.
    """
    if str(choice) == "off":
        return None, None
    path = Path(model_dir) / LEXICON_FILE if str(choice) == "auto" else Path(choice)
    if str(choice) == "auto" and not path.is_file():
        return None, (
            f"{model_dir}: no {LEXICON_FILE} (a checkpoint from before lexicons): words are not "
            f"checked against a lexicon; `fitsub lexicon` builds one"
        )
    lexicon = read_lexicon(path)
    if languages and lexicon.language and lexicon.language not in languages:
        raise InputError(
            path, f"a lexicon of {lexicon.language!r}, but the model writes {', '.join(languages)}"
        )
    # real words beyond the training text: the language's word list (fitsub.quality.dictionary)
    return with_dictionary(lexicon, lexicon.language or (languages[0] if languages else "")), None
