"""What every command prints: one-line errors on stderr, the progress bar, printable names."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from fitsub.errors import FitsubError, InputError


def printable(text: object) -> str:
    """`text` as a string any terminal encoding can show (file names with undecodable bytes)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def say(message: str) -> None:
    """One line on stderr, whatever its encoding (an unprintable character is escaped)."""
    line = printable(message) + "\n"
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    try:
        sys.stderr.write(line.encode(encoding, "backslashreplace").decode(encoding))
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing more can be said
        pass


def flag_name(setting: str) -> str:
    """The command-line flag of a core setting (`max_segments` → `--max-segments`)."""
    return "--" + setting.replace("_", "-")


def error_text(err: BaseException) -> str:
    """A fitsub error as the CLI shows it: an `InputError`'s setting named by its flag."""
    if isinstance(err, InputError):
        return err.message_for(flag_name)
    if isinstance(err, FitsubError):
        return str(err)
    return f"{type(err).__name__}: {err}"


def fail(message: str, code: int = 2) -> None:
    """Print `fitsub: error: MESSAGE` on stderr and exit with `code` (for usage errors)."""
    say(f"fitsub: error: {message}")
    raise SystemExit(code)


def progress_bar(console: Console, quiet: bool) -> Progress:
    """The progress bar every long-running command shows on stderr (transient, off with -q)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet,
    )
