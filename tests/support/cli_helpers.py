"""Shared by the CLI tests of formats, profiles and batch runs: run the CLI in-process."""

from __future__ import annotations

from fitsub.cli import main


def run(args: list[str]) -> int:
    """`fitsub ARGS` in-process; the exit code."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0
