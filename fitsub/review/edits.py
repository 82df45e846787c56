"""A reviewer's edits: what a segment's editable text is, the fingerprint that ties edits to
one file, and reading an edits file (the review page's JSON export, or the review TSV).

The *editable text* of a segment is what the review page puts in its text box: the words of
the cue without its markup (tags, position codes, dialogue dashes, brackets, song signs), its
lines as laid out in the file (one line per speaker turn in a dialogue). Its length in
characters counts a line break as the space it replaces (`edit_chars`), as the budget counts
the fitted translation.

The *fingerprint* of a review names what the edits belong to: the number of segments, a SHA-256
of every segment's id and timing (`structure_digest`: identical for a source file and its
translation, different for another file) and a SHA-256 of the source file's segment texts
(`source_digest`, checked when the source is given). Each edit also carries the text the page
showed (`was`): an edit whose segment has changed in the file since (re-translated) is refused,
and one whose text is already in the file is skipped, so applying the same edits twice changes
nothing.

An edits file is JSON (the page's export)::

    {"kind": "fitsub-edits", "version": 1, "fingerprint": {...}, "lang": "it",
     "limits": {"cpl": 42, "lines": 2, "cps": 17.0, "reading_speed": true},
     "edits": [{"index": 4, "id": "5", "was": "…", "text": "…", "budget": 38}]}

or the review TSV (`fitsub.review.tsv`): its `id`, `start`, `end`, `fitted` and `budget` columns;
a row whose `fitted` text differs from the file's is an edit (a TSV has no fingerprint: each
row's id and timing must match the file).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.budget import MOST, Limits
from fitsub.document import Document, Format
from fitsub.errors import InputError
from fitsub.formats.blocks import max_segment_chars
from fitsub.markup import protect
from fitsub.markup.tags import strip_markup
from fitsub.review import strict_json as sj
from fitsub.units import char_length

KIND = "fitsub-edits"
VERSION = 1
MAX_EDITS_BYTES = 50_000_000  # a 2,000-cue file's edits are well under 1 MB
_SPACE = re.compile(r"\s+")


def flat(text: str) -> str:
    """`text` on one line: every run of whitespace (line breaks included) one space, trimmed."""
    return _SPACE.sub(" ", text).strip()


def edit_chars(text: str) -> int:
    """Characters of an edited text as the budget counts them (a line break counts as a space)."""
    return char_length(flat(text))


def timestamp(ms: int | None) -> str:
    """`HH:MM:SS.mmm` (empty for untimed segments such as slides)."""
    if ms is None:
        return ""
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, milli = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{milli:03d}"


def editable_text(text: str, markup: Format) -> str:
    """A segment's words without markup, its lines as in the file (see the module docstring)."""
    prot = protect(text, markup)
    if not prot.plain.strip():
        return ""
    if prot.is_dialogue:
        return "\n".join(turn.plain for turn in prot.turns)
    if markup == "slides":
        return prot.plain
    turn = prot.turns[0]
    head, tail = prot.prefix + turn.prefix, turn.suffix + prot.suffix
    if text.startswith(head) and text.endswith(tail) and len(head) + len(tail) <= len(text):
        core = text[len(head) : len(text) - len(tail)]
        lines = [strip_markup(line) for line in core.split("\n")]
        if prot.escape:
            lines = [html.unescape(line) for line in lines]
        lines = [flat(line) for line in lines if line.strip()]
        if " ".join(lines) == prot.plain:
            return "\n".join(lines)
    return prot.plain


def _digest(value: Any) -> str:
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def structure_digest(doc: Document) -> str:
    """SHA-256 of every segment's id and timing (the same for a file and its translation)."""
    return _digest([[s.id, s.start_ms, s.end_ms] for s in doc.segments])


def source_digest(doc: Document) -> str:
    """SHA-256 of every segment's text (its markup and line breaks included)."""
    return _digest([s.text for s in doc.segments])


def fingerprint(translated: Document, source: Document | None = None) -> dict[str, Any]:
    """What a review's edits belong to (see the module docstring)."""
    return {
        "segments": len(translated.segments),
        "structure": structure_digest(translated),
        "source": None if source is None else source_digest(source),
    }


@dataclass(frozen=True)
class Edit:
    """One edited segment: its index and id, the new text, the text shown, its budget."""

    index: int
    id: str | None
    text: str
    was: str | None = None  # the editable text the review showed (None: unknown, TSV)
    budget: int | None = None  # characters


