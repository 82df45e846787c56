"""The backend registry: which kind of model `--model` names, and the one loader of each kind.

`fitsub translate`, `fitsub eval` and `fitsub distill` open their models here, and only here:

* `identity`: the dry-run engine (`fitsub.identity`), no model loaded;
* a fitsub checkpoint directory, by the model family its config names (`ModelConfig.arch`): the
  autoregressive Transformer (beam search, `fitsub.nmt.backend`), or a non-autoregressive
  student, CMLM or Levenshtein Transformer (`fitsub.nat.backend`);
* a Hugging Face model directory (a transformers `config.json`) or hub id (`fitsub.hf`, the `hf`
  extra);
* no `--model`: the shipped (or $FITSUB_MODEL_DIR) checkpoint for the language pair.

Adding a kind of model is one `ModelKind` member, one case of `model_kind` and one entry of
`LOADERS`. Importing this module imports no model code (`fitsub translate --help` stays light):
the model packages are imported when a model is located or opened.
"""

from __future__ import annotations

import enum
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fitsub.backend import TranslationBackend
from fitsub.identity import IdentityBackend, is_identity

if TYPE_CHECKING:
    from fitsub.nmt.config import Arch


class ModelKind(enum.Enum):
    """The kinds of model fitsub translates with (module docstring)."""

    IDENTITY = "identity"
    AUTOREGRESSIVE = "ar"
    CMLM = "cmlm"
    LEVT = "levt"
    HUGGING_FACE = "hf"

    @property
    def is_checkpoint(self) -> bool:
        """Whether a model of this kind is a fitsub checkpoint directory (config + safetensors
        + spm.model): one that has a tokenizer, a length predictor, a lexicon of its own."""
        return self in (ModelKind.AUTOREGRESSIVE, ModelKind.CMLM, ModelKind.LEVT)


# 16 sources a batch (80 beam rows) for a fitsub checkpoint: as fast as 32 on CPU
# (bench/translate_memory.py), and the search's per-row state (KV cache, (rows, vocab) scores)
# halves: peak RSS under 500 MB. A Hugging Face model keeps transformers' usual 32.
CHECKPOINT_BATCH = 16
HF_BATCH = 32
MODEL_ENV = "FITSUB_MODEL_DIR"  # fitsub.nmt.backend's: a checkpoint, or a folder of them
NAT_ITERATIONS = 10  # mask-predict / refinement iterations of a non-autoregressive student


@dataclass(frozen=True)
class LoadOptions:
    """How to open a model: the languages, the device, the search's beam, the batch size (None:
    the kind's own default) and the CPU threads (None: torch's default)."""

    src_lang: str
    lang: str
    device: str = "auto"
    beam: int = 5
    batch_size: int | None = None
    threads: int | None = None


Loader = Callable[[Path, LoadOptions], TranslationBackend]


def _identity(model: Path, how: LoadOptions) -> TranslationBackend:
    return IdentityBackend()


def _autoregressive(model: Path, how: LoadOptions) -> TranslationBackend:
    from fitsub.nmt.backend import NMTBackend

    return NMTBackend(
        model,
        device=how.device,
        beam=how.beam,
        batch_size=how.batch_size or CHECKPOINT_BATCH,
        threads=how.threads,
        lang=how.lang,  # a multilingual model's target
    )


def _non_autoregressive(model: Path, how: LoadOptions) -> TranslationBackend:
    from fitsub.nat.backend import NATBackend

    return NATBackend(
        model,
        device=how.device,
        iterations=NAT_ITERATIONS,
        batch_size=how.batch_size or CHECKPOINT_BATCH,
        threads=how.threads,
    )


def _hugging_face(model: Path, how: LoadOptions) -> TranslationBackend:
    from fitsub.hf.backend import HFBackend

    return HFBackend(
        str(model),
        lang=how.lang,
        src_lang=how.src_lang,
        device=how.device,
        beam=how.beam,
        batch_size=how.batch_size or HF_BATCH,
        threads=how.threads,
    )


