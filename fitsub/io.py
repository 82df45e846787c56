"""File helpers: atomic writes, output-path checks before any work, line-aligned text.

Atomic writes: the data goes to a temporary file in the output's directory, is flushed to disk,
then renamed over the output (`os.replace`), so readers see the old file or the new one.
On Linux the temporary file is first created without a name (``O_TMPFILE``): a run killed
while writing leaves nothing behind, the kernel frees the space. It gets a name
(``.NAME.PID.fitsub-tmp``) only for the instant between `os.link` and `os.replace`; where
``O_TMPFILE`` is not available (other systems, some file systems) it is named from the start.
Either way the next write to the same directory removes such files whose process (PID) is gone.
The new file keeps the permission bits of the file it replaces (a 0600 output stays 0600); a
new output is created with mode 0666 and the kernel takes the umask off, as for any new file
(the umask is never read nor changed: setting it to probe it raced between threads).

`check_output_path` is the one check every output option goes through before any work;
`expand_inputs` turns the folders and glob patterns of a batch run into files.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from fitsub.errors import InputError

TMP_SUFFIX = ".fitsub-tmp"
STDIO = "-"


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


def _kind(mode: int) -> str | None:
    """A name for a file that is not a regular file or directory (None for those)."""
    for test, name in (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return None


def _refuse_system_paths(path: Path, target: Path, option: str, or_stdout: str) -> None:
    """`InputError` for a path under /dev, /proc or /sys (but /dev/shm), as given or resolved."""
    for place in (Path(os.path.abspath(path)), target):
        if place.parts[1:2] in (("dev",), ("proc",), ("sys",)) and place.parts[2:3] != ("shm",):
            raise InputError(
                path,
                f"{option} is a special file ({place.parts[0]}{place.parts[1]}), not a regular "
                f"file; choose a file path{or_stdout}",
            )


def _check_existing(
    path: Path,
    target: Path,
    st: os.stat_result,
    option: str,
    inputs: Iterable[Path],
    directory: bool,
    or_stdout: str,
) -> None:
    """`InputError` when an existing output location is special, of the wrong kind, or an input."""
    kind = _kind(st.st_mode)
    if kind is not None:
        raise InputError(
            path, f"{option} is {kind}, not a regular file; choose a file path{or_stdout}"
        )
    if directory and not stat.S_ISDIR(st.st_mode):
        raise InputError(path, f"{option} must be a directory, but this is a file")
    if not directory and stat.S_ISDIR(st.st_mode):
        raise InputError(path, f"{option} is a directory; give a file name")
    for source in inputs:
        if str(source) == STDIO:
            continue
        try:
            same = os.path.samefile(source, target)
        except OSError:
            same = False
        if same:
            raise InputError(
                path, f"{option} is the input file {str(source)!r}; choose another path"
            )


def check_output_path(
    path: Path | None,
    option: str,
    inputs: Iterable[Path] = (),
    *,
    directory: bool = False,
    allow_stdout: bool = False,
) -> None:
    """Check an output location before any work; `InputError` (exit 2) naming `option` if bad.

    Refused: a directory where a file is wanted (a file where a directory is wanted), a special
    file (character or block device such as /dev/stdout or /dev/full, FIFO, socket), a path whose
    folder does not exist or cannot be written, a path that is one of `inputs` (through symbolic
    or hard links too). `-` is standard output, allowed only with `allow_stdout`. With
    `directory`, `path` is a folder that will be created if missing (its parent must exist).
    Nothing is created or written.
    """
    if path is None:
        return
    if str(path) == STDIO:
        if not allow_stdout:
            raise InputError(None, f"{option} cannot be '-' (standard output)")
        return
    path = Path(path)
    target = Path(os.path.realpath(path))
    or_stdout = " or -" if allow_stdout else ""
    _refuse_system_paths(path, target, option, or_stdout)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise InputError(path, f"{option}: cannot use this path ({err.strerror})") from None
    if st is not None:
        _check_existing(
            path=path,
            target=target,
            st=st,
            option=option,
            inputs=inputs,
            directory=directory,
            or_stdout=or_stdout,
        )
    parent = target if (directory and st is not None) else target.parent
    if not parent.is_dir():
        raise InputError(path, f"{option}: folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(path, f"{option}: folder {str(parent)!r} is not writable")


def check_inside(path: Path, folder: Path, option: str) -> None:
    """`InputError` when writing `path` would land outside `folder`: a symbolic link at the
    output name, or a linked folder on the way, that leads out of it (nothing is written)."""
    root = os.path.realpath(folder)
    target = os.path.realpath(path)
    if os.path.commonpath([root, target]) != root:
        raise InputError(
            path,
            f"{option}: refusing to write through a symbolic link that leads outside the "
            f"folder (to {target!r})",
        )


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Write text atomically (no newline translation: `text` is written as given)."""
    atomic_write_bytes(path, text.encode(encoding))


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


_GLOB_CHARS = frozenset("*?[")


def expand_inputs(
    args: Sequence[Path], extensions: Collection[str]
) -> list[tuple[Path, Path | None]]:
    """The files named by paths, folders and glob patterns, each with the folder it came from.

    A folder gives every file under it (recursively, sorted) whose extension is in
    `extensions`; a pattern the shell left unexpanded (``'talks/*.srt'``, ``**`` recursive) gives
    its matches; a file is itself. Each file comes once, with the folder it was found in (None for
    a file named directly or by a pattern), so batch outputs can keep the folder's layout.
    `InputError` for a name that is none of these or a folder or pattern that matches nothing.
    """
    import glob

    found: list[tuple[Path, Path | None]] = []
    seen: set[str] = set()

    def add(path: Path, root: Path | None) -> None:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            found.append((path, root))

    for arg in args:
        text = str(arg)
        if text == STDIO:
            add(arg, None)
        elif arg.is_dir():
            files = sorted(
                p for p in arg.rglob("*") if p.is_file() and p.suffix.lower() in extensions
            )
            if not files:
                known = ", ".join(sorted(extensions))
                raise InputError(arg, f"folder holds no file to translate ({known})")
            for p in files:
                add(p, arg)
        elif not arg.exists() and _GLOB_CHARS & set(text):
            matches = sorted(glob.glob(text, recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise InputError(arg, "pattern matches no file")
            for p in files:
                add(p, None)
        else:
            add(arg, None)  # read_document says what is wrong with it, if anything
    return found
