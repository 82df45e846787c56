"""Reading, writing and round-tripping the samples and encodings: every cue, id, timing,
verbatim block and protected tag survives."""

from __future__ import annotations

from pathlib import Path

import pytest

from fitsub.document import Document, Segment
from fitsub.formats import parse_document, read_document, render_document, write_document
from fitsub.markup import protect

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
OK = Path(__file__).resolve().parents[1] / "data" / "ok"


def _fake_translate(doc: Document) -> Document:
    """Protect each cue, 'translate' its words to upper case turn by turn, restore."""
    texts = []
    for seg in doc.segments:
        if not seg.translatable:
            texts.append(seg.text)
            continue
        prot = protect(seg.text, doc.format)
        texts.append(prot.restore_turns([t.upper() for t in prot.turn_texts]))
    return doc.with_texts(texts)


@pytest.mark.parametrize("name", ["talk.srt", "talk.vtt", "slides.md"])
def test_samples_round_trip_exactly(name: str) -> None:
    path = SAMPLES / name
    doc = read_document(path)
    assert doc.warnings == ()
    assert render_document(doc) == path.read_text(encoding="utf-8")


def test_srt_sample_cues_ids_and_times() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    assert doc.format == "srt" and doc.encoding == "utf-8" and doc.newline == "\n"
    assert len(doc.segments) == 20
    assert [s.id for s in doc.segments] == [str(i) for i in range(1, 21)]
    first, third = doc.segments[0], doc.segments[2]
    assert (first.start_ms, first.end_ms, first.duration_ms) == (1000, 3200, 2200)
    assert third.text == "- Is this seat free?\n- Yes, please sit down."
    assert doc.segments[4].text == "{\\an8}Please turn off your phones."


def test_vtt_sample_keeps_header_style_region_note_and_settings() -> None:
    doc = read_document(SAMPLES / "talk.vtt")
    assert len(doc.segments) == 11
    assert [s.id for s in doc.segments[:3]] == ["intro", None, "cue-3"]
    assert doc.segments[0].settings == "line:85% align:center"
    assert doc.segments[2].settings == "region:bottom"
    assert doc.gaps[0].startswith("WEBVTT\nKind: captions\nLanguage: en\n\nSTYLE\n::cue(.yellow) {")
    assert "REGION\nid:bottom\n" in doc.gaps[0]
    assert "NOTE\nThe next three cues are one sentence.\n" in doc.gaps[4]
    out = render_document(_fake_translate(doc))
    for block in (
        "STYLE\n::cue(.yellow) {\n  color: yellow;\n}",
        "REGION\nid:bottom",
        "NOTE This sample",
    ):
        assert block in out
    assert (
        "intro\n00:00:01.000 --> 00:00:03.000 line:85% align:center\n<v Anna>HELLO, HOW ARE YOU?"
        in out
    )
    assert "<c.yellow>I AM VERY HUNGRY.</c>" in out
    assert "BREAD &amp; BUTTER, PLEASE." in out


@pytest.mark.parametrize("name", ["talk.srt", "talk.vtt"])
def test_translated_samples_keep_every_cue_id_timing_and_tag(name: str, tmp_path: Path) -> None:
    doc = read_document(SAMPLES / name)
    out_path = tmp_path / name
    assert write_document(_fake_translate(doc), out_path) == "utf-8"
    again = read_document(out_path)
    assert [(s.id, s.start_ms, s.end_ms, s.settings) for s in again.segments] == [
        (s.id, s.start_ms, s.end_ms, s.settings) for s in doc.segments
    ]
    for old, new in zip(doc.segments, again.segments, strict=True):
        before, after = protect(old.text, doc.format), protect(new.text, doc.format)
        assert (after.prefix, after.suffix) == (before.prefix, before.suffix)
        assert [(t.prefix, t.suffix) for t in after.turns] == [
            (t.prefix, t.suffix) for t in before.turns
        ]
        assert after.plain == before.plain.upper()


def test_srt_translated_sample_text() -> None:
    doc = _fake_translate(read_document(SAMPLES / "talk.srt"))
    texts = [s.text for s in doc.segments]
    assert texts[2] == "- IS THIS SEAT FREE?\n- YES, PLEASE SIT DOWN."
    assert texts[3] == "[PHONE RINGS]"
    assert texts[4] == "{\\an8}PLEASE TURN OFF YOUR PHONES."
    assert texts[5] == "<i>I LOVE THIS CITY.</i>"
    assert texts[9] == "♪ HAPPY BIRTHDAY TO YOU ♪"
    assert texts[18] == "TOM &amp; MARY ARE MY FRIENDS."


