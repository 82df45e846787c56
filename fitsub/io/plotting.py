"""matplotlib, an optional extra (`fitsub[plot]`): checked before any work, imported only to draw,
and a figure saved as one atomically written PNG.

`fitsub eval --plot` and `fitsub dub-check --plot` are the only users; the default install leaves
matplotlib (with fontTools and its fonts, ~80 MB) out (issue 56).
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL = "pip install 'fitsub[plot]' (in a clone: .venv/bin/pip install -e '.[plot]')"


def require_matplotlib() -> None:
    """Raise InputError (one line naming --plot, exit 2) when matplotlib is not installed."""
    if importlib.util.find_spec("matplotlib") is None:
        raise InputError(None, f"needs matplotlib, not installed: {INSTALL}", setting="plot")


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (no display), after `require_matplotlib`."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig: Figure, path: Path) -> Path:
    """Write the figure as a PNG (100 dpi) atomically, then close it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    pyplot().close(fig)
    atomic_write_bytes(Path(path), buf.getvalue())
    return Path(path)
