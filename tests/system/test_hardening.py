"""Issue 18 regressions: each builds a minimal file in tmp_path and runs the real CLI or parser."""

from __future__ import annotations

import codecs
import os
import stat
import time
from pathlib import Path

import pytest
from hardening_helpers import cli, toy_model

from fitsub.errors import InputError
from fitsub.formats import parse_document, read_document, render_document
from fitsub.io.atomic import TMP_SUFFIX, atomic_write_bytes
from fitsub.io.outputs import check_output_path

SRT = "1\n00:00:01,000 --> 00:00:02,000\nHello there.\n\n2\n00:00:03,000 --> 00:00:04,000\nGo home now.\n"
VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello there.\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_bytes(text.encode("utf-8"))
    else:
        path.write_bytes(text)
    return path


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- crashes on bad input ---------------------------------------------------------------------


@pytest.mark.parametrize("cue_id", ["¹²", "①", "٣", "1" * 5000])
def test_unicode_digit_ids_are_not_a_crash(tmp_path: Path, cue_id: str) -> None:
    src = write(tmp_path, "a.srt", f"{cue_id}\n00:00:01,000 --> 00:00:02,000\nHello.\n")
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code in (0, 2), res.err
    if res.code == 0:
        assert read_document(src).segments[0].id == cue_id


def test_vtt_hour_with_thousands_of_digits_is_exit_2(tmp_path: Path) -> None:
    src = write(tmp_path, "a.vtt", f"WEBVTT\n\n{'1' * 5000}:00:01.000 --> 00:00:02.000\nHi\n")
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code == 2
    assert "broken timestamp" in one_line_error(res.err)


def test_timing_line_with_long_run_of_spaces_is_linear() -> None:
    for timing in ("00:00:01,000 --> 00:00:02,000", "00:00:01.000 --> 00:00:02.000"):
        fmt = "srt" if "," in timing else "vtt"
        head = "1\n" if fmt == "srt" else "WEBVTT\n\n"
        text = f"{head}{timing} a{' ' * 200_000}x\nHi\n"
        started = time.perf_counter()
        doc = parse_document(text, fmt)
        assert time.perf_counter() - started < 2.0
        assert doc.segments[0].settings.endswith("x")


# --- terminal markup injection ------------------------------------------------------------------


def test_markup_in_ids_paths_and_text_is_shown_literally(tmp_path: Path) -> None:
    text = "[/x]\n00:00:01,000 --> 00:00:02,000\nC:\\[/x] the [bold]home\n"
    src = write(tmp_path, "in[red]x.srt", text)
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code == 0, res.err
    shown = res.out.decode()
    assert "[/x]" in shown and "C:\\[/x]" in shown and "in[red]x.srt" not in res.err

    out = tmp_path / "out[x].srt"
    with toy_model(tmp_path):
        res = cli(
            [
                "translate",
                "--lang",
                "it",
                str(src),
                "-o",
                str(out),
                "--report",
                str(tmp_path / "r.json"),
            ]
        )
    assert res.code == 0, res.err
    assert "[/x]" in res.out.decode()
    assert read_document(out).segments[0].id == "[/x]"


# --- encodings ----------------------------------------------------------------------------------


def test_one_invalid_byte_in_utf8_is_an_error_naming_line_and_offset(tmp_path: Path) -> None:
    data = "1\n00:00:01,000 --> 00:00:02,000\ncafé\n\n".encode() + (
        b"2\n00:00:03,000 --> 00:00:04,000\nbad \xff byte\n"
    )
    src = write(tmp_path, "a.srt", data)
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code == 2
    line = one_line_error(res.err)
    offset = data.index(b"\xff")
    assert "a.srt:7:" in line and f"byte offset {offset}" in line and "--encoding" in line
    # named encoding: read as asked
    res = cli(["budget", "--lang", "it", str(src), "--encoding", "cp1252", "--json"])
    assert res.code == 0, res.err
    assert "cafÃ©" in res.out.decode()


def test_legacy_cp1252_file_is_still_detected(tmp_path: Path) -> None:
    src = write(tmp_path, "a.srt", "1\n00:00:01,000 --> 00:00:02,000\ncafé\n".encode("cp1252"))
    doc = read_document(src)
    assert doc.encoding == "cp1252" and doc.segments[0].text == "café"


def test_utf16_be_stays_be(tmp_path: Path) -> None:
    src = write(tmp_path, "a.vtt", codecs.BOM_UTF16_BE + VTT.encode("utf-16-be"))
    out = tmp_path / "a.it.vtt"
    with toy_model(tmp_path):
        res = cli(["translate", "--lang", "it", str(src), "-o", str(out), "-q"])
    assert res.code == 0, res.err
    data = out.read_bytes()
    assert data.startswith(codecs.BOM_UTF16_BE)
    assert data[2:].decode("utf-16-be").startswith("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n")


