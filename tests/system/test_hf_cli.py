"""`fitsub translate` / `fitsub eval` with a Hugging Face model directory (tiny, offline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")

import torch  # noqa: E402
from factories import (  # noqa: E402
    make_marian,  # noqa: E402
    tiny_config,
    word_tokenizer,
)

from fitsub.cli import main  # noqa: E402
from fitsub.formats import read_document  # noqa: E402
from fitsub.nmt.checkpoint import build_model, save_checkpoint  # noqa: E402

CUES = [
    ("00:00:01,000", "00:00:03,500", "The small boat sees the river."),
    ("00:00:04,000", "00:00:06,000", "The bored sailor walks."),
    ("00:00:06,200", "00:00:09,000", "A very old house,\nthe new city."),
    ("00:00:10,000", "00:00:12,000", "The dog sees the cat."),
]
SRT = "".join(f"{i}\n{a} --> {b}\n{t}\n\n" for i, (a, b, t) in enumerate(CUES, 1))


def run(args: list[str]) -> int:
    try:
        main(args)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.fixture(scope="module")
def marian_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return make_marian(tmp_path_factory.mktemp("hfcli") / "opus-tiny-en-it", steps=150)


@pytest.fixture
def srt(tmp_path: Path) -> Path:
    path = tmp_path / "talk.srt"
    path.write_text(SRT, encoding="utf-8")
    return path


COMMON = ["--device", "cpu", "--beam", "2", "--threads", "1", "-q"]


def test_translate_srt_keeps_every_cue_and_timing(marian_dir: Path, srt: Path) -> None:
    out, report = srt.with_name("talk.it.srt"), srt.with_name("talk.json")
    args = ["translate", "--lang", "it", str(srt), "--model", str(marian_dir), "-o", str(out)]
    assert run([*args, "--report", str(report), "--ratio", "0.8", *COMMON]) == 0
    src, got = read_document(srt), read_document(out)
    assert len(got.segments) == len(src.segments) == len(CUES)
    for a, b in zip(src.segments, got.segments, strict=True):
        assert (a.start_ms, a.end_ms) == (b.start_ms, b.end_ms)
        assert b.text.strip()
    meta = json.loads(report.read_text("utf-8"))
    assert "hf:opus-tiny-en-it" in json.dumps(meta)


def test_eval_compares_a_fitsub_checkpoint_and_a_pretrained_model(
    marian_dir: Path, tmp_path: Path
) -> None:
    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok, method="ldpe+pe", length_unit="char", length_dropout=0.2)
    ours = tmp_path / "fitsub-tiny"
    save_checkpoint(ours, build_model(cfg, tok), cfg, tok)
    src, ref = tmp_path / "test.en", tmp_path / "test.it"
    src.write_text("the small boat\nthe dog sees the cat\nthe old city\n", encoding="utf-8")
    ref.write_text("la piccola barca\nil cane vede il gatto\nla vecchia citta\n", encoding="utf-8")
    js = tmp_path / "scores.json"
    code = run(
        [
            "eval", "--model", str(ours), "--model", str(marian_dir), "--src", str(src),
            "--ref", str(ref), "--settings", "unconstrained,hard", "--ratio", "0.9",
            "--lang", "it", "--json", str(js), *COMMON,
        ]
    )  # fmt: skip
    assert code == 0
    text = js.read_text("utf-8")
    for name in ("fitsub-tiny/unconstrained@0.9", "opus-tiny-en-it/hard@0.9"):
        assert name in text


def _fails_cleanly(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], needle: str
) -> None:
    before = sorted(p.name for p in tmp_path.iterdir())
    capsys.readouterr()  # what building the test's models printed
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_directory_that_is_not_a_model(
    srt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty-dir"
    empty.mkdir()
    _fails_cleanly(
        ["translate", "--lang", "it", str(srt), "--model", str(empty), *COMMON],
        tmp_path,
        capsys,
        "empty-dir",
    )


def test_model_that_is_not_seq2seq(
    srt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from transformers import BertConfig, BertModel

    bert = tmp_path / "bert-tiny"
    cfg = BertConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32,
    )  # fmt: skip
    BertModel(cfg).save_pretrained(bert, safe_serialization=True)
    _fails_cleanly(
        ["translate", "--lang", "it", str(srt), "--model", str(bert), *COMMON],
        tmp_path,
        capsys,
        "not a sequence-to-sequence",
    )


def test_text_the_tokenizer_cannot_encode(
    marian_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "ja.srt"
    bad.write_text(SRT + "5\n00:00:13,000 --> 00:00:14,000\n日本語のテキスト\n\n", "utf-8")
    _fails_cleanly(
        ["translate", "--lang", "it", str(bad), "--model", str(marian_dir), *COMMON],
        tmp_path,
        capsys,
        "cannot encode",
    )


def test_language_the_model_does_not_know(
    marian_dir: Path, srt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_marian(tmp_path / "multi", languages=("ita", "deu"), steps=0)
    _fails_cleanly(
        ["translate", str(srt), "--model", str(tmp_path / "multi"), "--lang", "fr", *COMMON],
        tmp_path,
        capsys,
        "does not know the target language 'fr'",
    )


def test_hub_id_offline_and_not_cached(
    srt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "no-cache"))
    monkeypatch.chdir(tmp_path)
    _fails_cleanly(
        ["translate", "--lang", "it", str(srt), "--model", "fitsub-test/not-a-model", *COMMON],
        tmp_path,
        capsys,
        "fitsub-test/not-a-model: no such directory and not in the Hugging Face cache (offline)",
    )
