"""Decoding subtitle and slide files: BOM, UTF-8 or a legacy single-byte encoding; line endings.

Detection order (first that applies wins):

0. an encoding the user names (``--encoding cp1252``): that one, strictly (an undecodable byte
   is an `InputError` naming its line and byte offset);
1. a byte-order mark: UTF-8 (``utf-8-sig``), UTF-16 LE (``utf-16``), UTF-16 BE (``utf-16-be``
   with `Decoded.bom`); the file is written back with the same encoding and byte order;
2. NUL bytes, or more than 1 % control characters → not a text file (`InputError`);
3. strict UTF-8 → ``utf-8``;
4. bytes that are UTF-8 except for some invalid ones (the file holds at least one valid
   multi-byte UTF-8 sequence) → `InputError` naming the line and byte offset of the first bad
   byte: reading such a file as cp1252 would turn every "é" into "Ã©";
5. cp1252 (Windows Western, a superset of latin-1's printable range) → ``cp1252``;
6. anything else decodes as ``latin-1`` (every byte is a character).

Line endings: the most common of ``\\r\\n``, ``\\n`` and ``\\r`` is the document's newline. Text is
handled inside fitsub with ``\\n`` only and written back with the detected newline; a file that
mixes endings is normalised to the most common one (the reader reports it as a warning).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from fitsub.errors import InputError

# (byte-order mark, the encoding fitsub reports and writes, the codec that decodes the rest)
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"),
)
# Encodings written with a byte-order mark in front: "utf-16" is always little-endian here
# (not the host's order), "utf-16-be" gets its BOM when the input had one (`Decoded.bom`).
_WRITE_BOM = {"utf-16": (codecs.BOM_UTF16_LE, "utf-16-le")}
# A valid UTF-8 sequence of two to four bytes: its presence marks a file as meant to be UTF-8.
_UTF8_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
# Control characters that never occur in subtitle or slide text (tab, LF, FF, CR and the
# DOS end-of-file marker 0x1A are allowed).
_CONTROL = {chr(c) for c in range(32)} - {"\t", "\n", "\x0c", "\r", "\x1a"} | {"\x7f"}
_MAX_CONTROL_SHARE = 0.01


@dataclass(frozen=True)
class Decoded:
    """A decoded file: text with ``\\n`` line endings, the encoding and newline it used."""

    text: str
    encoding: str
    newline: str
    mixed_newlines: bool = False
    bom: bool = False  # the file began with a byte-order mark (kept on writing)


def detect_newline(text: str) -> tuple[str, bool]:
    """The most common line ending in `text` (``\\n`` when none) and whether endings are mixed."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    counts = {"\r\n": crlf, "\n": lf, "\r": cr}
    present = [nl for nl, n in counts.items() if n > 0]
    if not present:
        return "\n", False
    best = max(present, key=lambda nl: (counts[nl], nl == "\n"))
    return best, len(present) > 1


