"""Style profiles and fitsub.toml: the limits they set, precedence, the listing, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.budget import BUILTIN, segment_budget, tight_gaps
from fitsub.cli.config_file import load_settings
from fitsub.errors import InputError

SRT = (
    "1\n00:00:01,000 --> 00:00:03,000\nThank you all for coming to my talk today.\n\n"
    "2\n00:00:03,040 --> 00:00:09,000\nI am going to talk about languages.\n"
)


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")  # tests choose their config file explicitly
    monkeypatch.chdir(tmp_path)


def test_builtin_profiles_hold_the_style_guides_figures() -> None:
    assert (BUILTIN["netflix-it"].cpl, BUILTIN["netflix-it"].cps) == (42, 17.0)
    assert BUILTIN["netflix-en"].cps == 20.0 and BUILTIN["netflix-en"].min_gap_ms == 83
    assert (BUILTIN["bbc"].cpl, BUILTIN["bbc"].lines) == (37, 2)
    assert (BUILTIN["ted"].cps, BUILTIN["ted"].min_duration_ms) == (21.0, 1000)
    dub = BUILTIN["dubbing"]
    assert (dub.ratio, dub.min_ratio, dub.reading_speed) == (1.1, 0.9, False)


def test_dubbing_has_no_speed_limit_and_ted_flags_short_cues() -> None:
    budget = segment_budget(40, ratio=1.1, limits=BUILTIN["dubbing"].limits(), duration_ms=500)
    assert budget.speed_limit is None and budget.chars == 44
    ted = segment_budget(10, ratio=1.0, limits=BUILTIN["ted"].limits(), duration_ms=900)
    assert ted.too_short  # under TED's 1 s, though above Netflix's 5/6 s
    netflix = segment_budget(4, ratio=1.0, limits=BUILTIN["netflix-it"].limits(), duration_ms=900)
    assert not netflix.too_short


def test_tight_gaps_lists_cues_too_close_to_the_previous_one() -> None:
    assert tight_gaps([(0, 1000), (1040, 2000), (2200, 3000), (2900, 4000)], 83) == [1, 3]


def _budget_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    assert run(["budget", "talk.srt", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_profile_sets_the_budget_and_flags_win(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "talk.srt").write_text(SRT, encoding="utf-8")
    data = _budget_json(["--profile", "bbc", "--lang", "it"], capsys)
    assert data["profile"] == "bbc" and data["limits"]["cpl"] == 37
    assert data["segments"][0]["budget"]["speed_limit"] == 30  # 15 cps x 2 s
    assert data["summary"]["tight_gaps"] == []  # the BBC sets no minimum gap
    data = _budget_json(["--profile", "netflix-en", "--lang", "en"], capsys)
    assert data["segments"][0]["budget"]["speed_limit"] == 40  # 20 cps x 2 s
    assert data["summary"]["tight_gaps"] == ["2"]  # 40 ms < 2 frames
    data = _budget_json(["--profile", "netflix-en", "--lang", "EN", "--cps", "10"], capsys)
    assert data["segments"][0]["budget"]["speed_limit"] == 20  # the flag wins
    data = _budget_json(["--profile", "dubbing", "--lang", "it", "--unit", "char"], capsys)
    assert data["ratio"] == 1.1 and data["segments"][0]["budget"]["speed_limit"] is None


def test_config_file_defaults_and_custom_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "talk.srt").write_text(SRT, encoding="utf-8")
    config = tmp_path / "fitsub.toml"
    config.write_text(
        '[defaults]\nlang = "de"\nprofile = "festival"\nratio = 0.8\n\n'
        '[profiles.festival]\nbased_on = "netflix-de"\ncpl = 30\ncps = 12\n',
        encoding="utf-8",
    )
    monkeypatch.delenv("FITSUB_CONFIG")  # found in the current folder
    data = _budget_json([], capsys)
    assert (data["lang"], data["profile"], data["ratio"]) == ("de", "festival", 0.8)
    assert (data["limits"]["cpl"], data["limits"]["cps"]) == (30, 12)
    assert run(["profiles", "--json"]) == 0
    listed = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    assert listed["festival"]["cpl"] == 30 and listed["festival"]["source"] == str(config)
    assert {"netflix-it", "bbc", "ted", "dubbing"} <= listed.keys()


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ("[defaults]\nspeed = 3\n", "unknown key 'speed'"),
        ('[defaults]\nprofile = "nope"\n', "not a known profile"),
        ("[profiles.x]\ncpl = -1\n", "cpl must be a positive number"),
        ('[profiles.x]\nbased_on = "nope"\n', "based_on must name a profile"),
        ("not toml = = 1\n", "not valid TOML"),
        # issue 44: every numeric field has a range
        ("[profiles.x]\ncpl = 9999999999999999999\n", "cpl must be at most 1,000,000, got 9999"),
        ("[profiles.x]\nlines = 10001\n", "lines must be at most 10,000"),
        ("[profiles.x]\ncps = 1e300\n", "cps must be at most 1,000,000"),
        ("[profiles.x]\nmin_gap_ms = 3600001\n", "min_gap_ms must be at most 3,600,000"),
        ("[profiles.x]\nmin_duration_ms = 99999999999\n", "min_duration_ms must be at most"),
        ("[profiles.x]\nratio = 1001\n", "ratio must be at most 1,000"),
        ("[profiles.x]\nmin_ratio = 1e9\n", "min_ratio must be at most 1,000"),
        ("[defaults]\nratio = 1e9\n", "ratio must be at most 1,000"),
    ],
)
def test_a_bad_config_file_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, problem: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    monkeypatch.setenv("FITSUB_CONFIG", str(path))
    with pytest.raises(InputError, match=problem) as info:
        load_settings(tmp_path, None)
    assert str(path) in str(info.value)


def test_an_unknown_profile_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "talk.srt").write_text(SRT, encoding="utf-8")
    assert run(["budget", "--lang", "it", "talk.srt", "--profile", "hbo"]) == 2
    assert "unknown profile 'hbo'" in capsys.readouterr().err
