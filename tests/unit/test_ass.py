"""ASS / SSA through pysubs2: every event, style, override tag and timing kept."""

from __future__ import annotations

import json
from pathlib import Path

import pysubs2
import pytest
from cli_helpers import run
from doubles import ToyBackend
from factories import tiny_checkpoint

from fitsub.budget import limits_for
from fitsub.errors import InputError
from fitsub.formats import parse_document, read_document, render_document
from fitsub.pipeline import TranslateOptions, translate_document

ASS = """[Script Info]
Title: Demo
ScriptType: v4.00+
PlayResX: 1920
PlayResY: 1080

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Arial,48,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1
Style: Sign,Arial,40,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,1,2,2,8,10,10,10,1

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:01.00,0:00:03.50,Default,Anna,0,0,0,,{\\an8}We go home now.
Comment: 0,0:00:03.50,0:00:04.00,Default,,0,0,0,,a note for the translator
Dialogue: 0,0:00:04.00,0:00:06.20,Default,,0,0,0,,This is the end\\Nof the talk.
Dialogue: 1,0:00:06.20,0:00:08.00,Sign,,0,0,0,,{\\pos(960,100)\\fad(200,200)}Yes, you and I.
Dialogue: 0,0:00:08.00,0:00:09.00,Sign,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100{\\p0}
"""


def _opts() -> TranslateOptions:
    return TranslateOptions(lang="it", limits=limits_for("it"), ratio=1.5, compare=False)


def test_every_event_is_a_segment_with_its_times_and_style() -> None:
    doc = parse_document(ASS, "ass")
    assert [(s.start_ms, s.end_ms, s.settings) for s in doc.segments] == [
        (1000, 3500, "Default"),
        (3500, 4000, "Default"),
        (4000, 6200, "Default"),
        (6200, 8000, "Sign"),
        (8000, 9000, "Sign"),
    ]
    assert [s.translatable for s in doc.segments] == [True, False, True, True, False]
    assert doc.segments[2].text == "This is the end\nof the talk."  # \N is a line break
    assert [s.line for s in doc.segments] == [14, 15, 16, 17, 18]
    assert doc.timed


def test_translation_keeps_styles_tags_timings_and_untranslated_events() -> None:
    doc = parse_document(ASS, "ass")
    out = translate_document(doc, ToyBackend(), _opts()).document
    written = render_document(out)
    before, after = pysubs2.SSAFile.from_string(ASS), pysubs2.SSAFile.from_string(written)
    assert len(after.events) == len(before.events)
    for a, b in zip(before.events, after.events, strict=True):
        assert (a.start, a.end, a.style, a.name, a.layer, a.type) == (
            b.start, b.end, b.style, b.name, b.layer, b.type,
        )  # fmt: skip
    assert after.styles.keys() == before.styles.keys()
    assert after.styles["Sign"].primarycolor == before.styles["Sign"].primarycolor
    texts = [e.text for e in after.events]
    assert texts[0].startswith("{\\an8}Noi andiamo")  # leading override block kept
    assert texts[1] == "a note for the translator"  # comment kept
    assert texts[3].startswith("{\\pos(960,100)\\fad(200,200)}")
    assert texts[4] == "{\\p1}m 0 0 l 100 0 100 100{\\p0}"  # drawing kept
    assert "Dialogue: 0,0:00:01.00,0:00:03.50,Default,Anna," in written


def test_ssa_is_written_back_as_ssa() -> None:
    ssa = pysubs2.SSAFile.from_string(ASS).to_string("ssa")
    doc = parse_document(ssa, "ssa")
    written = render_document(
        doc.with_texts(["Ciao." if s.translatable else s.text for s in doc.segments])
    )
    assert "[V4 Styles]" in written and "Ciao." in written
    assert len(pysubs2.SSAFile.from_string(written).events) == 5


def test_a_text_without_any_section_is_not_a_script() -> None:
    with pytest.raises(InputError, match=r"not a valid ASS/SSA script: no \[Script Info\]"):
        parse_document("Hello there.\nTitle: x\n", "ass")


@pytest.mark.parametrize("kind", ["no [Events] section", "an empty [Events] section"])
def test_a_script_without_events_is_valid_and_written_back_as_read(kind: str) -> None:
    # issue 44: pysubs2 and libass read both; there is nothing to translate
    script = "[Script Info]\r\nTitle: x\r\nScriptType: v4.00+\r\n"
    if kind == "an empty [Events] section":
        script += "\r\n[Events]\r\nFormat: Layer, Start, End, Style, Text\r\n; none yet\r\n"
    doc = parse_document(script, "ass")
    assert doc.segments == ()
    assert render_document(doc) == script


def test_translate_an_ass_file_through_the_cli(tmp_path: Path) -> None:
    src = tmp_path / "talk.ass"
    src.write_text(ASS, encoding="utf-8")
    model = tiny_checkpoint(tmp_path)
    report = tmp_path / "r.json"
    code = run(["translate", str(src), "--model", str(model), "--beam", "1", "-q",
                "--report", str(report)])  # fmt: skip
    assert code == 0
    assert src.read_text(encoding="utf-8") == ASS
    out = read_document(tmp_path / "talk.it.ass")
    assert [(s.start_ms, s.end_ms) for s in out.segments] == [
        (s.start_ms, s.end_ms) for s in parse_document(ASS, "ass").segments
    ]
    data = json.loads(report.read_text())
    assert data["meta"]["format"] == "ass"
    assert all(r["fits"] or not r["model_fits"] for r in data["segments"] if r["translated"])


def test_a_closing_override_block_goes_back_at_the_end() -> None:
    script = ASS.replace("Yes, you and I.", "{\\i1}Yes, you and I.{\\i0}")
    doc = parse_document(script, "ass")
    out = translate_document(doc, ToyBackend(), _opts()).document
    event = pysubs2.SSAFile.from_string(render_document(out)).events[3]
    assert event.text.startswith("{\\pos(960,100)\\fad(200,200)}{\\i1}")
    assert event.text.endswith("{\\i0}") and "Sì" in event.text
