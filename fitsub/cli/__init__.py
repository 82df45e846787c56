"""The `fitsub` command line: Typer commands only. Each command parses, then calls the core.

`COMMANDS` lists every command in one place: its name, the function that implements it
(`module:function`, imported only when the command runs or its own `--help` is asked for) and
the one line `fitsub --help` shows, so `fitsub --help` imports neither torch nor any model code.
A command module's `EPILOG`, when it has one, ends that command's `--help`. `main()` turns
fitsub's errors into one line on stderr and an exit code (2: bad usage or input; 1: anything
else) unless `--debug` is given.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand, TyperGroup

from fitsub.cli.console import error_text, fail, flag_name, printable, progress_bar, say
from fitsub.errors import FitsubError, Interrupted
from fitsub.threads import prepare_cpu

if TYPE_CHECKING:  # click's types, as typer's public objects carry them (typer >= 0.26 has
    # its own copy of click, older typer uses click itself): for the annotations only
    Command = Any
    Context = Any
    HelpFormatter = Any

__all__ = [
    "COMMANDS",
    "app",
    "command_started",
    "fail",
    "flag_name",
    "main",
    "printable",
    "progress_bar",
    "say",
]

# name → ("module:function", the summary `fitsub --help` lists; the function's docstring's first
# paragraph, which a test holds them to). `fitsub --help` lists them by `PANELS` below.
COMMANDS: dict[str, tuple[str, str]] = {
    "average": (
        "fitsub.cli.average:average_cmd",
        "Average the weights of checkpoints that share a model config and tokenizer.",
    ),
    "convert": (
        "fitsub.cli.convert:convert_cmd",
        "Convert a fairseq Transformer checkpoint into a fitsub model (no pickled code is run).",
    ),
    "distill": (
        "fitsub.cli.distill:distill_cmd",
        "Distil SOURCE with a teacher, its length perturbed as in Oka et al. 2021 (resumable).",
    ),
    "eval": (
        "fitsub.cli.eval:eval_cmd",
        "Score translations: BLEU (sacrebleu, with signature), BLEU*, chrF, LR, VAR, LC, fit.",
    ),
    "dub-check": (
        "fitsub.cli.dub_check:dub_check_cmd",
        "Speak every source and dubbed line with espeak-ng and check each line's duration.",
    ),
    "export": (
        "fitsub.cli.export:export_cmd",
        "Copy a checkpoint's weights (in `--dtype`), config, tokenizer and log; drop optimizer "
        "state.",
    ),
    "lexicon": (
        "fitsub.cli.lexicon:lexicon_cmd",
        "Build MODEL's lexicon: the words of its training target text, with counts (gzip text).",
    ),
    "prepare": (
        "fitsub.cli.prepare:prepare_cmd",
        "Prepare training data once: read, weight, deduplicate, filter, tokenize, encode.",
    ),
    "links": (
        "fitsub.cli.links:links_cmd",
        "Build MODEL's word links: the target words that translate each English word (gzip text).",
    ),
    "translate": (
        "fitsub.cli.translate:translate_cmd",
        "Translate subtitles or slides so that each segment fits its budget, and compare.",
    ),
    "apply": (
        "fitsub.cli.apply:apply_cmd",
        "Write reviewed edits into the translated file (markup, timings, layout kept); re-check.",
    ),
    "review": (
        "fitsub.cli.review:review_cmd",
        "Serve OUTPUT's review page on 127.0.0.1; a line is re-translated shorter or longer on "
        "request.",
    ),
    "budget": (
        "fitsub.cli.budget:budget_cmd",
        "Pre-flight check: per segment the source length, every limit and the binding one.",
    ),
    "profiles": (
        "fitsub.cli.profiles:profiles_cmd",
        "List the style profiles: CPL, lines, CPS, minimum duration and gap, ratio, source.",
    ),
    "train": (
        "fitsub.cli.train:train_cmd",
        "Train a length-controlled translation model on parallel text (runs under torchrun too).",
    ),
    "train-length": (
        "fitsub.cli.train_length:train_length_cmd",
        "Train the length predictor (Oka et al. 2020, Sec. 3.2) on parallel data.",
    ),
}

# The panels of `fitsub --help`, in the order shown, each with its commands in order; a command
# of `COMMANDS` named in no panel is listed under "Commands" first. Names not (yet) in `COMMANDS`
# are skipped.
PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Translate", ("translate", "budget", "profiles", "review", "apply")),
    (
        "Models",
        (
            "prepare",
            "train",
            "train-length",
            "distill",
            "average",
            "export",
            "convert",
            "lexicon",
            "links",
        ),
    ),
    ("Evaluate", ("eval", "dub-check")),
)

_DEBUG_ENV = "FITSUB_DEBUG"
INTERRUPTED = 130  # the exit status after Ctrl-C (SIGINT)


def _panel_of(name: str) -> str | None:
    """The help panel command `name` is listed in (None: the default "Commands" panel)."""
    return next((panel for panel, names in PANELS if name in names), None)


def listed_commands() -> list[str]:
    """Every command of `COMMANDS` in the order `fitsub --help` lists them: panel by panel."""
    paneled = [name for _, names in PANELS for name in names if name in COMMANDS]
    return [name for name in COMMANDS if name not in paneled] + paneled


def _no_flag_type(params: list[Any]) -> list[Any]:
    """No ``<bool>`` beside a plain flag in ``--help`` (``--strict``, ``--help`` itself).

    Typer's rich help shows an option's type unless the option has a metavar: a flag without
    one gets the empty metavar, through click's public ``Parameter.metavar``."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class _Command(TyperCommand):
    """A command whose flags show no type in ``--help`` (`_no_flag_type`)."""

    def get_params(self, ctx: Context) -> list[Any]:
        return _no_flag_type(super().get_params(ctx))


