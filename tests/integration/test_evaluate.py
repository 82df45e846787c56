"""Evaluation over settings with a deterministic test double backend (defined here, tests only)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
import sacrebleu

from fitsub.backend import Candidate, Request
from fitsub.budget import Limits
from fitsub.errors import InputError
from fitsub.eval.evaluate import (
    ScoreOptions,
    evaluate_hyps,
    evaluate_models,
    sentencepiece_counter,
    translate_all,
)
from fitsub.eval.plots import write_plots
from fitsub.eval.report import bucket_cells, main_cells
from fitsub.eval.settings import Setting, make_settings
from fitsub.eval.testsets import LoadedSet, TestSet, load_testset, parse_testset

SRCS = ["the cat sat on the mat", "hello world", "", "good morning to you all"]
TABLE = {
    "the cat sat on the mat": "il gatto era seduto sul tappeto",  # 31 chars
    "hello world": "ciao mondo",  # 10 chars
    "good morning to you all": "buongiorno a tutti voi",  # 22 chars
}
REFS = ["il gatto sedeva sul tappeto", "ciao mondo", "niente", "buongiorno a tutti"]


class DictBackend:
    """Translates by a fixed table. A soft length drops words until the text fits; a hard
    budget cuts characters. Records every batch it is sent."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "dict"

    def __init__(self) -> None:
        self.batches: list[list[Request]] = []

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        self.batches.append(list(requests))
        out = []
        for req in requests:
            text = TABLE[req.text]
            if req.max_chars is not None:
                text = text[: req.max_chars].rstrip()
            elif req.target_chars is not None:
                words = text.split()
                while len(words) > 1 and len(" ".join(words)) > req.target_chars:
                    words.pop()
                text = " ".join(words)
            out.append([Candidate(text, score=-1.0)])
        return out


def loaded() -> LoadedSet:
    return LoadedSet("toy", refs=list(REFS), srcs=list(SRCS))