def test_utf16_le_stays_le(tmp_path: Path) -> None:
    src = write(tmp_path, "a.vtt", codecs.BOM_UTF16_LE + VTT.encode("utf-16-le"))
    out = tmp_path / "a.it.vtt"
    with toy_model(tmp_path):
        assert cli(["translate", "--lang", "it", str(src), "-o", str(out), "-q"]).code == 0
    assert out.read_bytes().startswith(codecs.BOM_UTF16_LE)


# --- output paths checked before any work -------------------------------------------------------


def _refused(tmp_path: Path, args: list[str], needle: str) -> None:
    src = tmp_path / "in.srt"
    before = listing(tmp_path)
    data = src.read_bytes()
    with toy_model(tmp_path) as toy:
        res = cli(["translate", "--lang", "it", str(src), *args])
    assert res.code == 2, res.err
    assert needle in one_line_error(res.err)
    assert toy.made == 0  # nothing translated
    assert listing(tmp_path) == before and src.read_bytes() == data  # nothing written


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-o", "{tmp}"], "is a directory"),
        (["-o", "/dev/stdout"], "special file"),
        (["-o", "/dev/full"], "special file"),
        (["-o", "/dev/null"], "special file"),
        (["-o", "{tmp}/in.srt"], "is the input file"),
        (["-o", "{tmp}/missing/out.srt"], "does not exist"),
        (["--report", "{tmp}/missing/r.json"], "--report"),
        (["--report", "{tmp}"], "--report is a directory"),
        (["--report", "{tmp}/in.srt"], "--report is the input file"),
        (["-o", "{tmp}/o.srt", "--report", "{tmp}/o.srt"], "same file"),
    ],
)
def test_bad_output_paths_are_refused_before_any_work(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    write(tmp_path, "in.srt", SRT)
    _refused(tmp_path, [a.replace("{tmp}", str(tmp_path)) for a in args], needle)


def test_links_to_the_input_are_refused(tmp_path: Path) -> None:
    src = write(tmp_path, "in.srt", SRT)
    os.link(src, tmp_path / "hard.srt")
    os.symlink(src, tmp_path / "soft.srt")
    _refused(tmp_path, ["-o", str(tmp_path / "hard.srt")], "is the input file")
    _refused(tmp_path, ["-o", str(tmp_path / "soft.srt")], "is the input file")


def test_fifo_output_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "in.srt", SRT)
    os.mkfifo(tmp_path / "pipe")
    _refused(tmp_path, ["-o", str(tmp_path / "pipe")], "named pipe")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "in.srt", SRT)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        _refused(tmp_path, ["-o", str(ro / "out.srt")], "not writable")
    finally:
        ro.chmod(stat.S_IRWXU)


def test_check_output_path_for_plot_directories(tmp_path: Path) -> None:
    check_output_path(tmp_path / "plots", "--plot", directory=True)  # created later: fine
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="must be a directory"):
        check_output_path(tmp_path / "file", "--plot", directory=True)
    with pytest.raises(InputError, match="standard output"):
        check_output_path(Path("-"), "--report")


def test_output_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    src = write(tmp_path, "in.srt", SRT)
    target = write(tmp_path, "target.srt", "old")
    link = tmp_path / "link.srt"
    link.symlink_to(target)
    with toy_model(tmp_path):
        assert cli(["translate", "--lang", "it", str(src), "-o", str(link), "-q"]).code == 0
    assert link.is_symlink()
    assert len(read_document(target).segments) == 2


def test_stdout_output_and_stdin_input(tmp_path: Path) -> None:
    with toy_model(tmp_path):
        res = cli(
            ["translate", "--lang", "it", "-", "-o", "-", "--format", "srt"], stdin=SRT.encode()
        )
        assert res.code == 0, res.err
        doc = parse_document(res.out.decode(), "srt")
        assert [s.id for s in doc.segments] == ["1", "2"]
        assert "summary" in res.err  # the tables go to standard error
        # `-` input, format sniffed, default output is standard output
        res = cli(["translate", "--lang", "it", "-", "-q"], stdin=VTT.encode())
        assert res.code == 0, res.err
        assert res.out.decode().startswith("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n")
    assert listing(tmp_path) == []


def test_stale_temporary_files_are_removed(tmp_path: Path) -> None:
    stale = tmp_path / f".out.srt.999999999{TMP_SUFFIX}"  # no such process
    live = tmp_path / f".out.srt.{os.getppid()}{TMP_SUFFIX}"  # a process that is running
    stale.write_text("complete but orphaned")
    live.write_text("being written")
    atomic_write_bytes(tmp_path / "out.srt", b"new")
    assert listing(tmp_path) == [live.name, "out.srt"]


