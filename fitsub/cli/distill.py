"""`fitsub distill`: its options, one line each; the command translates training sources with a
teacher into a distilled corpus (SKD, `fitsub.train.distill`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from fitsub.cli.console import progress_bar
from fitsub.cli.options import Device, Quiet, check_device
from fitsub.train.distill import LENGTH_MODES, DistillConfig, distill, summary, teacher_unit_chars

_D = DistillConfig(source="", out="", model="")

Source = Annotated[Path, typer.Argument(help="Source sentences, one per line.")]
Out = Annotated[
    Path,
    typer.Option("--out", "-o", help="Output prefix: OUT.SRC, OUT.TGT and OUT.distill.json."),
]
Teacher = Annotated[Path, typer.Option("--model", help="Teacher checkpoint directory.")]
Reference = Annotated[
    Path | None,
    typer.Option("--reference", help="References, line-aligned with SOURCE (their lengths)."),
]
Length = Annotated[
    str | None,
    typer.Option(
        "--length",
        help=f"Teacher's length signal: {', '.join(LENGTH_MODES)} "
        "(default: reference with --reference, else source; none = plain SKD).",
    ),
]
Noise = Annotated[
    int,
    typer.Option("--noise", min=0, help="Perturbation window k (perLDPE), teacher's unit."),
]
NoiseMode = Annotated[str, typer.Option("--noise-mode", help="symmetric [-k,k] or positive [0,k].")]
SrcLang = Annotated[str, typer.Option("--src", help="Source language code.")]
TgtLang = Annotated[str, typer.Option("--tgt", help="Target language code.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N sentences.")]
TeacherBeam = Annotated[int, typer.Option("--beam", min=1, help="Teacher's beam size.")]
BatchSize = Annotated[int, typer.Option("--batch-size", min=1, help="Sentences per batch.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the perturbations.")]
Threads = Annotated[int | None, typer.Option("--threads", min=1, help="CPU threads.")]


def distill_cmd(
    source: Source,
    out: Out,
    model: Teacher,
    reference: Reference = None,
    length: Length = None,
    noise: Noise = _D.noise,
    noise_mode: NoiseMode = _D.noise_mode,
    src_lang: SrcLang = _D.src_lang,
    tgt_lang: TgtLang = _D.tgt_lang,
    limit: Limit = None,
    beam: TeacherBeam = 5,
    batch_size: BatchSize = 32,
    seed: Seed = _D.seed,
    device: Device = "auto",
    threads: Threads = None,
    quiet: Quiet = False,
) -> None:
    """Distil SOURCE with a teacher, its length perturbed as in Oka et al. 2021 (resumable).

    Example: fitsub distill train.en --reference train.it --model models/en-it -o distilled
    """
    from fitsub.cli import registry

    check_device(device)
    cfg = DistillConfig(
        source=str(source),
        out=str(out),
        model=str(model),
        reference=None if reference is None else str(reference),
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        length=length or ("reference" if reference is not None else "source"),
        noise=noise,
        noise_mode=noise_mode,
        seed=seed,
        limit=limit,
        group=max(batch_size * 8, 64),
    )
    cfg.validate()
    unit_chars = teacher_unit_chars(model)
    backend = registry.open_model(
        model,
        src_lang=src_lang,
        lang=tgt_lang,
        device=device,
        beam=beam,
        batch_size=batch_size,
        threads=threads,
    )
    with progress_bar(Console(stderr=True, quiet=quiet), quiet) as bar:
        task = bar.add_task("distilling", total=None)
        meta = distill(
            cfg, backend, unit_chars, lambda d, t: bar.update(task, completed=d, total=t)
        )
    if not quiet:
        Console().print(Text(summary(meta)))
