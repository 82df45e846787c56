"""The editable review page: one static HTML file (no server, no external resource, offline).

Per translated segment: the timing and duration, the source cue as written (markup and line
breaks shown as text), the unconstrained and fitted translations, the budget and the limit that
binds it, the quality score when the pipeline gives one, and the flags (`needs_review`: the
quality flags plus the budget's `too-small` and `too-short`). The fitted text is editable in
place; live counters show its characters against the budget, its longest line against the
line's room and its number of lines, and its reading speed against the CPS limit, red when a
limit breaks. Filters (flagged only, one flag, score below), keyboard navigation (Alt+↓ /
Alt+↑ or j / k: next / previous line to look at; Alt+U: use the unconstrained translation;
outside a text box 1-4 / 0: take one of the row's alternatives, `fitsub.pipeline.alternatives`,
or the unconstrained translation, also by a click) and
an export button that saves the edits as JSON (`fitsub.review.edits`) named after the translated file
(`talk.it.edits.json`) and shows the `fitsub apply` command to copy; a load button takes such a
file back (same fingerprint only) to go on with a half-done review. Rows are coloured by their
worst flag's severity (`fitsub.quality.registry`: error, over budget, timing only), and the
flags the page can recount (lengths, numbers and names copied from the source) follow an edit
as it is typed; those `fitsub apply --source` rechecks (`untranslated`, `meaning-reversed`) are
marked "edited — rechecked by apply", the others (the score, the model's flags) "not rechecked".

Safety: the data goes into a ``<script type="application/json">`` block with every ``<``, ``>``
and ``&`` written as a JSON escape, and the page's script (`review.js`, static) builds the table
with ``textContent``: a subtitle holding ``<script>`` or ``onerror=`` stays text. Behind that,
a Content-Security-Policy allows only the page's own script and style, by their SHA-256
(`content_policy`): a script that got in some other way would not run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import shlex
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from fitsub.budget import Limits, line_room
from fitsub.document import Document
from fitsub.markup import Protected, protect
from fitsub.pipeline import SegmentResult, summarize_results
from fitsub.pipeline.alternatives import MAX_FITTING, UNCONSTRAINED, Alternative
from fitsub.pipeline.summary import budget_flags, needs_review
from fitsub.quality.qe_model import load_model
from fitsub.quality.registry import OVER_BUDGET, TOO_SHORT, TOO_SMALL
from fitsub.reflow import reflow
from fitsub.review.edits import editable_text, fingerprint, timestamp
from fitsub.review.page.live import page_checks, row_checks, severity_counts, worst


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


def _alternative(
    a: Alternative, prot: Protected, room: int | None, limits: Limits | None, lang: str
) -> dict[str, Any]:
    """One alternative as the page offers it: the text laid out as `fitsub apply` writes it,
    its characters, model score, whether it fits, its flags and its kind."""
    return {  # the unconstrained one: as `unc_fit` ("use unconstrained")
        "text": _laid_out(text=a.text, prot=prot, room=room, limits=limits, lang=lang),
        "n": a.chars,
        "score": round(a.score, 2),
        "fits": a.fits,
        "flags": [[f.name, f.detail] for f in a.flags],
        "kind": a.kind,
    }


def _offers(
    r: SegmentResult,
    *,
    prot: Protected,
    room: int | None,
    limits: Limits | None,
    lang: str,
    fit: str,
    doc: Document,
) -> dict[str, Any]:
    """A row's alternatives (`alts`: the fitting ones other than the text it holds, keys 1-4)
    and the unconstrained translation's length, score and flags (`unc_alt`, key 0)."""
    held = " ".join(editable_text(fit, doc.markup).split())
    offered = [
        _alternative(a, prot=prot, room=room, limits=limits, lang=lang) for a in r.alternatives
    ]
    unc = [a for a in offered if a["kind"] == UNCONSTRAINED]
    return {
        "alts": [
            a for a in offered if a["kind"] != UNCONSTRAINED and " ".join(a["text"].split()) != held
        ],
        "unc_alt": unc[0] if unc and r.unconstrained is not None else None,
    }


def row_offers(
    r: SegmentResult, doc: Document, index: int, *, limits: Limits | None, lang: str
) -> dict[str, Any]:
    """The alternatives of a segment translated again (`fitsub.review.retranslate`) as the
    page's row `index` of the translated `doc` offers them (`alts`, `unc_alt`).

    The answer's own unconstrained translation, when it fits and is not the row's text, is
    offered first among `alts`: key 0 keeps the run's unconstrained line, and a forced term
    often gives exactly the fix as the new unconstrained line ("da un francese.")."""
    seg = doc.segments[index]
    prot = protect(seg.text, doc.markup)
    limits = limits if doc.timed else None
    room = line_room(prot, limits) if limits is not None else None
    offers = _offers(r, prot=prot, room=room, limits=limits, lang=lang, fit=seg.text, doc=doc)
    unc, alts = offers["unc_alt"], offers["alts"]
    held = " ".join(editable_text(seg.text, doc.markup).split())
    shown = {held, *(" ".join(a["text"].split()) for a in alts)}
    if unc is not None and unc["fits"] and " ".join(unc["text"].split()) not in shown:
        offers["alts"] = [unc, *alts][:MAX_FITTING]
    return offers


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
    rows = [
        _row(r, doc=doc, source=source, limits=limits, lang=lang)
        for r in results
        if r.budget is not None
    ]
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
        "apply": apply_command(output, source),  # None: written to stdout
        "checks": page_checks(lang),
        "low_score": load_model().threshold_for(lang),  # shown in red under it
        "has_scores": any(row["q"] is not None for row in rows),
        "counts": _counts(results, rows),
    }
    return {"meta": meta, "rows": rows}


