"""Test sets of `fitsub eval`: reference, source and system output files read and aligned.

Plain text files hold one segment per line; subtitle files (.srt, .vtt) one segment per cue, its
lines joined by a space (the cue's visible text and duration are kept for subtitle compliance).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fitsub.errors import InputError
from fitsub.formats import read_document
from fitsub.io.text import read_text_lines
from fitsub.markup import visible_text

SUBTITLE_SUFFIXES = (".srt", ".vtt")


@dataclass(frozen=True)
class TestSet:
    """The files of one test set: reference, and source and/or system output."""

    __test__ = False  # not a pytest class

    name: str
    ref: Path
    src: Path | None = None
    hyp: Path | None = None


def parse_testset(spec: str, src_lang: str, tgt_lang: str) -> TestSet:
    """`NAME=PREFIX` → source `PREFIX.<src_lang>`, reference `PREFIX.<tgt_lang>`."""
    name, sep, prefix = spec.partition("=")
    if not sep or not name or not prefix:
        raise InputError(None, f"must be NAME=PREFIX, got {spec!r}", setting="testset")
    return TestSet(name, ref=Path(f"{prefix}.{tgt_lang}"), src=Path(f"{prefix}.{src_lang}"))


def is_subtitle(path: Path) -> bool:
    """Whether a file is read as subtitles (by its suffix)."""
    return path.suffix.lower() in SUBTITLE_SUFFIXES


@dataclass
class LoadedSet:
    """A test set in memory: aligned segment texts (lines of subtitles joined by a space)."""

    name: str
    refs: list[str]
    srcs: list[str] | None = None
    hyps: list[str] | None = None
    # Subtitle output only: per cue, the visible text (lines joined by "\n") and duration in ms.
    hyp_cues: list[tuple[str, int]] | None = None


def read_lines(path: Path) -> list[str]:
    """One segment per line of a UTF-8 text file (a BOM and the line ends removed)."""
    lines = read_text_lines(path)
    if not lines:
        raise InputError(path, "is empty")
    return lines


def read_cues(path: Path) -> list[tuple[str, int]]:
    """Per subtitle cue: its visible text (markup removed, lines joined by "\\n"), duration ms."""

    if not path.is_file():
        raise InputError(path, "no such file")
    doc = read_document(path)
    if not doc.segments:
        raise InputError(path, "has no cues")
    return [(visible_text(seg.text, doc.format), seg.duration_ms or 0) for seg in doc.segments]


def _flat(text: str) -> str:
    return " ".join(part.strip() for part in text.split("\n") if part.strip())


def _texts(path: Path) -> tuple[list[str], list[tuple[str, int]] | None]:
    if is_subtitle(path):
        cues = read_cues(path)
        return [_flat(t) for t, _ in cues], cues
    return read_lines(path), None


def load_testset(ts: TestSet, max_segments: int | None = None) -> LoadedSet:
    """Read and align a test set's files; a count mismatch is an InputError naming both files."""
    refs, _ = _texts(ts.ref)
    srcs = hyps = None
    cues = None
    if ts.src is not None:
        srcs, _ = _texts(ts.src)
        _check_count(ts.src, len(srcs), ts.ref, len(refs))
    if ts.hyp is not None:
        hyps, cues = _texts(ts.hyp)
        _check_count(ts.hyp, len(hyps), ts.ref, len(refs))
    if max_segments is not None:
        if max_segments < 1:
            raise InputError(
                None, f"must be at least 1, got {max_segments}", setting="max_segments"
            )
        refs = refs[:max_segments]
        srcs = None if srcs is None else srcs[:max_segments]
        hyps = None if hyps is None else hyps[:max_segments]
        cues = None if cues is None else cues[:max_segments]
    return LoadedSet(ts.name, refs=refs, srcs=srcs, hyps=hyps, hyp_cues=cues)


def _check_count(path: Path, n: int, ref: Path, n_ref: int) -> None:
    if n != n_ref:
        unit = "cues" if is_subtitle(path) else "lines"
        raise InputError(path, f"has {n} {unit} but {ref} has {n_ref}; the files must align")
