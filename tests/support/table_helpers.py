"""Reading a rendered rich table back: its header and its rows, wrapped cells joined."""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def plain(text: str) -> str:
    """`text` without terminal escapes and carriage returns."""
    return ANSI.sub("", text).replace("\r", "")


def table_rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of the first table in `lines`, each wrapped cell joined again
    with a space (a row starts where its first cell, the id or index, is not empty)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    header = [c.strip() for c in lines[start + 1].split("┃")[1:-1]]
    rows: list[list[str]] = []
    for line in lines[start:end]:
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells[0] or not rows:
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return header, rows
