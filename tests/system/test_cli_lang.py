"""`--lang`: required unless fitsub.toml names it or the model translates into one language only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run
from factories import tiny_checkpoint

from fitsub.cli.models import pick_language
from fitsub.errors import InputError

SRT = "1\n00:00:01,000 --> 00:00:03,000\nWe go home now.\n"


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FITSUB_CONFIG", "")
    monkeypatch.delenv("FITSUB_MODEL_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def srt(tmp_path: Path) -> Path:
    path = tmp_path / "talk.srt"
    path.write_text(SRT, encoding="utf-8")
    return path


def _one_line_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("model", [[], ["--model", "identity"]])
def test_no_lang_is_an_error_listing_the_targets_and_nothing_is_written(
    srt: Path, capsys: pytest.CaptureFixture[str], model: list[str]
) -> None:
    err = _one_line_error(["translate", str(srt), *model], capsys)
    assert err.startswith("fitsub: error: --lang is required")
    assert "de, es, fr, it" in err and "Hugging Face" in err
    assert sorted(p.name for p in srt.parent.iterdir()) == ["talk.srt"]


def test_lang_en_says_english_is_the_source_and_lists_the_targets(
    srt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(["translate", str(srt), "--lang", "en"], capsys)
    assert "--lang en is the source language" in err and "from English into" in err
    assert "de, es, fr, it" in err and "fitsub train" not in err
    assert not (srt.parent / "talk.en.srt").exists()


def test_budget_needs_lang_too_and_takes_english_limits(
    srt: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(["budget", str(srt)], capsys)
    assert "--lang is required" in err
    assert run(["budget", str(srt), "--lang", "en", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lang"] == "en"


def test_a_model_of_one_target_language_needs_no_lang(
    srt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_checkpoint(tmp_path / "model")  # en → it
    args = ["translate", str(srt), "--model", str(model), "--beam", "1", "--threads", "1"]
    assert run([*args, "--table-format", "tsv"]) == 0
    assert (srt.parent / "talk.it.srt").is_file()
    assert "(utf-8, 1 segment)" in capsys.readouterr().err  # not "1 segments"


def test_a_multilingual_model_needs_lang_and_names_its_targets(tmp_path: Path) -> None:
    model = tmp_path / "multi"
    model.mkdir()
    config = {"model": {"src_lang": "en", "tgt_lang": "it", "tgt_langs": ["it", "de", "fr"]}}
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(InputError, match="this model translates into it, de, fr"):
        pick_language(None, model, "en")
    assert pick_language("DE", model, "en") == "de"


def test_fitsub_toml_names_the_language(
    srt: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "fitsub.toml"
    toml.write_text('[defaults]\nlang = "de"\n', encoding="utf-8")
    monkeypatch.setenv("FITSUB_CONFIG", str(toml))
    assert run(["translate", str(srt), "--model", "identity", "-q"]) == 0
    assert (srt.parent / "talk.de.srt").is_file()


# `fitsub eval` and `fitsub train-length` pick --lang as translate does (pick_language)


def _eval_files(folder: Path, lang: str) -> list[str]:
    for name, text in (
        ("s.en", "We go home.\n"),
        (f"h.{lang}", "Casa.\n"),
        (f"r.{lang}", "A casa.\n"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
    return ["--src", str(folder / "s.en"), "--hyp", str(folder / f"h.{lang}")] + [
        "--ref", str(folder / f"r.{lang}"), "--json", "-", "-q"
    ]  # fmt: skip


def test_eval_without_lang_is_an_error_listing_the_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(["eval", *_eval_files(tmp_path, "it")], capsys)
    assert err.startswith("fitsub: error: --lang is required")
    assert "de, es, fr, it" in err and "Hugging Face" in err
    (tmp_path / "t.en").write_text("We go home.\n", encoding="utf-8")
    err = _one_line_error(["eval", "--testset", f"t={tmp_path / 't'}", "--lang", "en"], capsys)
    assert "--lang en is the source language" in err and "de, es, fr, it" in err


def test_eval_scores_into_the_language_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["eval", *_eval_files(tmp_path, "de"), "--lang", "DE"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["metrics"]["n"] == 1
    # --testset NAME=PREFIX reads PREFIX.<lang>: only t.en and t.de exist
    for suffix in ("en", "de"):
        (tmp_path / f"t.{suffix}").write_text("We go home.\n", encoding="utf-8")
    args = ["eval", "--model", "identity", "--testset", f"t={tmp_path / 't'}", "--json", "-", "-q"]
    assert run([*args, "--lang", "de", "--settings", "unconstrained"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["testset"] == "t"
    err = _one_line_error([*args, "--lang", "fr"], capsys)
    assert "t.fr" in err


def test_eval_takes_the_one_language_of_its_models(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = [tiny_checkpoint(tmp_path, name) for name in ("a", "b")]  # both en → it
    models = [arg for m in ours for arg in ("--model", str(m))]
    assert run(["eval", *models, *_eval_files(tmp_path, "it")]) == 0
    capsys.readouterr()
    other = tmp_path / "de-model"
    other.mkdir()
    config = {"model": {"src_lang": "en", "tgt_lang": "de"}}
    (other / "config.json").write_text(json.dumps(config), encoding="utf-8")
    err = _one_line_error(["eval", *models, "--model", str(other), "--src", "x"], capsys)
    assert "--lang is required: the models translate into de, it" in err


def test_fitsub_toml_names_the_language_of_eval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = tmp_path / "fitsub.toml"
    toml.write_text('[defaults]\nlang = "de"\n', encoding="utf-8")
    monkeypatch.setenv("FITSUB_CONFIG", str(toml))
    assert run(["eval", *_eval_files(tmp_path, "de")]) == 0


def test_train_length_needs_lang_and_looks_for_that_languages_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FITSUB_MODEL_DIR", str(tmp_path / "no-models"))
    args = ["train-length", "--data-dir", str(tmp_path)]
    err = _one_line_error(args, capsys)
    assert err.startswith("fitsub: error: --lang is required") and "Hugging Face" in err
    err = _one_line_error([*args, "--lang", "en"], capsys)
    assert "--lang en is the source language" in err
    err = _one_line_error([*args, "--lang", "PT"], capsys)  # no shipped en-pt model
    assert "no en-pt translation model" in err


def test_train_length_takes_the_models_language_and_refuses_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "multi"
    model.mkdir()
    config = {"model": {"src_lang": "en", "tgt_lang": "it", "tgt_langs": ["it", "de"]}}
    (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    args = ["train-length", "--data-dir", str(tmp_path)]
    err = _one_line_error([*args, "--model", str(model)], capsys)
    assert "--lang is required: this model translates into it, de" in err
    one = tiny_checkpoint(tmp_path / "model")  # en → it
    err = _one_line_error([*args, "--model", str(one), "--lang", "de"], capsys)
    assert "its length predictor serves en→it, not de" in err
