"""Decompression bounded by the bytes it actually produces (decompression bombs).

A 2 MB gzip file can expand to 2 GB, and a zip package's headers can say a part holds 100 bytes
while its deflate stream holds 300 MB: limits checked against sizes a file declares are no
limit. Here every byte is counted as it comes out of the decompressor, read in chunks of
`CHUNK` bytes, and decompression stops at the first byte over the limit, so what a bomb costs
is the limit, not the bomb.

- `gunzip_bounded(raw, limit, path, what)`: the gzip members of `raw` (all of them: a gzip file
  may hold several), at most `limit` bytes in all;
- `read_gzip_text(path, what)` / `read_headed_text(path, what, first)`: a model's word list
  (lexicon, word links) of at most `MAX_MODEL_TEXT` bytes decompressed; `check_gzip_text` the
  same checks keeping nothing (before a model's weights load); `gzip_text` writes one;
- `check_zip_parts(data, path, ...)`: every part of a zip package decompressed (and dropped)
  chunk by chunk: each part within its limit, all parts within a total limit, each part exactly
  as long as its header says and with its CRC-32 right (else the headers lie and the package
  is refused before a library that trusts them reads it).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable
from pathlib import Path

from fitsub.errors import InputError

CHUNK = 1 << 20


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def gunzip_bounded(raw: bytes, limit: int, path: Path | None, what: str) -> bytes:
    """The decompressed bytes of gzip data `raw`; `InputError` naming `limit` once more than
    `limit` bytes come out (a gzip bomb), or when `raw` is not readable gzip."""
    out = bytearray()
    _gunzip(raw, limit, path, what, out.extend)
    return bytes(out)


def gunzip_size(raw: bytes, limit: int, path: Path | None, what: str) -> int:
    """How many bytes gzip data `raw` decompresses to, counted as `gunzip_bounded` counts them
    (the same `InputError`s) while keeping none of them: a bomb costs `CHUNK` bytes of memory."""
    return _gunzip(raw, limit, path, what, lambda _chunk: None)


def _gunzip(
    raw: bytes, limit: int, path: Path | None, what: str, keep: Callable[[bytes], None]
) -> int:
    """Decompress `raw` chunk by chunk into `keep`; the number of bytes that came out."""
    size = 0
    data = raw
    try:
        while data:
            d = zlib.decompressobj(wbits=31)  # one gzip member (header and CRC checked)
            pending = data
            while not d.eof:
                chunk = d.decompress(pending, CHUNK)
                keep(chunk)
                size += len(chunk)
                if size > limit:
                    raise InputError(
                        path,
                        f"{what} decompresses to more than {_mib(limit)} (the limit for a "
                        "model file); refusing it (a decompression bomb?)",
                    )
                pending = d.unconsumed_tail
                if not chunk and not pending:
                    if d.eof:
                        break
                    raise InputError(path, f"corrupt {what}: truncated gzip data")
            data = d.unused_data
            if data and data.strip(b"\x00") == b"":  # zero padding after the last member
                break
    except zlib.error as err:
        raise InputError(path, f"corrupt {what} (not readable gzip): {err}") from None
    return size


def check_zip_parts(
    data: bytes,
    path: Path | None,
    part_limit: Callable[[str], int],
    total_limit: int,
) -> None:
    """Decompress every part of the zip package `data` and count what comes out (module
    docstring); `InputError` naming the limit or the lying header. Nothing is kept.

    Each part is opened with its header's size raised past its limit, so `zipfile` reads past a
    header that says less (it would stop there); the CRC-32 of what the part holds is checked
    here, after its size.
    """
    import copy
    import zipfile

    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            for info in package.infolist():
                most = part_limit(info.filename)
                probe = copy.copy(info)
                probe.file_size = most + 1 + CHUNK  # (each read gives at most CHUNK bytes)
                del probe.CRC  # checked here, after the sizes
                n, crc = 0, 0
                with package.open(probe) as part:
                    while chunk := part.read(CHUNK):
                        n += len(chunk)
                        total += len(chunk)
                        _check_sizes(
                            info.filename,
                            n=n,
                            most=most,
                            total=total,
                            total_limit=total_limit,
                            path=path,
                        )
                        crc = zlib.crc32(chunk, crc)
                if n != info.file_size or crc != info.CRC:
                    said = f"{info.file_size:,} bytes" if n != info.file_size else "another CRC-32"
                    raise InputError(
                        path,
                        f"part {info.filename!r} decompresses to {n:,} bytes, its zip header "
                        f"says {said}: a damaged or forged package",
                    )
    except InputError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error) as err:
        raise InputError(path, f"not a PowerPoint (.pptx) file: {err}") from None
    except (NotImplementedError, ValueError, RuntimeError) as err:  # encrypted, odd methods
        raise InputError(path, f"not a PowerPoint (.pptx) file: {err}") from None


def _check_sizes(
    name: str, n: int, most: int, total: int, total_limit: int, path: Path | None
) -> None:
    if n > most:
        raise InputError(
            path,
            f"part {name!r} decompresses to more than {_mib(most)} (the limit for such a "
            "part); refusing it (a decompression bomb?)",
        )
    if total > total_limit:
        raise InputError(
            path,
            f"the package decompresses to more than {_mib(total_limit)} (the limit for this "
            "file); refusing it (a decompression bomb?)",
        )


def gzip_text(text: str) -> bytes:
    """`text` as UTF-8 gzip with a fixed mtime and no file name: the same text, the same bytes
    (the word lists shipped with a model: lexicon, word links)."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


# The most a model's word list (lexicon, word links) may decompress to: the shipped ones are
# 0.5-4 MB; a gzip bomb stops here (`fitsub.unpack`), the file and the limit named.
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
