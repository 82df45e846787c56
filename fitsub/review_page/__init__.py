"""The editable review page: one static HTML file (no server, no external resource, offline).

Per translated segment: the timing and duration, the source cue as written (markup and line
breaks shown as text), the unconstrained and fitted translations, the budget and the limit that
binds it, the quality score when the pipeline gives one, and the flags (`needs_review`: the
quality flags plus the budget's `too-small` and `too-short`). The fitted text is editable in
place; live counters show its characters against the budget, its longest line against the
line's room and its number of lines, and its reading speed against the CPS limit, red when a
limit breaks. Filters (flagged only, one flag, score below), keyboard navigation (Alt+↓ /
Alt+↑ or j / k: next / previous line to look at; Alt+U: use the unconstrained translation) and
an export button that saves the edits as JSON (`fitsub.edits`), applied with `fitsub apply`.

Safety: the data goes into a ``<script type="application/json">`` block with every ``<``, ``>``
and ``&`` written as a JSON escape, and the page's script (`review.js`, static) builds the table
with ``textContent``: a subtitle holding ``<script>`` or ``onerror=`` stays text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fitsub.budget import Limits
from fitsub.document import Document
from fitsub.edits import editable_text, fingerprint, timestamp
from fitsub.markup import Protected, protect
from fitsub.pipeline import SegmentResult, summarize_results
from fitsub.pipeline.plan import line_room
from fitsub.pipeline.summary import budget_flags, needs_review
from fitsub.reflow import reflow

LOW_SCORE = 0.5  # quality scores under it are shown in red (the filter takes any threshold)
MEANING = {
    "too-small": "the budget is below any plausible translation of the source (budget warning)",
    "too-short": "the cue is on screen too briefly to be read, whatever its text (timing warning)",
}


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _binding(r: SegmentResult) -> str:
    b = r.budget
    assert b is not None
    limits = [
        f"{name} {value}"
        for name, value in (
            ("ratio", b.ratio_limit),
            ("layout", b.layout_limit),
            ("speed", b.speed_limit),
        )
        if value is not None
    ]
    return f"{b.binding} binds" + (f" ({', '.join(limits)})" if len(limits) > 1 else "")


def _laid_out(
    text: str, prot: Protected, room: int | None, limits: Limits | None, lang: str
) -> str:
    """The unconstrained translation laid out as `fitsub apply` would write it (a dialogue: one
    line per turn, split as `Protected.restore` splits it)."""
    if prot.is_dialogue:
        return "\n".join(t.plain for t in protect(prot.restore(text), "srt").turns)
    if room is None or limits is None:
        return text
    return "\n".join(reflow(text, room, limits.lines, lang=lang))


def page_data(
    doc: Document,
    results: Sequence[SegmentResult],
    *,
    title: str,
    source: Document | None = None,
    limits: Limits | None = None,
    lang: str = "it",
    output: Path | None = None,
) -> dict[str, Any]:
    """What the page shows: `meta` (title, limits, fingerprint, counts) and one row per segment."""
    limits = limits if doc.timed else None
    rows = []
    for r in results:
        if r.budget is None:
            continue
        seg = doc.segments[r.index]
        prot = protect(seg.text, doc.markup)
        room = line_room(prot, limits) if limits is not None else None
        quality = getattr(r, "quality", None)
        flags = [[f.name, f.detail] for f in r.flags] + [[name, ""] for name in budget_flags(r)]
        if not r.model_fits and not any(f[0] == "over-budget" for f in flags):
            flags.append(["over-budget", "no translation fit"])
        rows.append(
            {
                "i": r.index,
                "id": r.id,
                "start": timestamp(seg.start_ms),
                "end": timestamp(seg.end_ms),
                "dur": seg.duration_ms,
                "src": source.segments[r.index].text if source is not None else r.source,
                "unc": r.unconstrained,
                "unc_fit": None
                if r.unconstrained is None
                else _laid_out(
                    text=r.unconstrained, prot=prot, room=room, limits=limits, lang=lang
                ),
                "fit": editable_text(seg.text, doc.markup),
                "budget": r.budget.chars,
                "bind": _binding(r),
                "room": room,
                "markup": prot.markup_chars if doc.timed else 0,
                "turns": len(prot.turns),
                "flags": flags,
                "q": None if quality is None else round(float(quality), 3),
            }
        )
    translated = [r for r in results if r.budget is not None]
    summary = summarize_results(results)
    by_flag = {
        **summary.flag_counts,
        "too-small": summary.too_small,
        "too-short": summary.too_short,
    }
    assert summary.flagged == sum(1 for r in translated if needs_review(r))
    meta = {
        "title": title,
        "lang": lang,
        "timed": doc.timed,
        "limits": None
        if limits is None
        else {
            "cpl": limits.cpl,
            "lines": limits.lines,
            "cps": limits.cps,
            "reading_speed": limits.reading_speed,
        },
        "fingerprint": fingerprint(doc, source),
        "source_name": None if source is None or source.path is None else source.path.name,
        "translated_name": None if output is None else output.name,
        "edits_name": edits_name_for(output),
        "low_score": LOW_SCORE,
        "has_scores": any(row["q"] is not None for row in rows),
        "counts": {
            "translated": summary.translated,
            "flagged": summary.flagged,
            "by_flag": by_flag,
            "meaning": MEANING,
        },
    }
    return {"meta": meta, "rows": rows}


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>``, ``&`` and U+2028/9 escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def review_page(
    doc: Document,
    results: Sequence[SegmentResult],
    *,
    title: str = "fitsub",
    source: Document | None = None,
    limits: Limits | None = None,
    lang: str = "it",
    output: Path | None = None,
) -> str:
    """The editable review page as one self-contained HTML document (`output`: the translated
    file the edits go into, named in the page)."""
    data = page_data(
        doc, results, title=title, source=source, limits=limits, lang=lang, output=output
    )
    columns = [
        "segment",
        "source",
        "unconstrained",
        "fitted (edit here)",
        "budget",
        "score",
        "flags",
    ]
    head = "".join(f'<div class="cell">{html.escape(c)}</div>' for c in columns)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8"/>',
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\"/>",
            f"<title>{html.escape(title)} – review</title>",
            f"<style>{_asset('review.css')}</style>",
            "</head>",
            "<body>",
            '<header id="head"></header>',
            "<noscript><p>This review page needs JavaScript to show and edit the segments; "
            "the review TSV (--review review.tsv) is the plain-text alternative.</p></noscript>",
            f'<div class="row head">{head}</div>',
            '<main id="rows"></main>',
            '<p id="empty"></p>',
            f'<script type="application/json" id="fitsub-data">{script_json(data)}</script>',
            f"<script>{_asset('review.js')}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def edits_name_for(translated: Path | None) -> str:
    """`talk.it.srt` → `talk.it.edits.json` (the name the page's export suggests)."""
    return "edits.json" if translated is None else f"{translated.stem}.edits.json"
