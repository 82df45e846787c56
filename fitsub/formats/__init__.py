"""Reading and writing documents (`fitsub.document`): pick the format, decode, parse; render,
encode and write atomically.

One module per format (parse from / render to strings; .pptx from / to bytes), chosen here with
a plain dict; what they share lives in `fitsub.formats.blocks` and `fitsub.formats.timing`.
Decoding is `fitsub.charsets.detect`'s.

Formats: SubRip (.srt), WebVTT (.vtt), ASS / SSA (.ass, .ssa, edited in place), plain slide text
(.txt, one segment per line), Markdown (.md, through markdown-it-py: one segment per text node)
and PowerPoint (.pptx, through python-pptx: one segment per paragraph of a text frame).

Policies (each tested in tests/unit/test_formats_bad_input.py):

- Times are integer milliseconds, kept exactly; cue count, ids and order are kept.
- Everything that is not cue text (the VTT header, STYLE / REGION / NOTE blocks, blank lines,
  timing lines as written, cue settings) is kept verbatim in `Document.gaps` and
  `Segment.timing`, so `render_document(parse_document(s)) == s` for well-formed input. The
  normalisations: a file mixing line endings is written with its most common one (ASS / SSA:
  kept as they are); SRT cue number lines lose surrounding whitespace.
- Overlapping cues, cues out of time order, cue numbers out of order or missing, and zero-length
  cues are accepted with a warning (`Document.warnings`); timings and ids are never changed.
- An empty cue is kept and marked `translatable=False`.
- A segment longer than `MAX_SEGMENT_CHARS` visible characters is rejected (`InputError`),
  unless it is never translated (an ASS drawing or ``Comment`` event).
- A WebVTT file without cues and an ASS / SSA script without events are valid: no segment,
  written back byte for byte.
- Broken timestamps, a cue that ends before it starts, text after a blank line inside a cue,
  a VTT file without its ``WEBVTT`` header, comma decimal separators in VTT, binary, empty or
  unknown-extension files are rejected with `InputError` naming file, line and problem.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeAlias

from fitsub.charsets.detect import (
    Decoded,
    can_encode,
    decode_bytes,
    encode_text,
    read_file_bytes,
    read_text,
    split_text,
)
from fitsub.document import Document, Format, Segment
from fitsub.errors import InputError
from fitsub.formats.blocks import Parsed
from fitsub.io.atomic import atomic_write_bytes

EXTENSIONS: dict[str, Format] = {
    ".srt": "srt",
    ".vtt": "vtt",
    ".ass": "ass",
    ".ssa": "ssa",
    ".txt": "slides",
    ".md": "markdown",
    ".markdown": "markdown",
    ".pptx": "pptx",
}
# Every format's name, in the order of `EXTENSIONS` (the one list: a new format is a module and
# its rows here). Subtitle formats give each cue a time (`Document.timed`); slide formats none.
FORMATS: tuple[Format, ...] = tuple(dict.fromkeys(EXTENSIONS.values()))
# Formats read from bytes as a whole (a zip package), not decoded as text.
BINARY_FORMATS: frozenset[str] = frozenset({"pptx"})
# Encoding used when the document's own encoding cannot hold the new text (e.g. "♪" in cp1252).
FALLBACK_ENCODING = "utf-8"


def with_target_language(doc: Document, lang: str) -> Document:
    """The document with the language its metadata names set to `lang` (WebVTT ``Language:``)."""
    if doc.format != "vtt" or not doc.gaps:
        return doc
    from fitsub.formats.vtt import set_language

    return replace(doc, gaps=(set_language(doc.gaps[0], lang), *doc.gaps[1:]))


def detect_format(path: Path) -> Format:
    """The format a file's extension names (`EXTENSIONS`); `InputError` otherwise."""
    ext = path.suffix.lower()
    if ext not in EXTENSIONS:
        shown = repr(ext) if ext else "no extension"
        known = ", ".join(EXTENSIONS)
        raise InputError(path, f"unknown file type ({shown}); expected one of {known}")
    return EXTENSIONS[ext]