def _row(
    r: SegmentResult,
    *,
    doc: Document,
    source: Document | None,
    limits: Limits | None,
    lang: str,
) -> dict[str, Any]:
    """One translated segment's row: timing, source, both translations, budget, flags."""
    assert r.budget is not None
    seg = doc.segments[r.index]
    prot = protect(seg.text, doc.markup)
    room = line_room(prot, limits) if limits is not None else None
    quality = getattr(r, "quality", None)
    flags = [[f.name, f.detail] for f in r.flags] + [[name, ""] for name in budget_flags(r)]
    if not r.fits and not any(f[0] == OVER_BUDGET for f in flags):
        flags.append([OVER_BUDGET, "no translation fit"])
    return {
        "i": r.index,
        "id": r.id,
        "start": timestamp(seg.start_ms),
        "end": timestamp(seg.end_ms),
        "dur": seg.duration_ms,
        "src": source.segments[r.index].text if source is not None else r.source,
        "unc": r.unconstrained,
        "unc_fit": None
        if r.unconstrained is None
        else _laid_out(text=r.unconstrained, prot=prot, room=room, limits=limits, lang=lang),
        "fit": editable_text(seg.text, doc.markup),
        **_offers(r, prot=prot, room=room, limits=limits, lang=lang, fit=seg.text, doc=doc),
        "budget": r.budget.chars,
        "bind": _binding(r),
        "room": room,
        "markup": prot.markup_chars if doc.timed else 0,
        "turns": len(prot.turns),
        "flags": flags,
        "q": None if quality is None else round(float(quality), 3),
        "sev": worst([f[0] for f in flags]),
        **row_checks(r.source, r.unconstrained, lang),
    }


def _counts(results: Sequence[SegmentResult], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's counts: segments translated and flagged, per flag and per severity."""
    translated = [r for r in results if r.budget is not None]
    summary = summarize_results(results)
    by_flag = {
        **summary.flag_counts,
        TOO_SMALL: summary.too_small,
        TOO_SHORT: summary.too_short,
    }
    assert summary.flagged == sum(1 for r in translated if needs_review(r))
    return {
        "translated": summary.translated,
        "flagged": summary.flagged,
        "by_flag": by_flag,
        "by_severity": severity_counts([[f[0] for f in row["flags"]] for row in rows]),
    }


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
    style, script = _asset("review.css"), _asset("checks.js") + _asset("review.js")
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8"/>',
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
            f'<meta http-equiv="Content-Security-Policy" content="{content_policy(script, style)}"/>',
            f"<title>{html.escape(title)} – review</title>",
            f"<style>{style}</style>",
            "</head>",
            "<body>",
            '<header><div id="head"></div>',
            f'<div class="row head">{head}</div></header>',
            "<noscript><p>This review page needs JavaScript to show and edit the segments; "
            "the review TSV (--review review.tsv) is the plain-text alternative.</p></noscript>",
            '<main id="rows"></main>',
            '<p id="empty"></p>',
            f'<script type="application/json" id="fitsub-data">{script_json(data)}</script>',
            f"<script>{script}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def csp_hash(text: str) -> str:
    """The CSP source expression of an inline element's text: `'sha256-<base64>'`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_policy(script: str, style: str) -> str:
    """The page's Content-Security-Policy: nothing loads, nothing is sent, and only the inline
    script and style whose texts are `script` and `style` run (by hash)."""
    return (
        f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(style)}; "
        "base-uri 'none'; form-action 'none'"
    )


SERVED_CONNECT = "connect-src 'self'; "


def served_page(page: str, doc: Document, source: Document) -> str:
    """The review page as `fitsub review --serve` serves it: the same page, its policy also
    allowing requests to the server that served it (`connect-src 'self'`), nothing else.
    `ValueError` when `page` is no review page, or one of another translation of `source`
    (`doc`: the translated file; its fingerprint, `fitsub.review.edits.fingerprint`)."""
    head = "default-src 'none'; "
    found = re.search(r'<script type="application/json" id="fitsub-data">(.*?)</script>', page)
    if page.count(head) != 1 or found is None:
        raise ValueError("is not a fitsub review page")
    if json.loads(found.group(1))["meta"]["fingerprint"] != fingerprint(doc, source):
        raise ValueError(
            "is the review of another file or translation (other cues, timings or source): "
            "translate with --review again"
        )
    return page.replace(head, head + SERVED_CONNECT, 1)


def apply_command(output: Path | None, source: Document | None) -> str | None:
    """The `fitsub apply` command the page shows after an export: the edits file in the
    browser's download folder, the translated file and the source as absolute paths (quoted
    for the shell); None when the translation went to stdout."""
    if output is None:
        return None
    edits = "~/Downloads/" + shlex.quote(edits_name_for(output))
    command = f"fitsub apply {edits} {shlex.quote(str(output.resolve()))}"
    if source is not None and source.path is not None:
        command += " --source " + shlex.quote(str(source.path.resolve()))
    return command


def edits_name_for(translated: Path | None) -> str:
    """`talk.it.srt` → `talk.it.edits.json` (the name the page's export suggests)."""
    return "edits.json" if translated is None else f"{translated.stem}.edits.json"
