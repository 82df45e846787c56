"""Errors the CLI turns into one-line messages and exit codes (2 for bad input or usage)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


class FitsubError(Exception):
    """Any error fitsub reports to the user without a traceback (exit code 1)."""

    exit_code = 1


class Interrupted(FitsubError):
    """Ctrl-C after some files were written: which ones (exit 130). `total`: the number of
    input files of a batch (None: one input, whose output, report and review are listed)."""

    exit_code = 130

    def __init__(self, written: list[str], total: int | None = None) -> None:
        self.written = written
        self.total = total
        shown = ", ".join(written[:10]) + (
            f" and {len(written) - 10} more" if len(written) > 10 else ""
        )
        if not written:
            text = "interrupted, nothing written"
        elif total is None:
            text = f"interrupted after writing {shown}; nothing else written"
        else:
            text = (
                f"interrupted after writing {len(written)} of {total} files ({shown}); "
                "nothing else written"
            )
        super().__init__(text)


class InputError(FitsubError):
    """Bad input or usage: one line naming the file, the line (when known) and the problem; exit 2.

    `setting`: the parameter a bad value came in (its Python name, e.g. `max_segments`); the
    problem then reads as a sentence about that setting ("must be at least 1, got 0"). The core
    never names command-line flags: the CLI renders the setting as its flag (`--max-segments`)
    through `message_for`, and Python callers see the parameter's name.
    """

    exit_code = 2

    def __init__(
        self,
        path: str | Path | None,
        problem: str,
        line: int | None = None,
        setting: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.problem = problem
        self.line = line
        self.setting = setting
        super().__init__(self.message)

    def message_for(self, name: Callable[[str], str]) -> str:
        """The one-line message `FILE:LINE: SETTING problem` with the setting named by `name`
        (parts omitted when unknown)."""
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        what = "" if self.setting is None else f"{name(self.setting)} "
        return f"{where}{what}{self.problem}"

    @property
    def message(self) -> str:
        """The message with the setting under its Python name."""
        return self.message_for(str)

    def after_writing(self, written: Sequence[str]) -> InputError:
        """This error, saying which files were written before it (a full disk at the report,
        after the subtitle file was written); itself when none was."""
        if not written:
            return self
        done = f"; already written: {', '.join(written)}"
        return InputError(self.path, self.problem + done, self.line, self.setting)


class ModelMissingError(FitsubError):
    """No translation model is available; the message says which and how to get one."""

    exit_code = 2
