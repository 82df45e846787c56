"""Word lists derived once and kept in the user's cache (issue 59: a faster start).

Every run that keeps to a dictionary (`fitsub.quality.dictionary`) used to rebuild, from
wordfreq's packed lists, the target's and English's zipf tables and the words the search may
write: 3 x ~1 s on a 2-core AVX2 CPU, at every start, for the same answer. The answer is kept in
$XDG_CACHE_HOME/fitsub/words (~/.cache by default, beside the CTranslate2 conversions), one file
per table, named by a digest of everything it is derived from: the list files' bytes and the
source of the code that derives it (`sources`), so a new wordfreq or a changed rule is a new
file, never a stale answer.

A file is a header line (`MAGIC`), the entry count and the words' size in bytes (8 little-endian
bytes each), the values as float64 (exact: a table read back equals the one built) and the words
joined by newlines (a word is a run of letters, never a newline). It is read with `array` and `str.split`: no
pickle, nothing executed. A file that does not read back as written (truncated, another
format) is built again and replaced; a cache that cannot be written (read-only home) costs
only the time: the table is built and used.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes
from fitsub.io.cache import user_cache

MAGIC = b"fitsub-words-1\n"
CACHE_DIR = "words"


def cache_root() -> Path:
    """$XDG_CACHE_HOME/fitsub/words (~/.cache/fitsub/words without it)."""
    return user_cache() / CACHE_DIR


def digest(parts: Iterable[bytes]) -> str:
    """SHA-256 over `parts`, each length-prefixed (no two lists of parts share a digest)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def sources(*files: str) -> list[bytes]:
    """The bytes of the given source files (a module's ``__file__``): the derivation's code."""
    return [Path(f).read_bytes() for f in files]


def cached_table(
    name: str, inputs: Iterable[bytes], build: Callable[[], dict[str, float]]
) -> dict[str, float]:
    """The table `build()` returns, read from the cache when an earlier run derived it from the
    same `inputs` (list files' bytes, `sources`); built and written otherwise."""
    path = cache_root() / f"{name}-{digest(inputs)[:32]}.bin"
    read = _read(path)
    if read is not None:
        return dict(zip(read[1], read[0], strict=True))
    table = build()
    _write(path, table)
    return table


def cached_words(
    name: str, inputs: Iterable[bytes], build: Callable[[], Sequence[str]]
) -> tuple[str, ...]:
    """The words `build()` returns, in its order: `cached_table` without the values."""
    path = cache_root() / f"{name}-{digest(inputs)[:32]}.bin"
    read = _read(path)
    if read is not None:
        return tuple(read[1])
    words = tuple(build())
    _write(path, dict.fromkeys(words, 0.0))
    return words


def _read(path: Path) -> tuple[array[float], list[str]] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    start = len(MAGIC) + 16
    if not data.startswith(MAGIC) or len(data) < start:
        return None
    n = int.from_bytes(data[start - 16 : start - 8], "little")
    size = int.from_bytes(data[start - 8 : start], "little")
    end = start + 8 * n
    if len(data) != end + size:  # truncated, or more than was written
        return None
    values = array("d")
    values.frombytes(data[start:end])
    if sys.byteorder != "little":
        values.byteswap()
    try:
        words = data[end:].decode("utf-8").split("\n") if n else []
    except UnicodeDecodeError:
        return None
    return (values, words) if len(words) == n else None


def _write(path: Path, table: dict[str, float]) -> None:
    values = array("d", table.values())
    if sys.byteorder != "little":
        values.byteswap()
    words = "\n".join(table).encode("utf-8")
    head = MAGIC + len(table).to_bytes(8, "little") + len(words).to_bytes(8, "little")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, head + values.tobytes() + words)
    except (OSError, InputError):  # an unwritable cache costs time, never the run
        return
