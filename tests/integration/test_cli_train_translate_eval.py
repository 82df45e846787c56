"""The three main commands chained through the real CLI: `fitsub train` a tiny model on toy
parallel text, `fitsub translate` an SRT with it, `fitsub eval` it (about 30-60 s on one CPU)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from cli_helpers import run

from fitsub.formats import read_document
from fitsub.units import char_length

WORDS = "cat dog house red blue big small runs eats sees the a man woman child tree car book"

SRT = """1
00:00:01,000 --> 00:00:03,500
the man sees a red car

2
00:00:04,000 --> 00:00:06,000
- the dog runs
- a cat eats

3
00:00:07,000 --> 00:00:09,250
the small child
"""


def toy_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """A made-up pair: each English word becomes its reverse plus `o` (`cat` → `taco`)."""
    rng = random.Random(seed)
    words = WORDS.split()
    src = [" ".join(rng.choices(words, k=rng.randint(2, 6))) for _ in range(n)]
    return src, [" ".join(w[::-1] + "o" for w in s.split()) for s in src]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`fitsub train`: 48 toy pairs, 400 updates of a tiny char-unit LDPE+PE model."""
    d = tmp_path_factory.mktemp("train")
    src, tgt = toy_pairs(48)
    (d / "toy.en").write_text("\n".join(src) + "\n", "utf-8")
    (d / "toy.it").write_text("\n".join(tgt) + "\n", "utf-8")
    out = d / "run"
    code = run(
        ["train", "--out", str(out), "--train", str(d / "toy"), "--src", "en", "--tgt", "it",
         "--method", "ldpe+pe", "--length-unit", "char", "--size", "tiny", "--vocab-size", "60",
         "--max-tokens", "512", "--warmup", "5", "--lr", "3e-3", "--threads", "1",
         "--dev-size", "8", "--bleu-sentences", "4", "--max-steps", "400", "--eval-every", "200",
         "-q"]
    )  # fmt: skip
    assert code == 0
    return out / "best"


@pytest.mark.slow
def test_train_then_translate_an_srt_then_eval(trained: Path, tmp_path: Path) -> None:
    meta = json.loads((trained / "config.json").read_text("utf-8"))
    assert (meta["model"]["method"], meta["model"]["length_unit"]) == ("ldpe+pe", "char")
    assert (meta["model"]["src_lang"], meta["model"]["tgt_lang"]) == ("en", "it")

    # translate: cues, ids and timings kept; every fitted cue within its budget
    src = tmp_path / "talk.srt"
    src.write_text(SRT, "utf-8")
    out, report = tmp_path / "talk.it.srt", tmp_path / "talk.json"
    code = run(
        ["translate", str(src), "--lang", "it", "--model", str(trained),          "--threads", "1", "-o", str(out), "--report", str(report), "-q"]
    )  # fmt: skip
    assert code == 0
    before, after = read_document(src), read_document(out)
    assert len(after.segments) == 3
    assert [s.id for s in after.segments] == ["1", "2", "3"]
    assert [(s.start_ms, s.end_ms) for s in after.segments] == [
        (1000, 3500),
        (4000, 6000),
        (7000, 9250),
    ]
    assert [(s.start_ms, s.end_ms) for s in before.segments] == [
        (s.start_ms, s.end_ms) for s in after.segments
    ]
    dialogue = after.segments[1].text.split("\n")
    assert len(dialogue) == 2 and all(line.startswith("- ") for line in dialogue)
    rows = json.loads(report.read_text("utf-8"))["segments"]
    assert len(rows) == 3
    for row in rows:
        assert row["translated"] and row["fitted"].strip()
        assert char_length(row["fitted"]) == row["fitted_chars"] <= row["budget"]["chars"]
    # the dialogue cue's budget leaves room for its two dashes ("- " each)
    assert rows[1]["budget"]["markup_chars"] == 4

    # eval under the hard budget: BLEU and LC reported, every output fits
    test_src, test_ref = toy_pairs(8, seed=1)
    (tmp_path / "test.en").write_text("\n".join(test_src) + "\n", "utf-8")
    (tmp_path / "test.it").write_text("\n".join(test_ref) + "\n", "utf-8")
    scores = tmp_path / "scores.json"
    code = run(
        ["eval", "--model", str(trained), "--src", str(tmp_path / "test.en"), "--ref",
         str(tmp_path / "test.it"), "--bleu", "--lr", "--settings", "hard", "--ratio", "1.0",
         "--threads", "1", "--json", str(scores), "-q"]
    )  # fmt: skip
    assert code == 0
    result = json.loads(scores.read_text("utf-8"))
    assert [(r["setting"], r["mode"], r["ratio"]) for r in result["rows"]] == [
        ("hard@1", "hard", 1.0)
    ]
    metrics = result["rows"][0]["metrics"]
    assert metrics["n"] == 8
    assert 0.0 < metrics["bleu"]["score"] <= 100.0
    assert metrics["bleu"]["signature"].startswith("nrefs:1|")
    assert 0 <= metrics["lc"]["passed"] <= metrics["lc"]["n"] == 8
    assert metrics["lc"]["rate"] == metrics["lc"]["passed"] / 8
    assert metrics["fit"] == {"rate": 1.0, "passed": 8, "n": 8}
