"""Loading a Hugging Face seq2seq model for `fitsub.hf.backend`: transformers as an optional
extra, a directory or a hub id (from the local cache, or downloaded when there is a network),
safetensors weights only (never unpickled), and the `fitsub.json` of a model fine-tuned by
`fitsub.train.hf_finetune`. Every failure is one line (`InputError` / `ModelMissingError`).

`is_hf_model` tells such a model from a fitsub checkpoint (`fitsub.cli.registry`): a directory whose
`config.json` has a `model_type` (transformers' config) and no fitsub `format`, or a name that is
no existing path but looks like a hub id (`Helsinki-NLP/opus-mt-en-it`, `t5-small`). Nothing
here imports transformers until a model is loaded.
"""

from __future__ import annotations

import json
import os
import re
import socket
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from fitsub.errors import InputError, ModelMissingError

META = "fitsub.json"  # written by `fitsub.train.hf_finetune` beside a fine-tuned model's config
META_FORMAT = "fitsub-hf-1"
HF_EXTRA = "pip install 'fitsub[hf]'"
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[A-Za-z0-9][\w.-]*)?$")


def _config(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((path / "config.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_hf_model(model: Path | str | None) -> bool:
    """Whether `--model` names a Hugging Face model directory or hub id (module doc)."""
    if model is None:
        return False
    text = str(model)
    path = Path(text)
    if path.exists():
        cfg = _config(path) if path.is_dir() else None
        if cfg is None:
            return False
        return not str(cfg.get("format", "")).startswith("fitsub") and "model_type" in cfg
    return not path.is_absolute() and not text.startswith(".") and bool(HUB_ID.match(text))


def require_transformers(model: str) -> Any:
    """The `transformers` module, or a one-line error naming the extra to install."""
    try:
        import transformers
    except ImportError:
        what = "" if Path(model).exists() else "no such model directory; as a hub id, "
        raise ModelMissingError(
            f"{model}: {what}Hugging Face models need the optional `hf` extra (transformers): "
            f"{HF_EXTRA}"
        ) from None
    # a CLI prints one line per problem: no progress bars or advice from transformers itself
    tf_logging: Any = transformers.utils.logging  # untyped functions
    tf_logging.disable_progress_bar()
    tf_logging.set_verbosity_error()
    try:  # huggingface_hub's download retries and advice
        import huggingface_hub

        hub_logging: Any = huggingface_hub.utils.logging
        hub_logging.set_verbosity_error()
    except (ImportError, AttributeError):
        pass
    warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
    return transformers


def read_meta(path: Path) -> dict[str, Any]:
    """`fitsub.json` of a fine-tuned model directory ({} when there is none)."""
    file = path / META
    if not file.is_file():
        return {}
    try:
        meta = json.loads(file.read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise InputError(file, f"unreadable: {err}") from None
    if not isinstance(meta, dict) or meta.get("format") != META_FORMAT:
        raise InputError(file, f"not a fitsub fine-tune description (format {META_FORMAT})")
    return meta


def _offline() -> bool:
    """HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE set, or the hub's host name does not resolve (no
    network: fail at once rather than after huggingface_hub's retries)."""
    if any(
        os.environ.get(v, "").lower() in ("1", "true", "yes", "on")
        for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    ):
        return True
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname
    try:
        socket.getaddrinfo(host or "huggingface.co", 443)
    except OSError:
        return True
    return False


def locate(model: str) -> tuple[str, bool]:
    """(what to pass to from_pretrained, local directory?) for `--model`; errors are one line."""
    path = Path(model)
    if path.exists():
        if not path.is_dir() or not (path / "config.json").is_file():
            raise InputError(
                path,
                "not a model directory: no config.json (expected a fitsub checkpoint or a "
                "Hugging Face model directory)",
            )
        return str(path), True
    if not HUB_ID.match(model):
        raise ModelMissingError(f"{model}: no such model directory")
    return model, False


def _missing(model: str, offline: bool) -> ModelMissingError:
    return ModelMissingError(
        f"{model}: no such directory and not in the Hugging Face cache"
        + (" (offline)" if offline else " (the download failed)")
        + f"; get it with `hf download {model}` (huggingface_hub < 1.0: `huggingface-cli "
        "download`) on a machine with a network (it lands in the cache, ~/.cache/huggingface), "
        "or pass a model directory"
    )


def load_pretrained(model: str) -> tuple[Any, Any, Any, bool]:
    """(model, tokenizer, config, local) for a directory or hub id; bad input is one line."""
    tf = require_transformers(model)
    ref, local = locate(model)
    offline = not local and _offline()
    attempts = [True] if local or offline else [True, False]
    config = None
    for only_local in attempts:
        try:
            config = tf.AutoConfig.from_pretrained(ref, local_files_only=only_local)
            break
        except (OSError, ValueError, KeyError) as err:
            if local:
                raise InputError(
                    model, f"not a Hugging Face model directory: {first_line(err)}"
                ) from None
    if config is None:
        raise _missing(model, offline)
    if not getattr(config, "is_encoder_decoder", False):
        kind = getattr(config, "model_type", "unknown")
        raise InputError(
            model,
            f"a {kind} model is not a sequence-to-sequence translation model; fitsub needs an "
            "encoder-decoder (Marian, M2M-100, NLLB, mBART-50, T5 / MADLAD)",
        )
    try:
        tok = tf.AutoTokenizer.from_pretrained(ref, local_files_only=True)
        net = tf.AutoModelForSeq2SeqLM.from_pretrained(
            ref, local_files_only=True, use_safetensors=True
        )
    except (OSError, ValueError, KeyError, TypeError, ImportError) as err:
        if "safetensors" in str(err) or ".bin" in str(err):
            raise InputError(
                model, "no safetensors weights (fitsub never loads pickled .bin weights)"
            ) from None
        raise InputError(
            model, f"cannot load the model or its tokenizer: {first_line(err)}"
        ) from None
    return net, tok, config, local


def first_line(err: BaseException) -> str:
    """The first line of an error message (at most 200 characters), or its type."""
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__
