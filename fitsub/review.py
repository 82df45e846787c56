"""The bilingual review file: the file a subtitler opens to check a fitted translation.

One row per translated segment: id, timing, source, unconstrained translation, fitted
translation, budget, the three lengths and the quality flags (`fitsub.flags`). The format
follows the extension:

* `.tsv`: tab-separated UTF-8 with a header row; inside a field a line break is written `\\n`, a
  tab `\\t` and a backslash `\\\\` (the usual TSV escapes), so every segment stays one line;
* `.html` / `.htm`: one static page (inline style, no script, no external resource) with the
  flag counts on top and the flagged rows highlighted; every text is HTML-escaped, line breaks
  become `<br/>`, and the page is well-formed XML as well as HTML.

`check_review_path` is called before translating: an unknown extension, a directory or a
missing folder is an `InputError` (one line, exit 2) and nothing is translated or written.
The file is written atomically (`fitsub.io`).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from pathlib import Path

from fitsub.document import Document
from fitsub.errors import InputError
from fitsub.flags import count_flags
from fitsub.io import atomic_write_text, check_output_path
from fitsub.pipeline import SegmentResult

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

    InputError for an unknown extension, and for whatever `fitsub.io.check_output_path` refuses
    (a directory, a missing folder, a special file, one of `inputs`).
    """
    path = Path(path)
    fmt = review_format(path)
    check_output_path(path, "--review", inputs)
    return fmt


def timestamp(ms: int | None) -> str:
    """`HH:MM:SS.mmm` (empty for untimed segments such as slides)."""
    if ms is None:
        return ""
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, milli = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{milli:03d}"


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
                r.fitted,
                str(r.budget.chars),
                str(r.budget.source_chars),
                "" if r.unconstrained_chars is None else str(r.unconstrained_chars),
                str(r.fitted_chars),
                "; ".join(f"{f.name} ({f.detail})" if f.detail else f.name for f in r.flags),
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


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }
th { background: #eee; position: sticky; top: 0; }
td.num { text-align: right; white-space: nowrap; }
td.time { white-space: nowrap; font-family: monospace; }
tr.flagged { background: #fff1c2; }
tr.flagged td.flags { color: #a33; font-weight: bold; }
.summary li.none { color: #777; }
"""


def _cell(text: str) -> str:
    return html.escape(text).replace("\r\n", "\n").replace("\n", "<br/>")


def review_html(doc: Document, results: Sequence[SegmentResult], title: str = "fitsub") -> str:
    """The review as one static, well-formed HTML page."""
    rows = review_rows(doc, results)
    translated = [r for r in results if r.budget is not None]
    counts = count_flags([r.flags for r in translated])
    flagged = sum(1 for r in translated if r.flags)
    numeric = {"budget", "source chars", "unconstrained chars", "fitted chars"}
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8"/>',
        f"<title>{_cell(title)} – review</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{_cell(title)}</h1>",
        f"<p>{flagged} of {len(translated)} translated segments flagged.</p>",
        '<ul class="summary">',
    ]
    for name, n in counts.items():
        cls = "" if n else ' class="none"'
        out.append(f"<li{cls}>{_cell(name)}: {n}</li>")
    out += ["</ul>", "<table>", "<thead><tr>"]
    out += [f"<th>{_cell(c)}</th>" for c in COLUMNS]
    out += ["</tr></thead>", "<tbody>"]
    for row in rows:
        cls = ' class="flagged"' if row[-1] else ""
        cells = []
        for name, value in zip(COLUMNS, row, strict=True):
            kind = "num" if name in numeric else "time" if name in ("start", "end") else ""
            kind = "flags" if name == "flags" else kind
            attr = f' class="{kind}"' if kind else ""
            cells.append(f"<td{attr}>{_cell(value)}</td>")
        out.append(f"<tr{cls}>{''.join(cells)}</tr>")
    out += ["</tbody>", "</table>", "</body>", "</html>", ""]
    return "\n".join(out)


def write_review(
    path: Path, doc: Document, results: Sequence[SegmentResult], title: str = "fitsub"
) -> None:
    """Write the review in the format of `path`'s extension (atomically)."""
    fmt = review_format(path)
    text = review_tsv(doc, results) if fmt == "tsv" else review_html(doc, results, title)
    atomic_write_text(Path(path), text)
