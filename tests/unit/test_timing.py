"""SRT and WebVTT timing lines share one reader and writer (`fitsub.formats.timing`)."""

from __future__ import annotations

from fitsub.document import Segment
from fitsub.formats import srt, vtt
from fitsub.formats.timing import format_ms, timing_line


def test_times_differ_only_in_the_decimal_separator() -> None:
    assert format_ms(3_723_004, ",") == "01:02:03,004"
    assert timing_line(1000, 2500, "", ".") == "00:00:01.000 --> 00:00:02.500"
    assert timing_line(1000, 2500, "X1:1", ",") == "00:00:01,000 --> 00:00:02,500 X1:1"


def test_each_format_reads_its_own_timestamps() -> None:
    assert srt.parse_timing("0:00:01.000 --> 0:00:02,500") == (1000, 2500, "")
    assert srt.parse_timing("00:61:00,000 --> 00:00:02,500") is None
    assert vtt.parse_timing("01:02.500 --> 01:03.000 align:start") == (62500, 63000, "align:start")
    assert vtt.parse_timing("00:00:01,000 --> 00:00:02,000") is None


def test_a_timing_line_as_written_is_kept_while_it_matches() -> None:
    seg = Segment(0, "1", 1000, 2000, "Hi", timing="0:00:01.000 --> 0:00:02.000")
    assert srt.render_block(seg).split("\n")[1] == "0:00:01.000 --> 0:00:02.000"
    moved = Segment(0, "1", 1000, 3000, "Hi", timing="0:00:01.000 --> 0:00:02.000")
    assert srt.render_block(moved).split("\n")[1] == "00:00:01,000 --> 00:00:03,000"
