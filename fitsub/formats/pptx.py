"""PowerPoint decks (.pptx), read and written by python-pptx: one segment per paragraph.

Every text frame of every slide is read in order: shapes (inside groups too), placeholders and
table cells. Each paragraph holding text is a segment (id ``SLIDE:SHAPE:PARAGRAPH``, the shape's
id; a table cell adds ``rRcC``); it is translated whole and written back into its own runs, so
each run keeps its formatting (font, size, colour, bold, hyperlink). When the runs of a
paragraph differ (a bold word in mid-sentence), each run goes on the words of the translation
that translate its words, by the same projection as subtitle tags (`fitsub.formats.pptx_runs`);
in proportion to the runs' source characters only across a line break or where the projection
cannot place a run. A line break inside a paragraph (``<a:br/>``) is a space in the text the
model sees; the translation's words are shared among the lines in proportion to their source
characters, so each break stays in place between words. Fields (slide numbers) stay where they are; notes
pages are not read. A deck with nothing translated is written back as read, byte for byte;
otherwise every part whose content did not change is copied as it was (`keep_unchanged_parts`).
A package whose parts would decompress too large is refused before parsing (`check_zip`).

**The budget of a paragraph is the room of its text box** (`Segment.room`), an approximation
documented here and in docs/PROFILES.md:

    usable width  W = box width  − left and right insets     (points; 1 pt = 12,700 EMU)
    usable height H = box height − top and bottom insets
    size s_p      = the paragraph's largest run size, else its paragraph size, else the size its
                    placeholder inherits from the slide master (title / body styles), else 18 pt
    cpl_p         = floor(W / (AVG_CHAR_EM × s_p))           characters per line at that size
    n_p           = max(1, ceil(source characters / cpl_p))  lines the source takes
    S             = Σ over the box's paragraphs of n_p × LINE_EM × s_p   height the source takes
    lines_p       = max(1, floor(n_p × H / S))                the source's share of the box
    room_p        = lines_p × cpl_p

`AVG_CHAR_EM` = 0.5: the mean advance of a lower-case Latin character in the proportional fonts
decks use (Calibri about 0.47 em, Arial 0.5, Segoe UI 0.52); `LINE_EM` = 1.2, PowerPoint's
single line spacing. A box that grows with its text ("resize shape to fit text", the default
of a new text box) gets `lines_p = n_p`: as many lines as the source takes at the box's width,
so the box keeps its height; "shrink text on overflow" still counts as the box's size. Wide glyphs (CJK, capitals
only) take more room than this assumes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fitsub.document import Document, Segment
from fitsub.errors import InputError
from fitsub.formats.blocks import Parsed, cap_warnings, check_length
from fitsub.formats.pptx_runs import plain_text, segment_text, write_paragraph
from fitsub.units import char_length

ENCODING = "ooxml"  # what `Document.encoding` says for a deck (a zip package, not text)
AVG_CHAR_EM = 0.5
LINE_EM = 1.2
DEFAULT_PT = 18.0  # PowerPoint's default text box size
EMU_PER_PT = 12700
_DEFAULT_INSETS = (91440, 91440, 45720, 45720)  # left, right, top, bottom: 0.1 in, 0.05 in
# Limits on what a package decompresses to, checked before parsing (`check_zip`): a slide's XML
# is kilobytes, a big deck's media hundreds of megabytes. The total is at most `MAX_RATIO` times
# the package's own size (media barely compress, XML about tenfold) but never under `MIN_TOTAL`.
MAX_XML_PART = 32 * 2**20
MAX_PART = 1 * 2**30
MAX_TOTAL = 2 * 2**30
MIN_TOTAL = 64 * 2**20
MAX_RATIO = 20
MAX_PARTS = 100_000


@dataclass
class _Frame:
    """A text frame, where it is (slide, key) and the size of its box in EMU."""

    slide: int
    key: str
    frame: Any  # pptx.text.text.TextFrame
    width: int
    height: int
    insets: tuple[int, int, int, int]
    sizes: dict[int, float]  # inherited font size (pt) per paragraph level, from the master
    grows: bool  # "resize shape to fit text": the source's own lines


def total_limit(size: int) -> int:
    """The most a package of `size` bytes may decompress to (all its parts together)."""
    return min(MAX_TOTAL, max(MIN_TOTAL, MAX_RATIO * size))


def _part_limit(name: str) -> int:
    return MAX_XML_PART if name.endswith((".xml", ".rels")) else MAX_PART


def check_zip(data: bytes, path: Path | None) -> None:
    """`InputError` for a zip package whose parts decompress too large (a zip bomb): first from
    its directory (an XML part over `MAX_XML_PART`, any part over `MAX_PART`, all parts over
    `total_limit`, more than `MAX_PARTS` parts), then by decompressing every part chunk by chunk
    and counting the bytes that actually come out (`fitsub.io.unpack.check_zip_parts`: headers can
    lie), before python-pptx reads anything."""
    import zipfile

    from fitsub.io.unpack import check_zip_parts

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            infos = package.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise InputError(path, f"not a PowerPoint (.pptx) file: {err}") from None
    if len(infos) > MAX_PARTS:
        raise InputError(
            path, f"too many parts in the package ({len(infos):,}; at most {MAX_PARTS:,})"
        )
    total, most_total = 0, total_limit(len(data))
    for info in infos:
        most = _part_limit(info.filename)
        if info.file_size > most:
            raise InputError(
                path,
                f"part {info.filename!r} would decompress to {info.file_size:,} bytes (at most "
                f"{most:,}); refusing to read it",
            )
        total += info.file_size
    if total > most_total:
        raise InputError(
            path,
            f"the package would decompress to {total:,} bytes (at most {most_total:,} for a "
            f"file of {len(data):,} bytes)",
        )
    check_zip_parts(data, path, part_limit=_part_limit, total_limit=most_total)


def _open(data: bytes, path: Path | None) -> Any:
    from pptx import Presentation

    check_zip(data, path)
    try:
        return Presentation(io.BytesIO(data))
    except Exception as err:  # noqa: BLE001 - zip, XML and package errors alike
        raise InputError(path, f"not a PowerPoint (.pptx) file: {type(err).__name__}") from None


def _insets(frame: Any) -> tuple[int, int, int, int]:
    values = (frame.margin_left, frame.margin_right, frame.margin_top, frame.margin_bottom)
    return tuple(  # type: ignore[return-value]
        default if v is None else int(v) for v, default in zip(values, _DEFAULT_INSETS, strict=True)
    )


def _master_sizes(shape: Any, slide: Any) -> dict[int, float]:
    """Font size (pt) per paragraph level a placeholder inherits from the slide master."""
    if not getattr(shape, "is_placeholder", False):
        return {}
    from pptx.enum.shapes import PP_PLACEHOLDER

    kind = shape.placeholder_format.type
    title = kind in (
        PP_PLACEHOLDER.TITLE,
        PP_PLACEHOLDER.CENTER_TITLE,
        PP_PLACEHOLDER.VERTICAL_TITLE,
    )
    style = "p:titleStyle" if title else "p:bodyStyle"
    master = slide.slide_layout.slide_master.element
    sizes: dict[int, float] = {}
    for level in range(1, 10):
        found = master.xpath(f"./p:txStyles/{style}/a:lvl{level}pPr/a:defRPr/@sz")
        if found:
            sizes[level - 1] = int(found[0]) / 100
    return sizes


def _shape_frames(shapes: Any, slide: Any, number: int) -> Iterator[_Frame]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE
    from pptx.enum.text import MSO_AUTO_SIZE

    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_frames(shape.shapes, slide, number)
        elif getattr(shape, "has_table", False) and shape.has_table:
            table = shape.table
            for r, row in enumerate(table.rows):
                for c, cell in enumerate(row.cells):
                    if cell.is_spanned:
                        continue
                    insets = (
                        cell.margin_left,
                        cell.margin_right,
                        cell.margin_top,
                        cell.margin_bottom,
                    )
                    yield _Frame(
                        slide=number,
                        key=f"{shape.shape_id}:r{r + 1}c{c + 1}",
                        frame=cell.text_frame,
                        width=int(table.columns[c].width),
                        height=int(row.height),
                        insets=tuple(int(v) for v in insets),  # type: ignore[arg-type]
                        sizes={},
                        grows=False,
                    )
        elif shape.has_text_frame:
            frame = shape.text_frame
            yield _Frame(
                slide=number,
                key=str(shape.shape_id),
                frame=frame,
                width=int(shape.width or 0),
                height=int(shape.height or 0),
                insets=_insets(frame),
                sizes=_master_sizes(shape, slide),
                grows=frame.auto_size == MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT,
            )


def _frames(prs: Any) -> Iterator[_Frame]:
    for number, slide in enumerate(prs.slides, start=1):
        yield from _shape_frames(slide.shapes, slide, number)


def _size_pt(paragraph: Any, frame: _Frame) -> float:
    sizes = [run.font.size.pt for run in paragraph.runs if run.font.size is not None]
    if sizes:
        return float(max(sizes))
    if paragraph.font.size is not None:
        return float(paragraph.font.size.pt)
    return frame.sizes.get(paragraph.level, DEFAULT_PT)


def paragraph_rooms(frame: _Frame) -> list[int | None]:
    """The room (characters) of each paragraph of a frame (module docstring); None: no limit."""
    paragraphs = list(frame.frame.paragraphs)
    if frame.width <= 0 or (frame.height <= 0 and not frame.grows):
        return [None] * len(paragraphs)
    left, right, top, bottom = frame.insets
    width = max(frame.width - left - right, 0) / EMU_PER_PT
    height = max(frame.height - top - bottom, 0) / EMU_PER_PT
    shapes = []
    for p in paragraphs:
        size = _size_pt(p, frame)
        cpl = max(1, math.floor(width / (AVG_CHAR_EM * size) + 1e-9))
        lines = max(1, math.ceil(char_length(plain_text(p)) / cpl))
        shapes.append((cpl, lines, size))
    if frame.grows:
        return [cpl * lines for cpl, lines, _ in shapes]
    taken = sum(lines * LINE_EM * size for _, lines, size in shapes)
    return [cpl * max(1, math.floor(lines * height / taken + 1e-9)) for cpl, lines, _ in shapes]


def parse(data: bytes, path: Path | None = None) -> Parsed:
    """Read a deck's paragraphs as segments, each with the room of its box; `InputError` if bad."""
    prs = _open(data, path)
    segments: list[Segment] = []
    mixed = 0
    for frame in _frames(prs):
        rooms = paragraph_rooms(frame)
        for k, (paragraph, room) in enumerate(zip(frame.frame.paragraphs, rooms, strict=True)):
            text, shared = segment_text(paragraph)
            if not text:
                continue
            seg = Segment(
                index=len(segments),
                id=f"{frame.slide}:{frame.key}:{k + 1}",
                start_ms=None,
                end_ms=None,
                text=text,
                translatable=any(ch.isalnum() for ch in text),
                room=room,
            )
            if seg.translatable:
                check_length(seg, "slides", path)
                mixed += shared
            segments.append(seg)
    if not segments:
        raise InputError(path, "no text in this deck")
    warnings = []
    if mixed:
        warnings.append(
            f"{mixed} paragraph(s) mix formatting runs across a line break or field: the "
            "translated words are shared among the runs by position; check the emphasis"
        )
    return Parsed(segments, [], cap_warnings(warnings))


