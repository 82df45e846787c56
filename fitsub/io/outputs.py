"""Where outputs go: their names and the checks of an output path before any work.

`output_name` is the one naming rule (`talk.en.srt` → `talk.it.srt`): beside its input for a
single file (`default_output`), in `--out-dir` keeping the layout of a named folder for many
(`batch_outputs`). `check_output_path` is the one check every output option goes through before
any work; `check_inside` keeps a batch's outputs inside `--out-dir`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from fitsub.errors import InputError

STDIO = "-"


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


def default_output(src: Path, lang: str, src_lang: str) -> Path:
    """A single file's output, beside it: `talk.srt` → `talk.it.srt`."""
    return src.with_name(output_name(src, lang, src_lang))


def output_name(src: Path, lang: str, src_lang: str) -> str:
    """`talk.srt` → `talk.it.srt`; `talk.en.srt` → `talk.it.srt`."""
    stem = src.stem
    if stem.endswith(f".{src_lang}"):
        stem = stem[: -len(src_lang) - 1]
    return f"{stem}.{lang}{src.suffix}"


def batch_outputs(
    files: Sequence[tuple[Path, Path | None]], out_dir: Path | None, lang: str, src_lang: str
) -> list[Path]:
    """Each input's output: in `out_dir` (keeping the layout under a named folder) or beside it.

    `InputError` when two inputs would write the same output or an output is an input.
    """
    outputs: list[Path] = []
    for src, root in files:
        name = output_name(src, lang, src_lang)
        if out_dir is None:
            outputs.append(src.with_name(name))
        else:
            rel = src.parent.relative_to(root) if root is not None else Path()
            outputs.append(out_dir / rel / name)
            check_inside(outputs[-1], out_dir, "--out-dir")
    seen: dict[str, Path] = {}
    inputs = {os.path.abspath(src) for src, _ in files}
    for (src, _), out in zip(files, outputs, strict=True):
        key = os.path.abspath(out)
        if key in seen:
            raise InputError(out, f"both {seen[key]} and {src} would be written here")
        if key in inputs:
            raise InputError(out, "an output would overwrite an input; use --out-dir")
        seen[key] = src
    return outputs
