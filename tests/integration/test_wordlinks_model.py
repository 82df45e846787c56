"""A model's word links end to end: built by `fitsub links`, loaded, exported, named by the
`low-quality` flag, and a bad file refused with one line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from cli_helpers import TOY_SRT, assert_refused_in_one_line, run
from factories import tiny_checkpoint

from fitsub.nmt.backend import NMTBackend
from fitsub.quality.links import LINKS_FILE, links_bytes, read_links


def test_build_load_and_export(tmp_path: Path) -> None:
    model = tiny_checkpoint(tmp_path)
    data = tmp_path / "train"
    data.mkdir()
    # the 400 most frequent English words (seen in 3 sentence pairs at least) are function
    # words: here "the" alone, and no pair is seen often enough to link; the file still loads
    (data / "toy.en").write_text("the dog\nthe cat\nthe dog runs\n", "utf-8")
    (data / "toy.it").write_text("il cane\nil gatto\nil cane corre\n", "utf-8")
    assert run(["links", str(model), "--data", str(data), "--corpus", "toy:0.5"]) == 0
    backend = NMTBackend(model, device="cpu", beam=2, threads=1)
    assert backend.links is not None and backend.links.languages == ("en", "it")
    assert backend.links.function == {"the"} and not backend.links.links
    out = tmp_path / "shipped"
    assert run(["export", str(model), str(out)]) == 0
    assert (out / LINKS_FILE).read_bytes() == (model / LINKS_FILE).read_bytes()
    assert run(["links", str(model), "--data", str(data), "--corpus", "none"]) == 2


def test_the_low_quality_flag_names_the_source_words_without_a_counterpart(
    tmp_path: Path,
) -> None:
    model = tiny_checkpoint(tmp_path)
    links = {"dog": ["cane"], "cat": ["gatto"], "red": ["rosso"], "tree": ["albero"]}
    data = links_bytes(links, ["the", "a"], language="it", source="test")
    (model / LINKS_FILE).write_bytes(data)
    srt, report = tmp_path / "toy.srt", tmp_path / "r.json"
    srt.write_text(TOY_SRT, "utf-8")
    args = ["translate", str(srt), "--model", str(model), "--report", str(report), "-q"]
    assert run([*args, "--quality-threshold", "1.0"]) == 0  # every cue flagged
    segs = json.loads(report.read_text())["segments"]
    table = read_links(model / LINKS_FILE)
    # the two cues are one sentence, scored (and named) as the model translated it: joined
    missing = table.unlinked(
        " ".join(s["source"] for s in segs), " ".join(s["fitted"] for s in segs)
    )
    assert missing and "the" not in missing and "a" not in missing  # function words need none
    named = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
    for seg in segs:
        (flag,) = [f for f in seg["flags"] if f["name"] == "low-quality"]
        assert flag["detail"] == f"quality {seg['quality']:.2f} < 1.00; nothing for {named}"


@pytest.mark.parametrize(
    "data",
    [
        b"\x1f\x8bnot gzip",
        b"# other-format 1\ndog\tcane\n",
        gzip.compress(b"# fitsub-links 1\n# function: the\ndog cane\n"),
        links_bytes({"dog": ["hund"]}, ["the"], language="de", source="test"),
        # issue 44: a gzip bomb (a 40 MiB line from 40 KB), refused at the 32 MiB limit
        gzip.compress(b"# fitsub-links 1\n" + b"a" * (40 * 2**20), compresslevel=1),
    ],
    ids=["not-gzip", "other-format", "no-language", "other-language", "bomb"],
)
def test_corrupt_foreign_or_other_language_links_are_one_line_exit_2(
    tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_checkpoint(tmp_path)
    (model / LINKS_FILE).write_bytes(data)
    assert_refused_in_one_line(tmp_path, model, LINKS_FILE, capsys)


def test_a_model_without_links_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tiny_checkpoint(tmp_path)
    srt = tmp_path / "toy.srt"
    srt.write_text(TOY_SRT, "utf-8")
    assert run(["translate", str(srt), "--model", str(model), "--table-format", "tsv"]) == 0
    assert capsys.readouterr().err.count(f"no {LINKS_FILE}") == 1
    (model / LINKS_FILE).write_bytes(links_bytes({}, ["the"], language="it", source="test"))
    assert run(["translate", str(srt), "--model", str(model), "--table-format", "tsv"]) == 0
    assert LINKS_FILE not in capsys.readouterr().err
