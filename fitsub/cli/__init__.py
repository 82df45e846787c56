"""The `fitsub` command line: Typer commands only. Each command parses, then calls the core.

Every command module registers itself on `app`; `main()` turns fitsub's errors into one line on
stderr and an exit code (2: bad usage or input; 1: anything else) unless `--debug` is given.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from typer.core import TyperOption

from fitsub.errors import FitsubError, InputError

app = typer.Typer(
    name="fitsub",
    help="Translate subtitles and slide text so that each translation fits its source's space.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
)


def _flag_type(self: TyperOption, ctx: Any) -> str | None:
    """No ``<bool>`` beside a plain flag in ``--help`` (``--strict``, ``--help`` itself)."""
    if self.is_flag and self.metavar is None:
        return None
    return _typer_type(self, ctx)


# Typer shows the type of every option in its rich help, ``<bool>`` for flags too, with no
# setting to turn that off: the one place fitsub changes a library's behaviour.
_typer_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]

_DEBUG_ENV = "FITSUB_DEBUG"


def _version(value: bool) -> None:
    if value:
        from fitsub import __version__

        typer.echo(f"fitsub {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show full tracebacks on errors."),
    version: bool = typer.Option(
        False,
        "--version",
        help="Print fitsub's version and exit.",
        callback=_version,
        is_eager=True,
    ),
) -> None:
    """fitsub: length-controlled translation of subtitles (SRT, WebVTT, ASS) and slides."""
    if debug:
        os.environ[_DEBUG_ENV] = "1"


def printable(text: object) -> str:
    """`text` as a string any terminal encoding can show (file names with undecodable bytes)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def _say(message: str) -> None:
    """One line on stderr, whatever its encoding (an unprintable character is escaped)."""
    line = printable(message) + "\n"
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    try:
        sys.stderr.write(line.encode(encoding, "backslashreplace").decode(encoding))
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing more can be said
        pass


def fail(message: str, code: int = 2) -> None:
    """Print `fitsub: error: MESSAGE` on stderr and exit with `code` (for usage errors)."""
    _say(f"fitsub: error: {message}")
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


_COMMAND = re.compile(r"""@app\.command\(\s*["']([\w-]+)["']""")


def _command_modules() -> dict[str, str]:
    """Command name → the module in this package that registers it (read, not imported)."""
    import pkgutil

    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(__path__):
        try:
            source = (Path(__file__).parent / f"{info.name}.py").read_text("utf-8")
        except OSError:
            continue
        for name in _COMMAND.findall(source):
            found.setdefault(name, info.name)
    return found


def _register(argv: list[str] | None = None) -> None:
    """Import the command modules (each registers itself on `app`).

    Only the module of the command being run when it can be told from `argv`: `fitsub budget`
    then starts without importing torch (about 300 MB and seconds less); every module for
    `--help`, an unknown command, or when `argv` is None (`main(argv)` called in-process, as
    tests do, registers every command as before).
    """
    import importlib
    import pkgutil

    if argv is not None:
        command = next((a for a in argv if not a.startswith("-")), None)
        module = _command_modules().get(command or "")
        if module is not None:
            importlib.import_module(f"{__name__}.{module}")
            return
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def flag_name(setting: str) -> str:
    """The command-line flag of a core setting (`max_segments` → `--max-segments`)."""
    return "--" + setting.replace("_", "-")


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    _register(sys.argv[1:] if argv is None else None)
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        app(args=argv, standalone_mode=True)
    except FitsubError as err:
        if debug or os.environ.get(_DEBUG_ENV):
            raise
        text = err.message_for(flag_name) if isinstance(err, InputError) else str(err)
        _say(f"fitsub: error: {text}")
        raise SystemExit(err.exit_code) from None
    except KeyboardInterrupt:
        _say("fitsub: interrupted")
        raise SystemExit(130) from None
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - the last line of defence: one line, exit 1
        if debug or os.environ.get(_DEBUG_ENV):
            raise
        _say(f"fitsub: error: {type(err).__name__}: {err} (run with --debug for details)")
        raise SystemExit(1) from None
