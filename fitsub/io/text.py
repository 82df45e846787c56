"""Text files read whole: line-aligned plain text, and a model's gzip word lists.

- `read_text_lines(path)`: the lines of a UTF-8 text file, split on newlines only (parallel
  corpora are line-aligned);
- `read_gzip_text(path, what)` / `read_headed_text(path, what, first)`: a model's word list
  (lexicon, word links) of at most `MAX_MODEL_TEXT` bytes decompressed (counted as they come
  out: `fitsub.io.unpack`); `check_gzip_text` the same checks keeping nothing (before a model's
  weights load); `gzip_text` writes one.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from fitsub.errors import InputError
from fitsub.io.unpack import gunzip_bounded, gunzip_size


def read_text_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file (BOM and line ends removed; only "\\n" splits lines).

    Parallel corpora are line-aligned: splitting on other Unicode line separators (as
    `str.splitlines` does) would break the alignment, so only newlines count.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(path, f"not valid UTF-8 (byte {err.start})", line=line) from None
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n") if text else []
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def gzip_text(text: str) -> bytes:
    """`text` as UTF-8 gzip with a fixed mtime and no file name: the same text, the same bytes
    (the word lists shipped with a model: lexicon, word links)."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


# The most a model's word list (lexicon, word links) may decompress to: the shipped ones are
# 0.5-4 MB; a gzip bomb stops here (`fitsub.io.unpack`), the file and the limit named.
MAX_MODEL_TEXT = 32 * 2**20


def _model_text_bytes(path: Path, what: str) -> bytes:
    """A model text file's bytes as stored, at most `MAX_MODEL_TEXT`; InputError otherwise."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_MODEL_TEXT + 1)
    except OSError as err:
        raise InputError(path, f"cannot read {what}: {err.strerror or err}") from err
    if len(raw) > MAX_MODEL_TEXT:
        raise InputError(path, f"{what} larger than {MAX_MODEL_TEXT // 2**20} MiB; refusing it")
    return raw


def check_gzip_text(path: Path, what: str) -> None:
    """The size checks of `read_gzip_text` alone, keeping nothing (a model's files checked
    before its weights load: `fitsub.nmt.model_files.check_model_files`)."""
    raw = _model_text_bytes(path, what)
    if raw[:2] == b"\x1f\x8b":
        gunzip_size(raw, MAX_MODEL_TEXT, path, what)


def read_gzip_text(path: Path, what: str) -> str:
    """The text of a UTF-8 file, gzip or plain, of at most `MAX_MODEL_TEXT` bytes (decompressed,
    counted as they come out); InputError (one line) naming `what` when it cannot be read, is
    larger, is not readable gzip or not UTF-8."""
    raw = _model_text_bytes(path, what)
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip_bounded(raw, MAX_MODEL_TEXT, path, what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(path, f"corrupt {what} (not readable gzip / UTF-8 text): {err}") from err


def read_headed_text(
    path: Path, what: str, first: str
) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """(the `# key: value` header lines, the other non-empty lines with their line numbers) of a
    gzip text file whose first line must be `first`; InputError (one line) otherwise."""
    lines = read_gzip_text(path, what).split("\n")
    if lines[0].strip() != first:
        raise InputError(
            path, f"not a fitsub {what} (first line {lines[0][:40]!r}, expected {first!r})"
        )
    meta: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for no, line in enumerate(lines[1:], start=2):
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            meta[key.strip()] = value.strip()
        elif line:
            body.append((no, line))
    return meta, body
