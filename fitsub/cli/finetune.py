"""What a fine-tune (`fitsub train --init-from MODEL`) takes from its model unless told."""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path

from rich.console import Console
from rich.text import Text

from fitsub.nmt.config import METHODS

# train's length-method flags that a fine-tune (--init-from) takes from its model unless given
_METHOD_FLAGS = ("method", "noise", "noise_mode", "length_dropout", "token_dropout")
LengthFlags = tuple[str, int, str, float, float]


def init_method(given: Set[str], init_from: Path, flags: LengthFlags, quiet: bool) -> LengthFlags:
    """(method, noise, noise mode, length dropout, token dropout) of a fine-tune: each flag not
    given on the command line (`given`) comes from the --init-from model, so a fine-tune keeps its
    model's length control (it used to fall back to `baseline` with no noise and no unconstrained
    rows, silently); a token dropout only where the method has a token. Says what it took."""
    from fitsub.nat.checkpoint import checkpoint_arch
    from fitsub.nmt.checkpoint import read_config

    if checkpoint_arch(init_from) not in (None, "ar"):
        return flags
    model = read_config(init_from)["model"]
    values = dict(zip(_METHOD_FLAGS, flags, strict=True))
    taken = []
    for name in _METHOD_FLAGS:
        if name == "token_dropout" and not METHODS[str(values["method"])][0]:
            continue  # the fine-tune's method has no token: nothing to drop
        if name not in given and name in model:
            if model[name] != values[name]:
                taken.append(f"{name.replace('_', '-')} {model[name]}")
            values[name] = model[name]
    if taken:
        Console(stderr=True, quiet=quiet).print(
            Text(f"fine-tuning {init_from} with its own {', '.join(taken)}")
        )
    return (
        str(values["method"]),
        int(str(values["noise"])),
        str(values["noise_mode"]),
        float(str(values["length_dropout"])),
        float(str(values["token_dropout"])),
    )
