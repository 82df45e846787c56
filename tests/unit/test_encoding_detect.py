"""Encoding detection: BOM, strict UTF-8, then charset-normalizer; --encoding; the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run
from factories import tiny_checkpoint

from fitsub.charsets.detect import decode_bytes
from fitsub.errors import InputError

CUE = "1\n00:00:01,000 --> 00:00:03,000\n{}\n\n2\n00:00:03,500 --> 00:00:05,000\n{}\n"


@pytest.mark.parametrize(
    ("encoding", "first", "second", "expected"),
    [
        ("cp1252", "Bonjour à tous, ça va très bien.", "C'est l'été, déjà !", "cp1252"),
        ("cp1250", "Dobré ráno, přátelé. Děkuji.", "Żółć gęślą jaźń, proszę.", "cp1250"),
        ("cp1251", "Доброе утро, друзья.", "Спасибо, что пришли сегодня.", "cp1251"),
        ("cp1253", "Καλημέρα σε όλους.", "Ευχαριστώ που ήρθατε.", "cp1253"),
        ("shift_jis", "おはようございます。", "今日は来てくれてありがとう。", "cp932"),
        ("gb18030", "大家早上好。", "谢谢你们今天来。", "gb18030"),
        ("big5", "大家早安。", "謝謝你們今天來。", "big5"),
    ],
)
def test_legacy_encodings_are_detected_and_read_right(
    encoding: str, first: str, second: str, expected: str
) -> None:
    decoded = decode_bytes(CUE.format(first, second).encode(encoding))
    assert decoded.encoding == expected
    assert decoded.detected_by == "detected"
    assert decoded.text == CUE.format(first, second)
    assert decoded.confidence is None or 0 < decoded.confidence <= 1


def test_the_rules_before_detection_still_come_first() -> None:
    text = CUE.format("Café", "naïve")
    assert decode_bytes(b"\xef\xbb\xbf" + text.encode()).detected_by == "bom"
    utf8 = decode_bytes(text.encode())
    assert (utf8.encoding, utf8.detected_by, utf8.confidence) == ("utf-8", "utf-8", None)
    with pytest.raises(InputError, match="not valid UTF-8"):  # mostly UTF-8, one bad byte
        decode_bytes(text.encode() + b"\xff caf\xc3\xa9\n")
    forced = decode_bytes(text.encode("cp1252"), encoding="cp1252")
    assert (forced.encoding, forced.detected_by) == ("cp1252", "given")


def test_cli_reports_the_detected_encoding_and_honours_encoding(tmp_path: Path) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes(CUE.format("Доброе утро, друзья.", "Спасибо, что пришли.").encode("cp1251"))
    model = tiny_checkpoint(tmp_path)
    report = tmp_path / "r.json"
    assert run(["translate", str(src), "--model", str(model), "--beam", "1", "-q",
                "--report", str(report)]) == 0  # fmt: skip
    info = json.loads(report.read_text())["meta"]["encoding_detected"]
    assert info["encoding"] == "cp1251" and info["by"] == "detected"
    assert 0 < info["confidence"] <= 1
    assert run(["translate", str(src), "--model", str(model), "--beam", "1", "-q", "--encoding",
                "koi8-r", "--report", str(report), "-o", str(tmp_path / "o.srt")]) == 0  # fmt: skip
    info = json.loads(report.read_text())["meta"]["encoding_detected"]
    assert info == {"encoding": "koi8-r", "by": "given", "confidence": None}


# issue 55, part 3: two short lines of East Asian text read right, or refused naming --encoding
JA_KANA = ("こんにちは、元気ですか？", "はい、ありがとう。")
JA_KANJI = ("今日は雨です。", "明日は晴れるでしょう。")
ZH = ("你好，你好吗？", "我很好，谢谢。")
KO = ("안녕하세요, 잘 지내세요?", "네, 고마워요.")


@pytest.mark.parametrize(
    ("encoding", "lines"),
    [
        ("shift_jis", JA_KANA),
        ("shift_jis", JA_KANJI),
        ("cp932", JA_KANJI),
        ("euc_jp", JA_KANA),
        ("euc_jp", JA_KANJI),
        ("euc_jp", ("カタカナのテキスト", "テレビ")),
        ("gb18030", ZH),
        ("gb18030", JA_KANJI),
        ("gbk", ZH),
        ("big5", ("謝謝你們今天來。", "大家早安。")),
        ("cp949", KO),
    ],
)
def test_short_east_asian_files_read_right_or_refused_naming_encoding(
    encoding: str, lines: tuple[str, str]
) -> None:
    text = CUE.format(*lines)
    data = text.encode(encoding)
    try:
        decoded = decode_bytes(data, "short.srt")
    except InputError as err:
        message = str(err)
        assert "short.srt" in message and "--encoding" in message and "\n" not in message
        suggested = message.rsplit("--encoding ", 1)[1].rstrip(")")
        if data.decode(suggested, "replace") == text:  # the suggestion, when right, reads it
            assert decode_bytes(data, encoding=suggested).text == text
        return
    assert decoded.text == text, decoded.encoding  # never a wrong reading
    assert decoded.warnings == ()  # no "mixed encodings" for a file read right


def test_which_short_east_asian_files_are_read_and_which_refused() -> None:
    def outcome(lines: tuple[str, str], encoding: str) -> str:
        try:
            return decode_bytes(CUE.format(*lines).encode(encoding)).encoding
        except InputError as err:
            assert "cannot tell this file's encoding" in str(err)
            return "refused"

    assert outcome(JA_KANA, "shift_jis") == outcome(JA_KANJI, "cp932") == "cp932"
    assert outcome(ZH, "gb18030") == "gb18030"  # not the Korean charset-normalizer guessed
    assert outcome(KO, "cp949") == "cp949"
    # EUC-JP kanji are GB2312 hanzi too: two lines cannot tell Japanese from Chinese
    assert outcome(JA_KANJI, "euc_jp") == "refused"
    many = tuple(" ".join([line] * 6) for line in JA_KANJI)
    assert outcome((many[0], many[1]), "euc_jp").startswith("euc_j")  # more text: read right


def test_a_short_east_asian_file_refused_is_one_line_exit_2_and_encoding_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "ja.srt"
    src.write_bytes(CUE.format(*JA_KANJI).encode("euc_jp"))
    out = tmp_path / "out.srt"
    assert (
        run(["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(src) in err and "--encoding euc_jp" in err
    assert not out.exists()
    args = ["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"]
    assert run([*args, "--encoding", "euc_jp"]) == 0
    assert out.read_bytes() == src.read_bytes()


def test_control_characters_are_text_when_the_encoding_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 55: the "binary file" message says to name the encoding, and naming it did not help
    src = tmp_path / "ctl.srt"
    src.write_bytes(CUE.format("Bell \x07\x07\x07 rings.", "Tab\x01 stop\x02.").encode("utf-8"))
    out = tmp_path / "out.srt"
    args = ["translate", "--lang", "it", str(src), "--model", "identity", "-o", str(out), "-q"]
    assert run(args) == 2
    err = capsys.readouterr().err
    assert "binary file (5 control characters)" in err and "--encoding" in err
    assert not out.exists()
    assert run([*args, "--encoding", "utf-8"]) == 0
    assert out.read_bytes() == src.read_bytes()
