"""The model's configuration: everything needed to rebuild a model and its tokenizer.

Saved as `config.json` in every checkpoint directory (see `fitsub.nmt.checkpoint`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from fitsub.errors import InputError
from fitsub.units import LengthUnit

# Decoder position / length encodings (see fitsub.nmt.length_encodings for the formulas).
ENCODINGS = ("sinusoidal", "ldpe", "lrpe", "ldpe+pe", "lrpe+pe", "lakew-abs", "lakew-rel")


def has_position_term(encoding: str) -> bool:
    """Whether the decoder also adds the ordinary sinusoidal encoding of the token index.

    True for `sinusoidal`, the `+pe` variants (Takase & Okazaki's "+PE") and Lakew's encodings,
    which enrich the ordinary positional embedding; False for LDPE / LRPE alone, which replace it.
    """
    return encoding not in ("ldpe", "lrpe")


# `fitsub train --method` names -> (length token prepended to the source?, decoder encoding).
# The model family: the autoregressive Transformer (fitsub.nmt.model), or a non-autoregressive
# student: CMLM (fitsub.nat.model) or Levenshtein Transformer (fitsub.nat.levt).
Arch = Literal["ar", "cmlm", "levt"]
ARCHS: tuple[Arch, ...] = ("ar", "cmlm", "levt")
# Where checkpoints written before `ModelConfig.arch` existed keep it: `extra["arch"]` (absent:
# "ar"); `ModelConfig` reads it from there and writes the field.
LEGACY_ARCH_KEY = "arch"
NOISE_MODES = ("symmetric", "positive")  # training-time length perturbation (fitsub.nmt.lengths)
# Architecture variants of converted models (`fitsub convert`, fitsub.convert.fairseq); the first
# of each is what fitsub trains.
ACTIVATIONS = ("gelu", "relu")  # the feed-forward's activation
TIES = ("all", "target", "none")  # tied embeddings: src = tgt = output; tgt = output; none
POSITIONS = ("vaswani", "fairseq")  # sinusoid layout (fitsub.nmt.length_encodings)
METHODS: dict[str, tuple[bool, str]] = {
    "baseline": (False, "sinusoidal"),
    "tok": (True, "sinusoidal"),
    "ldpe": (False, "ldpe"),
    "lrpe": (False, "lrpe"),
    "ldpe+pe": (False, "ldpe+pe"),
    "lrpe+pe": (False, "lrpe+pe"),
    "abs": (False, "lakew-abs"),
    "rel": (False, "lakew-rel"),
    "tok+ldpe": (True, "ldpe"),
    "tok+lrpe": (True, "lrpe"),
    "tok+ldpe+pe": (True, "ldpe+pe"),
    "tok+lrpe+pe": (True, "lrpe+pe"),
    "tok+abs": (True, "lakew-abs"),
    "tok+rel": (True, "lakew-rel"),
}


@dataclass
class ModelConfig:
    """Architecture, length method and languages of one model (JSON-serialisable)."""

    vocab_size: int
    src_lang: str = "en"
    tgt_lang: str = "it"
    # A multilingual model's target languages (`tgt_lang` is the first): each source starts with
    # the target-language tag `<2xx>` (Johnson et al. 2017) and one joint vocabulary covers all.
    # Empty: a model for `tgt_lang` alone, no tag.
    tgt_langs: list[str] = field(default_factory=list)
    d_model: int = 256
    n_heads: int = 4
    enc_layers: int = 3
    dec_layers: int = 3
    d_ff: int = 1024
    dropout: float = 0.1
    max_positions: int = 1024  # largest position / length value the encodings must handle
    pad_id: int = 0
    unk_id: int = 1
    bos_id: int = 2
    eos_id: int = 3
    arch: Arch = "ar"  # the model family: one of ARCHS
    method: str = "baseline"  # a key of METHODS
    length_unit: LengthUnit = "char"
    rel_classes: int = 5  # Lakew's relative encoding: number of quantisation classes
    noise: int = 0  # training-time perturbation window size k
    noise_mode: str = "symmetric"  # "symmetric": [-k, k] (Oka 2020); "positive": [0, k] (Oka 2021)
    length_dropout: float = 0.0  # share of training examples given no length signal
    # share of training examples given no length token (token methods; drawn apart from
    # `length_dropout`, so the token alone, the length alone, both and neither are all trained)
    token_dropout: float = 0.0
    # Length-token thresholds on the target/source character ratio (Lakew): ratio < t_short is
    # <short>, ratio > t_long is <long>, else <normal>. Taken from the training data.
    length_thresholds: tuple[float, float] | None = None
    # Converted models only (defaults: fitsub's own architecture). `norm_first` False is post-norm:
    # LayerNorm after each residual sum and no final LayerNorm (Vaswani et al. 2017; fairseq's
    # default); `activation`, `tie_embeddings`, `positions`: one of ACTIVATIONS, TIES, POSITIONS.
    norm_first: bool = True
    activation: str = "gelu"
    tie_embeddings: str = "all"
    positions: str = "vaswani"
    # > 0: only ids below it are ever produced (a converted model whose target dictionary is
    # smaller than its vocabulary, the source's own symbols following it); 0: every id
    output_vocab: int = 0
    version: str = "1"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """An `extra["arch"]` (a config written before the `arch` field) becomes the field."""
        if LEGACY_ARCH_KEY in self.extra:
            extra = dict(self.extra)
            legacy = extra.pop(LEGACY_ARCH_KEY)
            if self.arch not in ("ar", legacy):
                raise ValueError(f"arch {self.arch!r} and extra.arch {legacy!r} disagree")
            self.arch = parse_arch(legacy)
            self.extra = extra
        else:
            self.arch = parse_arch(self.arch)

    @property
    def length_token(self) -> bool:
        """Whether a length token is prepended to the source."""
        return METHODS[self.method][0]

    @property
    def encoding(self) -> str:
        """The decoder's position / length encoding (one of ENCODINGS)."""
        return METHODS[self.method][1]

    @property
    def targets(self) -> list[str]:
        """Every language the model translates into."""
        return list(self.tgt_langs) or [self.tgt_lang]

    @property
    def uses_length(self) -> bool:
        """Whether the model takes a requested output length at all."""
        return self.method != "baseline"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = asdict(self)
        if self.length_thresholds is not None:
            d["length_thresholds"] = list(self.length_thresholds)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelConfig:
        """Rebuild from `to_dict()` output; unknown keys are an error (a newer checkpoint)."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(unknown)}")
        d = dict(d)
        if d.get("length_thresholds") is not None:
            d["length_thresholds"] = tuple(d["length_thresholds"])
        if d.get("method", "baseline") not in METHODS:
            raise ValueError(f"unknown method {d.get('method')!r}; choose from {sorted(METHODS)}")
        for key, allowed in (("activation", ACTIVATIONS), ("tie_embeddings", TIES),
                             ("positions", POSITIONS)):  # fmt: skip
            if d.get(key, allowed[0]) not in allowed:
                raise ValueError(f"unknown {key} {d.get(key)!r}; choose from {list(allowed)}")
        return cls(**d)


def parse_arch(value: object) -> Arch:
    """`value` as a model family (ValueError when it is none of ARCHS)."""
    if value not in ARCHS:
        raise ValueError(f"unknown arch {value!r}; choose from {list(ARCHS)}")
    return value


def config_arch(model: dict[str, Any]) -> Arch:
    """The model family a config.json's `model` section names: its `arch`, or `extra.arch` in
    a checkpoint written before the field existed; "ar" when neither is there."""
    extra = model.get("extra")
    legacy = extra.get(LEGACY_ARCH_KEY) if isinstance(extra, dict) else None
    return parse_arch(model.get("arch") or legacy or "ar")


def target_language(cfg: ModelConfig, lang: str | None, model_dir: Path) -> str:
    """Which of the model's target languages `lang` (`--lang`, e.g. `de` or `de-AT`) names;
    InputError when it names none or is missing for a multilingual model."""
    targets = cfg.targets
    if lang is None:
        if len(targets) == 1:
            return targets[0]
        raise InputError(model_dir, f"a model for {', '.join(targets)}: name the target language")
    wanted = base_language(lang)
    if wanted not in targets:
        raise InputError(
            model_dir,
            f"this model translates {cfg.src_lang} → {', '.join(targets)}; it cannot produce "
            f"--lang {lang}",
        )
    return wanted


def base_language(lang: str) -> str:
    """`de` of `de`, `de-AT`, `DE_at`."""
    return lang.strip().lower().replace("_", "-").split("-")[0]
