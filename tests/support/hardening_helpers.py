"""Run the real CLI entry point in-process with byte-level stdin/stdout, and a toy backend.

`cli()` calls `fitsub.cli.main` (the console entry point: its error handling decides exit codes)
with `sys.stdin` / `sys.stdout` / `sys.stderr` replaced; `toy_model()` makes `fitsub translate`
build `tests.doubles.ToyBackend` instead of loading a model, through the same code path.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doubles import ToyBackend

from fitsub.cli import main


@dataclass
class Result:
    code: int
    out: bytes
    err: str


def cli(args: list[str], stdin: bytes = b"") -> Result:
    """Run `fitsub ARGS` in-process; the exit code, standard output bytes, standard error text."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    wrappers = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = wrappers
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for wrapper in wrappers:
            wrapper.flush()
            wrapper.detach()  # keep the BytesIO open when the wrapper is collected
    return Result(code, out.getvalue(), err.getvalue().decode("utf-8", "replace"))


class CountingToy(ToyBackend):
    """A ToyBackend that counts how many times one was created (0: nothing was translated)."""

    made = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        CountingToy.made += 1


@contextmanager
def toy_model(model_dir: Path) -> Iterator[type[CountingToy]]:
    """Within the block `fitsub translate` translates with `CountingToy` (no model is loaded):
    the backend registry (`fitsub.cli.registry`) locates `model_dir` and opens a toy there."""
    from fitsub.cli import registry

    kind = registry.ModelKind.AUTOREGRESSIVE
    saved = registry.LOADERS[kind], registry.locate
    CountingToy.made = 0
    registry.LOADERS[kind] = CountingToy
    registry.locate = lambda *_a, **_k: model_dir  # type: ignore[assignment]
    try:
        yield CountingToy
    finally:
        registry.LOADERS[kind], registry.locate = saved
