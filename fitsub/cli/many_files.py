"""Many files in one run: the inputs a folder or pattern names, one file's read → translate →
write, the summary line.

`fitsub translate DIR_OR_GLOB… --out-dir OUT` loads the model once and calls `translate_file`
for each file; a file that fails (bad input, an unwritable output) is recorded and the run goes
on (`FileOutcome.error`). Everything a file needs is checked before its translation starts, so
a failed file writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.cli.report import plural, report_dict
from fitsub.document import Document, Format
from fitsub.errors import InputError
from fitsub.formats import document_bytes, read_document, with_target_language
from fitsub.identity import is_identity
from fitsub.io.outputs import STDIO
from fitsub.pipeline import (
    Progress,
    Summary,
    TranslateOptions,
    summarize_results,
    translate_document,
)


@dataclass
class FileOutcome:
    """What happened to one file of a batch."""

    input: Path
    output: Path
    document: Document | None = None
    summary: Summary | None = None
    encoding: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    report: dict[str, Any] | None = None

    @property
    def line(self) -> str:
        """The one-line summary printed per file."""
        if self.error is not None or self.summary is None:
            where = "" if str(self.error).startswith(str(self.input)) else f"{self.input}: "
            return f"FAILED {where}{self.error}"
        s = self.summary
        return (
            f"{self.input} → {self.output}: {plural(s.translated, 'segment')}, "
            f"{100 * s.fitted_within:.1f} % within budget, {s.flagged} flagged"
        )


def translate_file(
    src: Path,
    out: Path,
    backend: TranslationBackend,
    opts: TranslateOptions,
    meta: dict[str, Any],
    fmt: Format | None = None,
    encoding: str | None = None,
    progress: Progress | None = None,
) -> FileOutcome:
    """Read, translate and write one file (atomically); errors are the caller's to catch."""
    from fitsub.io.atomic import atomic_write_bytes
    from fitsub.io.outputs import check_output_path

    doc = read_document(src, fmt, encoding)
    if out.parent.is_dir():  # else created below, once there is something to write
        check_output_path(out, "output", [src])
    result = translate_document(doc, backend, opts, progress=progress)
    translated = (
        result.document
        if is_identity(backend.name)
        else with_target_language(result.document, opts.lang)
    )
    data, used = document_bytes(translated, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    check_output_path(out, "output", [src])
    atomic_write_bytes(out, data)
    summary = summarize_results(result.segments)
    info = {
        **meta,
        "input": str(src),
        "output": str(out),
        "format": doc.format,
        "encoding": used,
        "encoding_detected": encoding_info(doc),
    }
    return FileOutcome(
        input=src,
        output=out,
        document=translated,
        summary=summary,
        encoding=used,
        warnings=[*doc.warnings, *result.warnings],
        report=report_dict(result.segments, summary, info),
    )


def encoding_info(doc: Document) -> dict[str, object]:
    """How the input's encoding was chosen, for the JSON report."""
    return {"encoding": doc.encoding, "by": doc.detected_by, "confidence": doc.confidence}


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
