"""Markup the output cannot carry is reported even with --quiet, and marked in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import tiny_checkpoint

from fitsub.cli import main


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained char-unit checkpoint: real plumbing, meaningless words."""
    return tiny_checkpoint(tmp_path_factory.mktemp("ckpt"))


def test_quiet_still_reports_dropped_markup_and_the_report_marks_the_cue(
    tmp_path: Path, model_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "a.srt"
    src.write_text(
        "1\n00:00:01,000 --> 00:00:04,000\nIf a<b, swap ♪ them. <i>Now!</i>\n\n"
        "2\n00:00:04,500 --> 00:00:05,100\nThank you so much.\n",
        encoding="utf-8",
    )
    out, report = tmp_path / "a.it.srt", tmp_path / "r.json"
    args = ["translate", str(src), "-o", str(out), "--model", str(model_dir), "--beam", "1"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--threads", "1", "--report", str(report), "-q"])
    assert exc.value.code in (0, None)
    captured = capsys.readouterr()
    assert captured.out == ""
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    # the song sign in mid-line is dropped; the tag is kept (on its words or around the line)
    assert warnings and all("segment 1" in w for w in warnings) and "♪" in warnings[0]
    data = json.loads(report.read_text(encoding="utf-8"))
    first, second = data["segments"]
    assert first["source"] == "If a<b, swap them. Now!"
    assert first["markup_lost"] == ["♪"] and second["markup_lost"] == []
    assert first["markup_moved"] in ([], ["<i>…</i>"]) and second["markup_moved"] == []
    cue = out.read_text(encoding="utf-8").split("\n\n")[0]
    assert cue.count("<i>") == 1 and cue.count("</i>") == 1
    # a 0.6 s cue of four words is flagged too short
    assert second["budget"]["too_short"] is True and first["budget"]["too_short"] is False
    assert out.exists()
