"""`fitsub.dubbing.check`: each dubbed line's synthesized duration against the source line's, with a
synthesizer passed in (the tests that run espeak-ng itself are in tests/system/test_dub_check.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fitsub.dubbing.check import TOO_LONG, TOO_SHORT, check_dub, flag_for, report_table
from fitsub.dubbing.speech import espeak_available
from fitsub.errors import InputError
from fitsub.formats import parse_document

needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)


def srt(texts: list[str], durations_ms: list[int]) -> str:
    blocks, start = [], 1000
    for i, (text, dur) in enumerate(zip(texts, durations_ms, strict=True), 1):
        end = start + dur
        blocks.append(
            f"{i}\n00:00:{start // 1000:02d},{start % 1000:03d} --> "
            f"00:00:{end // 1000:02d},{end % 1000:03d}\n{text}\n"
        )
        start = end + 500
    return "\n".join(blocks)


def by_length(text: str, lang: str, wpm: int | None) -> float:
    """A stand-in synthesizer: a tenth of a second a character."""
    return len(text) / 10


def test_the_band_is_fifteen_percent() -> None:
    assert flag_for(1.15) == "" and flag_for(0.85) == ""
    assert flag_for(1.16) == TOO_LONG and flag_for(0.84) == TOO_SHORT
    assert flag_for(None) == ""


@needs_espeak
def test_lines_outside_the_band_are_flagged() -> None:
    src = parse_document(
        srt(["a" * 20, "b" * 20, "c" * 20], [3000, 3000, 3000]), "srt", Path("s.srt")
    )
    dub = parse_document(
        srt(["x" * 20, "y" * 30, "z" * 10], [3000, 1000, 3000]), "srt", Path("d.srt")
    )
    report = check_dub(src, dub, lang="it", synthesize=by_length)
    assert [x.ratio for x in report.lines] == [1.0, 1.5, 0.5]
    assert [x.flag for x in report.lines] == ["", TOO_LONG, TOO_SHORT]
    assert [x.fits_cue for x in report.lines] == [True, False, True]
    assert report.within == pytest.approx(1 / 3)
    assert report.to_dict()["too_long"] == 1 and report.to_dict()["too_short"] == 1
    assert "33.3 % within ±15 %" in report_table(report)


def test_cue_counts_must_match() -> None:
    src = parse_document(srt(["one", "two"], [1000, 1000]), "srt", Path("s.srt"))
    dub = parse_document(srt(["uno"], [1000]), "srt", Path("d.srt"))
    with pytest.raises(InputError, match="1 cues against 2"):
        check_dub(src, dub, lang="it", synthesize=by_length)


def test_a_cue_without_time_is_an_input_error() -> None:
    src = parse_document(srt(["one"], [1000]), "srt", Path("s.srt"))
    dub = parse_document(srt(["uno"], [0]), "srt", Path("d.srt"))
    with pytest.raises(InputError, match="cue of 0 ms"):
        check_dub(src, dub, lang="it", synthesize=by_length)


@pytest.mark.parametrize("rate", [0.0, -2.0, 25.0])
def test_a_bad_speech_rate_is_an_input_error(rate: float) -> None:
    src = parse_document(srt(["one"], [1000]), "srt", Path("s.srt"))
    with pytest.raises(InputError) as caught:
        check_dub(src, src, lang="it", speech_rate=rate, synthesize=by_length)
    assert caught.value.setting == "speech_rate"


def test_a_language_without_a_rate_is_an_input_error() -> None:
    src = parse_document(srt(["one"], [1000]), "srt", Path("s.srt"))
    with pytest.raises(InputError, match="no speech rate for language 'xx'"):
        check_dub(src, src, lang="xx", synthesize=by_length)