@dataclass(frozen=True)
class EditSet:
    """The edits of one edits file, with what they say about their file and its limits."""

    path: Path
    edits: tuple[Edit, ...]
    fingerprint: dict[str, Any] | None = None  # None: a TSV
    lang: str | None = None
    limits: Limits | None = None
    timings: tuple[tuple[str, str], ...] = ()  # TSV: each edit's start and end as written


def check_text(path: Path, where: str, text: str) -> str:
    """An edited text with CR LF made LF; InputError for control characters or a huge text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for ch in text:
        if ch != "\n" and unicodedata.category(ch) == "Cc":
            raise InputError(path, f"{where}: text holds a control character (U+{ord(ch):04X})")
        if unicodedata.category(ch) == "Cs":  # JSON's "\ud800" alone: no character at all
            raise InputError(
                path, f"{where}: text holds a lone surrogate (U+{ord(ch):04X}), not a character"
            )
    limit = max_segment_chars()
    if edit_chars(text) > limit:
        raise InputError(path, f"{where}: text longer than {limit:,} characters")
    return text


def read_edits(path: Path) -> EditSet:
    """Read an edits file: the page's JSON export, or a review TSV (by content)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_EDITS_BYTES:
            raise InputError(path, f"edits file larger than {MAX_EDITS_BYTES // 1_000_000} MB")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not an edits file") from None
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(path, "edits file is not UTF-8 text") from None
    if text.lstrip().startswith("{"):
        return _read_json(path, text)
    if text.startswith("id\t"):
        return _read_tsv(path, text)
    raise InputError(path, "not an edits file: neither the review page's JSON nor a review TSV")


_LANG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")


def _read_json(path: Path, data: str) -> EditSet:
    """The page's export, every field checked for its type and range (`fitsub.review.strict_json`)."""
    obj = sj.table(path, "edits file", sj.loads(data, path, "edits file"))
    if obj.get("kind") != KIND:
        raise InputError(path, f'not a fitsub edits file (no "kind": "{KIND}")')
    version = obj.get("version")
    if isinstance(version, bool) or version != VERSION:
        raise InputError(path, f"edits file version {version!r}; this fitsub reads 1")
    fp = sj.table(path, "edits file: 'fingerprint'", obj.get("fingerprint"))
    sj.whole(path, "edits file: fingerprint 'segments'", fp.get("segments"), least=0, most=10**9)
    sj.text(path, "edits file: fingerprint 'structure'", fp.get("structure"))
    sj.text(path, "edits file: fingerprint 'source'", fp.get("source"), optional=True)
    lang = sj.text(path, "edits file: 'lang'", obj.get("lang"), optional=True)
    if lang is not None and _LANG.fullmatch(lang) is None:
        raise InputError(
            path, f"edits file: 'lang' must be a language code (it, pt-BR), got {lang!r}"
        )
    limits = None if obj.get("limits") is None else _read_limits(path, obj["limits"])
    edits = []
    items = obj.get("edits")
    if not isinstance(items, list):
        raise InputError(path, "edits file: 'edits' must be an array")
    for k, item in enumerate(items):
        where = f"edit {k + 1}"
        item = sj.table(path, where, item)
        index = sj.whole(path, f"{where}: 'index'", item.get("index"), least=0, most=10**9)
        seg_id = sj.text(path, f"{where}: 'id'", item.get("id"), optional=True)
        new = sj.text(path, f"{where}: 'text'", item.get("text"))
        assert new is not None
        name = f"segment {seg_id if seg_id is not None else index + 1}"
        budget = item.get("budget")
        edits.append(
            Edit(
                index=index,
                id=seg_id,
                text=check_text(path, name, new),
                was=sj.text(path, f"{where}: 'was'", item.get("was"), optional=True),
                budget=None
                if budget is None
                else sj.whole(path, f"{where}: 'budget'", budget, least=0, most=10**9),
            )
        )
    return EditSet(path, tuple(edits), fp, lang, limits)


def _read_limits(path: Path, value: object) -> Limits:
    lim = sj.table(path, "edits file: 'limits'", value)
    where = "edits file: limits"
    speed = lim.get("reading_speed", True)
    return Limits(
        cpl=sj.whole(path, f"{where} 'cpl'", lim.get("cpl"), least=1, most=int(MOST["cpl"])),
        lines=sj.whole(
            path, f"{where} 'lines'", lim.get("lines"), least=1, most=int(MOST["lines"])
        ),
        cps=sj.number(path, f"{where} 'cps'", lim.get("cps"), MOST["cps"]),
        reading_speed=sj.flag(path, f"{where} 'reading_speed'", speed),
    )


