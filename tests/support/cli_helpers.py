"""Shared by the CLI tests of formats, profiles and batch runs: run the CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fitsub.cli import main


def run(args: list[str]) -> int:
    """`fitsub ARGS` in-process; the exit code."""
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


TOY_SRT = (
    "1\n00:00:01,000 --> 00:00:02,000\nthe big dog runs\n\n"
    "2\n00:00:03,000 --> 00:00:04,000\na small cat sees the red tree\n"
)


def translate_toy_srt(folder: Path, model: Path) -> tuple[int, dict[str, Any] | None]:
    """`fitsub translate` of a two-cue toy SRT (FOLDER/toy.srt → toy.it.srt) with `model`: the
    exit code and the `--report` JSON (None when nothing was written)."""
    srt, report = folder / "toy.srt", folder / "r.json"
    srt.write_text(TOY_SRT, "utf-8")
    code = run(["translate", str(srt), "--model", str(model), "--report", str(report), "-q"])
    return code, json.loads(report.read_text()) if report.is_file() else None


def assert_refused_in_one_line(folder: Path, model: Path, name: str, capsys: Any) -> None:
    """`fitsub translate` of the toy SRT with `model`, whose file `name` is bad: exit 2, one
    stderr line naming the file, no output and no report written (`capsys`: pytest's fixture)."""
    code, report = translate_toy_srt(folder, model)
    err = capsys.readouterr().err.strip()
    assert code == 2 and report is None
    assert len(err.splitlines()) == 1 and name in err, err
    assert not (folder / "toy.it.srt").exists()
