"""The bilingual review file: the file a subtitler opens to check and fix a fitted translation.

One row per translated segment: id, timing, source, unconstrained translation, fitted
translation, budget, the three lengths and the flags (`fitsub.pipeline.summary.needs_review`:
the quality flags of `fitsub.quality.flags` and the budget's `too-small` / `too-short`). The format
follows the extension:

* `.tsv`: tab-separated UTF-8 with a header row; inside a field a line break is written `\\n`, a
  tab `\\t` and a backslash `\\\\` (the usual TSV escapes), so every segment stays one line.
  The `fitted` column holds the editable text (`fitsub.review.edits.editable_text`: words without
  markup, the file's line breaks): edited in a spreadsheet, the TSV is an edits file for
  `fitsub apply`;
* `.html` / `.htm`: the editable review page (`fitsub.review.page`): one static file with live
  limits, filters, keyboard navigation and an export of the edits as JSON.

`check_review_path` is called before translating: an unknown extension, a directory or a
missing folder is an `InputError` (one line, exit 2) and nothing is translated or written.
The file is written atomically (`fitsub.io.atomic`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from fitsub.budget import Limits
from fitsub.document import Document
from fitsub.errors import InputError
from fitsub.io.atomic import atomic_write_text
from fitsub.io.outputs import check_output_path
from fitsub.pipeline import SegmentResult
from fitsub.pipeline.summary import budget_flags
from fitsub.review.edits import editable_text, timestamp

FORMATS = {".tsv": "tsv", ".html": "html", ".htm": "html"}
COLUMNS: tuple[str, ...] = (
    "id",
    "start",
    "end",
    "source",
    "unconstrained",
    "fitted",
    "budget",
    "source chars",
    "unconstrained chars",
    "fitted chars",
    "flags",
)


def review_format(path: Path) -> str:
    """`tsv` or `html` from the extension (InputError for any other)."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise InputError(path, f"review file must end in {known}")
    return fmt


def check_review_path(path: Path, inputs: Iterable[Path] = ()) -> str:
    """Check a --review location before any work; its format (`tsv` or `html`).

    InputError for an unknown extension, and for whatever `fitsub.io.outputs.check_output_path` refuses
    (a directory, a missing folder, a special file, one of `inputs`).
    """
    path = Path(path)
    fmt = review_format(path)
    check_output_path(path, "--review", inputs)
    return fmt


def review_rows(doc: Document, results: Sequence[SegmentResult]) -> list[list[str]]:
    """The rows of the review (one per translated segment), as `COLUMNS`."""
    rows = []
    for r in results:
        if r.budget is None:
            continue
        seg = doc.segments[r.index]
        rows.append(
            [
                r.id or str(r.index + 1),
                timestamp(seg.start_ms),
                timestamp(seg.end_ms),
                r.source,
                r.unconstrained or "",
                editable_text(seg.text, doc.markup),
                str(r.budget.chars),
                str(r.budget.source_chars),
                "" if r.unconstrained_chars is None else str(r.unconstrained_chars),
                str(r.fitted_chars),
                "; ".join(
                    [f"{f.name} ({f.detail})" if f.detail else f.name for f in r.flags]
                    + budget_flags(r)
                ),
            ]
        )
    return rows


def _tsv_field(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def review_tsv(doc: Document, results: Sequence[SegmentResult]) -> str:
    """The review as TSV (header row, escaped fields, one line per segment)."""
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(_tsv_field(c) for c in row) for row in review_rows(doc, results)]
    return "\n".join(lines) + "\n"


def write_review(
    path: Path,
    doc: Document,
    results: Sequence[SegmentResult],
    title: str = "fitsub",
    *,
    source: Document | None = None,
    limits: Limits | None = None,
    lang: str = "it",
    output: Path | None = None,
) -> None:
    """Write the review in the format of `path`'s extension (atomically).

    `doc` is the translated document, `source` the source document (its cue texts shown and
    fingerprinted), `limits` the subtitle limits of the run, `output` the translated file.
    """
    fmt = review_format(path)
    if fmt == "tsv":
        text = review_tsv(doc, results)
    else:
        from fitsub.review.page import review_page

        text = review_page(
            doc, results, title=title, source=source, limits=limits, lang=lang, output=output
        )
    atomic_write_text(Path(path), text)