def _check_format(fmt: str, path: Path | None) -> None:
    if fmt not in FORMATS:
        raise InputError(path, f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def parse_document(text: str, fmt: Format, path: Path | None = None) -> Document:
    """Parse a document from a string (a leading BOM means ``utf-8-sig``); `InputError` if bad."""
    _check_format(fmt, path)
    if fmt in BINARY_FORMATS:
        raise InputError(path, f"a {fmt} file is read from bytes, not text")
    decoded = split_text(text)
    if not decoded.text.strip():
        raise InputError(path, "empty file")
    return _build(decoded, fmt, path)


def read_document(path: Path, fmt: Format | None = None, encoding: str | None = None) -> Document:
    """Read, decode and parse a file (format from its extension unless given); `InputError` if bad.

    `encoding` overrides detection (``--encoding cp1252``).
    """
    path = Path(path)
    fmt = detect_format(path) if fmt is None else fmt
    _check_format(fmt, path)
    if fmt in BINARY_FORMATS:
        return _build_binary(read_file_bytes(path), fmt, path)
    return _build(read_text(path, encoding), fmt, path)


def sniff_format(text: str) -> Format:
    """The format of text without a file name: WEBVTT header → vtt, timing lines → srt,
    ``[Script Info]`` → ass, else slides."""
    head = text.lstrip("\ufeff")[:4096]
    if head.startswith("WEBVTT"):
        return "vtt"
    if head.lstrip().startswith("[Script Info]"):
        return "ass"
    if "-->" in head:
        return "srt"
    return "slides"


def read_bytes_document(
    data: bytes, fmt: Format | None, path: Path | None = None, encoding: str | None = None
) -> Document:
    """Parse a document from raw bytes (encoding detected as for files; format sniffed if None)."""
    if fmt is None and data.startswith(b"PK\x03\x04"):  # a zip package: .pptx
        fmt = "pptx"
    if fmt is not None:
        _check_format(fmt, path)
        if fmt in BINARY_FORMATS:
            return _build_binary(data, fmt, path)
    decoded = decode_bytes(data, path, encoding)
    if fmt is None:
        fmt = sniff_format(decoded.text)
    return _build(decoded, fmt, path)


def _build(decoded: Decoded, fmt: Format, path: Path | None) -> Document:
    parsed = _codec(fmt)[0](decoded.text, path)
    warnings = [*decoded.warnings, *parsed.warnings]
    if decoded.mixed_newlines and fmt not in WHOLE_FORMATS:
        shown = {"\n": "LF", "\r\n": "CRLF", "\r": "CR"}[decoded.newline]
        warnings.insert(0, f"mixed line endings; the output uses {shown} throughout")
    return Document(
        path=path,
        format=fmt,
        segments=tuple(parsed.segments),
        encoding=decoded.encoding,
        newline=decoded.newline,
        warnings=tuple(warnings),
        gaps=tuple(parsed.gaps),
        bom=decoded.bom,
        # ASS keeps its own line endings, mixed ones too (`fitsub.formats.ass`)
        source=(decoded.raw or decoded.text) if fmt in WHOLE_FORMATS else None,
        detected_by=decoded.detected_by,
        confidence=decoded.confidence,
    )


def _build_binary(data: bytes, fmt: Format, path: Path | None) -> Document:
    import fitsub.formats.pptx as pptx

    if not data:
        raise InputError(path, "empty file")
    parsed = pptx.parse(data, path)
    return Document(
        path=path,
        format=fmt,
        segments=tuple(parsed.segments),
        encoding=pptx.ENCODING,
        warnings=tuple(parsed.warnings),
        source=data,
        detected_by="given",
    )


Codec: TypeAlias = tuple[
    Callable[[str, Path | None], Parsed], Callable[[Segment], str], tuple[str, str, str]
]
# Text formats written by re-serialising the whole source (`Document.source`), not block by block.
WHOLE_FORMATS: frozenset[str] = frozenset({"ass", "ssa"})


def _codec(fmt: Format) -> Codec:
    """The parser, block renderer and default gaps (first, between, last) of a text format."""
    import fitsub.formats.ass as ass
    import fitsub.formats.markdown as markdown
    import fitsub.formats.slides as slides
    import fitsub.formats.srt as srt
    import fitsub.formats.vtt as vtt

    codecs: dict[str, Codec] = {
        "srt": (srt.parse, srt.render_block, srt.DEFAULT_GAPS),
        "vtt": (vtt.parse, vtt.render_block, vtt.DEFAULT_GAPS),
        "ass": (ass.parse, ass.render_block, ass.DEFAULT_GAPS),
        "ssa": (ass.parse, ass.render_block, ass.DEFAULT_GAPS),
        "slides": (slides.parse, slides.render_block, slides.DEFAULT_GAPS),
        "markdown": (markdown.parse, markdown.render_block, markdown.DEFAULT_GAPS),
    }
    if fmt not in codecs:
        raise ValueError(f"{fmt} is not a text format")
    return codecs[fmt]


def render_document(doc: Document) -> str:
    """The document as text, with its own line endings (no BOM: that is the encoding's job)."""
    if doc.format in WHOLE_FORMATS:
        import fitsub.formats.ass as ass

        text = ass.render(doc)
        if isinstance(doc.source, str) and "\r" in doc.source:  # its own (mixed) line endings
            return text
        return text if doc.newline == "\n" else text.replace("\n", doc.newline)
    _, render_block, (first, between, last) = _codec(doc.format)
    n = len(doc.segments)
    gaps = doc.gaps
    if not gaps:
        gaps = (first,) + (between,) * max(n - 1, 0) + (last,) if n else (first,)
    if len(gaps) != n + 1:
        raise ValueError(f"document has {len(gaps)} gaps for {n} segments (need {n + 1})")
    parts = [gaps[0]]
    for seg, gap in zip(doc.segments, gaps[1:], strict=True):
        parts.append(render_block(seg))
        parts.append(gap)
    text = "".join(parts)
    return text if doc.newline == "\n" else text.replace("\n", doc.newline)


def write_document(doc: Document, path: Path, encoding: str | None = None) -> str:
    """Write atomically (temp file in the same directory + rename); return the encoding used.

    Without `encoding` the document's own is used, or ``utf-8`` when that cannot hold the new
    text (a cp1252 file whose translation has "♪", say) or is a guessed legacy encoding that
    the new text would make read back as another. Refuses to overwrite the input file.
    """
    path = Path(path)
    if doc.path is not None and _same_file(doc.path, path):
        raise InputError(path, "refusing to overwrite the input file; choose another output path")
    data, chosen = document_bytes(doc, path, encoding)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(path, f"output directory {str(directory)!r} does not exist")
    atomic_write_bytes(path, data)
    return chosen


def document_bytes(
    doc: Document, path: Path | None = None, encoding: str | None = None
) -> tuple[bytes, str]:
    """The rendered document encoded as `write_document` writes it, and the encoding used."""
    if doc.format in BINARY_FORMATS:
        import fitsub.formats.pptx as pptx

        return pptx.render(doc), doc.encoding
    text = render_document(doc)
    chosen = encoding or doc.encoding
    if encoding is None and not can_encode(text, chosen):
        chosen = FALLBACK_ENCODING
    bom = doc.bom and chosen == doc.encoding
    data = encode_text(text, chosen, path, bom=bom)
    if encoding is None and doc.detected_by == "detected" and not _reads_back(data, chosen):
        # a guessed legacy encoding that the new text would make guessed otherwise (or read as
        # broken UTF-8): the output would not read back as written, so it is written in UTF-8
        chosen = FALLBACK_ENCODING
        data = encode_text(text, chosen, path)
    return data, chosen


def _reads_back(data: bytes, encoding: str) -> bool:
    """Whether `decode_bytes` detects `encoding` again for `data` (so reads it as written)."""
    try:
        return decode_bytes(data).encoding == encoding
    except InputError:
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and os.path.samefile(a, b))
    except OSError:
        return False