def test_slides_keep_markers_and_blank_lines() -> None:
    path = SAMPLES / "slides.md"  # read as line-based slide text (.txt); .md: test_markdown.py
    doc = parse_document(path.read_text(encoding="utf-8"), "slides")
    fixed = [s.text for s in doc.segments if not s.translatable]
    assert fixed == [
        "",
        "",
        "",
        "---",
        "",
        "",
        "",
        "",
        "```",
        "buongiorno = good morning",
        "```",
        "",
    ]
    out = render_document(_fake_translate(doc))
    source_lines = path.read_text(encoding="utf-8").split("\n")
    out_lines = out.split("\n")
    assert len(out_lines) == len(source_lines)
    assert "  - TALK TO PEOPLE IN THEIR LANGUAGE." in out_lines
    assert "- **IT IS GOOD FOR YOUR BRAIN.**" in out_lines
    assert "## THREE SIMPLE STEPS" in out_lines
    assert "2. LISTEN TO MUSIC IN _ITALIAN_." in out_lines  # mid-line emphasis follows its word
    assert "> PRACTICE MAKES PERFECT." in out_lines
    for src, dst in zip(source_lines, out_lines, strict=True):
        if not src.strip() or src in fixed:
            assert dst == src


def test_plain_text_slides_and_front_matter() -> None:
    text = "---\ntitle: Demo\n---\n• First point\n\n| a | b |\n![logo](logo.png)\nLast line"
    doc = parse_document(text, "slides")
    assert [s.translatable for s in doc.segments] == [
        False,
        False,
        False,
        True,
        False,
        False,
        False,
        True,
    ]
    assert render_document(doc) == text  # no trailing newline, kept


def test_cp1252_is_detected_kept_and_falls_back_to_utf8_when_needed(tmp_path: Path) -> None:
    doc = read_document(OK / "cp1252.srt")
    assert doc.encoding == "cp1252" and doc.newline == "\r\n"
    assert doc.segments[0].text == "Café crème – it’s €3."
    same = tmp_path / "same.srt"
    assert write_document(doc.with_texts(["Caffè è buono.", "<i>Ingenuo.</i>"]), same) == "cp1252"
    assert same.read_bytes().startswith(
        b"1\r\n00:00:01,000 --> 00:00:02,500\r\nCaff\xe8 \xe8 buono.\r\n"
    )
    song = tmp_path / "song.srt"
    assert write_document(doc.with_texts(["♪ La la ♪", "Ciao."]), song) == "utf-8"
    assert read_document(song).segments[0].text == "♪ La la ♪"
    assert write_document(doc, tmp_path / "forced.srt", encoding="utf-8-sig") == "utf-8-sig"
    assert (tmp_path / "forced.srt").read_bytes().startswith(b"\xef\xbb\xbf1\r\n")


def test_bom_and_crlf_are_preserved(tmp_path: Path) -> None:
    src = OK / "bom_crlf.srt"
    doc = read_document(src)
    assert (doc.encoding, doc.newline) == ("utf-8-sig", "\r\n")
    assert [s.text for s in doc.segments] == ["Hello.", "Goodbye."]
    out = tmp_path / "out.srt"
    write_document(doc, out)
    assert out.read_bytes() == src.read_bytes()


def test_utf16_with_bom() -> None:
    doc = read_document(OK / "utf16.vtt")
    assert doc.encoding == "utf-16" and doc.segments[0].text == "Hello."


def test_latin1_bytes_outside_cp1252() -> None:
    from fitsub.formats import read_bytes_document

    data = "1\n00:00:01,000 --> 00:00:02,000\nA\x81b.\n".encode("latin-1")
    assert read_bytes_document(data, "srt").encoding == "latin-1"


def test_mixed_line_endings_are_normalised_with_a_warning() -> None:
    text = "1\r\n00:00:01,000 --> 00:00:02,000\r\nHello.\r\n\r\n2\n00:00:03,000 --> 00:00:04,000\r\nBye.\r\n"
    doc = parse_document(text, "srt")
    assert doc.newline == "\r\n"
    assert "mixed line endings" in doc.warnings[0]
    assert render_document(doc) == text.replace("\r\n", "\n").replace("\n", "\r\n")


def test_with_texts_keeps_count_ids_timings_and_makes_texts_safe() -> None:
    doc = read_document(SAMPLES / "talk.srt")
    texts = ["uno\n\ndue"] + ["x --> y"] + [f"t{i}" for i in range(18)]
    out = doc.with_texts(texts)
    assert [(s.id, s.start_ms, s.end_ms) for s in out.segments] == [
        (s.id, s.start_ms, s.end_ms) for s in doc.segments
    ]
    assert out.segments[0].text == "uno\ndue"  # a blank line would end the cue
    assert out.segments[1].text == "x -> y"
    again = parse_document(render_document(out), "srt")
    assert [s.text for s in again.segments] == [s.text for s in out.segments]
    with pytest.raises(ValueError, match="19 texts for 20 segments"):
        doc.with_texts(texts[:-1])
    slides = parse_document("- one\n- two\n", "slides").with_texts(["- uno\ne mezzo", "- due"])
    assert render_document(slides) == "- uno e mezzo\n- due\n"


