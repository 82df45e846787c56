"""The data model of a subtitle or slide file: `Segment` and `Document`.

A leaf: it imports nothing of fitsub's. Reading and writing files (`fitsub.formats`) and every
step after them share these types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeAlias

# A format's name: one of `fitsub.formats.FORMATS`, which owns the list (one row per format
# there; this module names none, so a new format touches only `fitsub/formats/`).
Format: TypeAlias = str
# The longest segment accepted, in visible characters (`fitsub.units.char_length` of the text
# without markup). A subtitle cue holds about 2 x 42 characters; 1,000 leaves room for long
# slide lines while rejecting files whose "cue" is really a whole document. The environment
# variable `MAX_SEGMENT_CHARS_ENV` raises it for one run, up to `MAX_SEGMENT_CHARS_CEILING`
# (`fitsub.formats.blocks.max_segment_chars`).
MAX_SEGMENT_CHARS = 1000
MAX_SEGMENT_CHARS_ENV = "FITSUB_MAX_CUE_CHARS"
MAX_SEGMENT_CHARS_CEILING = 100_000


@dataclass(frozen=True, slots=True)  # slots: a long file holds hundreds of thousands
class Segment:
    """One cue (SRT / VTT) or one line (slides).

    `text` is the cue text with its markup, lines joined by ``\\n``. `settings` holds VTT cue
    settings / SRT coordinates as written after the end time; `timing` the whole timing line as
    written (rendered verbatim while it still matches the times and settings); `line` the
    1-based source line where the segment starts. `translatable` is False for empty cues and
    for slide lines that hold no text (blank, separators, code, front matter).
    """

    index: int
    id: str | None
    start_ms: int | None
    end_ms: int | None
    text: str
    translatable: bool = True
    settings: str = ""
    timing: str | None = None
    line: int | None = None
    room: int | None = None  # characters its box holds (a .pptx text box's share); None: no box

    @property
    def duration_ms(self) -> int | None:
        """End minus start in milliseconds (None for slides)."""
        if self.start_ms is None or self.end_ms is None:
            return None
        return self.end_ms - self.start_ms


@dataclass(frozen=True)
class Document:
    """A parsed file: its segments plus everything needed to write it back verbatim.

    `gaps[i]` is the raw text before segment i (``gaps[-1]``: after the last one), with ``\\n``
    line endings: blank lines, the VTT header, STYLE / REGION / NOTE blocks. An empty `gaps`
    means the format's default layout.
    """

    path: Path | None
    format: Format
    segments: tuple[Segment, ...]
    encoding: str = "utf-8"
    newline: str = "\n"
    warnings: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()
    bom: bool = False  # a UTF-16 BE file's byte-order mark, written back (`fitsub.charsets.detect`)
    # The input as read, for formats written by re-serialising it (ASS: text; .pptx: bytes).
    source: str | bytes | None = None
    detected_by: str = "utf-8"  # how the encoding was chosen (`fitsub.charsets.detect.Decoded`)
    confidence: float | None = None  # charset-normalizer's confidence, for a detected encoding

    @property
    def timed(self) -> bool:
        """Whether the segments are timed subtitle cues (budgets from lines, CPL and CPS).

        A subtitle format gives every cue a start and an end; slide formats give none. So the
        first segment says it, and no list of format names is needed here.
        """
        return bool(self.segments) and self.segments[0].start_ms is not None

    @property
    def markup(self) -> Format:
        """The markup flavour `fitsub.markup.protect` reads: ``srt`` / ``vtt``, else ``slides``."""
        if self.format == "vtt":
            return "vtt"
        return "srt" if self.timed else "slides"

    def with_texts(self, texts: Sequence[str]) -> Document:
        """The same document (count, ids, timings, layout) with new segment texts.

        Texts are made safe for the format: subtitle texts lose blank lines and ``-->`` becomes
        ``->`` (either would end the cue); slide texts become one line (newlines → spaces).
        """
        if len(texts) != len(self.segments):
            raise ValueError(f"with_texts: {len(texts)} texts for {len(self.segments)} segments")
        segs = tuple(
            replace(seg, text=_safe_text(text, self.timed))
            for seg, text in zip(self.segments, texts, strict=True)
        )
        return replace(self, segments=segs)

    @property
    def texts(self) -> list[str]:
        """Every segment's text, in order."""
        return [seg.text for seg in self.segments]


def _safe_text(text: str, timed: bool) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not timed:
        return " ".join(part for part in text.split("\n") if part.strip()) if "\n" in text else text
    lines = [line.replace("-->", "->") for line in text.split("\n") if line.strip()]
    return "\n".join(lines)
