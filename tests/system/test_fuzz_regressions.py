"""Regressions found by the long fuzz run (`tools/fuzz.sh 10000 18`), one test per cause.

Each test writes a minimal file reduced from a failing case and runs it through the real CLI
entry point with the toy backend (`test_fuzz.check_case`: exit 0 or 2, every cue, id, timing,
gap and word kept, the output reads back), then checks the cause itself.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hardening_helpers import toy_model  # noqa: E402
from test_fuzz import check_case  # noqa: E402

from fitsub.charsets.detect import decode_bytes  # noqa: E402
from fitsub.formats import read_document  # noqa: E402
from fitsub.formats.markdown import parse  # noqa: E402


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "work"
    folder.mkdir()
    with toy_model(tmp_path):
        yield folder


def test_guessed_legacy_output_is_utf8_when_it_would_be_guessed_otherwise(work: Path) -> None:
    # cases 216, 1124, 1844, 3153, 3464, 4319, 4359, 6175, 6534, 6903, 7185, 7347, 7490, 7500,
    # 7830, 8974: written back in the guessed cp1251, the translation reads back as another
    # code page ("text between cues changed", "words lost")
    data = b"\xff\xed\xa0\x80\xfe"
    assert decode_bytes(data).encoding == "cp1251"
    assert check_case("slides", data, work) == "ok"
    out = read_document(work / "out.md")
    assert out.encoding == "utf-8"
    assert out.gaps == read_document(work / "in.md").gaps


def test_guessed_legacy_output_never_reads_as_broken_utf8(work: Path) -> None:
    # case 2016: the toy's "è" in the guessed cp850 (0x8A) next to a byte pair that became
    # valid UTF-8: the output was rejected as "not valid UTF-8" on reading back
    data = b"1. T\xed\xa0\x80his is *not* the end\n> A quote here."
    assert check_case("slides", data, work) == "ok"
    assert read_document(work / "out.md").encoding == "utf-8"


def test_bomless_utf16_is_not_a_legacy_guess(work: Path) -> None:
    # case 4678: charset-normalizer's only guess was UTF-16 LE (no BOM, no NUL byte); the
    # translation was written with NUL bytes and read back as a binary file
    data = b"\xef\xbb\xed\xa0\x80\xbf\xd9\xa3"
    assert not decode_bytes(data).encoding.startswith("utf-16")
    assert check_case("slides", data, work) == "ok"
    assert b"\x00" not in (work / "out.md").read_bytes()


@pytest.mark.parametrize(
    "data",
    [
        b"This is * --> not* the end\n",
        # a vertical tab is a control character: at most 1 % of the file (100 characters)
        b"This is *\x0bnot* the end" + b" of it" * 16 + b"\n",
    ],
    ids=["arrow", "vt"],
)
def test_markdown_literal_delimiters_stay_out_of_translations(work: Path, data: bytes) -> None:
    # cases 270, 7297, 5768: a literal "*" was translated with its text ("*ino not*ino") and
    # paired into emphasis, splitting one text node into three on reading back
    assert "*" not in "".join(s.text for s in parse(data.decode()).segments)
    assert check_case("slides", data, work) == "ok"
    assert len(read_document(work / "out.md").segments) == 3


def test_zero_duration_cue_is_shortened_to_its_budget_and_flagged(work: Path) -> None:
    # case 620: a 0 ms cue has a reading-speed budget of 0 characters: fitsub writes its
    # shortest translation and flags it; the checker counts words outside such cues only
    data = (
        b"1\n00:00:01,000 --> 00:00:01,000\nHello, and welcome to the cafe.\n\n"
        b"2\n00:00:02,000 --> 00:00:04,000\nWe go home now.\n"
    )
    assert check_case("srt", data, work) == "ok"
    first = json.loads((work / "report.json").read_text(encoding="utf-8"))["segments"][0]
    assert (first["budget"]["chars"], first["budget"]["too_small"]) == (0, True)
    assert "over-budget" in [flag["name"] for flag in first["flags"]]
