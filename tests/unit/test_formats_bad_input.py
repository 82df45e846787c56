"""Bad input: each case gets a one-line InputError naming file, line and problem, or a documented,
tested behaviour (warnings; empty cues kept). Files in tests/data/ are read by the real parsers."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.document import MAX_SEGMENT_CHARS
from fitsub.errors import InputError
from fitsub.formats import (
    detect_format,
    parse_document,
    read_document,
    render_document,
    write_document,
)

DATA = Path(__file__).resolve().parents[1] / "data"
BAD = DATA / "bad"
OK = DATA / "ok"

REJECTED = [
    # (file, line or None, words the problem must contain)
    ("binary.srt", None, "binary file"),
    ("prose.srt", 1, "not an SRT file"),
    ("notes.doc", None, "unknown file type ('.doc')"),
    ("broken_timestamp.srt", 6, "broken timestamp '00:00:03;000 --> 00:00:05,000'"),
    ("broken_timestamp.vtt", 6, "broken timestamp '00:00:61.000"),
    ("two_arrows.srt", 6, "broken timestamp '00:00:03,000 --> 00:00:04,000 --> 00:00:05,000'"),
    ("two_arrows.vtt", 3, "broken timestamp '00:00:01.000 --> 00:00:02.000 --> 00:00:03.000'"),
    ("ends_before_start.srt", 5, "cue ends before it starts"),
    ("ends_before_start.vtt", 3, "cue ends before it starts"),
    ("blank_line_inside_cue.srt", 9, "text after a blank line inside cue 2"),
    ("blank_line_inside_cue.vtt", 6, "text after a blank line inside"),
    ("timing_in_text.srt", 5, "timing line inside a cue's text"),
    ("no_header.vtt", 1, "missing 'WEBVTT' header"),
    ("comma_decimal.vtt", 6, "comma decimal separator"),
    ("long_cue.srt", 5, f"the limit is {MAX_SEGMENT_CHARS:,}"),
    ("empty.srt", None, "empty file"),
    ("blank.vtt", None, "empty file"),
]


@pytest.mark.parametrize(("name", "line", "problem"), REJECTED)
def test_rejected_with_one_line_naming_file_line_problem(
    name: str, line: int | None, problem: str
) -> None:
    path = BAD / name
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(InputError) as info:
        read_document(path)
    err = info.value
    assert err.line == line
    assert problem in err.problem
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert str(err).startswith(where)
    assert "\n" not in str(err)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # input never modified


def test_a_rejected_file_leaves_its_directory_untouched(tmp_path: Path) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes((BAD / "blank_line_inside_cue.srt").read_bytes())
    with pytest.raises(InputError):
        read_document(src)
    assert [p.name for p in tmp_path.iterdir()] == ["talk.srt"]


def test_pysrt_alone_would_silently_drop_the_text_after_the_blank_line() -> None:
    # Why we validate first: the real library loses "And I am staying." without a word.
    import pysrt

    subs = pysrt.from_string((BAD / "blank_line_inside_cue.srt").read_text(encoding="utf-8"))
    assert "And I am staying." not in "\n".join(s.text for s in subs)


def test_empty_cue_is_kept_and_not_translated() -> None:
    doc = read_document(OK / "empty_cue.srt")
    assert [s.id for s in doc.segments] == ["1", "2", "3"]
    assert [s.translatable for s in doc.segments] == [True, False, True]
    assert doc.segments[1].text == ""
    assert (doc.segments[1].start_ms, doc.segments[1].end_ms) == (2500, 3000)
    out = doc.with_texts(["Ciao.", "", "Arrivederci."])
    again = parse_document(render_document(out), "srt")
    assert [s.text for s in again.segments] == ["Ciao.", "", "Arrivederci."]


def test_overlapping_cues_are_accepted_with_a_warning_and_timings_kept() -> None:
    doc = read_document(OK / "overlap.srt")
    assert [(s.start_ms, s.end_ms) for s in doc.segments] == [(1000, 3000), (2500, 4000)]
    assert any("overlaps" in w and "500 ms" in w for w in doc.warnings)


def test_cue_numbers_out_of_order_are_kept_as_written_with_a_warning() -> None:
    doc = read_document(OK / "numbers_out_of_order.srt")
    assert [s.id for s in doc.segments] == ["3", "1", "2"]
    assert any("numbered 1 follows 3" in w for w in doc.warnings)
    assert render_document(doc) == (OK / "numbers_out_of_order.srt").read_text(encoding="utf-8")


def test_missing_cue_numbers_are_kept_missing_with_a_warning() -> None:
    doc = read_document(OK / "numbers_missing.srt")
    assert [s.id for s in doc.segments] == ["1", None, "4"]
    assert any("no number" in w for w in doc.warnings)
    assert any("numbered 4 follows 1" in w for w in doc.warnings)
    assert render_document(doc.with_texts(["A.", "B.", "C."])).startswith(
        "1\n00:00:01,000 --> 00:00:02,000\nA.\n\n00:00:03,000 --> 00:00:04,000\nB.\n\n4\n"
    )


def test_a_cue_just_under_the_limit_is_accepted() -> None:
    text = "a" * MAX_SEGMENT_CHARS
    doc = parse_document(f"1\n00:00:01,000 --> 00:00:02,000\n<i>{text}</i>\n", "srt")
    assert len(doc.segments[0].text) == MAX_SEGMENT_CHARS + 7  # tags do not count


def test_an_srt_given_as_vtt_is_named() -> None:
    srt = "1\n00:00:01,000 --> 00:00:02,000\nHello.\n"
    with pytest.raises(InputError, match="looks like SRT"):
        parse_document(srt, "vtt", Path("x.vtt"))
    with pytest.raises(InputError, match="WebVTT file"):
        parse_document("WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n", "srt", Path("x.srt"))


def test_unknown_and_missing_extensions() -> None:
    assert detect_format(Path("a.SRT")) == "srt"
    assert detect_format(Path("deck.md")) == "markdown"  # .txt stays line-based "slides"
    assert detect_format(Path("talk.ass")) == "ass"
    for name in ("talk.sub", "talk"):
        with pytest.raises(InputError, match="unknown file type"):
            detect_format(Path(name))


def test_reading_a_missing_file_or_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_document(tmp_path / "nope.srt")
    folder = tmp_path / "dir.srt"
    folder.mkdir()
    with pytest.raises(InputError, match="directory"):
        read_document(folder)


def test_cue_number_without_timing_line() -> None:
    text = (
        "1\n00:00:01,000 --> 00:00:02,000\nHello.\n\n2\n\n3\n00:00:03,000 --> 00:00:04,000\nBye.\n"
    )
    with pytest.raises(InputError, match="cue number 2 has no timing line") as info:
        parse_document(text, "srt")
    assert info.value.line == 5


def test_text_before_the_first_vtt_cue_is_rejected() -> None:
    with pytest.raises(InputError, match="before the first cue") as info:
        parse_document("WEBVTT\n\nstray words\n\n00:01.000 --> 00:02.000\nHi\n", "vtt")
    assert info.value.line == 3


def test_a_control_character_binary_without_nul_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "noise.srt"
    path.write_bytes(bytes(range(1, 32)) * 20)
    with pytest.raises(InputError, match="binary file"):
        read_document(path)


def test_write_refuses_to_overwrite_the_input(tmp_path: Path) -> None:
    src = tmp_path / "talk.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    doc = read_document(src)
    with pytest.raises(InputError, match="overwrite the input"):
        write_document(doc.with_texts(["Ciao."]), src)
    assert "Hello." in src.read_text(encoding="utf-8")


def test_unencodable_output_writes_nothing(tmp_path: Path) -> None:
    doc = parse_document("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", "srt")
    out = tmp_path / "out.srt"
    with pytest.raises(InputError, match="cannot be written in cp1252") as info:
        write_document(doc.with_texts(["♪ Ciao ♪"]), out, encoding="cp1252")
    assert info.value.line == 3
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one
    with pytest.raises(InputError, match="unknown encoding"):
        write_document(doc, out, encoding="klingon-8")
    assert list(tmp_path.iterdir()) == []


def test_a_cue_over_the_limit_can_be_allowed_for_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 55: one cue of 1,200 characters refused the whole file, with no way to allow it
    long = " ".join(["word"] * 240)[:1199] + "."
    src = tmp_path / "long.srt"
    src.write_text(f"1\n00:00:01,000 --> 00:00:09,000\n{long}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"the limit is 1,000 \(allow longer ones with "):
        read_document(src)
    monkeypatch.setenv("FITSUB_MAX_CUE_CHARS", "2000")
    assert read_document(src).segments[0].text == long
    out = tmp_path / "out.srt"
    assert (
        run(["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"])
        == 0
    )
    assert out.read_bytes() == src.read_bytes()
    monkeypatch.setenv("FITSUB_MAX_CUE_CHARS", "1100")
    with pytest.raises(InputError, match="the limit is 1,100"):
        read_document(src)
    # a bomb is still refused: the ceiling holds whatever the variable says
    for bad in ("100001", "lots", "-5", "9" * 5000):
        monkeypatch.setenv("FITSUB_MAX_CUE_CHARS", bad)
        capsys.readouterr()
        assert (
            run(
                ["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"]
            )
            == 2
        )
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1
        assert "FITSUB_MAX_CUE_CHARS must be a whole number from 1 to 100,000" in err
