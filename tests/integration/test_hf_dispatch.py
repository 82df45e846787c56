"""`--model` dispatch and the missing `hf` extra (runs with or without transformers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fitsub.cli import main
from fitsub.errors import ModelMissingError
from fitsub.hf.loading import is_hf_model, require_transformers


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_which_backend_a_model_names(tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    ours.mkdir()
    (ours / "config.json").write_text(json.dumps({"format": "fitsub-checkpoint-1"}), "utf-8")
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text(json.dumps({"model_type": "marian"}), "utf-8")
    assert not is_hf_model(None) and not is_hf_model(ours) and is_hf_model(hf)
    assert not is_hf_model(tmp_path / "missing")  # an absolute path stays a fitsub path
    assert is_hf_model(Path("Helsinki-NLP/opus-mt-en-it")) and is_hf_model("t5-small")
    assert not is_hf_model("./not/here") and not is_hf_model(tmp_path)


def test_missing_extra_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # import fails as if not installed
    with pytest.raises(ModelMissingError, match=r"pip install 'fitsub\[hf\]'"):
        require_transformers("Helsinki-NLP/opus-mt-en-it")
    src = tmp_path / "a.srt"
    src.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = run(
        ["translate", "--lang", "it", str(src), "--model", "Helsinki-NLP/opus-mt-en-it", "-q"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "fitsub[hf]" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.srt"]


def test_language_token_spellings_per_family() -> None:
    from fitsub.hf.languages import _codes

    codes = _codes("it")
    assert {"ita_Latn", "it_IT", "__it__"} <= set(codes)
    assert "it" not in codes  # an ordinary piece "it" must never become the forced token
    assert _codes("ita_Latn")[0] == "ita_Latn"