def test_changed_timings_are_written_canonically() -> None:
    seg = Segment(0, "7", 3_723_004, 3_724_000, "Hi", timing="01:02:03,004 --> 01:02:04,000")
    doc = Document(None, "srt", (seg,))
    assert render_document(doc) == "7\n01:02:03,004 --> 01:02:04,000\nHi\n"
    moved = Document(None, "srt", (Segment(0, "7", 5, 6, "Hi", timing=seg.timing),))
    assert render_document(moved) == "7\n00:00:00,005 --> 00:00:00,006\nHi\n"
    vtt = Document(None, "vtt", (Segment(0, None, 1500, 2000, "Hi", settings="align:start"),))
    assert render_document(vtt) == "WEBVTT\n\n00:00:01.500 --> 00:00:02.000 align:start\nHi\n"


def test_srt_variants_players_accept() -> None:
    text = "1\n0:00:01.5 --> 0:00:02,000\nx\n"  # a one-digit fraction: tenths (pysubs2)
    assert [(c.start_ms, c.end_ms) for c in parse_document(text, "srt").segments] == [(1500, 2000)]
    with pytest.raises(Exception, match="broken timestamp"):
        parse_document("1\n0:00:01.5000 --> 0:00:02,000\nx\n", "srt")
    ok = "001\n00:00:01.500 --> 00:00:02.000 X1:10 X2:20 Y1:5 Y2:9\nHello\n"
    doc = parse_document(ok, "srt")
    seg = doc.segments[0]
    assert (seg.id, seg.start_ms, seg.end_ms, seg.settings) == (
        "001",
        1500,
        2000,
        "X1:10 X2:20 Y1:5 Y2:9",
    )
    assert render_document(doc) == ok


def test_srt_fractions_of_one_or_two_digits_are_read_as_pysubs2_reads_them() -> None:
    # issue 55: "00:29:27,46" was refused; pysubs2 reads it as 27.46 s, and so does fitsub
    text = (
        "1\n00:29:27,46 --> 00:29:29,5\nWell.\n\n"
        "2\n00:29:30,460 --> 00:29:31,07\nThen.\n\n"
        "3\n00:29:32,007 --> 00:29:33,000\nGo.\n"
    )
    doc = parse_document(text, "srt")
    base = 29 * 60_000
    assert [(c.start_ms, c.end_ms) for c in doc.segments] == [
        (base + 27_460, base + 29_500),
        (base + 30_460, base + 31_070),
        (base + 32_007, base + 33_000),
    ]
    assert render_document(doc) == text  # the timing lines are written back as they were
    pysubs2 = pytest.importorskip("pysubs2")
    theirs = pysubs2.SSAFile.from_string(text, format_="srt")
    assert [(e.start, e.end) for e in theirs] == [(c.start_ms, c.end_ms) for c in doc.segments]


def test_vtt_cue_without_blank_line_before_next_timing() -> None:
    text = "WEBVTT\n\n00:01.000 --> 00:02.000\nOne\n00:03.000 --> 00:04.000\nTwo\n"
    doc = parse_document(text, "vtt")
    assert [(s.start_ms, s.text) for s in doc.segments] == [(1000, "One"), (3000, "Two")]
    assert render_document(doc) == text


def test_write_is_atomic_and_replaces_an_existing_output(tmp_path: Path) -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", "srt")
    out = tmp_path / "out.srt"
    out.write_text("old", encoding="utf-8")
    write_document(doc.with_texts(["Ciao."]), out)
    assert out.read_text(encoding="utf-8") == "1\n00:00:01,000 --> 00:00:02,000\nCiao.\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.srt"]


def test_timed_is_read_from_the_segments_and_every_extension_names_a_listed_format() -> None:
    from fitsub.formats import EXTENSIONS, FORMATS

    assert FORMATS == ("srt", "vtt", "ass", "ssa", "slides", "markdown", "pptx")
    assert set(EXTENSIONS.values()) == set(FORMATS)
    srt = parse_document("1\n00:00:01,000 --> 00:00:02,000\nHi\n", "srt")
    ass = parse_document(
        "[Script Info]\n\n[Events]\nFormat: Layer, Start, End, Style, Text\n"
        "Dialogue: 0,0:00:01.00,0:00:02.00,Default,Hi\n",
        "ass",
    )
    slides = parse_document("- one\n", "slides")
    markdown = parse_document("# Title\n\nText.\n", "markdown")
    assert (srt.timed, ass.timed, slides.timed, markdown.timed) == (True, True, False, False)
    # a subtitle text loses blank lines; a slide text becomes one line
    assert srt.with_texts(["a\n\nb"]).segments[0].text == "a\nb"
    assert slides.with_texts(["a\nb"]).segments[0].text == "a b"
