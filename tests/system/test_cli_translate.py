"""`fitsub translate` and `fitsub budget` through the real CLI, with a real (tiny) checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from cli_helpers import TOY_SRT
from factories import tiny_checkpoint

from fitsub.cli import main
from fitsub.formats import read_document

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained char-unit LDPE+PE checkpoint: real plumbing, meaningless words."""
    return tiny_checkpoint(tmp_path_factory.mktemp("ckpt"))


def test_translate_srt_keeps_cues_and_every_fitted_cue_fits(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_bytes((SAMPLES / "talk.srt").read_bytes())
    before = src.read_bytes()
    report = tmp_path / "report.json"
    code = run(
        [
            "translate",
            str(src),
            "--lang",
            "it",
            "--ratio",
            "0.9",
            "--model",
            str(model_dir),
            "--beam",
            "2",
            "--report",
            str(report),
            "--table-format",  # captured output is not a terminal: ask for the rich tables
            "rich",
        ]
    )
    assert code == 0
    assert src.read_bytes() == before  # the input is never modified
    out = tmp_path / "talk.it.srt"  # default output name
    doc_in, doc_out = read_document(src), read_document(out)
    assert [(s.id, s.start_ms, s.end_ms) for s in doc_out.segments] == [
        (s.id, s.start_ms, s.end_ms) for s in doc_in.segments
    ]
    data = json.loads(report.read_text())
    rows = [r for r in data["segments"] if r["translated"]]
    assert len(rows) == 20
    # the hard budget: every fitted translation within budget, or flagged as over it
    for r in rows:
        flags = {f["name"] for f in r["flags"]}
        assert r["fitted_chars"] <= r["budget"]["chars"] or "over-budget" in flags
        assert ("over-budget" in flags) == (not r["fits"])  # over budget, and only then
    assert data["summary"]["translated"] == 20
    shown = capsys.readouterr().out
    # the "wrote PATH" line wraps at the console's width wherever the temporary path's length
    # (longer under pytest-xdist: .../popen-gw0/...) puts the break
    assert "within budget" in shown and "talk.it.srt" in "".join(shown.split())


def test_translate_vtt_keeps_header_blocks(tmp_path: Path, model_dir: Path) -> None:
    src = tmp_path / "talk.vtt"
    src.write_bytes((SAMPLES / "talk.vtt").read_bytes())
    out = tmp_path / "out.vtt"
    assert (
        run(
            [
                "translate",
                str(src),
                "-o",
                str(out),
                "--model",
                str(model_dir),
                "-q",
                "--no-compare",
                "--beam",
                "1",
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    source = src.read_text(encoding="utf-8")
    for block in ("WEBVTT", "STYLE", "NOTE", "REGION"):
        assert block in source and block in text
    assert len(read_document(out).segments) == len(read_document(src).segments)


def test_missing_model_is_a_clear_error_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "a.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    code = run(["translate", "--lang", "it", str(src), "--model", str(tmp_path / "nope")])
    err = capsys.readouterr().err
    assert code == 2
    assert "nope" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.it.srt").exists()


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("broken.srt", "1\n00:00:01,000 --> 00:00:0x,000\nHello.\n", "broken.srt:2"),
        ("empty.srt", "", "empty"),
        ("notes.docx", "hello", "notes.docx"),
        ("novtt.vtt", "1\n00:00:01.000 --> 00:00:02.000\nHello.\n", "WEBVTT"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path,
    model_dir: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str,
    needle: str,
) -> None:
    src = tmp_path / name
    src.write_text(content, encoding="utf-8")
    code = run(["translate", str(src), "--model", str(model_dir)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_output_equal_to_input_is_refused(tmp_path: Path, model_dir: Path) -> None:
    src = tmp_path / "a.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    before = src.read_bytes()
    assert run(["translate", str(src), "-o", str(src), "--model", str(model_dir)]) == 2
    assert src.read_bytes() == before


def test_budget_json_matches_hand_computed_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "b.srt"
    # 2.5 s cue, 50 visible characters: ratio 50, layout 42 × 2 = 84, speed 17 × 2.5 = 42
    text = "<i>" + "x" * 24 + " " + "y" * 25 + "</i>"
    src.write_text(f"1\n00:00:01,000 --> 00:00:03,500\n{text}\n", encoding="utf-8")
    assert run(["budget", str(src), "--lang", "it", "--ratio", "1.0", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    b = data["segments"][0]["budget"]
    assert (b["source_chars"], b["ratio_limit"], b["layout_limit"], b["speed_limit"]) == (
        50,
        50,
        84,
        42,
    )
    assert (b["chars"], b["binding"]) == (42, "speed")


def test_budget_flags_a_too_short_cue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "c.srt"
    src.write_text(
        "1\n00:00:01,000 --> 00:00:01,300\nI really do not know what to say.\n", encoding="utf-8"
    )
    assert run(["budget", str(src), "--lang", "it"]) == 0
    assert "TOO SMALL" in capsys.readouterr().out


def test_threads_option_sets_torch_threads(tmp_path: Path, model_dir: Path) -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        out = tmp_path / "out.srt"
        args = ["translate", str(SAMPLES / "talk.srt"), "-o", str(out), "--model", str(model_dir)]
        assert run([*args, "-q", "--no-compare", "--beam", "1", "--threads", "1"]) == 0
        assert torch.get_num_threads() == 1 and out.is_file()
        assert run([*args, "-q", "--threads", "0"]) == 2  # one-line usage error, exit 2
    finally:
        torch.set_num_threads(before)


def test_quality_threshold_sets_which_cues_are_flagged_low_quality(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.srt"
    src.write_text(TOY_SRT, encoding="utf-8")

    def low_quality(threshold: str) -> list[bool]:
        report = tmp_path / f"r{threshold}.json"
        args = ["translate", str(src), "-o", str(tmp_path / "out.srt"), "--model", str(model_dir)]
        assert run([*args, "--report", str(report), "-q", "--quality-threshold", threshold]) == 0
        segs = json.loads(report.read_text())["segments"]
        assert all(0.0 < s["quality"] < 1.0 for s in segs)
        return ["low-quality" in {f["name"] for f in s["flags"]} for s in segs]

    assert all(low_quality("1.0")) and not any(low_quality("0"))
    # out of range: one line naming the option, exit 2, nothing written
    before = sorted(p.name for p in tmp_path.iterdir())
    code = run(["translate", str(src), "--model", str(model_dir), "--quality-threshold", "1.5"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "--quality-threshold" in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before
