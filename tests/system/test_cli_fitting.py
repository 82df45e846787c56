"""The CLI of the two fitting modes (issue 27): what `fitsub budget` shows, and the bad input
that is one line and exit 2 (language codes, profiles, ratios, a missing model directory)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.dubbing.speech import espeak_available

SRT = (
    "1\n00:00:01,000 --> 00:00:04,000\nThis blade has a dark past.\n\n"
    "2\n00:00:04,500 --> 00:00:06,000\nA dragon.\n"
)


@pytest.fixture(autouse=True)
def in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "film.srt").write_text(SRT, encoding="utf-8")


def _budget(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    assert run(["budget", "--lang", "it", "film.srt", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_a_subtitle_profile_budgets_by_the_slot_and_a_ratio_makes_it_isometric(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _budget(["--profile", "netflix-it"], capsys)
    assert data["mode"] == "slot" and data["ratio"] is None
    first = data["segments"][0]["budget"]
    assert (first["mode"], first["binding"], first["chars"]) == ("slot", "speed", 51)
    assert first["ratio_limit"] is None
    assert data["summary"]["mode_counts"] == {"slot": 2, "isometric": 0}
    assert data["summary"]["binding_counts"]["ratio"] == 0
    data = _budget(["--profile", "netflix-it", "--ratio", "1.0"], capsys)
    first = data["segments"][0]["budget"]
    assert (data["mode"], first["mode"], first["binding"], first["chars"]) == (
        "isometric",
        "isometric",
        "ratio",
        27,
    )
    dubbing = _budget(["--profile", "dubbing", "--unit", "char"], capsys)
    assert dubbing["mode"] == "isometric" and dubbing["ratio"] == 1.1
    assert dubbing["unit"] == "char" and "window" not in dubbing["segments"][0]


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed (make espeak)")
def test_budget_under_dubbing_shows_each_speaking_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _budget(["--profile", "dubbing"], capsys)  # the profile's unit: seconds
    assert data["unit"] == "seconds" and data["ratio"] is None
    window = data["segments"][0]["window"]
    assert window["max_chars"] == data["segments"][0]["budget"]["ratio_limit"]
    assert 0 < window["seconds"] < 10 and window["min_syllables"] <= window["max_syllables"]
    syllables = _budget(["--unit", "syllables", "--isochrony", "cue"], capsys)
    assert syllables["unit"] == "syllables"
    cue = syllables["segments"][0]
    assert cue["window"]["seconds"] == pytest.approx(3.0)  # the first cue's 3 s


def test_language_codes_are_case_insensitive(capsys: pytest.CaptureFixture[str]) -> None:
    data = _budget(["--lang", "IT", "--profile", "netflix-it"], capsys)
    assert data["lang"] == "it"


def test_a_profile_for_another_language_names_both(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["budget", "film.srt", "--lang", "de", "--profile", "netflix-it"], capsys)
    assert "netflix-it" in err and "de" in err and "netflix-de" in err
    err = _error(["translate", "film.srt", "--lang", "de", "--profile", "netflix-it"], capsys)
    assert "netflix-it" in err and "--lang de" in err
    assert not (Path("film.de.srt")).exists()


def test_a_profile_name_in_the_wrong_case_names_the_right_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _error(["budget", "--lang", "it", "film.srt", "--profile", "Netflix-IT"], capsys)
    assert "'Netflix-IT'" in err and "netflix-it" in err


def test_a_ratio_under_the_profiles_lower_bound_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = _error(
        ["budget", "--lang", "it", "film.srt", "--profile", "dubbing", "--unit", "char"]
        + ["--ratio", "0.8"],
        capsys,
    )
    assert "dubbing" in err and "0.9" in err
    data = _budget(["--profile", "dubbing", "--unit", "char", "--ratio", "1.2"], capsys)  # fine
    assert data["ratio"] == 1.2


def test_a_model_directory_that_does_not_exist_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "models").mkdir()  # a local folder: models/en-xx is a path, not a hub id
    for model in ("models/en-xx", "/no/such/model", "mymodel"):
        err = _error(["translate", "--lang", "it", "film.srt", "--model", model], capsys)
        assert "no such model directory" in err and model in err
