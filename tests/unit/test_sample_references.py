"""The human references under samples/ (NAME.LANG-ref.srt) align with their sources NAME.srt.

bench/fitting.py scores a run against a reference cue by cue (issue 43's measurements), so a
reference must keep its source's cues: the same count, ids and timings, one translation a cue,
the source's markup and positioning tags, its sound and song marks, and its names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fitsub.document import Segment
from fitsub.formats import srt

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
REFERENCES = sorted(SAMPLES.glob("*.*-ref.srt"))
TAG = re.compile(r"<[^>]+>|\{[^}]*\}")
NAMES = ("Porto Lume", "Tommaso", "Nora Bellweather", "Okafor")


def _cues(path: Path) -> list[Segment]:
    return srt.parse(path.read_text(encoding="utf-8"), path).segments


def test_every_language_has_its_references() -> None:
    names = {p.name for p in REFERENCES}
    for lang in ("it", "de", "fr", "es"):
        assert {f"film.{lang}-ref.srt", f"bees.{lang}-ref.srt"} <= names


@pytest.mark.parametrize("ref", REFERENCES, ids=lambda p: p.name)
def test_reference_keeps_cues_timings_tags_and_names(ref: Path) -> None:
    source = _cues(SAMPLES / f"{ref.name.split('.')[0]}.srt")
    target = _cues(ref)
    assert len(target) == len(source)
    for s, t in zip(source, target, strict=True):
        assert (t.id, t.start_ms, t.end_ms) == (s.id, s.start_ms, s.end_ms)
        assert t.text.strip() and t.text != s.text, s.id  # one translation a cue
        assert TAG.findall(t.text) == TAG.findall(s.text), s.id
        for mark in ("♪", "[", "]", "- "):
            assert t.text.count(mark) == s.text.count(mark), (s.id, mark)
        for name in NAMES:
            assert (name in t.text) == (name in s.text), (s.id, name)
        assert len(t.text.split("\n")) <= 2
