"""One training run's settings: `TrainConfig`, which nests the new model's `ModelConfig`.

Saved flat, as it always was, in every checkpoint's config.json["train"]["config"] and in the
log's start line: the model's fields sit beside the run's (`to_dict` / `from_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from fitsub.errors import InputError
from fitsub.nmt.config import ARCHS, METHODS, NOISE_MODES, Arch, ModelConfig
from fitsub.units import LengthUnit

PRECISIONS = ("auto", "bf16", "fp32")

# The ModelConfig fields a run sets (its flags); `vocab_size` is the SentencePiece size asked for.
MODEL_FIELDS = (
    "src_lang", "tgt_lang", "method", "length_unit", "noise", "noise_mode", "length_dropout",
    "token_dropout", "d_model", "n_heads", "enc_layers", "dec_layers", "d_ff", "dropout",
    "vocab_size", "tgt_langs",
)  # fmt: skip
# The run's own fields follow `out_dir` and these in `to_dict`, in this order (config.json's).
_SAVED_ORDER = (
    "out_dir", "src_lang", "tgt_lang", "data_dir", "corpora", "train_prefixes", "dev_prefix",
    "dev_size", "method", "length_unit", "noise", "noise_mode", "length_dropout", "d_model",
    "n_heads", "enc_layers", "dec_layers", "d_ff", "dropout", "vocab_size",
)  # fmt: skip


def default_model() -> ModelConfig:
    """The model a run trains unless told otherwise (ModelConfig's defaults, 8,000 pieces)."""
    return ModelConfig(vocab_size=8000)


@dataclass(frozen=True)
class DataConfig:
    """What preparing a training run's data needs (`fitsub.train.loop.TrainConfig.data`)."""

    out_dir: str  # where rank 0 writes the trained tokenizer (`spm.model`)
    src_lang: str
    tgt_lang: str
    data_dir: str | None
    corpora: list[str]
    train_prefixes: list[str]
    dev_prefix: str | None
    dev_size: int
    length_unit: LengthUnit
    vocab_size: int
    spm_sentences: int
    max_pieces: int
    min_ratio: float
    max_ratio: float
    seed: int
    dedupe: bool = True  # fitsub.train.corpus.dedupe, per corpus
    # a multilingual run's target languages; `{tgt}` in data_dir, train_prefixes and dev_prefix
    # stands for each of them
    tgt_langs: tuple[str, ...] = ()
    spm_threads: int = 1  # SentencePiece trainer threads (a prepared set records them)


@dataclass
class TrainConfig:
    """Everything one training run needs (JSON-serialisable; saved as config.json["train"])."""

    out_dir: str
    # the model: architecture, length method, languages; `model.vocab_size` is the SentencePiece
    # size asked for (the tokenizer's own may be smaller)
    model: ModelConfig = field(default_factory=default_model)
    data_dir: str | None = None  # every DIR/*.{src} + *.{tgt} pair ...
    corpora: list[str] = field(default_factory=list)  # ... or only these stems, NAME[:WEIGHT]
    train_prefixes: list[str] = field(default_factory=list)  # PREFIX.{src} / PREFIX.{tgt}
    dev_prefix: str | None = None  # none: hold out `dev_size` pairs by source sentence
    dev_size: int = 500
    spm_sentences: int = 300_000  # sentences sampled per side to train SentencePiece
    init_from: str | None = None  # fine-tune this checkpoint (its tokenizer and architecture)
    prepared: str | None = None  # a `fitsub prepare` directory: the data, already encoded
    export_dir: str | None = None  # write the averaged float16 model here at the end
    arch: Arch = "ar"  # "ar": the autoregressive Transformer; "cmlm" / "levt": fitsub.nat's
    # data filtering
    max_pieces: int = 200  # per sentence and side
    min_ratio: float = 1 / 3
    max_ratio: float = 3.0
    dedupe: bool = True  # drop repeated pairs and same-length retranslations (corpus.dedupe)
    # optimisation
    max_tokens: int = 8192  # padded source + target tokens per batch
    update_freq: int = 1  # batches accumulated per update
    lr: float = 7e-4
    warmup: int = 1000
    # "inverse-sqrt" (Vaswani et al.), or "deadline": cosine to 10 % of lr at the --max-time end
    lr_schedule: str = "inverse-sqrt"
    weight_decay: float = 0.0
    clip_norm: float = 1.0
    label_smoothing: float = 0.1
    # stopping, evaluation, saving
    max_steps: int | None = None
    max_epochs: int | None = None
    max_time: float | None = None  # seconds of training in this invocation
    log_every: int = 50
    eval_every: int = 1000  # evaluate and save `last` (and maybe `best`) every N updates
    eval_seconds: float | None = None  # also once this long has passed since the last (by time)
    patience: int = 10  # stop after this many evaluations without improvement (0: never)
    keep_checkpoints: int = 0  # keep the last N evaluated weights in OUT/steps (fitsub average)
    bleu_sentences: int = 200  # dev sentences greedily decoded for dev BLEU (0: loss only)
    seed: int = 1
    # speed
    precision: str = "auto"  # "bf16": autocast with fp32 master weights; "fp32"; "auto"
    # torch.compile: None = on CUDA only. On this project's 2-core CPU it measured no faster than
    # eager bf16 in steady state and costs 1-3 minutes of compilation per new shape class.
    compile: bool | None = None
    threads: int | None = None  # intra-op threads per process (None: cores / local processes)
    device: str = "auto"
    resume: bool = False

    @classmethod
    def from_options(cls, out_dir: str, **options: Any) -> TrainConfig:
        """Build from flat options (the `fitsub train` flags): the names in `MODEL_FIELDS` go to
        `model`, the rest to the run (an unknown name is a TypeError)."""
        model = {k: options.pop(k) for k in MODEL_FIELDS if k in options}
        return cls(out_dir=out_dir, model=replace(default_model(), **model), **options)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, flat: the model's fields beside the run's."""
        own = asdict(self)
        model = own.pop("model")
        flat = {**own, **{k: model[k] for k in MODEL_FIELDS}}
        head = {k: flat.pop(k) for k in _SAVED_ORDER}
        return {**head, **flat}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """Rebuild from `to_dict()` output (unknown keys are ignored)."""
        known = {f.name for f in fields(cls)} - {"model"}
        model = replace(default_model(), **{k: d[k] for k in MODEL_FIELDS if k in d})
        own = {k: v for k, v in d.items() if k in known}
        own.setdefault("dedupe", False)  # runs saved before deduplication existed resume without
        return cls(model=model, **own)

    @property
    def data(self) -> DataConfig:
        """What preparing this run's data needs (`fitsub.train.run_data.prepare_data`)."""
        m = self.model
        return DataConfig(
            out_dir=self.out_dir,
            src_lang=m.src_lang,
            tgt_lang=m.tgt_lang,
            data_dir=self.data_dir,
            corpora=self.corpora,
            train_prefixes=self.train_prefixes,
            dev_prefix=self.dev_prefix,
            dev_size=self.dev_size,
            length_unit=m.length_unit,
            vocab_size=m.vocab_size,
            spm_sentences=self.spm_sentences,
            max_pieces=self.max_pieces,
            min_ratio=self.min_ratio,
            max_ratio=self.max_ratio,
            seed=self.seed,
            dedupe=self.dedupe,
            tgt_langs=tuple(m.tgt_langs),
        )

    def validate(self) -> None:
        """Raise InputError for an impossible setting."""
        m = self.model
        if m.method not in METHODS:
            raise InputError(None, f"unknown method {m.method!r}; choose from {', '.join(METHODS)}")
        if self.arch not in ARCHS:
            raise InputError(None, f"unknown arch {self.arch!r}; choose from {', '.join(ARCHS)}")
        if m.length_unit not in ("char", "subword"):
            raise InputError(None, f"unknown length unit {m.length_unit!r}: char or subword")
        if m.noise_mode not in NOISE_MODES:
            raise InputError(None, f"unknown noise mode {m.noise_mode!r}")
        if self.lr_schedule not in ("inverse-sqrt", "deadline"):
            raise InputError(None, f"unknown schedule {self.lr_schedule!r}", setting="lr_schedule")
        if self.lr_schedule == "deadline" and self.max_time is None:
            raise InputError(None, "the deadline schedule needs --max-time", setting="lr_schedule")
        if self.precision not in PRECISIONS:
            raise InputError(
                None, f"unknown precision {self.precision!r}; choose from {PRECISIONS}"
            )
        if m.noise < 0 or not 0.0 <= m.length_dropout < 1.0:
            raise InputError(None, "noise must be >= 0 and length dropout in [0, 1)")
        if not 0.0 <= m.token_dropout < 1.0:
            raise InputError(None, "must be in [0, 1)", setting="token_dropout")
        if m.token_dropout > 0 and not m.length_token:
            raise InputError(
                None, f"method {m.method} has no length token", setting="token_dropout"
            )
        if self.max_tokens < 16:
            raise InputError(None, f"must be >= 16, got {self.max_tokens}", setting="max_tokens")
        for name, value in (("update_freq", self.update_freq), ("eval_every", self.eval_every)):
            if value < 1:
                raise InputError(None, f"must be >= 1, got {value}", setting=name)
        if self.eval_seconds is not None and self.eval_seconds <= 0:
            raise InputError(None, f"must be > 0 s, got {self.eval_seconds}", setting="eval_time")
        if not (self.data_dir or self.train_prefixes or self.prepared):
            raise InputError(None, "no training data: give --data DIR or --train PREFIX")
        if m.tgt_langs:
            if len(set(m.tgt_langs)) != len(m.tgt_langs) or m.tgt_langs[0] != m.tgt_lang:
                raise InputError(None, f"bad target languages {m.tgt_langs}", setting="tgt")
            if self.arch != "ar":
                raise InputError(None, "a multilingual model (several --tgt) must be --arch ar")
