"""`fitsub average`: one model from the mean of several checkpoints' weights."""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.errors import InputError


def average_cmd(
    checkpoints: list[Path] = typer.Argument(
        ..., help="Checkpoints of one run (e.g. runs/NAME/steps/*)."
    ),
    out: Path = typer.Option(..., "--out", "-o", help="The model directory to write."),
    dtype: str = typer.Option("float16", "--dtype", help="float16, bfloat16 or float32 weights."),
    force: bool = typer.Option(False, "--force", help="Replace OUT even if it holds files."),
) -> None:
    """Average the weights of checkpoints that share a model config and tokenizer.

    Keep the last N checkpoints of a run with `fitsub train --keep-checkpoints N`.

    Example: fitsub average runs/en-de/steps/* --out runs/en-de/avg
    """
    from fitsub.train.average import average_checkpoints

    if dtype not in ("float16", "bfloat16", "float32"):
        raise InputError(None, f"--dtype must be float16, bfloat16 or float32, got {dtype!r}")
    if any(out.resolve() == c.resolve() for c in checkpoints):
        raise InputError(out, "average would overwrite one of its checkpoints")
    if out.exists() and not out.is_dir():
        raise InputError(out, "is a file; average writes a model directory")
    if not out.parent.is_dir():
        raise InputError(out, f"folder {str(out.parent)!r} does not exist")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise InputError(out, "not empty; pass --force to replace the whole directory")
    path = average_checkpoints(sorted(checkpoints), out, dtype)
    print(f"wrote {path}: the average of {len(checkpoints)} checkpoints ({dtype} weights)")
