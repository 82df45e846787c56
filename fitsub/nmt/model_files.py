"""Where a fitsub checkpoint is, what it holds besides its weights, and its text files checked
before anything heavy loads.

Light on purpose (no torch, no model code): `fitsub.cli.registry.open_model` finds the checkpoint
(`resolve_model_dir`) and checks its lexicon and word links (`check_model_files`: a gzip bomb is
refused in one line, counted in the bytes that come out and kept nowhere) before importing torch
(233 MB) and loading the weights; `fitsub.nmt.backend` reads the files afterwards as before.
`checkpoint_arch` tells the model's family from its config.json, so choosing the loader
imports no torch either. `open_checkpoint` (the config and tokenizer, checked) and
`load_lexicon` are what `fitsub.nmt.backend` needs before any weights: a run whose every pass
CTranslate2 serves never imports torch (`fitsub.nmt.checkpoint` loads the weights).
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

from fitsub.errors import InputError, ModelMissingError
from fitsub.io.text import check_gzip_text
from fitsub.nmt.config import Arch, ModelConfig, config_arch
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.dictionary import with_dictionary
from fitsub.quality.lexicon import LEXICON_FILE, Lexicon, read_lexicon
from fitsub.quality.links import LINKS_FILE

MODEL_ENV = "FITSUB_MODEL_DIR"
AR_ARCHS: tuple[Arch, ...] = ("ar",)  # what an autoregressive loader opens (a CMLM: fitsub.nat)
AR_WRONG_ARCH = "a {arch} checkpoint, not an autoregressive model"  # `open_checkpoint`'s message
# a checkpoint's config, weights and tokenizer (`fitsub.nmt.checkpoint` reads them)
CONFIG, WEIGHTS, SPM = "config.json", "model.safetensors", "spm.model"
# a checkpoint's gzip text files and the name each error gives it (as their readers name them)
TEXT_FILES = {LEXICON_FILE: "lexicon", LINKS_FILE: "word links file"}


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


def check_vocab(cfg: ModelConfig, tokenizer: Tokenizer) -> None:
    """ValueError when `cfg` and `tokenizer` disagree on the vocabulary's size."""
    if cfg.vocab_size != tokenizer.vocab_size:
        raise ValueError(
            f"config vocab_size {cfg.vocab_size} != tokenizer's {tokenizer.vocab_size}"
        )


def open_checkpoint(
    path: str | Path, *, archs: Collection[Arch], wrong_arch: str
) -> tuple[ModelConfig, Tokenizer, dict[str, Any]]:
    """(config, tokenizer, the whole config.json) of a checkpoint directory, checked, without
    its weights: config.json read, its arch one of `archs` (else InputError `wrong_arch`, where
    `{arch}` names the checkpoint's), the tokenizer loaded and of the config's vocabulary size.
    `fitsub.nmt.checkpoint.load_weights` loads the weights (torch) when they are needed."""
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
        check_vocab(cfg, tokenizer)
    except ValueError as err:
        raise InputError(d, f"checkpoint does not match its tokenizer: {err}") from err
    return cfg, tokenizer, meta


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