def write(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# --- settings --------------------------------------------------------------------------------


def test_settings_combine_modes_ratios_and_models() -> None:
    settings = make_settings(["unconstrained", "length", "hard"], [1.0, 0.9], [Path("m")])
    assert [s.name for s in settings] == [
        "unconstrained@1",
        "unconstrained@0.9",
        "length@1",
        "length@0.9",
        "hard@1",
        "hard@0.9",
    ]
    two = make_settings(["length"], [0.9], [Path("a/tok"), Path("b/ldpe")])
    assert [s.name for s in two] == ["tok/length@0.9", "ldpe/length@0.9"]
    assert two[1].model_dir == Path("b/ldpe")


def test_bad_settings_are_input_errors() -> None:
    with pytest.raises(InputError, match="unknown setting 'short'"):
        make_settings(["short"], [1.0], [])
    with pytest.raises(InputError, match="ratio must be positive"):
        make_settings(["length"], [0.0], [])


def test_requests_carry_the_requested_length_in_chars() -> None:
    src = "good morning to you all"  # 23 chars: floor(0.9 * 23) = 20
    assert Setting("u", "unconstrained", 0.9).request(src) == Request(src)  # left free
    assert Setting("l", "length", 0.9).request(src) == Request(src, target_chars=20, lexicon=True)
    assert Setting("h", "hard", 0.9).request(src) == Request(src, 20, 20, lexicon=True)


def test_parse_testset_prefix() -> None:
    ts = parse_testset("flores=data/flores200-devtest", "en", "it")
    assert ts == TestSet(
        "flores", ref=Path("data/flores200-devtest.it"), src=Path("data/flores200-devtest.en")
    )
    with pytest.raises(InputError, match="NAME=PREFIX"):
        parse_testset("flores", "en", "it")


# --- translating -----------------------------------------------------------------------------


def test_translate_all_streams_batches_and_skips_empty_sources() -> None:
    backend = DictBackend()
    seen: list[tuple[str, int, int]] = []
    outs = translate_all(
        backend,
        Setting("hard@0.9", "hard", 0.9),
        SRCS,
        batch_size=2,
        progress=lambda label, done, total: seen.append((label, done, total)),
    )
    # Budgets floor(0.9 × 22, 11, 0, 23) = 19, 9, 0, 20 characters.
    assert outs == ["il gatto era seduto", "ciao mond", "", "buongiorno a tutti v"]
    assert [len(b) for b in backend.batches] == [2, 1]  # the empty source is not sent
    assert seen == [("hard@0.9", 2, 4), ("hard@0.9", 4, 4)]


def test_evaluate_models_scores_every_setting_by_hand() -> None:
    backend = DictBackend()
    settings = make_settings(["unconstrained", "length", "hard"], [1.0, 0.9], [Path("toy-model")])
    opened: list[Path | None] = []

    def open_backend(d: Path | None) -> DictBackend:
        opened.append(d)
        return backend

    report = evaluate_models([loaded()], settings, open_backend, batch_size=8)
    assert opened == [Path("toy-model")]  # one model, loaded once
    # Unconstrained is translated once and scored under both ratios; length and hard twice.
    assert len(backend.batches) == 5
    rows = {r.setting.name: r.metrics for r in report.rows}
    assert list(rows) == [
        "unconstrained@1",
        "unconstrained@0.9",
        "length@1",
        "length@0.9",
        "hard@1",
        "hard@0.9",
    ]

    unc = rows["unconstrained@1"]
    outs = ["il gatto era seduto sul tappeto", "ciao mondo", "", "buongiorno a tutti voi"]
    assert unc.bleu is not None
    assert unc.bleu.score == pytest.approx(sacrebleu.corpus_bleu(outs, [REFS]).score)
    # fit at 1.0: 31 > 22; 10 <= 11; 0 <= 0; 22 <= 23.
    assert unc.fit is not None and (unc.fit.passed, unc.fit.n) == (3, 4)
    # LC: 26 vs 17 chars without spaces fails; 10-char and empty sources comply; 19 vs 19.
    assert unc.lc is not None and unc.lc.passed == 3
    # LR src over non-empty sources: 31/22, 10/11, 22/23.
    assert unc.lr_src_chars is not None
    assert unc.lr_src_chars.mean == pytest.approx((31 / 22 + 10 / 11 + 22 / 23) / 3)
    assert unc.lr_src_chars.skipped == 1
    # VAR vs requested at 1.0: (31-22)^2 + (10-11)^2 + 0 + (22-23)^2 = 83, over 4.
    assert unc.var_requested is not None and unc.var_requested.value == pytest.approx(83 / 4)

    # Requested at 0.9: 19, 9, 0, 20. The double's soft mode drops words: 19, 4, 0, 18.
    soft = rows["length@0.9"]
    assert soft.var_requested is not None
    assert soft.var_requested.value == pytest.approx((0 + 25 + 0 + 4) / 4)
    assert soft.fit is not None and soft.fit.passed == 4
    # Its hard mode cuts characters: exactly 19, 9, 0, 20.
    hard = rows["hard@0.9"]
    assert hard.fit is not None and hard.fit.rate == pytest.approx(1.0)
    assert hard.var_requested is not None and hard.var_requested.value == 0.0
    assert rows["unconstrained@0.9"].fit is not None
    # At 0.9 only the empty output fits: 31 > 19, 10 > 9, 22 > 20.
    assert rows["unconstrained@0.9"].fit.passed == 1


def test_evaluate_models_needs_a_source() -> None:
    with pytest.raises(InputError, match="no source"):
        evaluate_models(
            [LoadedSet("x", refs=["a"])],
            make_settings(["length"], [1.0], []),
            lambda d: DictBackend(),
        )


def test_quality_only_leaves_length_metrics_out() -> None:
    report = evaluate_models(
        [loaded()],
        make_settings(["unconstrained"], [1.0], []),
        lambda d: DictBackend(),
        ScoreOptions(lengths=False),
    )
    m = report.rows[0].metrics
    assert m.bleu is not None and m.lc is None and m.lr_ref_chars is None
    headers, _ = main_cells(report)
    assert "BLEU" in headers and "LC %" not in headers


# --- reading test sets -----------------------------------------------------------------------


def test_load_testset_aligns_and_truncates(tmp_path: Path) -> None:
    src = write(tmp_path / "t.en", SRCS)
    ref = write(tmp_path / "t.it", REFS)
    data = load_testset(TestSet("t", ref=ref, src=src), max_segments=2)
    assert data.srcs == SRCS[:2] and data.refs == REFS[:2]


def test_line_count_mismatch_names_both_files(tmp_path: Path) -> None:
    src = write(tmp_path / "t.en", SRCS)
    ref = write(tmp_path / "t.it", REFS[:3])
    with pytest.raises(InputError) as err:
        load_testset(TestSet("t", ref=ref, src=src))
    assert str(src) in err.value.message and str(ref) in err.value.message
    assert "4 lines" in err.value.message and "has 3" in err.value.message


def test_missing_and_undecodable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_testset(TestSet("t", ref=tmp_path / "missing.it"))
    bad = tmp_path / "bad.it"
    bad.write_bytes(b"ok\n\xff\xfe broken\n")
    with pytest.raises(InputError) as err:
        load_testset(TestSet("t", ref=bad))
    assert err.value.line == 2


# --- scoring given outputs, reports, plots ---------------------------------------------------


def test_evaluate_hyps_one_row_per_ratio() -> None:
    data = LoadedSet("toy", refs=REFS, srcs=SRCS, hyps=["x"] * 4)
    assert [r.setting.name for r in evaluate_hyps([data], [0.9]).rows] == ["hyp"]
    rows = evaluate_hyps([data], [1.0, 0.5]).rows
    assert [r.setting.name for r in rows] == ["hyp@1", "hyp@0.5"]
    # "x" (1 char) fits floor(0.5 * 11) = 5 but not floor(0.5 * 0) = 0 for the empty source.
    assert rows[1].metrics.fit is not None and rows[1].metrics.fit.passed == 3


def test_subtitle_compliance_of_given_cues() -> None:
    cues = [("una riga\ndue righe", 2000), ("x" * 50, 10000)]
    data = LoadedSet(
        "subs",
        refs=["una riga due righe", "y"],
        hyps=["una riga due righe", "x" * 50],
        hyp_cues=cues,
    )
    options = ScoreOptions(limits=Limits(cpl=42, lines=2, cps=17.0))
    sub = evaluate_hyps([data], [1.0], options).rows[0].metrics.subtitle
    assert sub is not None
    assert (sub.cpl.passed, sub.lines.passed, sub.cps.passed) == (1, 2, 2)


def test_json_and_markdown_reports() -> None:
    report = evaluate_models(
        [loaded()], make_settings(["unconstrained", "length"], [1.0], []), lambda d: DictBackend()
    )
    data = json.loads(report.to_json())
    assert [r["setting"] for r in data["rows"]] == ["unconstrained@1", "length@1"]
    bleu = data["rows"][0]["metrics"]["bleu"]
    assert bleu["score"] == pytest.approx(report.rows[0].metrics.bleu.score)  # type: ignore[union-attr]
    assert bleu["signature"].startswith("nrefs:1|case:mixed")
    md = report.to_markdown()
    assert md.startswith("| setting | n | BLEU | BLEU* | chrF | LR src | LR ref |")
    assert "| unconstrained@1 | 4 |" in md
    assert "Oka et al. 2020" in md and "BLEU: nrefs:1" in md
    headers, rows = bucket_cells(report)
    assert headers[1] == "1-10 (4)"  # every reference has at most 10 tokens
    assert rows[0][2] == "–"  # empty bucket


def test_plots_are_png_files(tmp_path: Path) -> None:
    report = evaluate_models(
        [loaded()], make_settings(["unconstrained", "hard"], [0.9], []), lambda d: DictBackend()
    )
    paths = write_plots(report, tmp_path / "plots")
    assert sorted(p.name for p in paths) == ["bleu_vs_lc.png", "ratios.png"]
    for p in paths:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) > 5000


