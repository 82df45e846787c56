"""Atomic writes: readers see the old file or the new one, never a part.

The data goes to a temporary file in the output's directory, is flushed to disk, then renamed
over the output (`os.replace`). On Linux the temporary file is first created without a name
(``O_TMPFILE``): a run killed while writing leaves nothing behind, the kernel frees the space.
It gets a name (``.NAME.PID.fitsub-tmp``) only for the instant between `os.link` and
`os.replace`; where ``O_TMPFILE`` is not available (other systems, some file systems) it is
named from the start. Either way the next write to the same directory removes such files whose
process (PID) is gone. The new file keeps the permission bits of the file it replaces (a 0600
output stays 0600); a new output is created with mode 0666 and the kernel takes the umask off,
as for any new file (the umask is never read nor changed: setting it to probe it raced between
threads).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from fitsub.errors import InputError

TMP_SUFFIX = ".fitsub-tmp"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_stale_temporaries(directory: Path) -> list[Path]:
    """Delete `.NAME.PID.fitsub-tmp` files in `directory` left by a killed run (PID gone)."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TMP_SUFFIX)):
            continue
        parts = name[: -len(TMP_SUFFIX)].rsplit(".", 2)
        if len(parts) != 3 or not parts[2].isascii() or not parts[2].isdigit():
            continue
        pid = int(parts[2][:12] or 0)
        if pid == os.getpid() or _pid_alive(pid):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


NEW_FILE_MODE = 0o666  # the kernel takes the umask (and a default ACL) off, as for any new file


def _existing_mode(path: Path) -> int | None:
    """The permission bits of the regular file at `path`, which its replacement keeps (a 0600
    output stays 0600); None for a new file, which gets the umask's mode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never a part.

    A symbolic link at `path` is followed: the file it points to is replaced, the link kept.
    An `OSError` (a full disk: ``ENOSPC``) is an `InputError` naming the file (exit 2); the old
    file is kept and no temporary file is left. The message speaks of this file only: a caller
    that wrote others before says so (`InputError.after_writing`).
    """
    path = Path(path)
    try:
        _atomic_write(path, data)
    except OSError as err:  # disk full, quota, read-only file system: the old file is kept
        why = err.strerror or str(err)
        raise InputError(
            path, f"cannot write it: {why} (not written; an old file there is kept)"
        ) from None


def _atomic_write(path: Path, data: bytes) -> None:
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    directory = path.parent if str(path.parent) else Path(".")
    remove_stale_temporaries(directory)
    named = directory / f".{path.name}.{os.getpid()}{TMP_SUFFIX}"
    mode = _existing_mode(path)
    fd = -1
    try:
        fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, NEW_FILE_MODE)
    except (AttributeError, OSError) as err:
        if isinstance(err, OSError) and err.errno not in (
            errno.EOPNOTSUPP,
            errno.EISDIR,
            errno.EINVAL,
            errno.ENOENT,
        ):
            raise
        fd = -1
    if fd >= 0:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
            named.unlink(missing_ok=True)
            os.link(f"/proc/self/fd/{fd}", named)
        except OSError:
            os.close(fd)
            fd = -1  # fall back to a named temporary file below
        else:
            os.close(fd)
            try:
                os.replace(named, path)
            except BaseException:
                named.unlink(missing_ok=True)
                raise
            return
    _write_named(path, directory, data, mode)


def _create_named(path: Path, directory: Path) -> tuple[int, str]:
    """A new temporary file `.NAME.RANDOM.PID.fitsub-tmp` beside `path`, created with
    `NEW_FILE_MODE` (so with the umask's mode, unlike mkstemp's 0600): (fd, its path)."""
    for _ in range(100):
        tmp = os.path.join(
            directory, f".{path.name}.{secrets.token_hex(4)}.{os.getpid()}{TMP_SUFFIX}"
        )
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            return os.open(tmp, flags, NEW_FILE_MODE), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(directory))


def _write_named(path: Path, directory: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = _create_named(path, directory)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write text atomically (no newline translation: `text` is written as given)."""
    atomic_write_bytes(path, text.encode(encoding))
