"""CLI conventions: --version, completion, flags without <bool>, table layouts, --lang checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run
from factories import tiny_checkpoint

from fitsub import __version__

SRT = "1\n00:00:01,000 --> 00:00:03,000\nWe go home now.\n\n2\n00:00:03,500 --> 00:00:05,000\nYou and I.\n"


@pytest.fixture(autouse=True)
def no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("model"))


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fitsub {__version__}"


def test_help_shows_flags_without_bool_and_offers_completion() -> None:
    env = {**os.environ, "COLUMNS": "160", "TERM": "dumb"}
    root = subprocess.run([sys.executable, "-m", "fitsub", "--help"], capture_output=True,
                          text=True, env=env, check=True).stdout  # fmt: skip
    assert "--install-completion" in root and "--version" in root
    helps = subprocess.run([sys.executable, "-m", "fitsub", "translate", "--help"],
                           capture_output=True, text=True, env=env, check=True).stdout  # fmt: skip
    assert "--strict" in helps and "--profile" in helps and "--out-dir" in helps
    assert "<bool>" not in helps and "<bool>" not in root
    assert "<float>" in helps  # other types are still shown


def test_show_completion_prints_a_script() -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    done = subprocess.run([sys.executable, "-m", "fitsub", "--show-completion", "bash"],
                          capture_output=True, text=True, env=env)  # fmt: skip
    assert done.returncode == 0 and "complete" in done.stdout and "fitsub" in done.stdout


def test_json_table_layout(tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(SRT, encoding="utf-8")
    args = ["translate", str(src), "--model", str(model), "--beam", "1"]
    assert run([*args, "--table-format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["segments"]) == 2 and data["summary"]["translated"] == 2


def test_tsv_table_layout_also_when_not_a_terminal(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(SRT, encoding="utf-8")
    args = ["translate", str(src), "--model", str(model), "--beam", "1"]
    assert run([*args, "--table-format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t")[:4] == ["index", "id", "source_chars", "budget"]
    assert [line.split("\t")[1] for line in lines[1:3]] == ["1", "2"]
    assert [len(line.split("\t")) for line in lines[1:3]] == [13, 13]
    assert run(args) == 0  # auto: captured output is not a terminal, so TSV again
    assert capsys.readouterr().out.splitlines() == lines


def test_lang_the_model_cannot_produce_is_exit_2(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "talk.srt"
    src.write_text(SRT, encoding="utf-8")
    assert run(["translate", str(src), "--model", str(model), "--lang", "de"]) == 2
    err = capsys.readouterr().err
    assert "translates en → it; it cannot produce --lang de" in err
    assert not (tmp_path / "talk.de.srt").exists()


def test_vtt_language_header_names_the_target(tmp_path: Path, model: Path) -> None:
    src = tmp_path / "talk.vtt"
    src.write_text("WEBVTT\nKind: captions\nLanguage: en\n\n00:01.000 --> 00:03.000\nHello.\n",
                   encoding="utf-8")  # fmt: skip
    assert run(["translate", str(src), "--model", str(model), "--beam", "1", "-q"]) == 0
    out = (tmp_path / "talk.it.vtt").read_text(encoding="utf-8")
    assert out.startswith("WEBVTT\nKind: captions\nLanguage: it\n\n00:01.000 --> 00:03.000\n")
