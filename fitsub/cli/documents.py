"""Reading the input document and writing the output: files, or standard input / output."""

from __future__ import annotations

import sys
from pathlib import Path

from fitsub.document import Document, Format
from fitsub.errors import InputError
from fitsub.formats import FORMATS, document_bytes, read_bytes_document, read_document
from fitsub.io.atomic import atomic_write_bytes
from fitsub.io.outputs import STDIO

FORMAT_ALIASES = {"md": "markdown", "txt": "slides"}
TABLE_FORMATS = ("auto", "rich", "tsv", "json")


def parse_format(fmt: str | None) -> Format | None:
    """The format `--format` names (`md` and `txt` as aliases); None: from the file."""
    if fmt is None:
        return None
    fmt = FORMAT_ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        raise InputError(None, f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def load_input(path: Path, fmt: str | None = None, encoding: str | None = None) -> Document:
    """Read the input document: a file, or standard input for `-` (format given or sniffed)."""
    if str(path) == STDIO:
        data = sys.stdin.buffer.read()
        return read_bytes_document(data, parse_format(fmt), Path("<stdin>"), encoding)
    return read_document(path, parse_format(fmt), encoding)


def write_output(doc: Document, out: Path) -> str:
    """Write the translated document to `out` (atomically) or standard output for `-`."""
    data, encoding = document_bytes(doc, None if str(out) == STDIO else out)
    if str(out) == STDIO:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        atomic_write_bytes(out, data)
    return encoding


def table_layout(choice: str, to_terminal: bool) -> str:
    """The per-segment table's layout: ``rich`` on a terminal, ``tsv`` elsewhere, or as asked."""
    if choice not in TABLE_FORMATS:
        raise InputError(None, f"--table-format must be one of {', '.join(TABLE_FORMATS)}")
    if choice == "auto":
        return "rich" if to_terminal else "tsv"
    return choice
