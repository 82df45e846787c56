"""Which backend a `--model` names: a fitsub checkpoint (`NMTBackend`) or a Hugging Face model.

* no `--model`: the shipped / $FITSUB_MODEL_DIR fitsub checkpoint (`resolve_model_dir`);
* a directory whose `config.json` is a fitsub checkpoint's (`"format": "fitsub-checkpoint-…"`):
  `NMTBackend`;
* a directory whose `config.json` has a `model_type` (transformers' config), or a name that is
  not an existing path but looks like a hub id (`Helsinki-NLP/opus-mt-en-it`, `t5-small`):
  `fitsub.hf.backend.HFBackend`, which needs the `hf` extra;
* anything else goes to `resolve_model_dir`, which says in one line what is missing.
Nothing here imports transformers; the fitsub path never needs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.errors import InputError


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
    from fitsub.hf.loading import HUB_ID

    return not path.is_absolute() and not text.startswith(".") and bool(HUB_ID.match(text))


def resolve_model(model: Path | None, src_lang: str, lang: str) -> Path:
    """The model to open: a fitsub checkpoint directory (resolved), or the HF dir / id as given."""
    if is_hf_model(model):
        assert model is not None
        return Path(str(model))
    from fitsub.nmt.backend import resolve_model_dir

    return resolve_model_dir(model, src_lang, lang)


def open_hf(
    model: Path | str | None,
    src_lang: str,
    lang: str,
    device: str = "auto",
    beam: int = 5,
    batch_size: int = 32,
    threads: int | None = None,
) -> TranslationBackend:
    """`HFBackend` for a Hugging Face model directory or hub id."""
    from fitsub.hf.backend import HFBackend

    if model is None:
        raise InputError(None, "no Hugging Face model named")
    return HFBackend(
        str(model),
        lang=lang,
        src_lang=src_lang,
        device=device,
        beam=beam,
        batch_size=batch_size,
        threads=threads,
    )


def open_backend(
    model: Path | None,
    src_lang: str,
    lang: str,
    device: str = "auto",
    beam: int = 5,
    batch_size: int = 32,
    threads: int | None = None,
) -> TranslationBackend:
    """The backend for `--model`: `open_hf`, or fitsub's own (`fitsub.nat.backend.open_backend`:
    NAT for a CMLM checkpoint, else NMT)."""
    if is_hf_model(model):
        return open_hf(model, src_lang, lang, device, beam, batch_size, threads)
    from fitsub.nat.backend import open_backend as open_fitsub
    from fitsub.nmt.backend import resolve_model_dir

    return open_fitsub(
        resolve_model_dir(model, src_lang, lang),
        device=device,
        beam=beam,
        batch_size=batch_size,
        threads=threads,
    )
