"""Decoding subtitle and slide files: BOM, UTF-8 or a legacy single-byte encoding; line endings.

Detection order (first that applies wins):

0. an encoding the user names (``--encoding cp1252``): that one, strictly (an undecodable byte
   is an `InputError` naming its line and byte offset);
1. a byte-order mark: UTF-8 (``utf-8-sig``), UTF-32 LE (``utf-32``), UTF-32 BE (``utf-32-be``
   with `Decoded.bom`), UTF-16 LE (``utf-16``), UTF-16 BE (``utf-16-be`` with `Decoded.bom`);
   UTF-32's marks are looked for first (UTF-32 LE's begins with UTF-16 LE's); the file is
   written back with the same encoding and byte order;
2. NUL bytes: UTF-16 or UTF-32 without a byte-order mark when exactly one of the four byte
   orders decodes to text (`fitsub.charsets.wide`), written back without a mark; else not a text
   file (`InputError` saying to name the encoding with ``--encoding``). More than 1 % control
   characters → not a text file, unless the encoding is named (rule 0: the user says it is);
3. strict UTF-8 → ``utf-8``;
4. bytes that are UTF-8 except for some invalid ones (the file holds at least as many valid
   multi-byte UTF-8 sequences as invalid bytes) → `InputError` naming the line and byte offset of the first bad
   byte: reading such a file as cp1252 would turn every "é" into "Ã©";
5. a legacy encoding guessed by charset-normalizer (`guess_legacy`): a non-Latin script
   (Cyrillic cp1251, Greek cp1253, Shift-JIS / cp932, GB18030, Big5, cp949...) when its best
   guess reads one and the file has at least `MIN_SCRIPT_BYTES` non-ASCII bytes; for Latin
   text, ``cp1252`` unless charset-normalizer finds another Latin code page (cp1250 for Czech or
   Polish...) clearly less garbled. On short Western text charset-normalizer alone mistakes
   cp1252 for cp1257 ("à" → "ą"), so cp1252 stays the default there; an East Asian guess is
   checked by `fitsub.charsets.east_asian.choose` (a short file: the one plausible reading, or
   an `InputError` naming ``--encoding``);
6. anything cp1252 cannot decode and no guess covers decodes as ``latin-1``.

`Decoded.detected_by` says which rule chose (``given``, ``bom``, ``utf-8``, ``detected``) and
`Decoded.confidence` is 1 − charset-normalizer's "chaos" (mess ratio) of the chosen decoding
for ``detected`` (None for the other rules, which are certain).

Line endings: the most common of ``\\r\\n``, ``\\n`` and ``\\r`` is the document's newline. Text is
handled inside fitsub with ``\\n`` only and written back with the detected newline; a file that
mixes endings is normalised to the most common one (the reader reports it as a warning).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from fitsub.charsets.east_asian import FAMILY, choose
from fitsub.errors import InputError

MIN_SCRIPT_BYTES = 4  # fewer non-ASCII bytes than this are too little evidence for a script
_CLOSE_CHAOS = 0.15  # cp1252 is kept when its chaos is within this of the best guess's

# (byte-order mark, the encoding fitsub reports and writes, the codec that decodes the rest)
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32", "utf-32-le"),  # before UTF-16 LE's mark: its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16", "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"),
)
# Encodings written with a byte-order mark in front: "utf-16" / "utf-32" are always
# little-endian here (not the host's order), "utf-16-be" / "utf-32-be" get their BOM when the
# input had one (`Decoded.bom`).
_WRITE_BOM = {
    "utf-16": (codecs.BOM_UTF16_LE, "utf-16-le"),
    "utf-32": (codecs.BOM_UTF32_LE, "utf-32-le"),
}
_MARKED = {  # the byte-order mark `bom=True` puts in front of an explicit byte order
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
}
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
    detected_by: str = "utf-8"  # the rule that chose the encoding (module docstring)
    confidence: float | None = None  # for "detected": 1 - charset-normalizer's chaos
    raw: str | None = None  # the text with its own mixed line endings (None: not mixed)
    warnings: tuple[str, ...] = ()  # what the reader noticed (UTF-8 lines in a legacy file)


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
    return Decoded(normalise_newlines(text), encoding, newline, mixed, raw=text if mixed else None)


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
            big = name in ("utf-16-be", "utf-32-be")
            decoded = _finish(text.lstrip("\ufeff"), name, path, bom=big)
            return replace(decoded, detected_by="bom")
    if b"\x00" in data:
        from fitsub.charsets.wide import guess_wide

        wide = guess_wide(data)
        if wide is None:
            raise InputError(
                path,
                "binary file (contains NUL bytes), not subtitle or slide text; if it is text "
                "in UTF-16 or UTF-32, name its encoding (e.g. --encoding utf-16-le)",
            )
        return replace(_finish(data.decode(wide), wide, path), detected_by="detected")
    try:
        return _finish(data.decode("utf-8"), "utf-8", path)  # detected_by "utf-8"
    except UnicodeDecodeError as err:
        if _mostly_utf8(data):
            bad = _bad_byte(data, err, "UTF-8", path)
            raise InputError(
                path,
                f"{bad.problem}; the rest of the file is UTF-8. Fix that byte, or name the "
                "file's encoding with --encoding (e.g. --encoding cp1252)",
                bad.line,
            ) from None
    name, confidence = guess_legacy(data)
    if name in FAMILY:
        chosen = choose(data, name, path)
        confidence = confidence if chosen == name else None
        name = chosen
    decoded = _finish(data.decode(name), name, path)
    warnings = () if name in FAMILY else _utf8_lines(data, name)
    return replace(decoded, detected_by="detected", confidence=confidence, warnings=warnings)


def _utf8_lines(data: bytes, name: str) -> tuple[str, ...]:
    """A warning naming the first line that holds UTF-8 in a file read as legacy `name`: the
    file mixes encodings, and those lines read as "Ã©" where "é" was meant. Only for a
    single-byte code page: in Shift-JIS, GB18030 or EUC text, byte pairs that look like UTF-8
    are ordinary characters (the caller asks only for those)."""
    m = _UTF8_MULTIBYTE.search(data)
    if m is None:
        return ()
    lines = sum(1 for part in data.split(b"\n") if _UTF8_MULTIBYTE.search(part))
    line = _line_of(data, m.start())
    more = f" (and {lines - 1} more line(s))" if lines > 1 else ""
    return (
        f"line {line}{more}: mixed encodings: UTF-8 text in a file read as {name}; such lines "
        "show as 'Ã©' where 'é' was meant (convert the file to one encoding, or name it with "
        "--encoding)",
    )


def _mostly_utf8(data: bytes) -> bool:
    """Whether valid multi-byte UTF-8 sequences are at least as many as the invalid bytes.

    Shift-JIS or GB18030 text holds a valid UTF-8 sequence here and there by chance, among many
    invalid ones; a UTF-8 file with one stray byte holds one invalid byte among many valid ones.
    """
    valid = sum(1 for _ in _UTF8_MULTIBYTE.finditer(data))
    if valid == 0:
        return False
    invalid = data.decode("utf-8", "replace").count("\ufffd") - data.count(b"\xef\xbf\xbd")
    return valid >= invalid


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _latin_letters(text: str) -> bool:
    """Whether every non-ASCII letter of `text` is a Latin letter (é, ř, ß…)."""
    import unicodedata

    return all(
        unicodedata.name(ch, "").startswith("LATIN")
        for ch in set(text)
        if ord(ch) > 127 and ch.isalpha()
    )


def guess_legacy(data: bytes) -> tuple[str, float | None]:
    """The legacy encoding of bytes that are not UTF-8, and a confidence (rule 5, docstring)."""
    from charset_normalizer import from_bytes

    # UTF-16 / UTF-32 without a byte-order mark are not legacy encodings: text in them would
    # be written back with NUL bytes, which the reader rejects as binary (rule 2)
    results = [r for r in from_bytes(data) if not r.encoding.startswith(("utf_16", "utf_32"))]
    best = results[0] if results else None
    latin = best is None or _latin_letters(str(best))
    non_ascii = sum(1 for b in data if b > 127)
    if best is not None and not latin and non_ascii >= MIN_SCRIPT_BYTES:
        return best.encoding, round(1 - best.chaos, 3)
    if _decodes(data, "cp1252"):
        western = next((r for r in results if r.encoding == "cp1252"), None)
        if best is None or (western is not None and western.chaos <= best.chaos + _CLOSE_CHAOS):
            return "cp1252", None if western is None else round(1 - western.chaos, 3)
        if not latin or str(best) == data.decode("cp1252"):
            return "cp1252", None
        return best.encoding, round(1 - best.chaos, 3)
    if (
        best is not None and latin and non_ascii >= MIN_SCRIPT_BYTES
    ):  # a Latin code page with bytes cp1252 lacks (cp1250 "Ť")
        return best.encoding, round(1 - best.chaos, 3)
    return "latin-1", None


def _decode_as(data: bytes, encoding: str, path: str | Path | None) -> Decoded:
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    name = info.name
    bom = False
    if name in ("utf-8", "utf-8-sig") and data.startswith(codecs.BOM_UTF8):
        data, name = data[len(codecs.BOM_UTF8) :], "utf-8-sig"
    elif name in ("utf-16-be", "utf-32-be") and data.startswith(_MARKED[name]):
        data, bom = data[len(_MARKED[name]) :], True
    elif name in ("utf-16-le", "utf-32-le") and data.startswith(_MARKED[name]):
        data, name = data[len(_MARKED[name]) :], name[:6]  # "utf-16" / "utf-32": LE, marked
    try:
        text = data.decode("utf-8" if name == "utf-8-sig" else name)
    except UnicodeDecodeError as err:
        raise _bad_byte(data, err, name, path) from None
    return replace(_finish(text, name, path, bom=bom, given=True), detected_by="given")


def _finish(
    text: str, encoding: str, path: str | Path | None, bom: bool = False, given: bool = False
) -> Decoded:
    """`text` as a `Decoded`; `InputError` for an empty file, or for one with more than 1 %
    control characters unless its encoding was `given` (the user says it is text: the message
    below tells them to name it)."""
    controls = 0 if given else sum(text.count(ch) for ch in _CONTROL)  # C loops, not per char
    if controls and controls > _MAX_CONTROL_SHARE * len(text):
        raise InputError(
            path,
            f"binary file ({controls} control characters), not subtitle or slide text; if it "
            "is text, name its encoding (e.g. --encoding utf-16-le)",
        )
    if not text or text.isspace():
        raise InputError(path, "empty file")
    newline, mixed = detect_newline(text)
    raw = text if mixed else None
    return Decoded(
        text=normalise_newlines(text),
        encoding=encoding,
        newline=newline,
        mixed_newlines=mixed,
        bom=bom,
        raw=raw,
    )


def read_file_bytes(path: Path) -> bytes:
    """A regular file's bytes; `InputError` for a missing file, a directory, a device or FIFO."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            # a device or FIFO may never end (/dev/zero) or be read only once: use `-` for a pipe
            raise InputError(
                path, "not a regular file (a device, FIFO or socket); use - for a pipe"
            )
        return path.read_bytes()
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None


def read_text(path: Path, encoding: str | None = None) -> Decoded:
    """Read and decode a file; `InputError` when it cannot be read or is not text."""
    return decode_bytes(read_file_bytes(path), path, encoding)


def encode_text(
    text: str, encoding: str, path: str | Path | None = None, bom: bool = False
) -> bytes:
    """Encode `text` (newlines already final); `InputError` naming the first unencodable char.

    ``utf-16`` / ``utf-32`` are written little-endian with their byte-order mark whatever the
    host's order; `bom` puts the mark in front of ``utf-16-be`` / ``utf-32-be`` (as read).
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    prefix, codec = _WRITE_BOM.get(encoding, (b"", encoding))
    if bom and codec in _MARKED:
        prefix = _MARKED[codec]
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
