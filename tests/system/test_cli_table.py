"""`fitsub translate`'s per-segment table at the terminal's width: through the CLI and in a pty."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from cli_helpers import run
from table_helpers import plain, table_rows

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _squeezed(text: str) -> str:
    """`text` without whitespace: a word folded across lines reads the same."""
    return "".join(text.split())


def _translate(folder: Path, *extra: str) -> tuple[list[str], list[str]]:
    """Translate samples/talk.srt (the dry run: the English as it is, flagged), the fitted
    texts of its --report, and the command line."""
    src = folder / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    report = folder / "r.json"
    args = ["translate", str(src), "--lang", "it", "--model", "identity", "--beam", "1"]
    args += ["--threads", "1", "--report", str(report), "-o", str(folder / "out.srt"), *extra]
    assert run(args) == 0
    fitted = [s["fitted"] for s in json.loads(report.read_text("utf-8"))["segments"]]
    return fitted, args


@pytest.mark.parametrize(
    ("width", "headers"),
    [
        (60, ["id", "fits", "flags", "fitted text"]),
        (80, ["id", "fits", "flags", "fitted text"]),
        # the dry run has no quality score: that column stays out, two others come in
        (100, ["id", "budget", "fitted", "fits", "flags", "fitted text"]),
    ],
)
def test_the_table_fits_the_width_and_shows_every_fitted_text(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    width: int,
    headers: list[str],
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    fitted, _ = _translate(tmp_path, "--table-format", "rich")
    lines = capsys.readouterr().out.splitlines()
    header, rows = table_rows(lines)
    assert header == headers
    assert max(len(line) for line in lines) <= width
    assert [r[0] for r in rows] == [str(i) for i in range(1, 21)]
    assert [_squeezed(r[-1]) for r in rows] == [_squeezed(f) for f in fitted]


def test_wider_shows_more_and_wide_shows_every_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    _translate(tmp_path, "--table-format", "rich")
    at_160 = table_rows(capsys.readouterr().out.splitlines())[0]
    assert {"budget", "unconstr.", "fitted", "fits", "flags", "fitted text"} <= set(at_160)
    monkeypatch.setenv("COLUMNS", "80")
    _translate(tmp_path, "--table-format", "rich", "--wide")
    lines = capsys.readouterr().out.splitlines()
    header, rows = table_rows(lines)
    assert header[:3] == ["#", "id", "src"] and len(header) == 13
    assert len(rows) == 20 and max(len(line) for line in lines) > 80  # as wide as it needs


@pytest.mark.parametrize("layout", ["tsv", "json"])
def test_tsv_and_json_keep_every_column_at_any_width(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    layout: str,
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    fitted, _ = _translate(tmp_path, "--table-format", layout)
    out = capsys.readouterr().out
    if layout == "json":
        rows = json.loads(out)["segments"]
        assert len(rows[0]) == 13 and [r["fitted"] for r in rows] == fitted
    else:
        lines = out.splitlines()
        assert [len(line.split("\t")) for line in lines[:21]] == [13] * 21


def _read_pty(args: list[str], columns: int, env: dict[str, str]) -> str:
    """What `args` writes to a pseudo-terminal `columns` wide (standard output and error)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = subprocess.Popen(args, stdin=side, stdout=side, stderr=side, env=env, close_fds=True)
    os.close(side)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(main, 65536)
        except OSError:  # the other side closed: the program is done
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(main)
    assert proc.returncode == 0, b"".join(chunks).decode("utf-8", "replace")
    return plain(b"".join(chunks).decode("utf-8", "replace"))


def test_in_a_real_terminal_80_columns_wide(tmp_path: Path) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", XDG_CACHE_HOME=str(tmp_path / "cache"), FITSUB_CONFIG="")
    args = [sys.executable, "-m", "fitsub", "translate", str(src), "--lang", "it"]
    args += ["--model", "identity", "--beam", "1", "--threads", "1", "-o", str(tmp_path / "o.srt")]
    shown = _read_pty(args, 80, env)
    lines = shown.splitlines()
    header, rows = table_rows(lines)  # auto: a terminal gets the rich table
    assert header == ["id", "fits", "flags", "fitted text"]
    assert len(rows) == 20
    assert max(len(line) for line in lines if line[:1] in "┏┃┡│└") <= 80