def test_interrupted_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_args: object) -> None:
        raise KeyboardInterrupt

    (tmp_path / "out.srt").write_text("old")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(tmp_path / "out.srt", b"new")
    assert listing(tmp_path) == ["out.srt"]
    assert (tmp_path / "out.srt").read_text() == "old"


# --- lenient where nothing is lost --------------------------------------------------------------

NETFLIX = (
    "WEBVTT\n\nNOTE Netflix\nNOTE Profile: webvtt-lssdh-ios8\nNOTE Date: 2021/03/04 05:06:07\n\n"
    "NOTE SegmentIndex\nNOTE Segment=600.000 27344@9 148\nNOTE Segment=412.120 27492@9 102\n"
    "NOTE /SegmentIndex\n\n   \n  \n"
    "1\n00:00:05.005 --> 00:00:07.174 position:50.00%,middle align:middle size:80.00% "
    "line:79.33%\n<c.bg_transparent>Where are we going?</c.bg_transparent>\n\n"
    "2\n00:00:07.257 --> 00:00:09.509 position:50.00%,middle align:middle size:80.00% "
    "line:84.67%\n<c.bg_transparent>&lt;i&gt;Home,&lt;/i&gt; she said.</c.bg_transparent>\n\n"
    "3\n00:00:10.000 --> 00:00:12.000 line:10% align:start position:10%,line-left size:35%\n"
    "<c.bg_transparent>Now?</c.bg_transparent>\n<c.bg_transparent>Now.</c.bg_transparent>\n"
)
YOUTUBE = (
    "WEBVTT\nKind: captions\nLanguage: en\n\n"
    "00:00:00.030 --> 00:00:02.510 align:start position:0%\n \n"
    "hello<00:00:00.560><c> everyone</c><00:00:01.120><c> and</c>\n\n"
    "00:00:02.510 --> 00:00:02.520 align:start position:0%\nhello everyone and\n \n\n"
    "00:00:02.520 --> 00:00:05.110 align:start position:0%\nhello everyone and\n"
    "welcome<00:00:03.000><c> back</c>\n"
)
AMARA_VTT = (
    "\ufeffWEBVTT\r\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\r\n\r\n"
    "1\r\n00:00:00.500 --> 00:00:02.000\r\nThanks for watching.\r\n\r\n"
    "2\r\n00:00:02.500 --> 00:00:04.000 size:50% position:25% align:left\r\n<i>Music</i>\r\n\r\n"
    "NOTE comment between cues\r\n\r\n"
    "3\r\n00:01:04.000 --> 00:01:06.000   \r\nThe end."
)
AMARA_SRT = (
    "1\r\n00:00:00,500 --> 00:00:02,000\r\nThanks for watching.\r\n\r\n"
    "2 \r\n00:00:02,500 --> 00:00:04,000   \r\n<i>Music</i>\r\n  \r\n"
    "3\r\n00:01:04,000 --> 00:01:06,000 X1:100 X2:200 Y1:10 Y2:20\r\nThe end."
)
COMPAT = [
    ("netflix.vtt", NETFLIX, ["1", "2", "3"], [5005, 7257, 10000], "holding only spaces"),
    ("youtube.vtt", YOUTUBE, [None, None, None], [30, 2510, 2520], "holding only spaces"),
    ("amara.vtt", AMARA_VTT, ["1", "2", "3"], [500, 2500, 64000], None),
    ("amara.srt", AMARA_SRT, ["1", "2", "3"], [500, 2500, 64000], "spaces around the number"),
]


@pytest.mark.parametrize(("name", "text", "ids", "starts", "warning"), COMPAT)
def test_real_world_exports_are_read_and_kept(
    tmp_path: Path,
    name: str,
    text: str,
    ids: list[str | None],
    starts: list[int],
    warning: str | None,
) -> None:
    src = tmp_path / name
    src.write_bytes(text.encode("utf-8"))
    doc = read_document(src)
    assert [s.id for s in doc.segments] == ids
    assert [s.start_ms for s in doc.segments] == starts
    assert (warning is None and not doc.warnings) or any(warning in w for w in doc.warnings)
    rendered = render_document(doc)
    expected = text.lstrip("\ufeff")
    if name == "amara.srt":
        expected = expected.replace("2 \r\n", "2\r\n")  # the one normalisation, warned about
    assert rendered == expected
    if name == "youtube.vtt":  # a line of one space between two text lines stays cue text
        assert doc.segments[0].text.startswith(" \nhello")
    out = tmp_path / f"out.{name}"
    with toy_model(tmp_path):
        res = cli(["translate", "--lang", "it", str(src), "-o", str(out), "-q"])
    assert res.code == 0, res.err
    again = read_document(out)
    assert [(s.id, s.start_ms, s.end_ms) for s in again.segments] == [
        (s.id, s.start_ms, s.end_ms) for s in doc.segments
    ]


