"""`fitsub export`: turn a training checkpoint into a shippable model directory."""

from __future__ import annotations

from pathlib import Path

import typer

from fitsub.errors import InputError

DTYPES = ("float16", "bfloat16", "float32")


def check_model_out(out: Path, dtype: str, force: bool, command: str) -> list[str]:
    """`InputError` unless `dtype` is a weight type and `out` can take a model directory: new, or
    an empty directory, or any directory with `force` (replaced as a whole); the names it holds."""
    if dtype not in DTYPES:
        raise InputError(
            None, f"--dtype must be {', '.join(DTYPES[:-1])} or {DTYPES[-1]}, got {dtype!r}"
        )
    if out.exists() and not out.is_dir():
        raise InputError(out, f"is a file; {command} writes a model directory")
    if not out.parent.is_dir():
        raise InputError(out, f"folder {str(out.parent)!r} does not exist")
    held = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if held and not force:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        raise InputError(out, f"not empty ({shown}); pass --force to replace the whole directory")
    return held


def export_cmd(
    checkpoint: Path = typer.Argument(..., help="A training checkpoint (e.g. runs/NAME/best)."),
    out: Path | None = typer.Argument(
        None, help="The model directory to write (e.g. models/en-it); with --ct2 alone: none."
    ),
    dtype: str = typer.Option("float16", "--dtype", help="float16, bfloat16 or float32 weights."),
    int8: bool = typer.Option(
        False, "--int8", help="Store linear weights as int8 + per-channel scales (CPU int8 model)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace OUT even if it holds files (e.g. the shipped model)."
    ),
    ct2: bool = typer.Option(
        False,
        "--ct2",
        help="Also write the CTranslate2 weights of the unconstrained pass (OUT/ct2; without "
        "OUT: CHECKPOINT/ct2).",
    ),
) -> None:
    """Copy a checkpoint's weights (in `--dtype`), config, tokenizer and log; drop optimizer state.

    OUT must be new or empty unless --force; with --force it is replaced as a whole (an old
    MODEL_CARD.md is removed, not left beside weights it does not describe).

    --int8 stores every linear weight as int8 with a float32 scale per output channel (other
    tensors in --dtype); loading on CPU rebuilds dynamically quantised int8 layers from them.

    --ct2 converts the model for CTranslate2, which then runs its unconstrained pass
    (`fitsub.nmt.ct2`); a model without them is converted once at its first load anyway.

    Example: fitsub export runs/en-it/best models/en-it --dtype float16 --force
    Example: fitsub export models/en-it --ct2
    """
    from fitsub.nmt.checkpoint import export_checkpoint
    from fitsub.nmt.ct2 import export_converted

    if out is None:
        if not ct2:
            raise InputError(None, "name the model directory to write (OUT), or pass --ct2")
        done = export_converted(checkpoint)
        print(f"wrote {done} ({_size(done) / 1e6:.1f} MB, CTranslate2 float32)")
        return

    if out.resolve() == checkpoint.resolve():
        raise InputError(out, "export would overwrite its source checkpoint")
    held = check_model_out(out, dtype, force, "export")
    path = export_checkpoint(checkpoint, out, dtype, int8=int8)
    kind = f"int8 linear weights, {dtype} others" if int8 else f"{dtype} weights"
    print(f"wrote {path} ({_size(path) / 1e6:.1f} MB, {kind})")
    if ct2:
        done = export_converted(path)
        print(f"wrote {done} ({_size(done) / 1e6:.1f} MB, CTranslate2 float32)")
    dropped = [name for name in held if not (path / name).exists()]
    if dropped:
        print(f"removed from the old {out}: {', '.join(dropped)}")
        if "MODEL_CARD.md" in dropped:
            print("the old MODEL_CARD.md described other weights; write one for this model")


def _size(folder: Path) -> int:
    """Bytes of the files directly in `folder`."""
    return sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
