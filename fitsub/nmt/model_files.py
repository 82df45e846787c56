"""Where a fitsub checkpoint is, and its text files checked before anything heavy loads.

Light on purpose (no torch, no model code): `fitsub.cli.registry.open_model` finds the checkpoint
(`resolve_model_dir`) and checks its lexicon and word links (`check_model_files`: a gzip bomb is
refused in one line, counted in the bytes that come out and kept nowhere) before importing torch
(233 MB) and loading the weights; `fitsub.nmt.backend` reads the files afterwards as before.
`checkpoint_arch` tells the model's family from its config.json, so choosing the loader
imports no torch either.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fitsub.errors import ModelMissingError
from fitsub.io.text import check_gzip_text
from fitsub.nmt.config import Arch, config_arch
from fitsub.quality.lexicon import LEXICON_FILE
from fitsub.quality.links import LINKS_FILE

MODEL_ENV = "FITSUB_MODEL_DIR"
# a checkpoint's config, weights and tokenizer (`fitsub.nmt.checkpoint` reads them)
CONFIG, WEIGHTS, SPM = "config.json", "model.safetensors", "spm.model"
# a checkpoint's gzip text files and the name each error gives it (as their readers name them)
TEXT_FILES = {LEXICON_FILE: "lexicon", LINKS_FILE: "word links file"}


def default_models_dir() -> Path:
    """`<repo root>/models`: the directory next to the `fitsub` package."""
    return Path(__file__).resolve().parents[2] / "models"


def resolve_model_dir(model: Path | None, src: str, tgt: str) -> Path:
    """The checkpoint to use: `--model`, else $FITSUB_MODEL_DIR, else `models/<src>-<tgt>`.

    $FITSUB_MODEL_DIR may be a checkpoint itself or a directory holding `<src>-<tgt>/`.
    Raises ModelMissingError naming the missing model and how to get one.
    """
    pair = f"{src}-{tgt}"
    how = (
        f"train one with `fitsub train --src {src} --tgt {tgt} ...`, or use the shipped "
        f"models/ directory, or pass --model DIR"
    )
    if model is not None:
        if not (Path(model) / CONFIG).is_file():
            raise ModelMissingError(f"{model}: not a fitsub model directory (no {CONFIG}); {how}")
        return Path(model)
    env = os.environ.get(MODEL_ENV)
    candidates: list[Path] = []
    if env:
        candidates += [Path(env), Path(env) / pair]
    candidates.append(default_models_dir() / pair)
    for cand in candidates:
        if (cand / CONFIG).is_file():
            return cand
    looked = ", ".join(str(c) for c in candidates)
    raise ModelMissingError(f"no {pair} translation model (looked in {looked}); {how}")


def checkpoint_arch(path: str | Path) -> Arch | None:
    """The arch of a checkpoint directory ("ar", "cmlm", "levt") from its config.json alone;
    None for no checkpoint (a file missing, a config that cannot be read or names no known
    arch: its loader says what is wrong)."""
    d = Path(path)
    if not all((d / name).is_file() for name in (CONFIG, WEIGHTS, SPM)):
        return None
    try:
        meta = json.loads((d / CONFIG).read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    model = meta.get("model") if isinstance(meta, dict) else None
    if not isinstance(model, dict):
        return None
    try:
        return config_arch(model)
    except ValueError:
        return None


def check_model_files(model_dir: Path) -> None:
    """`InputError` (one line) when a checkpoint's lexicon or word links file is too large or
    decompresses to too much (`fitsub.io.text.MAX_MODEL_TEXT`); nothing is kept. A folder without
    them, or no checkpoint at all, passes (its loader says what is missing)."""
    for name, what in TEXT_FILES.items():
        path = Path(model_dir) / name
        if path.is_file():
            check_gzip_text(path, what)
