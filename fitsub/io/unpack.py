"""Decompression bounded by the bytes it actually produces (decompression bombs).

A 2 MB gzip file can expand to 2 GB, and a zip package's headers can say a part holds 100 bytes
while its deflate stream holds 300 MB: limits checked against sizes a file declares are no
limit. Here every byte is counted as it comes out of the decompressor, read in chunks of
`CHUNK` bytes, and decompression stops at the first byte over the limit, so what a bomb costs
is the limit, not the bomb.

- `gunzip_bounded(raw, limit, path, what)`: the gzip members of `raw` (all of them: a gzip file
  may hold several), at most `limit` bytes in all (`gunzip_size`: only their size; a model's
  word lists are read through these: `fitsub.io.text`);
- `check_zip_parts(data, path, ...)`: every part of a zip package decompressed (and dropped)
  chunk by chunk: each part within its limit, all parts within a total limit, each part exactly
  as long as its header says and with its CRC-32 right (else the headers lie and the package
  is refused before a library that trusts them reads it).
"""

from __future__ import annotations

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