def _tsv_unescape(cell: str) -> str:
    out, i = [], 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell):
            nxt = cell[i + 1]
            out.append({"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _read_tsv(path: Path, text: str) -> EditSet:
    lines = text.replace("\r\n", "\n").split("\n")
    header = lines[0].split("\t")
    missing = [c for c in ("id", "start", "end", "fitted") if c not in header]
    if missing:
        raise InputError(path, f"review TSV lacks the column(s) {', '.join(missing)}")
    col = {name: header.index(name) for name in header}
    edits, timings = [], []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(header):
            raise InputError(path, f"{len(cells)} fields, the header has {len(header)}", line=n)
        seg_id = _tsv_unescape(cells[col["id"]])
        new = check_text(path, f"line {n} (id {seg_id})", _tsv_unescape(cells[col["fitted"]]))
        budget_cell = cells[col["budget"]] if "budget" in col else ""
        edits.append(
            Edit(
                index=-1,
                id=seg_id,
                text=new,
                budget=int(budget_cell) if budget_cell.isdigit() else None,
            )
        )
        timings.append((cells[col["start"]], cells[col["end"]]))
    return EditSet(path, tuple(edits), None, timings=tuple(timings))


def match_edits(
    edits: EditSet, doc: Document, source: Document | None = None, source_path: Path | None = None
) -> list[Edit]:
    """The edits that change `doc`, each with its segment index; InputError when they do not
    belong to it (see the module docstring). Nothing is changed."""
    where = edits.path
    n = len(doc.segments)
    if edits.fingerprint is not None:
        fp = edits.fingerprint
        if fp["segments"] != n:
            raise InputError(
                where, f"edits are for a file of {fp['segments']} segments; {doc.path} has {n}"
            )
        if fp["structure"] != structure_digest(doc):
            raise InputError(
                where, f"edits are for another file: ids or timings differ from {doc.path}"
            )
    if source is not None:
        if structure_digest(source) != structure_digest(doc):
            raise InputError(source_path, f"not the source of {doc.path}: ids or timings differ")
        want = None if edits.fingerprint is None else edits.fingerprint.get("source")
        if want is not None and want != source_digest(source):
            raise InputError(where, f"edits were made for another source file than {source_path}")
    by_id = {s.id if s.id is not None else str(i + 1): i for i, s in enumerate(doc.segments)}
    seen: set[int] = set()
    changed = []
    for k, edit in enumerate(edits.edits):
        index = edit.index
        if edits.fingerprint is None:  # TSV: by id, with the timing written beside it
            if edit.id not in by_id:
                raise InputError(where, f"unknown segment id {edit.id!r} (not in {doc.path})")
            index = by_id[edit.id]
            seg = doc.segments[index]
            if edits.timings and edits.timings[k] != (
                timestamp(seg.start_ms),
                timestamp(seg.end_ms),
            ):
                raise InputError(where, f"segment {edit.id}: timing differs from {doc.path}")
        elif not 0 <= index < n:
            raise InputError(
                where, f"edit {k + 1}: index {index} is past the last segment of {doc.path} ({n})"
            )
        elif edit.id is not None and doc.segments[index].id != edit.id:
            have = doc.segments[index].id
            raise InputError(
                where,
                f"edit {k + 1}: index {index} is segment "
                f"{'without an id' if have is None else repr(have)} in {doc.path}, but the edit "
                f"names id {edit.id!r}",
            )
        if index in seen:
            raise InputError(where, f"segment {edit.id or index + 1} edited twice")
        seen.add(index)
        seg = doc.segments[index]
        current = flat(editable_text(seg.text, doc.markup)) if seg.translatable else ""
        if current == flat(edit.text):
            continue  # already so in the file: left untouched
        if not seg.translatable or not current:
            raise InputError(where, f"segment {edit.id or index + 1} holds no text to edit")
        if doc.timed and "-->" in edit.text:
            raise InputError(
                where,
                f"segment {edit.id or index + 1}: the edit holds '-->', which a {doc.format} cue "
                "cannot keep (it reads as a timing line); write it otherwise ('->', '→')",
            )
        if edit.was is not None and flat(edit.was) != current:
            raise InputError(
                where,
                f"segment {edit.id or index + 1} changed in {doc.path} since the review "
                "(re-translated?): make the review again",
            )
        changed.append(
            Edit(index=index, id=edit.id, text=edit.text, was=edit.was, budget=edit.budget)
        )
    return changed
