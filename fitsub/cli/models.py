"""Which model `--model` names, checked against the languages, and its length policy."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from fitsub.backend import TranslationBackend
from fitsub.cli import registry
from fitsub.cli.options import language_code
from fitsub.errors import InputError
from fitsub.identity import is_identity
from fitsub.pipeline import TranslateOptions

SOURCE_NAMES = {"en": "English"}  # the source languages of the shipped models, named
OTHER_TARGETS = "others through a Hugging Face model (--model, docs/pretrained-models.md)"


def targets_text(src_lang: str) -> str:
    """The target languages `fitsub translate` finds a model for from `src_lang`, in words."""
    shipped = registry.shipped_targets(src_lang)
    found = ", ".join(shipped) if shipped else f"no shipped model translates from {src_lang}"
    return f"{found}; {OTHER_TARGETS}"


def pick_language(
    lang: str | None, model: Path | None, src_lang: str, translating: bool = True
) -> str:
    """The target language: `lang` (`--lang`, or fitsub.toml's), else the only one the model
    `--model` translates into. An `InputError` about `--lang` listing the targets when neither
    names one, or when `translating` into the source language with no model named (`fitsub
    budget`, which translates nothing, takes any language's limits)."""
    if lang is not None:
        code = language_code(lang)
        same = code.split("-")[0] == src_lang.split("-")[0]
        if translating and model is None and same:
            source = SOURCE_NAMES.get(src_lang, src_lang)
            raise InputError(
                None,
                f"{code} is the source language: fitsub translates from {source} into "
                f"{targets_text(src_lang)}",
                setting="lang",
            )
        return code
    targets = registry.model_targets(model)
    if targets is not None and len(targets) == 1:
        return language_code(targets[0])
    if targets is not None:
        into = f"this model translates into {', '.join(targets)}"
    else:
        into = f"the language to translate into: {targets_text(src_lang)}"
    raise InputError(None, f"is required: {into}", setting="lang")


def check_model_path(model: Path | None) -> None:
    """`InputError` "no such model directory" when `--model` names neither an existing path nor
    a Hugging Face hub id (`owner/name` whose owner is no local folder) nor `identity` (the dry
    run): a mistyped path is not sent to the hub."""
    if model is None or model.exists() or is_identity(model):
        return
    from fitsub.hf.loading import HUB_ID

    text = str(model)
    owner = text.split("/")[0]
    hub_id = (
        text.count("/") == 1
        and not model.is_absolute()
        and not Path(owner).exists()
        and bool(HUB_ID.match(text))
    )
    if not hub_id:
        problem = "no such model directory (a Hugging Face hub id is written owner/name)"
        raise InputError(model, problem)


def check_model_language(model: Path | None, src_lang: str, lang: str) -> None:
    """`InputError` when a fitsub checkpoint cannot produce `lang` (its config names its pair).

    Hugging Face models are checked when loaded (`fitsub.hf`), where their languages are known.
    """
    model_dir = registry.locate(model, src_lang=src_lang, lang=lang)
    if not registry.model_kind(model_dir).is_checkpoint:
        return
    try:
        cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # the loader reports a broken checkpoint in its own words
    from fitsub.nmt.config import base_language  # (no torch: a model is checked before it loads)

    targets = cfg.get("tgt_langs") or [cfg.get("tgt_lang")]
    if targets[0] is not None and base_language(lang) not in targets:
        raise InputError(
            model_dir,
            f"this model translates {cfg.get('src_lang')} → {', '.join(targets)}; it cannot "
            f"produce --lang {lang} (use --lang {targets[0]}, or a model for {lang})",
        )


def with_policy(
    opts: TranslateOptions,
    length_policy: str,
    length_predictor: Path | None,
    model: Path | None,
    src_lang: str,
    lang: str,
) -> TranslateOptions:
    """The options with the length policy asked for (the predictor checked before the model)."""
    if length_policy == "source":
        return opts
    from fitsub.lengthpred.predictor import open_policy

    if is_identity(model):
        raise InputError(None, "--length-policy predicted needs a model; identity has none")
    located = registry.locate(model, src_lang=src_lang, lang=lang)
    owned = located if registry.model_kind(located).is_checkpoint else None
    policy = open_policy(
        name=length_policy,
        predictor_dir=length_predictor,
        model_dir=owned,
        src_lang=src_lang,
        tgt_lang=lang,
    )
    return dataclasses.replace(opts, length=policy)


def open_model(
    model: Path | None, *, src_lang: str, lang: str, device: str, beam: int, threads: int | None
) -> TranslationBackend:
    """The backend `--model` names (`fitsub.cli.registry`), checked against `--lang` first: loaded
    once per run. `--model identity` is the dry-run engine (`fitsub.identity`): no model."""
    if not is_identity(model):
        check_model_language(model, src_lang, lang)
    return registry.open_model(
        model, src_lang=src_lang, lang=lang, device=device, beam=beam, threads=threads
    )


def training_target(model: Path, lang: str | None, data: Path) -> str:
    """The target language a model-side word list is built for (`fitsub lexicon`, `fitsub
    links`): `lang`, else the model's first; InputError when the model does not write it or
    the training text folder `data` is missing."""
    from fitsub.nmt.checkpoint import read_config
    from fitsub.nmt.config import ModelConfig

    meta = read_config(model)
    try:
        cfg = ModelConfig.from_dict(meta["model"])
    except (TypeError, ValueError) as err:
        raise InputError(model / "config.json", f"bad model config: {err}") from err
    language = lang or cfg.targets[0]
    if language not in cfg.targets:
        raise InputError(model, f"the model writes {', '.join(cfg.targets)}, not {language}")
    if not data.is_dir():
        raise InputError(data, "no such folder", setting="data")
    return language
