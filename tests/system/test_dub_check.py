"""`fitsub dub-check` end to end: espeak-ng speaks both files; without it, one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run

from fitsub.dubbing.festival import festival_available
from fitsub.dubbing.speech import espeak_available

needs_espeak = pytest.mark.skipif(
    not espeak_available(), reason="espeak-ng is not installed (make espeak)"
)

SOURCE = (
    "1\n00:00:01,000 --> 00:00:03,000\nWhere were you last night?\n\n"
    "2\n00:00:03,500 --> 00:00:06,000\nI waited at the station until midnight.\n\n"
    "3\n00:00:06,500 --> 00:00:08,000\nYou could have called me.\n"
)
DUB = (
    "1\n00:00:01,000 --> 00:00:03,000\nDove eri ieri sera?\n\n"
    "2\n00:00:03,500 --> 00:00:06,000\nTi ho aspettato alla stazione fino a mezzanotte, "
    "sotto la pioggia, da solo, senza sapere niente di te.\n\n"
    "3\n00:00:06,500 --> 00:00:08,000\nPotevi chiamarmi.\n"
)


def write(folder: Path) -> tuple[Path, Path]:
    src, dub = folder / "scene.srt", folder / "scene.it.srt"
    src.write_text(SOURCE, "utf-8")
    dub.write_text(DUB, "utf-8")
    return src, dub


@needs_espeak
def test_dub_check_reports_every_line(tmp_path: Path, capsys: Any) -> None:
    src, dub = write(tmp_path)
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    args = ["dub-check", str(dub), "--source", str(src), "--lang", "it"]
    assert run([*args, "--json", str(out), "--plot", str(png)]) == 0
    report = json.loads(out.read_text())
    assert report["lines"] == 3 and report["lang"] == "it"
    second = report["segments"][1]
    assert second["flag"] == "too-long-to-speak" and second["ratio"] > 1.15
    assert second["fits_cue"] is False
    for line in report["segments"]:
        assert line["source_s"] > 0 and line["target_s"] > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = capsys.readouterr().out
    assert "too-long-to-speak" in table and "3 lines" in table
    assert src.read_text("utf-8") == SOURCE and dub.read_text("utf-8") == DUB


@needs_espeak
def test_a_faster_speech_rate_shortens_the_dub(tmp_path: Path) -> None:
    src, dub = write(tmp_path)
    slow, fast = tmp_path / "slow.json", tmp_path / "fast.json"
    base = ["dub-check", str(dub), "--source", str(src), "--lang", "it", "-q"]
    assert run([*base, "--speech-rate", "5", "--json", str(slow)]) == 0
    assert run([*base, "--speech-rate", "9", "--json", str(fast)]) == 0
    slow_s = [x["target_s"] for x in json.loads(slow.read_text())["segments"]]
    fast_s = [x["target_s"] for x in json.loads(fast.read_text())["segments"]]
    assert all(f < s for f, s in zip(fast_s, slow_s, strict=True))


@pytest.mark.parametrize("rate", ["0", "-1", "20.5"])
def test_a_bad_speech_rate_is_one_line(tmp_path: Path, capsys: Any, rate: str) -> None:
    src, dub = write(tmp_path)
    code = run(
        [
            "dub-check",
            str(dub),
            "--source",
            str(src),
            "--lang",
            "it",
            "--speech-rate",
            rate,
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--speech-rate" in err, err
    assert not (tmp_path / "r.json").exists()


def test_without_espeak_it_says_how_to_get_it(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dub = write(tmp_path)
    monkeypatch.setenv("PATH", "")
    code = run(
        [
            "dub-check",
            str(dub),
            "--source",
            str(src),
            "--lang",
            "it",
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "apt-get install espeak-ng" in err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("lang", "path", "said"),
    [
        ("de", None, "--voice festival speaks Italian only"),
        ("it", "", "apt-get install festival festvox-italp16k"),
    ],
)
def test_a_second_voice_it_cannot_have_is_one_line(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch, lang: str, path: Any, said: str
) -> None:
    src, dub = write(tmp_path)
    if path is not None:
        monkeypatch.setenv("PATH", path)  # festival missing (espeak-ng too: festival is told)
    out = tmp_path / "r.json"
    args = ["dub-check", str(dub), "--source", str(src), "--lang", lang, "--json", str(out)]
    assert run([*args, "--voice", "festival"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err
    assert not out.exists()


@needs_espeak
@pytest.mark.skipif(
    not festival_available(),
    reason="festival's text2wave is not on PATH (apt-get install festival festvox-italp16k)",
)
def test_festival_is_reported_beside_espeak(tmp_path: Path, capsys: Any) -> None:
    src, dub = write(tmp_path)
    out = tmp_path / "r.json"
    args = ["dub-check", str(dub), "--source", str(src), "--lang", "it", "--json", str(out)]
    assert run([*args, "--voice", "festival"]) == 0
    report = json.loads(out.read_text())
    assert report["second_voice"]["name"] == "festival"
    second = report["segments"][1]
    assert second["flag"] == second["second"]["flag"] == "too-long-to-speak"
    table = capsys.readouterr().out
    assert "festival_ratio" in table and "espeak-ng and festival agree on" in table