LOADERS: dict[ModelKind, Loader] = {
    ModelKind.IDENTITY: _identity,
    ModelKind.AUTOREGRESSIVE: _autoregressive,
    ModelKind.CMLM: _non_autoregressive,
    ModelKind.LEVT: _non_autoregressive,
    ModelKind.HUGGING_FACE: _hugging_face,
}


_BY_ARCH: dict[Arch, ModelKind] = {
    "ar": ModelKind.AUTOREGRESSIVE,
    "cmlm": ModelKind.CMLM,
    "levt": ModelKind.LEVT,
}


def locate(model: Path | None, *, src_lang: str, lang: str) -> Path:
    """The model `--model` names: `identity`, a Hugging Face directory or hub id as given; else
    the fitsub checkpoint directory, the pair's shipped one when `model` is None
    (`ModelMissingError` saying how to get one when there is none)."""
    from fitsub.hf.loading import is_hf_model

    if model is not None and (is_identity(model) or is_hf_model(model)):
        return Path(str(model))
    from fitsub.nmt.model_files import resolve_model_dir  # (no torch yet)

    return resolve_model_dir(model, src_lang, lang)


def model_kind(model: Path) -> ModelKind:
    """The kind of the model `locate` gave. A fitsub checkpoint is of the family its config
    names; one whose config cannot be read counts as autoregressive (its loader then says in one
    line what is wrong)."""
    from fitsub.hf.loading import is_hf_model

    if is_identity(model):
        return ModelKind.IDENTITY
    if is_hf_model(model):
        return ModelKind.HUGGING_FACE
    from fitsub.nmt.model_files import checkpoint_arch  # (from config.json: no torch)

    return _BY_ARCH[checkpoint_arch(model) or "ar"]


def open_model(
    model: Path | None,
    *,
    src_lang: str,
    lang: str,
    device: str = "auto",
    beam: int = 5,
    batch_size: int | None = None,
    threads: int | None = None,
) -> TranslationBackend:
    """The backend of the model `--model` names (`locate`), opened by its kind's loader; a
    checkpoint's lexicon and word links are checked first (a decompression bomb is refused
    before torch is imported and the weights load: `fitsub.nmt.model_files.check_model_files`)."""
    path = locate(model, src_lang=src_lang, lang=lang)
    if not is_identity(path):
        from fitsub.nmt.model_files import check_model_files

        check_model_files(path)
    how = LoadOptions(
        src_lang=src_lang,
        lang=lang,
        device=device,
        beam=beam,
        batch_size=batch_size,
        threads=threads,
    )
    return LOADERS[model_kind(path)](path, how)


def model_targets(model: Path | None) -> list[str] | None:
    """The languages the fitsub checkpoint `model` (else $FITSUB_MODEL_DIR, when that is one)
    translates into, as its config names them; None when no such checkpoint says (no model
    named, `identity`, a Hugging Face model, a config that cannot be read)."""
    if model is None:
        env = os.environ.get(MODEL_ENV)
        model = Path(env) if env else None
    if model is None or is_identity(model) or not (model / "config.json").is_file():
        return None
    try:
        cfg = json.loads((model / "config.json").read_text(encoding="utf-8"))["model"]
        targets = cfg.get("tgt_langs") or [cfg["tgt_lang"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return [str(t) for t in targets] if all(isinstance(t, str) for t in targets) else None


def shipped_targets(src_lang: str) -> list[str]:
    """The target languages of the shipped (or $FITSUB_MODEL_DIR's) `<src>-<tgt>` checkpoints,
    sorted: those `fitsub translate` finds without `--model`."""
    from fitsub.nmt.backend import default_models_dir

    folders = [default_models_dir()]
    env = os.environ.get(MODEL_ENV)
    if env:
        folders.insert(0, Path(env))
    pair = re.compile(rf"{re.escape(src_lang)}-([a-z]{{2,3}})")
    found = {
        m.group(1)
        for folder in folders
        if folder.is_dir()
        for d in folder.iterdir()
        if (m := pair.fullmatch(d.name)) and (d / "config.json").is_file()
    }
    return sorted(found)
