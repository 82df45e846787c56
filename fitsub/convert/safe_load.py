"""Load a PyTorch training checkpoint (a fairseq `checkpoint.pt`) without running pickled code.

`torch.load(weights_only=True)` unpickles with PyTorch's restricted unpickler: only tensors,
storages, `collections.OrderedDict` and plain Python values are built, and any other global the
pickle names is refused before anything is called. fairseq checkpoints also hold, beside the
weights, `args` (an `argparse.Namespace`, older checkpoints) or `cfg` (plain dicts, newer ones;
legacy models keep a Namespace inside it) and training statistics: numpy scalars, and in older
fairseq versions the meter objects themselves (`extra_state["train_meters"]`). Those are the
only globals added here: the Namespace as itself (it only stores attributes); numpy's scalar and
dtype and fairseq's meters as `_Opaque` stand-ins that keep nothing (the converter never reads
the statistics, and no numpy or fairseq code runs). Everything else (a `__reduce__` payload such
as `os.system`, omegaconf objects, fairseq's own classes) is refused, naming the global.
"""

from __future__ import annotations

import argparse
import pickle
import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from fitsub.errors import InputError


class _Opaque:
    """A stand-in for a value the converter never reads: accepts any arguments, keeps nothing."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __setstate__(self, state: object) -> None:
        pass


ALLOWED: list[Callable[..., Any] | tuple[Callable[..., Any], str]] = [
    (argparse.Namespace, "argparse.Namespace"),
    (_Opaque, "numpy.core.multiarray.scalar"),
    (_Opaque, "numpy._core.multiarray.scalar"),
    (_Opaque, "numpy.dtype"),
    *(
        (_Opaque, f"{module}.{meter}")
        for module in ("fairseq.meters", "fairseq.logging.meters")
        for meter in ("AverageMeter", "TimeMeter", "StopwatchMeter")
    ),
]
_GLOBAL = re.compile(r"GLOBAL ([\w.]+)|global ([\w.]+)|Unsupported class ([\w.]+)")


def _refused_global(message: str) -> str | None:
    """The global torch's restricted unpickler refused, from its error message."""
    m = _GLOBAL.search(message)
    return None if m is None else next(g for g in m.groups() if g)


def load_restricted(path: Path) -> Any:
    """The unpickled object of a torch checkpoint file, built from plain types only.

    InputError (one line) for a file that is missing, not a torch checkpoint, or that names any
    global outside PyTorch's weights-only set and `ALLOWED`; nothing of the file is executed.
    """
    if not path.is_file():
        raise InputError(path, "no such checkpoint file")
    try:
        with torch.serialization.safe_globals(ALLOWED), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "Detected pickle protocol 4 ..."
            return torch.load(path, map_location="cpu", weights_only=True, mmap=False)
    except pickle.UnpicklingError as err:
        name = _refused_global(str(err))
        if name is not None:
            raise InputError(
                path,
                f"refused: the checkpoint's pickle calls {name}, which a fairseq checkpoint "
                "never holds (nothing was run)",
            ) from None
        raise InputError(path, f"not a PyTorch checkpoint ({_unpickler_problem(err)})") from None
    except (RuntimeError, EOFError, ValueError, TypeError, KeyError, zipfile.BadZipFile,
            AttributeError, IndexError, OSError) as err:  # fmt: skip
        raise InputError(path, f"not a PyTorch checkpoint ({_first_line(err)})") from None


def _unpickler_problem(err: BaseException) -> str:
    """The restricted unpickler's own reason, without torch's advice to load unsafely."""
    text = str(err)
    _, found, rest = text.partition("WeightsUnpickler error:")
    lines = [line.strip() for line in rest.splitlines() if line.strip()] if found else []
    return lines[0][:200] if lines else _first_line(err)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return (text[0] if text else type(err).__name__)[:200]