def normalise_newlines(text: str) -> str:
    """Replace every ``\\r\\n`` and lone ``\\r`` with ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_text(text: str) -> Decoded:
    """Normalise a decoded string: strip a leading BOM, detect and normalise newlines."""
    encoding = "utf-8"
    if text.startswith("\ufeff"):
        text = text[1:]
        encoding = "utf-8-sig"
    newline, mixed = detect_newline(text)
    return Decoded(normalise_newlines(text), encoding, newline, mixed)


def _line_of(data: bytes, offset: int) -> int:
    """1-based line number of byte `offset` (LF, CRLF or CR line ends)."""
    head = data[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def _bad_byte(
    data: bytes, err: UnicodeDecodeError, name: str, path: str | Path | None
) -> InputError:
    start = err.start
    shown = data[start : start + 1].hex().upper()
    return InputError(
        path,
        f"not valid {name}: byte 0x{shown} at byte offset {start} ({err.reason})",
        _line_of(data, start),
    )


def decode_bytes(
    data: bytes, path: str | Path | None = None, encoding: str | None = None
) -> Decoded:
    """Decode a file's bytes (see the module docstring); `InputError` for binary or empty data.

    `encoding`: decode with this codec only (a matching byte-order mark is dropped).
    """
    if not data or data.isspace():  # (not `strip()`: no copy of a big file)
        raise InputError(path, "empty file")
    if encoding is not None:
        return _decode_as(data, encoding, path)
    for bom, name, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError as err:
                err.start += len(bom)  # offsets and lines in the whole file
                bad = _bad_byte(data, err, codec, path)
                raise InputError(
                    path, f"{bad.problem} after a {codec} byte-order mark", bad.line
                ) from None
            return _finish(text.lstrip("\ufeff"), name, path, bom=name == "utf-16-be")
    if b"\x00" in data:
        raise InputError(path, "binary file (contains NUL bytes), not subtitle or slide text")
    try:
        return _finish(data.decode("utf-8"), "utf-8", path)
    except UnicodeDecodeError as err:
        if _UTF8_MULTIBYTE.search(data) is not None:
            bad = _bad_byte(data, err, "UTF-8", path)
            raise InputError(
                path,
                f"{bad.problem}; the rest of the file is UTF-8. Fix that byte, or name the "
                "file's encoding with --encoding (e.g. --encoding cp1252)",
                bad.line,
            ) from None
    try:
        return _finish(data.decode("cp1252"), "cp1252", path)
    except UnicodeDecodeError:
        pass
    return _finish(data.decode("latin-1"), "latin-1", path)


def _decode_as(data: bytes, encoding: str, path: str | Path | None) -> Decoded:
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    name = info.name
    bom = False
    if name in ("utf-8", "utf-8-sig") and data.startswith(codecs.BOM_UTF8):
        data, name = data[len(codecs.BOM_UTF8) :], "utf-8-sig"
    elif name == "utf-16-be" and data.startswith(codecs.BOM_UTF16_BE):
        data, bom = data[2:], True
    elif name == "utf-16-le" and data.startswith(codecs.BOM_UTF16_LE):
        data, name = data[2:], "utf-16"
    try:
        text = data.decode("utf-8" if name == "utf-8-sig" else name)
    except UnicodeDecodeError as err:
        raise _bad_byte(data, err, name, path) from None
    return _finish(text, name, path, bom=bom)


def _finish(text: str, encoding: str, path: str | Path | None, bom: bool = False) -> Decoded:
    controls = sum(text.count(ch) for ch in _CONTROL)  # C loops, not one Python step per char
    if controls and controls > _MAX_CONTROL_SHARE * len(text):
        raise InputError(
            path, f"binary file ({controls} control characters), not subtitle or slide text"
        )
    if not text or text.isspace():
        raise InputError(path, "empty file")
    newline, mixed = detect_newline(text)
    return Decoded(normalise_newlines(text), encoding, newline, mixed, bom)


def read_text(path: Path, encoding: str | None = None) -> Decoded:
    """Read and decode a file; `InputError` when it cannot be read or is not text."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            # a device or FIFO may never end (/dev/zero) or be read only once: use `-` for a pipe
            raise InputError(
                path, "not a regular file (a device, FIFO or socket); use - for a pipe"
            )
        data = path.read_bytes()
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    return decode_bytes(data, path, encoding)


def encode_text(
    text: str, encoding: str, path: str | Path | None = None, bom: bool = False
) -> bytes:
    """Encode `text` (newlines already final); `InputError` naming the first unencodable char.

    ``utf-16`` is written little-endian with its byte-order mark whatever the host's order;
    `bom` puts the byte-order mark in front of ``utf-16-be`` / ``utf-16-le`` (as read).
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    prefix, codec = _WRITE_BOM.get(encoding, (b"", encoding))
    if bom and codec in ("utf-16-be", "utf-16-le"):
        prefix = codecs.BOM_UTF16_BE if codec == "utf-16-be" else codecs.BOM_UTF16_LE
    try:
        return prefix + text.encode(codec)
    except UnicodeEncodeError as err:
        ch = err.object[err.start]
        line = err.object.count("\n", 0, err.start) + 1
        raise InputError(
            path, f"character {ch!r} (U+{ord(ch):04X}) cannot be written in {encoding}", line
        ) from None


def can_encode(text: str, encoding: str) -> bool:
    """Whether every character of `text` exists in `encoding`."""
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True
