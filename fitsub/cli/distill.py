"""`fitsub distill`: translate training sources with a teacher into a distilled corpus (SKD)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from fitsub.cli.console import progress_bar
from fitsub.cli.options import Device, Quiet, check_device
from fitsub.errors import InputError
from fitsub.train.distill import LENGTH_MODES, DistillConfig, distill

_D = DistillConfig(source="", out="", model="")


def distill_cmd(
    source: Path = typer.Argument(..., help="Source sentences, one per line."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Output prefix: OUT.SRC, OUT.TGT and OUT.distill.json."
    ),
    model: Path = typer.Option(..., "--model", help="Teacher checkpoint directory."),
    reference: Path | None = typer.Option(
        None, "--reference", help="References, line-aligned with SOURCE (their lengths)."
    ),
    length: str | None = typer.Option(
        None,
        "--length",
        help=f"Teacher's length signal: {', '.join(LENGTH_MODES)} "
        "(default: reference with --reference, else source; none = plain SKD).",
    ),
    noise: int = typer.Option(
        _D.noise, "--noise", min=0, help="Perturbation window k (perLDPE), teacher's unit."
    ),
    noise_mode: str = typer.Option(
        _D.noise_mode, "--noise-mode", help="symmetric [-k,k] or positive [0,k]."
    ),
    src_lang: str = typer.Option(_D.src_lang, "--src", help="Source language code."),
    tgt_lang: str = typer.Option(_D.tgt_lang, "--tgt", help="Target language code."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N sentences."),
    beam: int = typer.Option(5, "--beam", min=1, help="Teacher's beam size."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Sentences per batch."),
    seed: int = typer.Option(_D.seed, "--seed", help="Seed of the perturbations."),
    device: Device = "auto",
    threads: int | None = typer.Option(None, "--threads", min=1, help="CPU threads."),
    quiet: Quiet = False,
) -> None:
    """Distil SOURCE with a teacher, its length perturbed as in Oka et al. 2021 (resumable).

    Example: fitsub distill train.en --reference train.it --model models/en-it -o distilled
    """
    from fitsub.cli import registry
    from fitsub.nmt.checkpoint import read_config
    from fitsub.nmt.config import config_arch

    check_device(device)
    mode = length or ("reference" if reference is not None else "source")
    cfg = DistillConfig(
        source=str(source),
        out=str(out),
        model=str(model),
        reference=None if reference is None else str(reference),
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        length=mode,
        noise=noise,
        noise_mode=noise_mode,
        seed=seed,
        limit=limit,
        group=max(batch_size * 8, 64),
    )
    cfg.validate()
    mcfg = read_config(model)["model"]
    try:
        arch = config_arch(mcfg)
    except ValueError as err:
        raise InputError(model, f"bad model config: {err}") from None
    unit_chars = 1.0
    if mcfg.get("length_unit") != "char" or arch == "cmlm":
        unit_chars = float((mcfg.get("extra") or {}).get("chars_per_piece") or 1.0)
    backend = registry.open_model(
        model,
        src_lang=src_lang,
        lang=tgt_lang,
        device=device,
        beam=beam,
        batch_size=batch_size,
        threads=threads,
    )
    console = Console(stderr=True, quiet=quiet)
    with progress_bar(console, quiet) as bar:
        task = bar.add_task("distilling", total=None)
        meta = distill(
            cfg, backend, unit_chars, lambda d, t: bar.update(task, completed=d, total=t)
        )
    if not quiet:
        rate = meta["sentences_per_s"]
        lens = meta["lengths"]
        ratio = "" if lens["ratio_mean"] is None else f"; length ratio {lens['ratio_mean']:.3f}"
        ratio += "" if lens["ratio_sd"] is None else f" ± {lens['ratio_sd']:.3f}"
        ref = lens["ref_ratio_mean"]
        ratio += "" if ref is None else f" (references {ref:.3f} ± {lens['ref_ratio_sd']:.3f})"
        speed = "" if rate is None else f" in {meta['seconds']:.1f} s ({rate:.1f} sentences/s)"
        Console().print(Text(f"distilled {meta['done']}/{meta['total']} sentences{speed}{ratio}"))
