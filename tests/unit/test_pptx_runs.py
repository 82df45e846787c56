"""PowerPoint runs carried onto their words by projection (issue 29): a bold word keeps its
formatting on its translation, wherever the translation puts it."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

from doubles import ToyBackend
from pptx import Presentation
from pptx.util import Inches

from fitsub.backend import Candidate, Request
from fitsub.budget import limits_for
from fitsub.formats import document_bytes, read_bytes_document
from fitsub.formats.pptx_runs import place_runs
from fitsub.identity import IdentityBackend
from fitsub.pipeline import TranslateOptions, translate_document

Run = tuple[str, bool]  # (text, bold)


def _deck(*paragraphs: Sequence[Run], breaks: bool = False) -> bytes:
    """One text box, a paragraph per item, a run per (text, bold); `breaks`: a line break
    after each paragraph's first run."""
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    frame = slide.shapes.add_textbox(Inches(0.5), Inches(0.5), Inches(9), Inches(6)).text_frame
    for k, runs in enumerate(paragraphs):
        p = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        for j, (text, bold) in enumerate(runs):
            if breaks and j == 1:
                p.add_line_break()
            run = p.add_run()
            run.text = text
            run.font.bold = bold or None
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def _runs(data: bytes) -> list[list[Run]]:
    """Each paragraph's non-empty runs as (text, bold)."""
    frame = Presentation(io.BytesIO(data)).slides[0].shapes[0].text_frame
    return [[(r.text, bool(r.font.bold)) for r in p.runs if r.text] for p in frame.paragraphs]


class Reversing(ToyBackend):
    """The toy's words in reverse order: every word moves."""

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        return [
            [Candidate(" ".join(c.text.split()[::-1]), c.score, c.fits) for c in cands]
            for cands in super().translate(requests, n_best)
        ]


def _translate(data: bytes, backend: ToyBackend | IdentityBackend) -> tuple[bytes, list[str]]:
    doc = read_bytes_document(data, "pptx")
    opts = TranslateOptions(lang="it", limits=limits_for("it"), ratio=3.0, quality=False)
    result = translate_document(doc, backend, opts)
    return document_bytes(result.document)[0], result.warnings


SENTENCE = [("The ", False), ("old", True), (" dog sleeps all day.", False)]


def test_a_bold_word_keeps_its_formatting_on_its_translation() -> None:
    out, warnings = _translate(_deck(SENTENCE), ToyBackend())
    assert _runs(out) == [
        [("Il ", False), ("oldino", True), (" dogino sleepsino allino dayino.", False)]
    ]
    assert warnings == []


def test_the_bold_run_follows_its_word_when_the_translation_moves_it() -> None:
    out, _ = _translate(_deck(SENTENCE, [("Old", True), (" dogs sleep.", False)]), Reversing())
    assert _runs(out) == [
        [("dayino. allino sleepsino dogino ", False), ("oldino", True), (" Il", False)],
        [("sleepino. dogsino ", False), ("Oldino", True)],  # first in the source, last here
    ]


def test_identity_writes_the_deck_back_byte_for_byte() -> None:
    data = _deck(SENTENCE, [("Old", True), (" dogs sleep.", False)])
    out, _ = _translate(data, IdentityBackend())
    assert out == data


def test_runs_across_a_line_break_are_shared_by_position_with_a_warning() -> None:
    data = _deck(SENTENCE, breaks=True)
    doc = read_bytes_document(data, "pptx")
    assert any("line break or field" in w for w in doc.warnings)
    out, _ = _translate(data, ToyBackend())
    runs = _runs(out)[0]
    assert len(runs) == 3 and runs[1][1]  # every run survives, the bold one in the middle
    assert (
        " ".join(t for t, _ in runs).split() == "Il oldino dogino sleepsino allino dayino.".split()
    )


def test_a_run_the_projection_cannot_place_goes_to_its_relative_place() -> None:
    text = "uno due tre quattro"
    # run 1 (of sizes 4, 4, 8) projected around the whole text: not placed; its share is the
    # second quarter of the sentence, "due"
    assert place_runs({1: (0, len(text))}, [4, 4, 8], text) == [(1, (4, 7))]
    # placed spans win; a run crossing one placed before it is put where it is free
    assert place_runs({1: (8, 11), 2: (4, 11)}, [4, 4, 8], text) == [(1, (8, 11)), (2, (12, 19))]


def test_an_ampersand_is_escaped_once_in_the_slide_xml() -> None:
    # "&" is written "&amp;" in the XML (the XML escape, not a second one): the slide shows "&"
    out, _ = _translate(_deck([("Tom & Jerry", False), (" & co", True)]), ToyBackend())
    assert _runs(out) == [[("Tomino &ino Jerryino ", False), ("&ino coino", True)]]
    with zipfile.ZipFile(io.BytesIO(out)) as package:
        xml = package.read("ppt/slides/slide1.xml").decode()
    assert xml.count("&amp;ino") == 2 and "&amp;amp;" not in xml
