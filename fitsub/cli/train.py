"""`fitsub train`: its options, one line each; the command builds a TrainConfig (or a Hugging
Face fine-tune's config) and runs the core trainer, showing its progress."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from fitsub.cli.options import (
    CorpusSpec,
    DataDir,
    Dedupe,
    Device,
    DevPrefix,
    DevSize,
    LengthUnitFlag,
    Quiet,
    SrcLang,
    TgtLangs,
    TrainPrefix,
    VocabSize,
    target_languages,
)
from fitsub.cli.train_config import SIZES, TrainFlags, check_outputs, finetune_hf, train_config
from fitsub.cli.train_display import TrainDisplay
from fitsub.nmt.config import METHODS

# TrainConfig's defaults are the flags' defaults (a torch-free module); the trainer itself is
# imported when a run starts.
from fitsub.train.config import TrainConfig

_D = TrainConfig(out_dir="")

Out = Annotated[
    Path,
    typer.Option("--out", "-o", help="Run directory: OUT/best, OUT/last, OUT/train_log.jsonl."),
]
Method = Annotated[str, typer.Option("--method", help=f"Length method: {', '.join(METHODS)}.")]
Arch = Annotated[
    str,
    typer.Option(
        "--arch",
        help="ar (autoregressive), or non-autoregressive: cmlm (mask-predict) or levt "
        "(Levenshtein Transformer, perLDPE in its placeholder classifier).",
    ),
]
Noise = Annotated[int, typer.Option("--noise", min=0, help="Length perturbation window k.")]
NoiseMode = Annotated[str, typer.Option("--noise-mode", help="symmetric [-k,k] or positive [0,k].")]
LengthDropout = Annotated[
    float,
    typer.Option("--length-dropout", help="Share of rows trained without a length."),
]
TokenDropout = Annotated[
    float,
    typer.Option(
        "--token-dropout", help="Share of rows trained without a length token (tok+ methods)."
    ),
]
Size = Annotated[str, typer.Option("--size", help=f"Model size preset: {', '.join(SIZES)}.")]
DModel = Annotated[int | None, typer.Option("--d-model", help="Override the preset's model width.")]
Layers = Annotated[
    str | None,
    typer.Option(
        "--layers",
        help="Override the preset's layers: N (encoder and decoder), or ENC+DEC (e.g. 6+2).",
    ),
]
Dropout = Annotated[float, typer.Option("--dropout", help="Dropout.")]
Prepared = Annotated[
    Path | None,
    typer.Option(
        "--prepared",
        help="Train from a `fitsub prepare` directory (its data settings; no text is read).",
    ),
]
Export = Annotated[
    Path | None,
    typer.Option("--export", help="At the end, write the averaged float16 model here (a new DIR)."),
]
InitFrom = Annotated[
    Path | None,
    typer.Option(
        "--init-from",
        help="Fine-tune this checkpoint, or a Hugging Face model directory / hub id "
        "(--method tok, ldpe+pe or lrpe+pe; keeps its tokenizer).",
    ),
]
MaxTokens = Annotated[int, typer.Option("--max-tokens", help="Padded src+tgt tokens per batch.")]
UpdateFreq = Annotated[int, typer.Option("--update-freq", min=1, help="Batches per update.")]
Lr = Annotated[float, typer.Option("--lr", help="Peak learning rate.")]
Warmup = Annotated[int, typer.Option("--warmup", min=0, help="Warm-up updates.")]
LrSchedule = Annotated[
    str,
    typer.Option(
        "--lr-schedule",
        help="inverse-sqrt, or deadline: cosine decay to 10 % of --lr when --max-time ends.",
    ),
]
MaxSteps = Annotated[
    int | None, typer.Option("--max-steps", min=1, help="Stop after this many updates.")
]
MaxTime = Annotated[
    str | None, typer.Option("--max-time", help="Stop after this long (e.g. 90m, 2h).")
]
MaxEpochs = Annotated[
    int | None, typer.Option("--max-epochs", min=1, help="Stop after this many epochs.")
]
EvalEvery = Annotated[
    int, typer.Option("--eval-every", min=1, help="Evaluate and save every N updates.")
]
EvalTime = Annotated[
    str | None,
    typer.Option(
        "--eval-time", help="Also evaluate and save once this long (e.g. 45s) has passed."
    ),
]
LogEvery = Annotated[int, typer.Option("--log-every", min=1, help="Log every N updates.")]
Patience = Annotated[
    int,
    typer.Option(
        "--patience",
        min=0,
        help="Evaluations without improvement before stopping (0: never).",
    ),
]
KeepCheckpoints = Annotated[
    int,
    typer.Option(
        "--keep-checkpoints",
        min=0,
        help="Keep the last N evaluated weights in OUT/steps for `fitsub average` (0: none).",
    ),
]
BleuSentences = Annotated[
    int,
    typer.Option(
        "--bleu-sentences",
        min=0,
        help="Dev sentences decoded for BLEU (0: loss only).",
    ),
]
Seed = Annotated[int, typer.Option("--seed", help="Random seed.")]
Precision = Annotated[str, typer.Option("--precision", help="auto, bf16 or fp32.")]
Compile = Annotated[
    bool | None, typer.Option("--compile/--no-compile", help="torch.compile the model.")
]
TrainThreads = Annotated[
    int | None, typer.Option("--threads", min=1, help="CPU threads per process.")
]
Resume = Annotated[bool, typer.Option("--resume", help="Continue the run in --out from OUT/last.")]
Force = Annotated[
    bool,
    typer.Option("--force", help="Train into a non-empty --out that is not a run being resumed."),
]


def train_cmd(
    ctx: typer.Context,
    out: Out,
    data: DataDir = None,
    corpus: CorpusSpec = [],  # noqa: B006 - typer copies list defaults
    train_prefix: TrainPrefix = [],  # noqa: B006
    dev: DevPrefix = None,
    dev_size: DevSize = _D.dev_size,
    src: SrcLang = _D.model.src_lang,
    tgt: TgtLangs = _D.model.tgt_lang,
    method: Method = _D.model.method,
    arch: Arch = _D.arch,
    noise: Noise = _D.model.noise,
    noise_mode: NoiseMode = _D.model.noise_mode,
    length_unit: LengthUnitFlag = _D.model.length_unit,
    length_dropout: LengthDropout = _D.model.length_dropout,
    token_dropout: TokenDropout = _D.model.token_dropout,
    size: Size = "small",
    d_model: DModel = None,
    layers: Layers = None,
    dropout: Dropout = _D.model.dropout,
    vocab_size: VocabSize = _D.model.vocab_size,
    prepared: Prepared = None,
    export: Export = None,
    init_from: InitFrom = None,
    max_tokens: MaxTokens = _D.max_tokens,
    update_freq: UpdateFreq = _D.update_freq,
    lr: Lr = _D.lr,
    warmup: Warmup = _D.warmup,
    lr_schedule: LrSchedule = _D.lr_schedule,
    max_steps: MaxSteps = None,
    max_time: MaxTime = None,
    max_epochs: MaxEpochs = None,
    eval_every: EvalEvery = _D.eval_every,
    eval_time: EvalTime = None,
    log_every: LogEvery = _D.log_every,
    patience: Patience = _D.patience,
    keep_checkpoints: KeepCheckpoints = _D.keep_checkpoints,
    dedupe: Dedupe = _D.dedupe,
    bleu_sentences: BleuSentences = _D.bleu_sentences,
    seed: Seed = _D.seed,
    precision: Precision = _D.precision,
    compile: Compile = _D.compile,
    threads: TrainThreads = None,
    device: Device = _D.device,
    resume: Resume = False,
    force: Force = False,
    quiet: Quiet = False,
) -> None:
    """Train a length-controlled translation model on parallel text (runs under torchrun too)."""
    flags = TrainFlags.parse(locals())  # the parameters above, as given
    from fitsub.hf.loading import is_hf_model  # here: `train --help` imports no model code

    check_outputs(flags)
    targets = target_languages(tgt)
    if init_from is not None and not resume and is_hf_model(init_from):
        best = finetune_hf(flags, targets)
    else:
        best = _train(train_config(flags), quiet)
    Console(stderr=True, quiet=quiet).print(Text(f"best checkpoint: {best}"))


def _train(cfg: TrainConfig, quiet: bool) -> Path:
    """Run the core trainer with its progress on stderr; the best checkpoint's directory."""
    from fitsub.cli import command_started
    from fitsub.train.loop import train

    with TrainDisplay(Console(stderr=True, quiet=quiet), cfg) as show:
        return train(cfg, show, started=command_started() or None)
