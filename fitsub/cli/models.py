"""Which model `--model` names, checked against the languages, and its length policy."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from fitsub.backend import TranslationBackend
from fitsub.errors import InputError
from fitsub.identity import IdentityBackend, is_identity
from fitsub.pipeline import TranslateOptions


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


def resolve_model(model: Path | None, src_lang: str, lang: str) -> Path:
    """The checkpoint directory `--model` names (None: the shipped model for the pair)."""
    from fitsub.nmt.backend import resolve_model_dir

    return resolve_model_dir(model, src_lang, lang)


def open_checkpoint(
    model_dir: Path,
    device: str = "auto",
    beam: int = 5,
    batch_size: int = 32,
    threads: int | None = None,
    lang: str | None = None,
) -> TranslationBackend:
    """The backend of a fitsub checkpoint: beam search, or mask-predict for a NAT student
    (`lang`: the target language, which a multilingual model needs)."""
    from fitsub.nat.backend import open_backend

    return open_backend(
        model_dir, device=device, beam=beam, batch_size=batch_size, threads=threads, lang=lang
    )


def check_model_language(model: Path | None, src_lang: str, lang: str) -> None:
    """`InputError` when a fitsub checkpoint cannot produce `lang` (its config names its pair).

    Hugging Face models are checked when loaded (`fitsub.hf`), where their languages are known.
    """
    from fitsub.hf.dispatch import is_hf_model

    if is_hf_model(model) or is_identity(model):
        return
    model_dir = resolve_model(model, src_lang, lang)
    try:
        cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # the loader reports a broken checkpoint in its own words
    from fitsub.nmt.backend import base_language

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
    from fitsub.hf.dispatch import is_hf_model
    from fitsub.lengthpred.predictor import open_policy

    if is_identity(model):
        raise InputError(None, "--length-policy predicted needs a model; identity has none")
    owned = None if is_hf_model(model) else resolve_model(model, src_lang, lang)
    policy = open_policy(length_policy, length_predictor, owned, src_lang, lang)
    return dataclasses.replace(opts, length=policy)


def open_model(
    model: Path | None, src_lang: str, lang: str, device: str, beam: int, threads: int | None
) -> TranslationBackend:
    """The backend `--model` names (checked against `--lang` first): loaded once per run.

    `--model identity` is the dry-run engine (`fitsub.identity`): no model is loaded.
    """
    from fitsub.hf.dispatch import is_hf_model, open_hf

    if is_identity(model):
        return IdentityBackend()
    check_model_language(model, src_lang, lang)
    if is_hf_model(model):  # a Hugging Face model directory or hub id (fitsub.hf)
        return open_hf(model, src_lang, lang, device=device, beam=beam, threads=threads)
    model_dir = resolve_model(model, src_lang, lang)
    # 16 sources a batch (80 beam rows): as fast as 32 on CPU (bench/translate_memory.py), and
    # the search's per-row state (KV cache, (rows, vocab) scores) halves: peak RSS under 500 MB
    return open_checkpoint(
        model_dir, device=device, beam=beam, batch_size=16, threads=threads, lang=lang
    )