def render(doc: Document) -> bytes:
    """The deck with each translated paragraph written into its runs (everything else as read)."""
    if not isinstance(doc.source, bytes):
        raise ValueError("a .pptx document needs its source bytes")
    prs = _open(doc.source, doc.path)
    segments = iter(doc.segments)
    changed = False
    for frame in _frames(prs):
        for paragraph in frame.frame.paragraphs:
            old = segment_text(paragraph)[0]
            if not old:
                continue
            seg = next(segments)
            if seg.text != old:
                write_paragraph(paragraph, seg.text)
                changed = True
    if not changed:
        return doc.source  # nothing translated (`--model identity`): the package as read
    out = io.BytesIO()
    prs.save(out)
    return keep_unchanged_parts(doc.source, out.getvalue())


def _same_xml(a: bytes, b: bytes, name: str) -> bool:
    """Whether two XML parts hold the same document (canonical XML, C14N)."""
    if not name.endswith((".xml", ".rels")):
        return False
    from lxml import etree

    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        canon = [etree.tostring(etree.fromstring(x, parser), method="c14n") for x in (a, b)]
    except etree.XMLSyntaxError:
        return False
    return bool(canon[0] == canon[1])


def keep_unchanged_parts(old: bytes, new: bytes) -> bytes:
    """The package `new` with every part whose content did not change taken from `old` as it
    was (name, order, date, compression), so only the translated slides' XML differs."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(old)) as before, zipfile.ZipFile(io.BytesIO(new)) as after:
        written = {info.filename: after.read(info) for info in after.infolist()}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as package:
            for info in before.infolist():
                if info.filename not in written:
                    continue  # a part python-pptx dropped (none known): not written either
                data = written.pop(info.filename)
                if data != (kept := before.read(info)) and _same_xml(kept, data, info.filename):
                    data = kept  # re-serialised by python-pptx but not changed: as it was
                package.writestr(info, data, compress_type=info.compress_type)
            for name, data in written.items():  # a part python-pptx added
                package.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