def test_strict_where_accepting_would_lose_text(tmp_path: Path) -> None:
    lost = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello.\n\nOrphan text.\n"
    with pytest.raises(InputError, match="text after a blank line"):
        parse_document(lost, "vtt")
    no_timing = "1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\nNo timing here\n"
    with pytest.raises(InputError):
        parse_document(no_timing, "srt")


def test_srt_space_line_inside_a_cue_stays_text_and_between_cues_is_blank() -> None:
    text = "1\n00:00:01,000 --> 00:00:02,000\nHello\n  \nWorld\n \n2\n00:00:03,000 --> 00:00:04,000\nB\n"
    doc = parse_document(text, "srt")
    assert [(s.id, s.text) for s in doc.segments] == [("1", "Hello\n  \nWorld"), ("2", "B")]
    assert render_document(doc) == text


def test_whitespace_lines_bom_settings_order_and_no_final_newline() -> None:
    text = (
        "\ufeffWEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000 size:50% align:start line:0 \nA\n"
        "   \n2\n00:00:03.000 --> 00:00:04.000 line:0 align:start size:50%\nB"
    )
    doc = parse_document(text, "vtt")
    assert [(s.id, s.text) for s in doc.segments] == [("1", "A"), ("2", "B")]
    assert doc.segments[0].settings == "size:50% align:start line:0"
    assert render_document(doc) == text.lstrip("\ufeff")


# --- models -------------------------------------------------------------------------------------


@pytest.fixture
def checkpoint(tmp_path: Path) -> Path:
    import torch
    from factories import tiny_config, word_tokenizer

    from fitsub.nmt.checkpoint import build_model, save_checkpoint

    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok)
    return save_checkpoint(tmp_path / "run" / "best", build_model(cfg, tok), cfg, tok, {"step": 1})


def test_export_refuses_a_non_empty_directory_without_force(
    tmp_path: Path, checkpoint: Path
) -> None:
    out = tmp_path / "models" / "en-it"
    out.mkdir(parents=True)
    (out / "MODEL_CARD.md").write_text("the shipped model")
    (out / "config.json").write_text("{}")
    res = cli(["export", str(checkpoint), str(out)])
    assert res.code == 2 and "--force" in one_line_error(res.err)
    assert listing(out) == ["MODEL_CARD.md", "config.json"]
    res = cli(["export", str(checkpoint), str(out), "--force"])
    assert res.code == 0, res.err
    assert not (out / "MODEL_CARD.md").exists()  # no stale model card beside new weights
    assert (out / "model.safetensors").is_file()
    assert "MODEL_CARD.md" in res.out.decode()


def test_train_refuses_a_non_empty_out(tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    res = cli(["train", "--out", str(out), "--data", str(tmp_path / "nothing")])
    assert res.code == 2 and "--force" in one_line_error(res.err)
    assert listing(out) == ["thesis.tex"]


def test_device_input_is_refused_not_read_forever() -> None:
    res = cli(["budget", "--lang", "it", "/dev/zero", "--format", "srt"])
    assert res.code == 2 and "not a regular file" in one_line_error(res.err)


def test_undecodable_file_name_is_one_line(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff.srt")
    src = tmp_path / name
    src.write_text("not a subtitle\n", encoding="utf-8")
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code == 2
    assert "bad\\udcff.srt" in one_line_error(res.err)


def test_long_broken_timing_line_is_cut_in_the_message(tmp_path: Path) -> None:
    src = write(tmp_path, "a.srt", "1\n00:00:01,000 --> 00:00:0x,000" + "y" * 100_000 + "\nHi\n")
    res = cli(["budget", "--lang", "it", str(src)])
    assert res.code == 2 and len(one_line_error(res.err)) < 400


@pytest.mark.parametrize("fmt", ["srt", "vtt"])
def test_long_run_of_whitespace_lines_is_linear(fmt: str) -> None:
    head = "WEBVTT\n\n00:00:01.000" if fmt == "vtt" else "1\n00:00:01,000"
    sep = "." if fmt == "vtt" else ","
    text = f"{head} --> 00:00:02{sep}000\nHi\n" + " \n" * 100_000 + "\n"
    started = time.perf_counter()
    doc = parse_document(text, fmt)
    assert time.perf_counter() - started < 3.0
    assert [s.text for s in doc.segments] == ["Hi"]