def _click_exceptions() -> Any:
    """The module of click's exceptions that this typer raises: typer >= 0.26 carries its own
    copy of click, older typer uses click itself (found through typer's public BadParameter)."""
    return sys.modules[typer.BadParameter.__module__]


def command_function(name: str) -> Callable[..., Any]:
    """The function behind command `name` (its module imported now)."""
    module, _, function = COMMANDS[name][0].partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), function)
    return found


def _build(name: str) -> Command:
    """Command `name` as Typer builds it from the function's signature."""
    function = command_function(name)
    epilog = getattr(importlib.import_module(function.__module__), "EPILOG", None)
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    one.command(name, epilog=epilog, cls=_Command)(function)
    return typer.main.get_command(one)


class _Built(MutableMapping[str, "Command"]):
    """Every command of `COMMANDS` by name, each built the first time it is looked up (so a
    typo's "did you mean" sees every name without importing any command's module)."""

    def __init__(self) -> None:
        self._built: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _Commands(TyperGroup):
    """The group of `COMMANDS`: a command is built when run; `fitsub --help` lists summaries."""

    _listing = False

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Built()

    def list_commands(self, ctx: Context) -> list[str]:
        return listed_commands()

    def get_params(self, ctx: Context) -> list[Any]:
        return _no_flag_type(super().get_params(ctx))

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if self._listing and cmd_name in COMMANDS:  # the summary alone: no import of its module
            panel = _panel_of(cmd_name)
            return TyperCommand(cmd_name, help=COMMANDS[cmd_name][1], rich_help_panel=panel)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _version(value: bool) -> None:
    if value:
        from fitsub import __version__

        typer.echo(f"fitsub {__version__}")
        raise typer.Exit()


_typer_app = typer.Typer(
    name="fitsub",
    help="Translate subtitles and slide text so that each translation fits its source's space.",
    cls=_Commands,
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    pretty_exceptions_enable=False,
)


@_typer_app.callback()
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


app: Command = typer.main.get_command(_typer_app)


class _Never(Exception):
    """An exception nothing raises (the stand-in for one this click does not have)."""


def _process_start(now: float | None = None) -> float:
    """`time.monotonic()` at this process's start, for a deadline that counts Python's start
    and imports too (Linux, from /proc/self/stat; elsewhere, or when that looks wrong: now)."""
    now = time.monotonic() if now is None else now
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        age = uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 60.0 else now


def command_started() -> float:
    """`time.monotonic()` when this command began: the process's start for the console entry
    point (`fitsub`, `python -m fitsub`), the call's for `main(argv)` inside another program."""
    return _started


_started = 0.0


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    global _started
    _started = _process_start() if argv is None else time.monotonic()
    prepare_cpu(argv)  # threads and OpenMP's wait policy: before anything imports torch
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    exceptions = _click_exceptions()
    click_exception: type[Exception] = exceptions.ClickException
    # click >= 8.2 raises NoArgsIsHelpError for a group called without arguments; older click
    # prints the help itself and exits 0
    no_args: type[Exception] = getattr(exceptions, "NoArgsIsHelpError", _Never)
    abort: type[BaseException] = typer.Abort

    try:
        # not standalone: typer would turn Ctrl-C into a silent exit 130 and print usage errors
        # in a box; here each is one line
        code = app.main(args=argv, standalone_mode=False)
    except no_args as err:
        err.show()  # type: ignore[attr-defined]
        raise SystemExit(err.exit_code) from None  # type: ignore[attr-defined]
    except click_exception as err:  # a bad flag or value: one line, exit 2
        say(f"fitsub: error: {printable(err.format_message())}")  # type: ignore[attr-defined]
        raise SystemExit(err.exit_code) from None  # type: ignore[attr-defined]
    except abort:
        say("fitsub: aborted")
        raise SystemExit(1) from None
    except Interrupted as err:  # a batch: the files written before Ctrl-C, named
        say(f"fitsub: {err}")
        raise SystemExit(INTERRUPTED) from None
    except FitsubError as err:
        if debug or os.environ.get(_DEBUG_ENV):
            raise
        say(f"fitsub: error: {error_text(err)}")
        raise SystemExit(err.exit_code) from None
    except KeyboardInterrupt:
        say("fitsub: interrupted, nothing written")
        raise SystemExit(INTERRUPTED) from None
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - the last line of defence: one line, exit 1
        if debug or os.environ.get(_DEBUG_ENV):
            raise
        say(f"fitsub: error: {error_text(err)} (run with --debug for details)")
        raise SystemExit(1) from None
    if code == INTERRUPTED:  # typer's answer to Ctrl-C (KeyboardInterrupt): outputs are atomic
        say("fitsub: interrupted, nothing written")
    # as click's standalone mode does: always leave through SystemExit (0: success)
    raise SystemExit(code if isinstance(code, int) and not isinstance(code, bool) else 0)
