"""Write samples/deck.pptx: the two-slide deck docs/user-guide.md translates (python-pptx)."""

from __future__ import annotations

import sys
from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.util import Inches, Pt


def main(out: Path) -> None:
    """Build the deck: a title and bullets (one with a bold word), and a sized text box."""
    prs = Presentation()
    s1 = prs.slides.add_slide(prs.slide_layouts[1])
    s1.shapes.title.text = "Why learn a language?"
    body = s1.placeholders[1].text_frame
    body.text = "It is fun."
    p = body.add_paragraph()
    for text, bold in (("You can ", False), ("travel", True), (" more.", False)):
        run = p.add_run()
        run.text = text
        if bold:
            run.font.bold = True
            run.font.color.rgb = RGBColor(0xC0, 0, 0)
    body.add_paragraph().text = "It is good for your brain."
    s2 = prs.slides.add_slide(prs.slide_layouts[6])
    box = s2.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
    box.text_frame.word_wrap = True
    box.text_frame.text = "Thank you for coming to my talk today."
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(24)
    prs.save(out)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "samples/deck.pptx"))
