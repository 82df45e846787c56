"""Batch runs: folders and globs, one model load, per-file lines, one report, failures at the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run
from factories import tiny_checkpoint

from fitsub.formats import read_document

SRT = "1\n00:00:01,000 --> 00:00:03,000\nWe go home now.\n\n2\n00:00:03,500 --> 00:00:05,000\nYou and I.\n"
VTT = "WEBVTT\nLanguage: en\n\n00:01.000 --> 00:03.000\nThis is not the end.\n"


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("model"))


def _tree(root: Path) -> Path:
    talks = root / "talks"
    (talks / "day2").mkdir(parents=True)
    (talks / "a.srt").write_text(SRT, encoding="utf-8")
    (talks / "day2" / "b.vtt").write_text(VTT, encoding="utf-8")
    (talks / "notes.pdf").write_bytes(b"%PDF")  # not a format: skipped in a folder
    return talks


def test_a_folder_is_translated_into_out_dir_with_one_report(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    talks = _tree(tmp_path)
    out, report = tmp_path / "out", tmp_path / "all.json"
    code = run(["translate", str(talks), "--out-dir", str(out), "--model", str(model),
                "--beam", "1", "--report", str(report)])  # fmt: skip
    assert code == 0
    assert read_document(out / "a.it.srt").texts.__len__() == 2
    vtt = read_document(out / "day2" / "b.it.vtt")  # the folder's layout is kept
    assert vtt.gaps[0].startswith("WEBVTT\nLanguage: it\n")  # the header names the target
    data = json.loads(report.read_text())
    assert data["summary"] == {"files": 2, "translated": 2, "failed": 0, "segments": 3}
    assert [f["status"] for f in data["files"]] == ["ok", "ok"]
    assert all("segments" in f and "summary" in f for f in data["files"])
    err = capsys.readouterr().err
    assert "a.srt → " in err and "b.vtt → " in err and "2 of 2 files translated" in err


def test_a_failing_file_does_not_stop_the_others(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    talks = _tree(tmp_path)
    (talks / "broken.srt").write_text("1\n00:00:01,000 --> nonsense\nHi\n", encoding="utf-8")
    out, report = tmp_path / "out", tmp_path / "all.json"
    code = run(["translate", str(talks / "*.srt"), str(talks / "day2"), "--out-dir", str(out),
                "--model", str(model), "--beam", "1", "--report", str(report)])  # fmt: skip
    assert code == 2
    assert (out / "a.it.srt").is_file() and (out / "b.it.vtt").is_file()
    assert not (out / "broken.it.srt").exists()  # nothing written for the failed file
    err = capsys.readouterr().err
    assert "broken.srt:2: broken timestamp" in err and "1 of 3 files failed" in err
    assert "Traceback" not in err
    files = json.loads(report.read_text())["files"]
    assert [f["status"] for f in files] == ["ok", "failed", "ok"]


def test_batch_usage_errors_are_exit_2_before_any_work(tmp_path: Path, model: Path) -> None:
    talks = _tree(tmp_path)
    base = ["translate", str(talks), "--model", str(model)]
    assert run([*base, "-o", str(tmp_path / "x.srt")]) == 2
    assert run([*base, "--review", str(tmp_path / "r.html")]) == 2
    assert run(["translate", str(tmp_path / "*.nothing"), "--model", str(model)]) == 2
    assert not list(tmp_path.glob("**/*.it.*"))
