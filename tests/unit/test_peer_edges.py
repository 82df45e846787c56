"""Issue 44: files other subtitle libraries accept (ASS drawings, UTF-32 / BOM-less UTF-16,
empty WebVTT and ASS) are read, and written back byte for byte when nothing is translated."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from fitsub.charsets.detect import decode_bytes, encode_text
from fitsub.charsets.wide import guess_wide
from fitsub.document import MAX_SEGMENT_CHARS
from fitsub.errors import InputError
from fitsub.formats import document_bytes, parse_document, read_bytes_document, read_document

SRT = (
    "1\n00:00:01,000 --> 00:00:02,500\nHello, café ♪.\n\n"
    "2\n00:00:03,000 --> 00:00:04,000\n東京へようこそ。\n"
)
HEAD = "[Script Info]\nScriptType: v4.00+\n\n[Events]\n"
FORMAT = "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"


def _drawing(points: int) -> str:
    path = " ".join(f"{i} {i + 1}" for i in range(points))
    return f"{{\\p1}}m 0 0 l {path}{{\\p0}}"


def test_a_long_drawing_counts_towards_no_limit_and_is_kept() -> None:
    drawing = _drawing(400)
    assert len(drawing) > MAX_SEGMENT_CHARS
    script = (
        f"{HEAD}{FORMAT}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{drawing}\n"
        "Dialogue: 0,0:00:03.00,0:00:04.00,Default,,0,0,0,,Hello there.\n"
    )
    doc = parse_document(script, "ass")
    assert [s.translatable for s in doc.segments] == [False, True]
    assert document_bytes(doc)[0] == script.encode("utf-8")


def test_a_long_dialogue_line_is_still_refused() -> None:
    words = "word " * (MAX_SEGMENT_CHARS // 4)
    script = f"{HEAD}{FORMAT}Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{words}\n"
    with pytest.raises(InputError, match=f"the limit is {MAX_SEGMENT_CHARS:,}"):
        parse_document(script, "ass")


@pytest.mark.parametrize(
    "text",
    ["WEBVTT\n", "WEBVTT - nothing yet\r\n\r\nNOTE to be captioned\r\n", "\ufeffWEBVTT\n\n"],
    ids=["bare", "note", "bom"],
)
def test_a_webvtt_file_without_cues_is_valid(text: str) -> None:
    data = text.encode("utf-8")
    doc = read_bytes_document(data, "vtt")
    assert doc.segments == ()
    assert document_bytes(doc)[0] == data


@pytest.mark.parametrize(
    ("bom", "codec", "name"),
    [
        (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32-be"),
        (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"),
    ],
)
def test_utf32_and_utf16_with_a_bom_read_and_write_back_byte_for_byte(
    bom: bytes, codec: str, name: str
) -> None:
    # UTF-32 LE's mark FF FE 00 00 begins with UTF-16 LE's FF FE: looked for first
    data = bom + SRT.encode(codec)
    doc = read_bytes_document(data, "srt")
    assert (doc.encoding, doc.detected_by) == (name, "bom")
    assert doc.segments[1].text == "東京へようこそ。"
    assert document_bytes(doc)[0] == data


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_bomless_utf16_and_utf32_are_detected_and_written_back(codec: str, newline: str) -> None:
    data = SRT.replace("\n", newline).encode(codec)
    assert guess_wide(data) == codec
    decoded = decode_bytes(data)
    assert (decoded.encoding, decoded.detected_by) == (codec, "detected")
    doc = read_bytes_document(data, "srt")
    assert document_bytes(doc)[0] == data


def test_bomless_wide_text_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "talk.srt"
    path.write_bytes(SRT.encode("utf-16-le"))
    doc = read_document(path)
    assert [s.text for s in doc.segments] == ["Hello, café ♪.", "東京へようこそ。"]


def test_ambiguous_or_binary_nul_bytes_ask_for_the_encoding() -> None:
    # text without a single ASCII character: no byte order reads as text with some ASCII
    wide = "ĀĀĀĀ".encode("utf-16-le")
    assert guess_wide(wide) is None
    for data in (wide, b"\x00\x01\x02binary\x00\xff"):
        with pytest.raises(InputError, match="--encoding utf-16-le") as info:
            decode_bytes(data, "x.srt")
        assert "binary file (contains NUL bytes)" in info.value.problem
    # without NUL bytes (Greek in UTF-16): the control characters' message says it too
    greek = "Ωμέγα".encode("utf-16-le")
    with pytest.raises(InputError, match="control characters.*--encoding utf-16-le"):
        decode_bytes(greek, "x.srt")
    # named, each is read
    assert decode_bytes(wide, encoding="utf-16-le").text == "ĀĀĀĀ"
    assert decode_bytes(greek, encoding="utf-16-le").text == "Ωμέγα"


def test_utf32_given_by_name_writes_back_as_read() -> None:
    data = codecs.BOM_UTF32_LE + SRT.encode("utf-32-le")
    decoded = decode_bytes(data, encoding="utf-32-le")
    assert decoded.encoding == "utf-32"
    assert encode_text(decoded.text, decoded.encoding) == data
