"""Many files in one run: output names, one file's read → translate → write, the summary line.

`fitsub translate DIR_OR_GLOB… --out-dir OUT` loads the model once and calls `translate_file`
for each file; a file that fails (bad input, an unwritable output) is recorded and the run goes
on (`FileOutcome.error`). Everything a file needs is checked before its translation starts, so
a failed file writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fitsub.backend import TranslationBackend
from fitsub.cli.report import plural, report_dict
from fitsub.document import Document, Format
from fitsub.errors import InputError
from fitsub.formats import document_bytes, read_document, with_target_language
from fitsub.identity import is_identity
from fitsub.io import check_inside
from fitsub.pipeline import (
    Progress,
    Summary,
    TranslateOptions,
    summarize_results,
    translate_document,
)


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
    from fitsub.io import atomic_write_bytes, check_output_path

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
