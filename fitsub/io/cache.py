"""The user's cache, $XDG_CACHE_HOME/fitsub (~/.cache/fitsub without it): what fitsub derives
once and reads back (CTranslate2 conversions, `fitsub.nmt.ct2`; word tables,
`fitsub.quality.word_cache`), and file digests remembered by their file's stat (`file_digest`).

Nothing here is needed for a run to be right: an unreadable entry is derived again, and a cache
that cannot be written costs only time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_bytes

DIGESTS = "file-digests.json"  # in `user_cache()`: {"path|size|inode|mtime_ns": sha256}
SETTLE_S = 2.0  # a file modified this recently is hashed, never remembered
MAX_DIGESTS = 256  # the oldest are forgotten beyond this


def user_cache() -> Path:
    """$XDG_CACHE_HOME/fitsub (~/.cache/fitsub without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fitsub"


def file_digest(path: Path) -> str:
    """The file's SHA-256, remembered in the cache (`DIGESTS`) by its path, size, inode and
    modification time: hashing a model's weights and its converted model.bin cost ~0.25 s of
    every start (en-it, 2-core AVX2). A file modified within `SETTLE_S` of being hashed is never
    remembered (a second write in the same clock tick would keep size and time: git's "racy"
    entries), so it is hashed again until it has settled."""
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_ino}|{st.st_mtime_ns}"
    memo = _digests()
    if key in memo:
        return memo[key]
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    value = h.hexdigest()
    if time.time_ns() - st.st_mtime_ns > SETTLE_S * 1e9:
        _remember(memo, key, value)
    return value


def _digests() -> dict[str, str]:
    try:
        memo = json.loads((user_cache() / DIGESTS).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(memo, dict):
        return {}
    return {k: v for k, v in memo.items() if isinstance(k, str) and isinstance(v, str)}


def _remember(memo: dict[str, str], key: str, value: str) -> None:
    memo[key] = value
    kept = dict(list(memo.items())[-MAX_DIGESTS:])
    try:
        user_cache().mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(user_cache() / DIGESTS, (json.dumps(kept) + "\n").encode("utf-8"))
    except (OSError, InputError):  # an unwritable cache costs time, never the run
        return
