"""fitsub parses SRT and WebVTT once, with its own parsers; pysrt and webvtt-py cross-check them."""

from __future__ import annotations

from pathlib import Path

import pysrt
import pytest
import webvtt

from fitsub.formats import parse_document

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SRT = (
    "1\n00:00:01,000 --> 00:00:03,500\nHello <i>there</i>.\n\n"
    "2\n00:00:03,600 --> 00:00:06,000 X1:100 X2:500 Y1:10 Y2:50\n- Is it?\n- Yes.\n\n"
    "17\n01:02:03,004 --> 01:02:04,005\n{\\an8}Top.\n"
)
VTT = (
    "WEBVTT - talk\nKind: captions\n\nSTYLE\n::cue { color: yellow }\n\nNOTE hi\n\n"
    "intro\n00:00:01.000 --> 00:00:03.500 align:start\nHello.\n\n"
    "00:03.600 --> 00:06.000\n<v Ann>We go.</v>\n\n"
    "3\n01:00:06.100 --> 01:00:08.000\nBye &amp; yes.\n"
)


@pytest.mark.parametrize("text", [SRT, (SAMPLES / "talk.srt").read_text(encoding="utf-8")])
def test_srt_parser_agrees_with_pysrt(text: str) -> None:
    ours = parse_document(text, "srt").segments
    theirs = pysrt.from_string(text)
    assert len(ours) == len(theirs)
    for seg, item in zip(ours, theirs, strict=True):
        assert (seg.start_ms, seg.end_ms) == (item.start.ordinal, item.end.ordinal)
        assert seg.id == str(item.index) and seg.text == item.text


@pytest.mark.parametrize("text", [VTT, (SAMPLES / "talk.vtt").read_text(encoding="utf-8")])
def test_vtt_parser_agrees_with_webvtt(text: str) -> None:
    ours = parse_document(text, "vtt").segments
    theirs = webvtt.from_string(text).captions
    assert len(ours) == len(theirs)
    for seg, cap in zip(ours, theirs, strict=True):
        assert seg.start_ms == cap.start_time.in_milliseconds()
        assert seg.end_ms == cap.end_time.in_milliseconds()
        assert seg.id == (cap.identifier or None)


def test_the_formats_no_longer_import_the_cross_check_libraries() -> None:
    import fitsub.formats.srt as srt
    import fitsub.formats.vtt as vtt

    for module in (srt, vtt):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "import pysrt" not in source and "import webvtt" not in source