def test_sentencepiece_counter_counts_pieces(tmp_path: Path) -> None:
    import sentencepiece as spm

    corpus = tmp_path / "corpus.txt"
    write(corpus, ["the cat sat on the mat", "a dog and a cat", "hello world"] * 20)
    spm.SentencePieceTrainer.train(
        input=str(corpus),
        model_prefix=str(tmp_path / "spm"),
        vocab_size=20,
        model_type="unigram",
        minloglevel=2,
    )
    count = sentencepiece_counter(tmp_path)
    assert count is not None
    proc = spm.SentencePieceProcessor(model_file=str(tmp_path / "spm.model"))
    assert count("the cat") == len(proc.encode("the cat")) > 0
    assert count("") == 0
    assert count("the cat the cat") == 2 * count("the cat")
    assert sentencepiece_counter(tmp_path / "nothing") is None


class EchoBackend:
    """Returns the source itself, cut to the hard budget when there is one."""

    lexicon = links = None  # no word resources (TranslationBackend.lexicon, .links)

    name = "echo"

    def translate(self, requests: Sequence[Request], n_best: int = 1) -> list[list[Candidate]]:
        return [[Candidate(r.text[: r.max_chars], -1.0)] for r in requests]


def test_two_thousand_segments_stay_small_in_memory() -> None:
    import tracemalloc

    srcs = [f"sentence number {i} says something rather ordinary" for i in range(2000)]
    data = LoadedSet("big", refs=list(srcs), srcs=srcs)
    settings = make_settings(["unconstrained", "hard"], [0.8], [])
    tracemalloc.start()
    try:
        # Length metrics only: sacrebleu under tracemalloc would make this test slow.
        report = evaluate_models(
            [data], settings, lambda d: EchoBackend(), ScoreOptions(quality=False), batch_size=64
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20  # well under "a few hundred MB beyond the model"
    unc, hard = (r.metrics for r in report.rows)
    assert unc.lr_ref_chars is not None and unc.lr_ref_chars.mean == 1.0
    assert unc.lc is not None and unc.lc.rate == 1.0
    assert hard.fit is not None and hard.fit.rate == 1.0
    assert hard.lr_src_chars is not None and hard.lr_src_chars.mean is not None
    assert hard.lr_src_chars.mean <= 0.8


def test_band_setting_asks_for_both_bounds() -> None:
    from fitsub.eval.settings import Setting

    req = Setting("band@1", "band", 1.0).request("We have a lot of work to do.")  # 28 chars
    assert (req.target_chars, req.max_chars, req.min_chars) == (28, 28, 26)  # ceil(0.9 × 28)
    assert Setting("hard@1", "hard", 1.0).request("abc").min_chars is None


def test_iso_setting_asks_for_the_lc_band_without_spaces() -> None:
    from fitsub.eval.settings import Setting

    req = Setting("iso@1", "iso", 1.0).request("We have a lot of work to do.")  # 21 without spaces
    assert (req.target_chars, req.min_chars, req.max_chars, req.bound_unit) == (
        28,
        19,
        23,
        "char_no_space",
    )
    req = Setting("iso@0.9", "iso", 0.9).request(
        "We have a lot of work to do."
    )  # 18.9 × [0.9, 1.1]
    assert (req.target_chars, req.min_chars, req.max_chars) == (25, 18, 20)
