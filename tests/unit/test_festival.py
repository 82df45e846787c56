"""festival, dub-check's second voice for Italian (`fitsub.dubbing.festival`): its durations, its
scaling to the dub's rate, and its verdict beside espeak-ng's (`check_dub(voice=...)`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fitsub.budget import SPEECH_RATES
from fitsub.document import Document
from fitsub.dubbing.check import TOO_LONG, TOO_SHORT, check_dub, report_table
from fitsub.dubbing.festival import (
    FESTIVAL_RATE,
    Voice,
    festival_available,
    festival_raw_seconds,
    festival_voice,
    require_festival,
)
from fitsub.dubbing.speech import espeak_available
from fitsub.errors import InputError
from fitsub.formats import parse_document

needs_festival = pytest.mark.skipif(
    not festival_available(),
    reason="festival's text2wave is not on PATH (apt-get install festival festvox-italp16k)",
)
needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)

SOURCE = (
    "1\n00:00:01,000 --> 00:00:03,000\nWhere were you last night?\n\n"
    "2\n00:00:03,500 --> 00:00:06,000\nI waited at the station until midnight.\n"
)
DUB = (
    "1\n00:00:01,000 --> 00:00:03,000\nDove eri ieri sera?\n\n"
    "2\n00:00:03,500 --> 00:00:06,000\nTi ho aspettato alla stazione fino a mezzanotte, "
    "sotto la pioggia, da solo.\n"
)


def docs() -> tuple[Document, Document]:
    return parse_document(SOURCE, "srt", Path("s.srt")), parse_document(DUB, "srt", Path("d.srt"))


@needs_festival
def test_a_longer_italian_line_takes_festival_longer() -> None:
    short = festival_raw_seconds("Dove eri?")
    longer = festival_raw_seconds("Dove eri ieri sera, quando ti ho aspettato alla stazione?")
    assert 0.3 < short < longer
    # about its calibrated rate: 20 syllables in roughly 20 / 6.31 s
    assert 2.0 < longer < 5.0


@needs_festival
def test_its_durations_are_put_on_the_dubs_rate() -> None:
    raw = festival_raw_seconds("Ti ho aspettato alla stazione.")
    voice = festival_voice("it", SPEECH_RATES["it"])
    assert voice.speak("Ti ho aspettato alla stazione.") == pytest.approx(
        raw * FESTIVAL_RATE / SPEECH_RATES["it"]
    )
    assert "0.903" in voice.note
    slower = festival_voice("it", 5.0).speak("Ti ho aspettato alla stazione.")
    assert slower > raw  # asked to speak at 5 syllables/s, festival's line takes longer


@needs_festival
@needs_espeak
def test_festival_judges_a_constructed_dub_beside_espeak() -> None:
    source, dub = docs()
    report = check_dub(source, dub, lang="it", voice="festival")
    first, second = report.lines
    assert first.second is not None and second.second is not None
    # "Dove eri ieri sera?" is as long as its source; the second line is twice it
    assert first.second.flag == ""
    assert 0.85 <= (first.second.ratio or 0) <= 1.15
    assert second.second.flag == TOO_LONG and (second.second.ratio or 0) > 1.15
    summary = report.to_dict()["second_voice"]
    assert summary["name"] == "festival" and summary["within"] == 0.5 and summary["agree"] == 1.0
    assert "festival_ratio" in report_table(report).splitlines()[0]


def by_length(text: str, lang: str, wpm: int | None) -> float:
    """A stand-in espeak-ng: a tenth of a second a character."""
    return len(text) / 10


@needs_espeak
def test_the_second_voice_is_reported_beside_espeak_and_only_when_asked() -> None:
    source, dub = docs()
    # a stand-in second voice that speaks every line 1.5 times as long as the stand-in espeak-ng:
    # the first line, 19 characters against 26, too short for one (0.73), fits the other (1.10)
    slow = Voice(name="slow", note="a stand-in", speak=lambda t: 1.5 * len(t) / 10)
    plain = check_dub(source, dub, lang="it", synthesize=by_length)
    both = check_dub(source, dub, lang="it", synthesize=by_length, voice=slow)
    assert [x.flag for x in plain.lines] == [x.flag for x in both.lines] == [TOO_SHORT, TOO_LONG]
    assert [x.second.flag for x in both.lines if x.second] == ["", TOO_LONG]
    d = both.to_dict()
    assert d["second_voice"]["within"] == 0.5 and d["second_voice"]["too_long"] == 1
    assert d["second_voice"]["agree"] == 0.5  # the second line: both voices flag it
    assert all("second" in seg for seg in d["segments"])
    # without a second voice the report is as before: no second voice, no column
    assert "second_voice" not in plain.to_dict()
    assert all("second" not in seg for seg in plain.to_dict()["segments"])
    assert "slow_ratio" in report_table(both) and "slow" not in report_table(plain)
    assert "agree on 50.0 % of lines" in report_table(both)
    json.dumps(d)  # the report is JSON


def test_festival_speaks_italian_only() -> None:
    with pytest.raises(InputError) as caught:
        require_festival("de")
    assert caught.value.setting == "voice" and "Italian only" in caught.value.problem


def test_without_festival_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(InputError, match="apt-get install festival festvox-italp16k"):
        require_festival("it")


@needs_espeak
def test_a_line_the_second_voice_gives_no_audio_for_is_unmeasured_not_within() -> None:
    source, dub = docs()
    # a stand-in voice that, like festival before « » were mapped, writes no audio for one line
    mute = Voice(name="mute", note="a stand-in", speak=lambda t: 0.0 if "stazione" in t else 2.0)
    report = check_dub(source, dub, lang="it", synthesize=by_length, voice=mute)
    second = report.to_dict()["second_voice"]
    assert [x.second.ratio is None for x in report.lines if x.second] == [False, True]
    assert second["unmeasured"] == 1 and second["within"] <= 0.5
    assert "1 unmeasured (no audio)" in report_table(report)


@needs_festival
def test_festival_speaks_a_line_in_guillemets() -> None:
    assert festival_raw_seconds("Ha detto: «Le api non sono animali domestici».") > 1.0
