"""The tagged sample as SRT, Markdown or a PowerPoint deck, and the output read back with the
measured tags written as SRT tags again (so `run.visible` reads every format the same way).

Each format maps the four SRT tags of `run.TAGS` to its own markup: Markdown ``*…*``,
``**…**``, ``_…_`` and a link ``[…](https://example.org/)``; a deck italic, bold, underlined and
yellow runs. Nothing here is committed data: the sentences come from the caller at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Tag = tuple[str, str, int, int]  # (opening, closing, first word, past the last word)
MD = {
    "<i>": ("*", "*"),
    "<b>": ("**", "**"),
    "<u>": ("_", "_"),
    '<font color="#ffff00">': ("[", "](https://example.org/)"),
}
_MD_ACTIVE = re.compile(r"([*_`\[\]<>\\~#|!])")


@dataclass(frozen=True)
class FormatIO:
    """How one format writes the tagged sentences and reads an output document back."""

    suffix: str
    retag: Callable[[str, list[Tag]], tuple[str, list[Tag]]]
    write: Callable[[list[tuple[str, list[Tag]]], Path, Callable[[list[str]], str]], Path]
    read: Callable[[Any], list[str]]


def _same(sentence: str, tags: list[Tag]) -> tuple[str, list[Tag]]:
    words = sentence.split()
    for open_, close, a, b in tags:
        words[a] = open_ + words[a]
        words[b - 1] = words[b - 1] + close
    return " ".join(words), tags


def _plain(sentence: str, tags: list[Tag]) -> tuple[str, list[Tag]]:
    """The sentence as it is (a deck's runs carry the tags, `_deck_write`)."""
    return sentence, tags


def _srt_write(tagged: list[tuple[str, list[Tag]]], tmp: Path, srt: Callable[..., str]) -> Path:
    path = tmp / "tagged.srt"
    path.write_text(srt([t for t, _ in tagged]), encoding="utf-8")
    return path


def _srt_read(doc: Any) -> list[str]:
    return [seg.text for seg in doc.segments]


def _md_retag(sentence: str, tags: list[Tag]) -> tuple[str, list[Tag]]:
    """The sentence with its literal Markdown characters escaped and each tag as Markdown."""
    words = [_MD_ACTIVE.sub(r"\\\1", w) for w in sentence.split()]
    for open_, _close, a, b in tags:
        md_open, md_close = MD[open_]
        words[a] = md_open + words[a]
        words[b - 1] = words[b - 1] + md_close
    return " ".join(words), [(MD[o][0], MD[o][1], a, b) for o, _, a, b in tags]


def _md_write(tagged: list[tuple[str, list[Tag]]], tmp: Path, srt: Callable[..., str]) -> Path:
    path = tmp / "tagged.md"
    path.write_text("\n\n".join(t for t, _ in tagged) + "\n", encoding="utf-8")
    return path


def _md_read(doc: Any) -> list[str]:
    from fitsub.formats import render_document

    text = render_document(doc)
    return [p.replace("\\", "") for p in text.strip("\n").split("\n\n")]


def _run_tag(run: Any) -> str | None:
    font = run.font
    if font.bold:
        return "<b>"
    if font.italic:
        return "<i>"
    if font.underline:
        return "<u>"
    if font.color is not None and font.color.type is not None:
        return '<font color="#ffff00">'
    return None


def _deck_write(tagged: list[tuple[str, list[Tag]]], tmp: Path, srt: Callable[..., str]) -> Path:
    """One slide per sentence: a wide text box, one paragraph, a run per tagged span."""
    from pptx import Presentation
    from pptx.dml.color import RGBColor
    from pptx.util import Inches, Pt

    prs = Presentation()
    for sentence, tags in tagged:
        words = sentence.split()
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        box = slide.shapes.add_textbox(Inches(0.5), Inches(0.5), Inches(9), Inches(6))
        box.text_frame.word_wrap = True
        p = box.text_frame.paragraphs[0]
        cuts = sorted({0, len(words), *(k for _, _, a, b in tags for k in (a, b))})
        for lo, hi in zip(cuts, cuts[1:], strict=False):
            run = p.add_run()
            run.text = " ".join(words[lo:hi]) + (" " if hi < len(words) else "")
            run.font.size = Pt(12)
            kind = next((o for o, _, a, b in tags if a <= lo and hi <= b), None)
            if kind == "<b>":
                run.font.bold = True
            elif kind == "<i>":
                run.font.italic = True
            elif kind == "<u>":
                run.font.underline = True
            elif kind is not None:
                run.font.color.rgb = RGBColor(0xFF, 0xFF, 0)
    path = tmp / "tagged.pptx"
    prs.save(path)
    return path


def _deck_read(doc: Any) -> list[str]:
    """Each slide's paragraph with its formatted runs written as the SRT tags they stand for."""
    import io

    from pptx import Presentation

    from fitsub.formats import document_bytes

    prs = Presentation(io.BytesIO(document_bytes(doc)[0]))
    out = []
    closing = {"<b>": "</b>", "<i>": "</i>", "<u>": "</u>", '<font color="#ffff00">': "</font>"}
    for slide in prs.slides:
        parts = []
        for run in slide.shapes[0].text_frame.paragraphs[0].runs:
            tag = _run_tag(run)
            text = run.text
            if tag is None or not text.strip():
                parts.append(text)
                continue
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()) :]
            parts.append(f"{lead}{tag}{text.strip()}{closing[tag]}{trail}")
        out.append("".join(parts))
    return out


FORMATS = {
    "srt": FormatIO(".srt", _same, _srt_write, _srt_read),
    "md": FormatIO(".md", _md_retag, _md_write, _md_read),
    "pptx": FormatIO(".pptx", _plain, _deck_write, _deck_read),
}
