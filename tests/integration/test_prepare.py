"""`fitsub prepare` and `fitsub train --prepared`: the data step once, a run from its arrays that
makes the same updates as a run from the text, and every way a prepared set is refused."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.train.prepared import load_prepared

WORDS = "cat dog house red blue big small runs eats sees the a man woman child tree car book"


def write_toy(folder: Path, n: int = 120, seed: int = 0) -> Path:
    """`folder/toy.en` / `toy.it`: each English word reversed plus `o` (`cat` → `taco`)."""
    rng = random.Random(seed)
    words = WORDS.split()
    src = [" ".join(rng.choices(words, k=rng.randint(2, 7))) for _ in range(n)]
    tgt = [" ".join(w[::-1] + "o" for w in s.split()) for s in src]
    (folder / "toy.en").write_text("\n".join(src) + "\n", "utf-8")
    (folder / "toy.it").write_text("\n".join(tgt) + "\n", "utf-8")
    return folder / "toy"


DATA = ["--src", "en", "--tgt", "it", "--vocab-size", "60", "--dev-size", "8"]
MODEL = ["--size", "tiny", "--max-tokens", "512", "--warmup", "5", "--lr", "3e-3",
         "--threads", "1", "--bleu-sentences", "0", "--eval-every", "20", "-q"]  # fmt: skip


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The toy text's prefix and its prepared set (SentencePiece on one thread)."""
    d = tmp_path_factory.mktemp("prep")
    prefix = write_toy(d)
    prep = d / "prep"
    assert run(["prepare", "--train", str(prefix), *DATA, "--threads", "1", "-o", str(prep)]) == 0
    return prefix, prep


def losses(run_dir: Path) -> list[float]:
    lines = (run_dir / "train_log.jsonl").read_text("utf-8").splitlines()
    return [json.loads(x)["loss"] for x in lines if json.loads(x).get("event") == "step"]


def test_the_prepared_set_records_its_settings_and_compact_arrays(toy: tuple[Path, Path]) -> None:
    prefix, prep = toy
    manifest = json.loads((prep / "manifest.json").read_text("utf-8"))
    assert manifest["settings"]["vocab_size"] == 60
    assert manifest["settings"]["train_prefixes"] == [str(prefix)]
    assert manifest["spm_threads"] == 1
    prepared, _ = load_prepared(prep)
    assert manifest["pairs"] == {"train": len(prepared.train), "dev": len(prepared.dev)}
    assert len(prepared.dev) == 8 and len(prepared.dev_text) == 8
    # every training pair's pieces decode back to its text's words
    first = prepared.train
    ids = first.tgt_ids[first.tgt_off[0] : first.tgt_off[1]]
    assert prepared.tokenizer.decode(ids.tolist()).endswith("o")
    assert int(first.tgt_units[0]) == len(prepared.tokenizer.decode(ids.tolist()))
    assert (prep / "data.safetensors").stat().st_size < 4 * int(first.tgt_off[-1]) + 10_000


def test_a_run_from_the_prepared_set_makes_the_same_updates_as_one_from_the_text(
    toy: tuple[Path, Path], tmp_path: Path
) -> None:
    prefix, prep = toy
    a, b = tmp_path / "text", tmp_path / "prepared"
    text_run = ["train", "--train", str(prefix), *DATA, *MODEL, "--max-steps", "20"]
    # the text run trains its own tokenizer on one thread, as the prepared set's was
    assert run([*text_run, "-o", str(a)]) == 0
    assert run(["train", "--prepared", str(prep), *MODEL, "--max-steps", "20", "-o", str(b)]) == 0
    assert len(losses(a)) == 1 and losses(a) == pytest.approx(losses(b), rel=1e-6)
    cfg = json.loads((b / "best" / "config.json").read_text("utf-8"))["train"]["config"]
    assert cfg["prepared"] == str(prep) and cfg["train_prefixes"] == [str(prefix)]
    # the same flags given again agree with the set: accepted
    same = ["--tgt", "it", "--vocab-size", "60", "--max-steps", "1", "-o", str(tmp_path / "c")]
    assert run(["train", "--prepared", str(prep), *MODEL, *same]) == 0


def _refused(args: list[str], capsys: pytest.CaptureFixture[str], words: str) -> str:
    capsys.readouterr()
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err
    return err


def test_prepared_sets_that_do_not_fit_the_run_are_refused_in_one_line(
    toy: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, prep = toy
    out = tmp_path / "run"
    base = ["train", "--prepared", str(prep), *MODEL, "--max-steps", "2", "-o", str(out)]
    err = _refused([*base, "--vocab-size", "99"], capsys, "prepared with other settings")
    assert "vocab_size (prepared: 60, asked: 99)" in err
    _refused([*base, "--tgt", "de"], capsys, "tgt_lang")
    assert not out.exists()

    bad = tmp_path / "bad"  # a corrupt array: one byte changed
    bad.mkdir()
    for f in prep.iterdir():
        (bad / f.name).write_bytes(f.read_bytes())
    data = bytearray((bad / "data.safetensors").read_bytes())
    data[-3] ^= 0xFF
    (bad / "data.safetensors").write_bytes(bytes(data))
    _refused([*base[:2], str(bad), *base[3:]], capsys, "corrupt")

    other = tmp_path / "other"  # a set of another format
    other.mkdir()
    for f in prep.iterdir():
        (other / f.name).write_bytes(f.read_bytes())
    m = json.loads((other / "manifest.json").read_text("utf-8"))
    m["format"] = "fitsub-prepared-0"
    (other / "manifest.json").write_text(json.dumps(m), "utf-8")
    _refused([*base[:2], str(other), *base[3:]], capsys, "run `fitsub prepare` again")
    assert not out.exists()


def test_an_export_directory_that_exists_or_a_deadline_too_short_is_refused(
    toy: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, prep = toy
    taken = tmp_path / "taken"
    taken.mkdir()
    args = ["train", "--prepared", str(prep), *MODEL, "-o", str(tmp_path / "r")]
    _refused([*args, "--export", str(taken)], capsys, "--export directory exists")
    _refused([*args, "--max-time", "1s"], capsys, "leaves no time to train")
    assert not (tmp_path / "r" / "best").exists()


def test_prepare_refuses_an_existing_directory(
    toy: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    prefix, prep = toy
    before = (prep / "manifest.json").read_bytes()
    _refused(["prepare", "--train", str(prefix), *DATA, "-o", str(prep)], capsys, "--force")
    assert (prep / "manifest.json").read_bytes() == before
